#!/bin/sh
# The fixed-node gauntlet that judges a net outside self-play (docs/strength.md
# "Round 4: the first net from the store"): one build of pibot-uci with the
# net NET at 20,000 nodes a move against Ethereal 12.00 at depth 10 (restarted
# every game), 300 openings of 8moves_v3 with both colours. Fixed nodes and
# fixed depth make it independent of the machine's load; the opening seed
# picks the openings, so two nets on one build and one seed pair game by game
# (tools/tune/paired_score.py NEW.pgn OLD.pgn --name pibot).
# usage: [ROUNDS=300] tools/tune/net_gauntlet.sh PIBOT-UCI NET.pbnn OUT.pgn [SEED (11)]
# Environment: ETHEREAL, FASTCHESS and OPENINGS (the 8moves_v3.pgn book) name the
# tools; by default they come from the Debian package and from shared/ beside the
# checkout (or beside its worktree's parent).
set -eu
[ $# -eq 3 ] || [ $# -eq 4 ] || { echo "usage: $0 PIBOT-UCI NET.pbnn OUT.pgn [SEED]" >&2; exit 2; }
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
SHARED="$ROOT/../shared"
[ -d "$SHARED" ] || [ ! -d "$ROOT/../../shared" ] || SHARED="$ROOT/../../shared"
ETHEREAL="${ETHEREAL:-$(command -v ethereal-chess || echo /usr/games/ethereal-chess)}"
FASTCHESS="${FASTCHESS:-$SHARED/tools/fastchess}"
OPENINGS="${OPENINGS:-$SHARED/books/8moves_v3.pgn}"
# The arguments first, then the tools: a wrong argument is named on any machine.
[ -x "$1" ] || { echo "$0: $1 is not an executable (build one: tools/tune/build_variant.sh)" >&2; exit 2; }
[ -f "$2" ] || { echo "$0: no net at $2" >&2; exit 2; }
[ -x "$ETHEREAL" ] || { echo "$0: no Ethereal at $ETHEREAL (apt-get install ethereal-chess)" >&2; exit 2; }
[ -x "$FASTCHESS" ] || { echo "$0: no fastchess at $FASTCHESS (set FASTCHESS)" >&2; exit 2; }
[ -f "$OPENINGS" ] || { echo "$0: no openings at $OPENINGS (8moves_v3.pgn; set OPENINGS)" >&2; exit 2; }
UCI=$(realpath "$1"); NET=$(realpath "$2"); OUT=$(realpath -m "$3")
# fastchess leaves its config.json in the working directory: keep it beside the PGN
mkdir -p "$(dirname "$OUT")"; cd "$(dirname "$OUT")"
exec "$FASTCHESS" \
    -engine cmd="$UCI" name=pibot option.EvalFile="$NET" nodes=20000 \
    -engine cmd="$ETHEREAL" name=ethereal depth=10 restart=on \
    -each tc=inf option.Hash=16 option.Threads=1 \
    -openings file="$OPENINGS" format=pgn order=random -srand "${4:-11}" \
    -games 2 -repeat -rounds "${ROUNDS:-300}" -concurrency 1 -pgnout file="$OUT"
