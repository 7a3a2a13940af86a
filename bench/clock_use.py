"""How two UCI engines spend their clock at a time control.

Plays a few games between A and B (colours alternating, 8moves_v3-style PGN
openings or the start position) under a real clock, and prints for each engine
the mean think time per move and the mean clock left after moves 20, 40 and 60:
the figures behind a time-management change (docs/strength.md).

    python bench/clock_use.py --a "pibot uci" --b /usr/games/ethereal-chess \\
        --tc 10+0.1 --games 4 --book ../shared/books/8moves_v3.pgn
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import sys
import time
from pathlib import Path

import chess
import chess.engine
import chess.pgn

CHECKPOINTS = (20, 40, 60)


def openings(book: Path | None, count: int) -> list[list[chess.Move]]:
    if book is None:
        return [[]] * count
    lines: list[list[chess.Move]] = []
    with book.open() as fh:
        while len(lines) < count:
            game = chess.pgn.read_game(fh)
            if game is None:
                break
            lines.append(list(game.mainline_moves()))
    return lines or [[]]


def play(engines: dict[bool, chess.engine.SimpleEngine], opening: list[chess.Move],
         base: float, inc: float, names: dict[bool, str],
         think: dict[str, list[float]], left: dict[str, dict[int, list[float]]]) -> str:
    board = chess.Board()
    for m in opening:
        board.push(m)
    clocks = {chess.WHITE: base, chess.BLACK: base}
    moves = {chess.WHITE: 0, chess.BLACK: 0}
    while not board.is_game_over(claim_draw=True) and board.ply() < 400:
        side = board.turn
        limit = chess.engine.Limit(white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK],
                                   white_inc=inc, black_inc=inc)
        t0 = time.monotonic()
        res = engines[side].play(board, limit)
        assert res.move is not None, f"{names[side]} gave no move"
        used = time.monotonic() - t0
        clocks[side] -= used
        if clocks[side] < 0:
            return f"{names[side]} lost on time"
        clocks[side] += inc
        think[names[side]].append(used)
        moves[side] += 1
        if moves[side] in CHECKPOINTS:
            left[names[side]][moves[side]].append(clocks[side])
        board.push(res.move)
    return board.result(claim_draw=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--a", required=True, help="UCI command of engine A")
    ap.add_argument("--b", required=True, help="UCI command of engine B")
    ap.add_argument("--tc", default="10+0.1", help="BASE+INC in seconds")
    ap.add_argument("--games", type=int, default=4)
    ap.add_argument("--book", type=Path, help="PGN of openings (one game each)")
    ap.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                    help="UCI option for both engines (default Threads=1 Hash=64)")
    args = ap.parse_args(argv)
    base_s, _, inc_s = args.tc.partition("+")
    base, inc = float(base_s), float(inc_s or 0)
    opts: dict[str, str | int] = {"Threads": 1, "Hash": 64}
    for o in args.option:
        k, _, v = o.partition("=")
        opts[k] = int(v) if v.isdigit() else v
    names = {"A": args.a, "B": args.b}
    think: dict[str, list[float]] = {"A": [], "B": []}
    left: dict[str, dict[int, list[float]]] = {n: {c: [] for c in CHECKPOINTS} for n in names}
    for g, opening in enumerate(openings(args.book, (args.games + 1) // 2) * 2):
        if g >= args.games:
            break
        engs = {n: chess.engine.SimpleEngine.popen_uci(shlex.split(cmd))
                for n, cmd in names.items()}
        try:
            for e in engs.values():
                e.configure({k: v for k, v in opts.items() if k in e.options})
            white, black = ("A", "B") if g % 2 == 0 else ("B", "A")
            result = play({chess.WHITE: engs[white], chess.BLACK: engs[black]}, opening, base, inc,
                          {chess.WHITE: white, chess.BLACK: black}, think, left)
        finally:
            for e in engs.values():
                e.quit()
        print(f"game {g + 1}: A {'white' if white == 'A' else 'black'}: {result}", flush=True)
    for n, cmd in names.items():
        cps = "  ".join(f"after move {c}: {statistics.mean(v):5.2f} s ({len(v)})"
                        for c, v in left[n].items() if v)
        mean_ms = statistics.mean(think[n]) * 1000
        print(f"{n} {cmd}: {len(think[n])} moves, {mean_ms:.0f} ms a move; clock left {cps}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
