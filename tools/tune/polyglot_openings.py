"""Match openings from a Polyglot book: weighted random walks of a fixed number
of plies, distinct, written as a PGN that engine_match.py and match.py read.

Openings other than 8moves_v3.pgn's. The NNUE training data of rounds 3 and 4
(engine_c/tools/datagen.c) starts from 8moves_v3 positions and from up to 8-ply
walks through performance.bin, so walks through that book are no longer openings
the data never saw (they were for the first nets, whose data started from 8moves_v3
only). Deterministic for a book and seed:

    python3 tools/tune/polyglot_openings.py /work/shared/books/performance.bin \\
        --plies 10 --count 300 --seed 1 > /tmp/book10.pgn
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import chess
import chess.pgn
import chess.polyglot


def walks(book: Path, plies: int, count: int, seed: int) -> list[list[chess.Move]]:
    rng = random.Random(seed)
    seen: set[tuple[str, ...]] = set()
    lines: list[list[chess.Move]] = []
    with chess.polyglot.open_reader(book) as reader:
        for _ in range(count * 50):
            if len(lines) >= count:
                break
            board, moves = chess.Board(), []
            for _ in range(plies):
                entries = list(reader.find_all(board))
                if not entries:
                    break
                entry = rng.choices(entries, weights=[e.weight or 1 for e in entries])[0]
                moves.append(entry.move)
                board.push(entry.move)
            key = tuple(m.uci() for m in moves)
            if len(moves) == plies and key not in seen:
                seen.add(key)
                lines.append(moves)
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("book", type=Path, help="Polyglot .bin")
    ap.add_argument("--plies", type=int, default=10)
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if not args.book.is_file():
        ap.error(f"book {args.book} not found")
    lines = walks(args.book, args.plies, args.count, args.seed)
    if len(lines) < args.count:
        sys.stderr.write(f"only {len(lines)} distinct {args.plies}-ply lines in the book\n")
    for moves in lines:
        game = chess.pgn.Game()
        game.headers.clear()
        game.add_line(moves)
        sys.stdout.write(f"{game}\n\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
