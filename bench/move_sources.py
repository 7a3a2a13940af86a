"""How long a book move and a Syzygy root move take (docs/strength.md).

    python bench/move_sources.py [--book PATH] [--syzygy DIR] [--positions 300]

Book: positions along random walks through the book (plies 0-11), timing
`OpeningBooks.choose`. Tablebase: random legal 3-5-piece positions the tables
cover (material drawn from the table files present), timing
`Tablebases.root_move`, plus single WDL / DTZ probes for comparison. Each timed
call runs once cold (first touch of the mmap'd pages) and is then repeated;
the figures are the warm repeats. Prints median / p99 / max in milliseconds,
wall-clock time, or CPU time of this process with --cpu (steadier on a busy machine).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import chess
import chess.polyglot
import chess.syzygy

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.config import parse_config  # noqa: E402
from bot.sources.book import OpeningBooks  # noqa: E402
from bot.sources.tablebase import Tablebases  # noqa: E402


def shared_dir() -> Path:
    for d in (ROOT.parent, ROOT.parent.parent):
        if (d / "shared").is_dir():
            return d / "shared"
    return ROOT.parent / "shared"


def summary(name: str, ms: list[float]) -> str:
    ms = sorted(ms)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    return (f"{name:<28} n={len(ms):<5} median {statistics.median(ms):8.3f} ms   "
            f"p99 {p99:8.3f} ms   max {ms[-1]:8.3f} ms")


CLOCK = time.perf_counter


def timed(fn: Callable[..., object], *args: object) -> float:
    t0 = CLOCK()
    fn(*args)
    return (CLOCK() - t0) * 1000


def book_positions(path: Path, n: int, rng: random.Random) -> list[chess.Board]:
    out: list[chess.Board] = []
    with chess.polyglot.open_reader(path) as reader:
        while len(out) < n:
            board = chess.Board()
            for _ in range(rng.randrange(0, 12)):
                entries = list(reader.find_all(board))
                if not entries:
                    break
                board.push(rng.choice(entries).move)
            out.append(board)
    return out


def tb_positions(tables: Path, n: int, rng: random.Random, max_pieces: int) -> list[chess.Board]:
    materials = sorted({p.stem for p in tables.glob("*.rtbw")
                        if len(p.stem) - 1 <= max_pieces and "P" not in p.stem.split("v")[1]})
    out: list[chess.Board] = []
    with chess.syzygy.open_tablebase(str(tables)) as tb:
        while len(out) < n:
            white, black = rng.choice(materials).split("v")
            pieces = list(white) + [c.lower() for c in black]
            board = chess.Board(None)
            for sym, sq in zip(pieces, rng.sample(range(64), len(pieces)), strict=True):
                board.set_piece_at(sq, chess.Piece.from_symbol(sym))
            board.turn = rng.choice([chess.WHITE, chess.BLACK])
            if any(chess.square_rank(sq) in (0, 7) for sq in board.pieces(chess.PAWN, True)) \
                    or any(chess.square_rank(sq) in (0, 7)
                           for sq in board.pieces(chess.PAWN, False)):
                continue
            if not board.is_valid() or board.is_game_over():
                continue
            try:
                tb.probe_wdl(board)
            except (KeyError, chess.syzygy.MissingTableError):
                continue
            out.append(board)
    return out


def main() -> int:
    shared = shared_dir()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--book", type=Path, default=shared / "books" / "performance.bin")
    ap.add_argument("--syzygy", type=Path, default=shared / "syzygy")
    ap.add_argument("--positions", type=int, default=300)
    ap.add_argument("--max-pieces", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cpu", action="store_true", help="time with process CPU time")
    args = ap.parse_args()
    global CLOCK
    CLOCK = time.process_time if args.cpu else time.perf_counter
    rng = random.Random(1)

    cfg = parse_config({"engine": {
        "polyglot": {"enabled": True, "book": {"standard": [str(args.book)]}, "max_depth": 12},
        "syzygy": {"enabled": True, "paths": [str(args.syzygy)]}}})
    books = OpeningBooks.open(cfg.engine.polyglot)
    tbs = Tablebases.open(cfg.engine.syzygy)
    assert books is not None and tbs is not None
    print(f"book {args.book} ({books.infos[0].entries} entries); {tbs.describe()[0]}")

    boards = book_positions(args.book, args.positions, rng)
    cold = [timed(books.choose, b, None, rng) for b in boards]
    warm = [timed(books.choose, b, None, rng) for _ in range(args.repeat) for b in boards]
    hits = sum(books.choose(b, None, rng) is not None for b in boards)
    print(summary("book choose (cold)", cold))
    print(summary("book choose", warm) + f"   ({hits}/{len(boards)} in book)")

    boards = tb_positions(args.syzygy, args.positions, rng, args.max_pieces)
    cold = [timed(tbs.root_move, b) for b in boards]
    warm = [timed(tbs.root_move, b) for _ in range(args.repeat) for b in boards]
    print(summary("syzygy root_move (cold)", cold))
    print(summary("syzygy root_move", warm))
    by_pieces: dict[int, list[float]] = {}
    for b in boards:
        by_pieces.setdefault(chess.popcount(b.occupied), []).append(timed(tbs.root_move, b))
    for n, ms in sorted(by_pieces.items()):
        print(summary(f"  root_move, {n} pieces", ms))
    with chess.syzygy.open_tablebase(str(args.syzygy)) as tb:
        print(summary("single probe_wdl", [timed(tb.probe_wdl, b) for b in boards]))
        print(summary("single probe_dtz", [timed(tb.probe_dtz, b) for b in boards]))
    books.close()
    tbs.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
