#!/usr/bin/env bash
# Build the engine of one commit behind a UCI command, once: $SPRT_WORK/bin-<hash>/pibot-uci
# (default ../sprt), from the commit's own tree (git archive), whatever the checkout
# holds. Prints the command's path. For SPRTs (tools/tune/sprt.sh) and variant
# passes (tools/tune/variant_pass.sh) between commits of main.
# usage: tools/tune/build_commit.sh COMMIT
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 COMMIT" >&2; exit 2; }
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(realpath -m "${SPRT_WORK:-$ROOT/../sprt}")
c=$(git -C "$ROOT" rev-parse -q --short=7 --verify "$1^{commit}" 2>/dev/null) || {
    echo "$0: $1: not a commit" >&2; exit 2; }
src=$WORK/src-$c bin=$WORK/bin-$c
if [ ! -x "$bin/pibot-uci" ]; then
    echo "build_commit: building $c into $bin" >&2
    rm -rf "$src" && mkdir -p "$src"
    git -C "$ROOT" archive "$c" | tar -x -C "$src"
    (cd "$src" && sh tools/tune/build_variant.sh "$bin" engine_c/evalparams.h) > "$WORK/build-$c.log" 2>&1 || {
        echo "$0: building $c failed: $WORK/build-$c.log" >&2; exit 1; }
fi
echo "$bin/pibot-uci"
