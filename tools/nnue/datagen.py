"""NNUE training data from pibot's own self-play: FEN | score | result.

Each game starts from an opening FEN (tools/tune/book_fens.py) followed by a
number of uniformly random legal plies drawn from a generator seeded with
(seed, game index), so the same arguments always give the same file. The
real engine (C search through cffi, one thread, fixed nodes per move, hash
cleared per game) then plays itself. Written per position, one line each:

    <FEN> | <score> | <result>

score = the search score in centipawns from WHITE's view (as in bullet's
text format); result = the game result from White's view, 1.0 / 0.5 / 0.0.
Kept positions: side to move not in check, the engine's move neither a
capture nor a promotion, the score not a mate score and |score| < 1000 cp.
Games end by the rules, at 400 plies (draw), or by adjudication (|score| >=
1000 cp for 8 plies), as in tools/datagen.py.

    nice -n 19 python3 tools/nnue/datagen.py /tmp/openings.txt /tmp/nnue/data1.txt \\
        --first 0 --count 20000 --nodes 5000 --random-plies 4 --seed 1

With --eval-file NET.pbnn (an engine built with NNUE) the search uses that net:
the second round of bootstrapping, data labelled by the first net.
"""

from __future__ import annotations

import argparse
import logging
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from datagen import ADJ_CP, ADJ_PLIES, MAX_PLIES, is_noisy, limits  # noqa: E402

from bot.engine import search_bindings as sb  # noqa: E402
from bot.engine.board import Board  # noqa: E402
from bot.engine.exceptions import EngineError  # noqa: E402

log = logging.getLogger("nnue-datagen")


def random_start(fen: str, plies: int, rng: random.Random) -> str | None:
    """The opening followed by `plies` random legal moves; None if the game ended."""
    board = Board(fen)
    for _ in range(plies):
        moves = sorted(board.legal_moves())
        if not moves:
            return None
        board.push_uci(rng.choice(moves))
    return board.fen() if board.status() == "ongoing" else None


def play_game(engine: object, start_fen: str, nodes: int) -> tuple[str, list[tuple[str, int]]]:
    """Returns (result label, [(quiet FEN, White-view score cp)])."""
    sb.clear(engine)
    board = Board(start_fen)
    moves: list[str] = []
    kept: list[tuple[str, int]] = []
    streak, sign = 0, 0
    while True:
        status = board.status()
        if status == "checkmate":
            return ("0.0" if board.turn == "white" else "1.0"), kept
        if status != "ongoing" or len(moves) >= MAX_PLIES:
            return "0.5", kept
        sb.set_position(engine, start_fen, moves, False)
        res = sb.search(engine, limits(nodes))
        fen, move = board.fen(), res["bestmove"]
        if res["is_mate"]:
            cp = ADJ_CP * 10 if res["mate"] > 0 else -ADJ_CP * 10
        else:
            cp = res["score_cp"]
        white_cp = cp if board.turn == "white" else -cp
        if (not res["is_mate"] and abs(cp) < ADJ_CP and not board.is_check()
                and not is_noisy(fen, move)):
            kept.append((fen, white_cp))
        s = 1 if white_cp >= ADJ_CP else -1 if white_cp <= -ADJ_CP else 0
        streak = streak + 1 if s != 0 and s == sign else int(s != 0)
        sign = s
        if streak >= ADJ_PLIES:
            return ("1.0" if s > 0 else "0.0"), kept
        board.push_uci(move)
        moves.append(move)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("openings", type=Path, help="FEN per line (tools/tune/book_fens.py)")
    ap.add_argument("out", type=Path, help="output file (appended)")
    ap.add_argument("--first", type=int, default=0, help="skip this many openings")
    ap.add_argument("--count", type=int, default=100, help="games to play")
    ap.add_argument("--nodes", type=int, default=5000, help="nodes per move")
    ap.add_argument("--random-plies", type=int, default=4,
                    help="random legal plies after the opening (default 4)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the random plies")
    ap.add_argument("--hash", type=int, default=16, help="hash size in MB")
    ap.add_argument("--eval-file", type=Path,
                    help="search with the NNUE eval and this .pbnn (bootstrapping); "
                         "default: the build's default eval")
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    if not args.openings.is_file():
        ap.error(f"openings file {args.openings} not found; make it with tools/tune/book_fens.py")
    fens = args.openings.read_text().splitlines()
    if not fens:
        ap.error(f"openings file {args.openings} is empty")
    engine = sb.engine_new(args.hash, 1)
    if args.eval_file:
        if not hasattr(sb, "load_net"):
            ap.error("--eval-file: this engine build has no NNUE; build the nnue branch")
        try:
            sb.load_net(engine, str(args.eval_file))
            sb.set_eval(engine, "nnue")
        except EngineError as exc:
            ap.error(f"--eval-file: {exc}")
    tally = {"1.0": 0, "0.5": 0, "0.0": 0}
    positions, skipped = 0, 0
    t0 = time.monotonic()
    with args.out.open("a") as out:
        for g in range(args.first, args.first + args.count):
            # One generator per game: any slice of games can be regenerated on its own.
            rng = random.Random(f"{args.seed}:{g}")
            start = random_start(fens[g % len(fens)], args.random_plies, rng)
            if start is None:
                skipped += 1
                continue
            result, kept = play_game(engine, start, args.nodes)
            out.writelines(f"{fen} | {cp} | {result}\n" for fen, cp in kept)
            out.flush()
            tally[result] += 1
            positions += len(kept)
            n = g - args.first + 1
            if n % 25 == 0 or n == args.count:
                dt = time.monotonic() - t0
                log.info("games %d positions %d (+%d =%d -%d, %d skipped) %.1f pos/s",
                         n, positions, tally["1.0"], tally["0.5"], tally["0.0"], skipped,
                         positions / dt)
    return 0


if __name__ == "__main__":
    sys.exit(main())
