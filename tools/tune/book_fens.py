"""Opening FENs for data generation: the end positions of a PGN opening book.

Deterministic: games are shuffled with a fixed seed, so the same book and
seed always give the same list. Usage:

    python3 tools/tune/book_fens.py /work/shared/books/8moves_v3.pgn --seed 1 > openings.txt
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import chess.pgn


def book_fens(path: Path) -> list[str]:
    fens: list[str] = []
    with path.open(encoding="utf-8", errors="replace") as fh:
        while (game := chess.pgn.read_game(fh)) is not None:
            board = game.end().board()
            if not board.is_game_over():
                fens.append(board.fen())
    return fens


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("book", type=Path, help="PGN file of openings")
    ap.add_argument("--seed", type=int, default=1, help="shuffle seed (default 1)")
    args = ap.parse_args()
    if not args.book.is_file():
        ap.error(f"opening book {args.book} not found; pass an existing PGN file")
    fens = sorted(set(book_fens(args.book)))
    random.Random(args.seed).shuffle(fens)
    sys.stdout.write("".join(f + "\n" for f in fens))
    return 0


if __name__ == "__main__":
    sys.exit(main())
