#!/bin/sh
# Build the tuning tools against the engine core and the evaluation only, so
# they build even while search files change. Output: engine_c/out/tune/
#   tune_datagen  self-play positions labelled with results
#   tune          Texel tuner (writes evalparams.h)
#   tune_match    fixed-node match: current weights vs OLD_HEADER (if given)
# usage: tools/tune/build.sh [OLD_HEADER]   (e.g. a saved copy of evalparams.h)
set -eu
cd "$(dirname "$0")/../../engine_c"
mkdir -p out/tune
CC=${CC:-cc}
CFLAGS="-std=c11 -O3 -Wall -Wextra -Wno-unused-parameter -D_GNU_SOURCE -DNDEBUG"
SRCS="attacks.c board.c movegen.c eval.c"
for t in tune_datagen tune; do
    $CC $CFLAGS -o "out/tune/$t.new" "tools/$t.c" $SRCS -lm && mv "out/tune/$t.new" "out/tune/$t"
done
OLD=""
if [ $# -ge 1 ]; then
    OLD="-DTUNE_OLD_PARAMS=\"$(realpath "$1")\""
fi
eval $CC $CFLAGS $OLD -o out/tune/tune_match.new tools/tune_match.c $SRCS -lm
mv out/tune/tune_match.new out/tune/tune_match
echo "built: $(ls out/tune | tr '\n' ' ')"
