"""Labelled positions for Texel tuning from self-play of the real engine.

Plays the pibot engine (the C search through cffi, one thread, fixed nodes
per move) against itself from opening FENs (tools/tune/book_fens.py), and
writes the quiet positions of every game labelled with the final result,
White's view, in the tuner's format:   <FEN> | 1.0   (1.0 / 0.5 / 0.0).
Quiet = side to move not in check and the engine's chosen move is neither a
capture nor a promotion (the search's own quiescence has looked at every
capture, so a quiet best move means no capture was worth playing). Games
end by the rules, at 400 plies (draw), or by adjudication when the search
score stays beyond +-1000 cp for 8 plies. A fixed node budget makes the
output deterministic for a given engine build.

    python3 tools/datagen.py /tmp/openings.txt /tmp/data_real.txt --first 20000 \\
        --count 2000 --nodes 1500
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from bot.engine import search_bindings as sb
from bot.engine.board import Board

log = logging.getLogger("datagen")

MAX_PLIES = 400
ADJ_CP = 1000
ADJ_PLIES = 8


def occupied_squares(fen: str) -> set[str]:
    occ: set[str] = set()
    for i, row in enumerate(fen.split()[0].split("/")):
        file = 0
        for ch in row:
            if ch.isdigit():
                file += int(ch)
            else:
                occ.add("abcdefgh"[file] + str(8 - i))
                file += 1
    return occ


def is_noisy(fen: str, move: str) -> bool:
    """Capture (incl. en passant) or promotion, from the FEN alone."""
    if len(move) == 5:
        return True
    parts = fen.split()
    return move[2:4] in occupied_squares(fen) or move[2:4] == parts[3]


def limits(nodes: int) -> sb.RawLimits:
    return sb.RawLimits(wtime=-1, btime=-1, winc=-1, binc=-1, movestogo=0, movetime=-1,
                        depth=0, nodes=nodes, infinite=False, ponder=False)


def play_game(engine: object, start_fen: str, nodes: int) -> tuple[str, list[str]]:
    """Returns (result label, quiet FENs)."""
    sb.clear(engine)
    board = Board(start_fen)
    moves: list[str] = []
    quiet: list[str] = []
    streak, sign = 0, 0
    while True:
        status = board.status()
        if status == "checkmate":
            return ("0.0" if board.turn == "white" else "1.0"), quiet
        if status != "ongoing" or len(moves) >= MAX_PLIES:
            return "0.5", quiet
        sb.set_position(engine, start_fen, moves, False)
        res = sb.search(engine, limits(nodes))
        fen, move = board.fen(), res["bestmove"]
        cp = res["score_cp"] if not res["is_mate"] else (ADJ_CP * 10 if res["mate"] > 0
                                                          else -ADJ_CP * 10)
        if not board.is_check() and not is_noisy(fen, move) and abs(cp) < ADJ_CP:
            quiet.append(fen)
        white_cp = cp if board.turn == "white" else -cp
        s = 1 if white_cp >= ADJ_CP else -1 if white_cp <= -ADJ_CP else 0
        streak = streak + 1 if s != 0 and s == sign else int(s != 0)
        sign = s
        if streak >= ADJ_PLIES:
            return ("1.0" if s > 0 else "0.0"), quiet
        board.push_uci(move)
        moves.append(move)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("openings", type=Path, help="FEN per line (tools/tune/book_fens.py)")
    ap.add_argument("out", type=Path, help="output file (appended)")
    ap.add_argument("--first", type=int, default=0, help="skip this many openings")
    ap.add_argument("--count", type=int, default=100, help="games to play")
    ap.add_argument("--nodes", type=int, default=1500, help="nodes per move")
    ap.add_argument("--hash", type=int, default=16, help="hash size in MB")
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    if not args.openings.is_file():
        ap.error(f"openings file {args.openings} not found; make it with tools/tune/book_fens.py")
    fens = args.openings.read_text().splitlines()[args.first:args.first + args.count]
    engine = sb.engine_new(args.hash, 1)
    tally = {"1.0": 0, "0.5": 0, "0.0": 0}
    positions = 0
    with args.out.open("a") as out:
        for n, fen in enumerate(fens, 1):
            result, quiet = play_game(engine, fen, args.nodes)
            out.writelines(f"{q} | {result}\n" for q in quiet)
            out.flush()
            tally[result] += 1
            positions += len(quiet)
            if n % 25 == 0 or n == len(fens):
                log.info("games %d positions %d (+%d =%d -%d)", n, positions, tally["1.0"],
                         tally["0.5"], tally["0.0"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
