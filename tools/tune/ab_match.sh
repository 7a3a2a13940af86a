#!/bin/sh
# Fixed-node eval match between two weight files, without touching the tree:
# builds tune_match in a scratch copy of engine_c/ with NEW as evalparams.h
# (engine A) and OLD compiled in as engine B, then plays GAMES games (each
# opening with both colours) at NODES nodes per move.
# usage: tools/tune/ab_match.sh NEW.h OLD.h OPENINGS [GAMES] [NODES] [FIRST]
set -eu
[ $# -ge 3 ] || { echo "usage: $0 NEW.h OLD.h OPENINGS [GAMES] [NODES] [FIRST]" >&2; exit 2; }
NEW=$(realpath "$1"); OLD=$(realpath "$2"); OPEN=$(realpath "$3")
GAMES=${4:-200}; NODES=${5:-5000}; FIRST=${6:-30000}
SRC="$(cd "$(dirname "$0")/../../engine_c" && pwd)"
WORK=$(mktemp -d /tmp/pibot-ab.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/tools"
cp "$SRC"/attacks.c "$SRC"/board.c "$SRC"/movegen.c "$SRC"/eval.c "$SRC"/*.h "$WORK/"
cp "$SRC"/tools/tune_match.c "$SRC"/tools/tune_minisearch.h "$WORK/tools/"
cp "$NEW" "$WORK/evalparams.h"
cd "$WORK"
${CC:-cc} -std=c11 -O3 -D_GNU_SOURCE -DNDEBUG -DTUNE_OLD_PARAMS="\"$OLD\"" -o tune_match \
    tools/tune_match.c attacks.c board.c movegen.c eval.c -lm
./tune_match "$OPEN" --first "$FIRST" --games "$GAMES" --nodes "$NODES"
