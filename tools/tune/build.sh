#!/bin/sh
# Build the Texel tuner against the engine core and the evaluation only, so it
# builds even while search files change (the NNUE too: the net is the base of
# the variants on chess's net). Output: engine_c/out/tune/tune
# (reads the position records of engine_c/tools/datagen.c, writes an
# evalparams.h, or with --variant NAME a variant_params.h; docs/tuning.md). The data generator itself needs the whole
# engine: `make -C engine_c out/auto/datagen`.
# usage: tools/tune/build.sh
set -eu
cd "$(dirname "$0")/../../engine_c"
mkdir -p out/tune
CC=${CC:-cc}
CFLAGS="-std=c11 -O3 -Wall -Wextra -Wno-unused-parameter -D_GNU_SOURCE -DNDEBUG"
# The built-in net (nnue_embed.c's .incbin), the base of the variants on chess's
# net (tune --variant ... --base net); the engine is built for its width.
NET=$(pwd)/nets/default.pbnn
HIDDEN=$(od -An -tu4 -j16 -N4 "$NET" | tr -d ' ')
# shellcheck disable=SC2086  # CC and CFLAGS are words to split
$CC $CFLAGS -DPB_NNUE_FILE="\"$NET\"" -DPB_NNUE_HIDDEN="$HIDDEN" -o out/tune/tune.new tools/tune.c \
    attacks.c board.c movegen.c movegen_variant.c variant.c eval.c variant_eval.c nnue.c nnue_embed.c \
    -lm -lpthread
mv out/tune/tune.new out/tune/tune
echo "built: engine_c/out/tune/tune"
