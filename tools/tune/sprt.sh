#!/usr/bin/env bash
# An SPRT of one commit's engine against another's at a real clock, resumable
# across sessions (docs/cpu-queue.md, "Issue 50"): fastchess saves its state
# (config.json: the engines, the options, the pentanomial counts) when it is
# stopped with SIGINT, and that state is kept in the repository, since a
# session's scratch files do not outlive it.
#
# usage: tools/tune/sprt.sh NAME NEW BASE [DEADLINE_EPOCH]
#   NAME      the run: its state lives in docs/matches/sprt/NAME/
#   NEW BASE  commits (any name git knows); each is built once into
#             $SPRT_WORK/bin-<hash>/pibot-uci (default ../sprt; build_commit.sh)
#   DEADLINE  seconds since the epoch: the run is stopped with SIGINT then and
#             its state saved; without it, it runs to its verdict
# env: TC (8+0.08), ELO0 ELO1 (0 10, fastchess's normalized Elo), HASH (64),
#      CONCURRENCY (2), BOOK (../shared/books/8moves_v3.pgn), FASTCHESS
#      (../shared/tools/fastchess). Run it on a quiet machine: it is timed work.
set -euo pipefail
[ $# -eq 3 ] || [ $# -eq 4 ] || {
    echo "usage: $0 NAME NEW BASE [DEADLINE_EPOCH]" >&2; exit 2; }
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
NAME=$1 DEADLINE=${4:-}
case $NAME in *[!A-Za-z0-9._-]*|"") echo "$0: NAME must be letters, digits, . _ -" >&2; exit 2;; esac
WORK=$(realpath -m "${SPRT_WORK:-$ROOT/../sprt}")
STATE=$ROOT/docs/matches/sprt/$NAME
FASTCHESS=${FASTCHESS:-$ROOT/../shared/tools/fastchess}
BOOK=$(realpath -m "${BOOK:-$ROOT/../shared/books/8moves_v3.pgn}")
for f in "$FASTCHESS" "$BOOK"; do
    [ -e "$f" ] || { echo "$0: $f: not found (../shared beside the checkout, or set FASTCHESS/BOOK)" >&2; exit 2; }
done
NEW=$(git -C "$ROOT" rev-parse -q --short=7 --verify "$2^{commit}" 2>/dev/null) || { echo "$0: $2: not a commit" >&2; exit 2; }
BASE=$(git -C "$ROOT" rev-parse -q --short=7 --verify "$3^{commit}" 2>/dev/null) || { echo "$0: $3: not a commit" >&2; exit 2; }

mkdir -p "$WORK/$NAME" "$STATE"
if [ -f "$STATE/run.txt" ] && ! grep -qx "new $NEW" "$STATE/run.txt"; then
    echo "$0: docs/matches/sprt/$NAME is a run of $(head -1 "$STATE/run.txt"), not new $NEW: choose another NAME" >&2
    exit 2
fi
NEW_CMD=$("$ROOT/tools/tune/build_commit.sh" "$NEW")
BASE_CMD=$("$ROOT/tools/tune/build_commit.sh" "$BASE")

cd "$WORK/$NAME"
if [ -f "$STATE/config.json" ]; then
    echo "sprt: $NAME resumes from docs/matches/sprt/$NAME/config.json"
    cp "$STATE/config.json" config.json
    args=(-config file=config.json)
else
    args=(-engine "cmd=$NEW_CMD" name="new-$NEW"
          -engine "cmd=$BASE_CMD" name="base-$BASE"
          -each "tc=${TC:-8+0.08}" "option.Hash=${HASH:-64}" option.Threads=1
          -openings "file=$BOOK" format=pgn order=random
          -games 2 -repeat -rounds 20000 -concurrency "${CONCURRENCY:-2}"
          -sprt "elo0=${ELO0:-0}" "elo1=${ELO1:-10}" alpha=0.05 beta=0.05
          -pgnout file=sprt.pgn)
fi
limit=()
if [ -n "$DEADLINE" ]; then
    left=$((DEADLINE - $(date +%s)))
    [ "$left" -gt 60 ] || { echo "sprt: deadline is past or within a minute; not started"; exit 0; }
    limit=(timeout -s INT -k 120 "$left")   # SIGINT: fastchess saves config.json
fi
rc=0
"${limit[@]}" "$FASTCHESS" "${args[@]}" 2>&1 | tee -a run.log || rc=$?
# keep the state and the record in the repository
[ -f config.json ] && cp config.json "$STATE/config.json"
# this call's games (a later session's call starts a fresh sprt.pgn)
[ -s sprt.pgn ] && gzip -9c sprt.pgn > "$STATE/games-$(date -u +%Y%m%d-%H%M).pgn.gz" && rm sprt.pgn
grep -E "^(Results of|Elo:|LLR:|Games:|Ptnml)" run.log | tail -5 > "$STATE/last-status.txt" || true
printf 'new %s\nbase %s\ntc %s\nbounds [%s, %s] normalized\n' "$NEW" "$BASE" \
    "${TC:-8+0.08}" "${ELO0:-0}" "${ELO1:-10}" > "$STATE/run.txt"
echo "sprt: $NAME state kept in docs/matches/sprt/$NAME (fastchess exit $rc)"
