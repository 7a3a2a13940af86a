#!/usr/bin/env bash
# Variant games in jobs that outlive a session (issue 51's judging pass,
# docs/cpu-queue.md): each job is GAMES games of bench/variant_match.py in one
# variant from one seed; a job's PGN is kept only once it is whole, a job whose
# PGN exists is skipped, and none starts after the deadline, so the same call
# in the next session plays what is left. LANES jobs run at a time, one game a
# lane. tools/tune/variant_pool.py pools a directory per variant.
#
# usage: tools/tune/variant_pass.sh OUTDIR ENGINE OPPONENT OPP_NAME TC GAMES DEADLINE_EPOCH VARIANT:SEED...
#   ENGINE    pibot's UCI command (tools/tune/build_variant.sh or sprt.sh build one per commit)
#   OPPONENT  a UCI engine's command (Fairy-Stockfish), OPP_NAME its name in the PGNs
# env: LANES (2), PLIES (2: the seeded random opening plies), PYTHON (python3)
set -euo pipefail
[ $# -ge 8 ] || { echo "usage: $0 OUTDIR ENGINE OPPONENT OPP_NAME TC GAMES DEADLINE_EPOCH VARIANT:SEED..." >&2; exit 2; }
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$(realpath -m "$1") ENGINE=$2 OPP=$3 OPP_NAME=$4 TC=$5 GAMES=$6 DEADLINE=$7
shift 7
for cmd in "$ENGINE" "$OPP"; do
    [ -x "$cmd" ] || { echo "$0: $cmd is not an executable (an engine's command)" >&2; exit 2; }
done
case $GAMES in ''|*[!0-9]*) echo "$0: GAMES must be a whole number, not '$GAMES'" >&2; exit 2;; esac
case $DEADLINE in ''|*[!0-9]*) echo "$0: DEADLINE_EPOCH must be seconds since the epoch, not '$DEADLINE'" >&2; exit 2;; esac
for job in "$@"; do
    case $job in *:*[0-9]) ;; *) echo "$0: job '$job' is not VARIANT:SEED" >&2; exit 2;; esac
done
mkdir -p "$OUT"
export ROOT OUT ENGINE OPP OPP_NAME TC GAMES DEADLINE PY=${PYTHON:-python3} PLIES=${PLIES:-2}
play() {
    local variant=${1%%:*} seed=${1##*:}
    local pgn=$OUT/$variant-$seed.pgn
    [ -e "$pgn" ] && { echo "$(date -u +%T) $1: done before, skipped"; return 0; }
    [ "$(date +%s)" -lt "$DEADLINE" ] || { echo "$(date -u +%T) $1: deadline, not started"; return 0; }
    echo "$(date -u +%T) $1: start"
    rm -f "$pgn.part"
    if "$PY" "$ROOT/bench/variant_match.py" --variant "$variant" --engine "$ENGINE" \
            --opponent "$OPP" --opp-name "$OPP_NAME" --games "$GAMES" --tc "$TC" \
            --random-plies "$PLIES" --seed "$seed" --pgn "$pgn.part" > "$OUT/$variant-$seed.log" 2>&1; then
        mv "$pgn.part" "$pgn"
        echo "$(date -u +%T) $1: $(tail -1 "$OUT/$variant-$seed.log")"
    else
        echo "$(date -u +%T) $1: failed (its log: $OUT/$variant-$seed.log)"
    fi
}
export -f play
# shellcheck disable=SC2016  # "$1" is the inner shell's argument
printf '%s\n' "$@" | xargs -P "${LANES:-2}" -I{} bash -c 'play "$1"' _ {}
