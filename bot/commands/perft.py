"""`pibot perft DEPTH [--fen FEN] [--divide]`: Stockfish-style perft output.

The count runs in a worker thread (the C call releases the GIL) so that the
main thread stays responsive: Ctrl-C sets the C stop flag, and the command
ends within milliseconds with exit status 130 instead of running on for hours.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time

from bot.errors import UserError

MAX_DEPTH = 15


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("depth", type=int, help=f"depth in plies (0-{MAX_DEPTH})")
    parser.add_argument("--fen", default=None,
                        help="start position (default: the initial position)")
    parser.add_argument("--divide", action="store_true",
                        help="print the count below each root move")
    parser.add_argument("--chess960", action="store_true",
                        help="Chess960 rules and king-takes-rook castling notation")


def run(args: argparse.Namespace) -> int:
    from bot import __version__
    from bot.engine import Board, PerftStop, backend
    from bot.engine.exceptions import FenError, PerftInterrupted

    if not 0 <= args.depth <= MAX_DEPTH:
        raise UserError(f"depth must be between 0 and {MAX_DEPTH}, got {args.depth}")
    try:
        board = Board(args.fen, chess960=args.chess960)
    except FenError as exc:
        raise UserError(f"{exc}. Quote the FEN in the shell: --fen \"...\"") from None
    print(f"pibot {__version__} perft, slider index: {backend()}", flush=True)

    stop = PerftStop()
    result: list[int] = []
    failure: list[BaseException] = []

    def show(move: str, count: int) -> None:
        print(f"{move}: {count}", flush=True)

    def work() -> None:
        try:
            if args.divide:
                _, nodes = board.perft_divide(args.depth, stop, on_row=show)
                print()
            else:
                nodes = board.perft(args.depth, stop)
            result.append(nodes)
        except BaseException as exc:  # handed to the main thread
            failure.append(exc)

    start = time.perf_counter()
    worker = threading.Thread(target=work, name="perft", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.2)  # short waits: Ctrl-C is only seen between them
    except KeyboardInterrupt:
        stop.set()
        worker.join()
        elapsed = time.perf_counter() - start
        print(f"pibot perft: interrupted after {elapsed:.1f} s; no total", file=sys.stderr)
        return 130
    if failure:
        if isinstance(failure[0], PerftInterrupted):  # not expected without Ctrl-C
            print("pibot perft: interrupted; no total", file=sys.stderr)
            return 130
        raise failure[0]
    nodes = result[0]
    elapsed = max(time.perf_counter() - start, 1e-9)
    print(f"Nodes searched: {nodes}")
    print(f"Time: {elapsed * 1000:.0f} ms")
    print(f"Nodes/second: {nodes / elapsed:.0f}")
    return 0
