#!/bin/sh
# Build the tuning tools (data generation + Texel tuner) against the engine
# core and the evaluation only, so they build even while search files change.
# Output: engine_c/out/tune/{tune_datagen,tune}
set -eu
cd "$(dirname "$0")/../../engine_c"
mkdir -p out/tune
CC=${CC:-cc}
CFLAGS="-std=c11 -O3 -Wall -Wextra -Wno-unused-parameter -D_GNU_SOURCE -DNDEBUG"
SRCS="attacks.c board.c movegen.c eval.c"
for t in tune_datagen tune; do
    [ -f "tools/$t.c" ] && $CC $CFLAGS -o "out/tune/$t" "tools/$t.c" $SRCS -lm
done
echo "built: $(ls out/tune | tr '\n' ' ')"
