"""`pibot perft DEPTH [--fen FEN] [--divide]`: Stockfish-style perft output."""

from __future__ import annotations

import argparse
import time

from bot.errors import UserError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("depth", type=int, help="depth in plies (1-15)")
    parser.add_argument("--fen", default=None,
                        help="start position (default: the initial position)")
    parser.add_argument("--divide", action="store_true",
                        help="print the count below each root move")
    parser.add_argument("--chess960", action="store_true",
                        help="Chess960 rules and king-takes-rook castling notation")


def run(args: argparse.Namespace) -> int:
    from bot import __version__
    from bot.engine import Board, backend
    from bot.engine.exceptions import FenError

    if not 1 <= args.depth <= 15:
        raise UserError(f"depth must be between 1 and 15, got {args.depth}")
    try:
        board = Board(args.fen, chess960=args.chess960)
    except FenError as exc:
        raise UserError(f"{exc}. Quote the FEN in the shell: --fen \"...\"") from None
    print(f"pibot {__version__} perft, slider index: {backend()}")
    start = time.perf_counter()
    if args.divide:
        rows, nodes = board.perft_divide(args.depth)
        for move, count in rows:
            print(f"{move}: {count}")
        print()
    else:
        nodes = board.perft(args.depth)
    elapsed = max(time.perf_counter() - start, 1e-9)
    print(f"Nodes searched: {nodes}")
    print(f"Time: {elapsed * 1000:.0f} ms")
    print(f"Nodes/second: {nodes / elapsed:.0f}")
    return 0
