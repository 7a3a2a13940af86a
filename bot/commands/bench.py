"""`pibot bench`: the engine's bench (bot.engine.bench) from the command line.

Prints the total node count (the search's signature: record a change in
docs/strength.md) and nodes/second; `--verbose` adds the count per position.
"""

from __future__ import annotations

import argparse
import sys
import threading

from bot.engine.bench import BENCH_FENS, DEFAULT_DEPTH, BenchResult, format_result, run_bench
from bot.engine.engine import DEFAULT_EVAL, EVALS
from bot.errors import UserError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--depth", type=int, default=DEFAULT_DEPTH,
                        help=f"search depth per position (default {DEFAULT_DEPTH})")
    parser.add_argument("--hash", type=int, default=16, dest="hash_mb",
                        help="hash table size in MB (default 16)")
    parser.add_argument("--verbose", action="store_true", help="print nodes per position")
    parser.add_argument("--eval", choices=tuple(EVALS), default=DEFAULT_EVAL, dest="eval_name",
                        help=f"static evaluation (default {DEFAULT_EVAL}: the signature's)")


def run(args: argparse.Namespace) -> int:
    if not 1 <= args.depth <= 64:
        raise UserError(f"--depth must be 1..64, got {args.depth}")
    if not 1 <= args.hash_mb <= 65536:
        raise UserError(f"--hash must be 1..65536 MB, got {args.hash_mb}")

    def show(i: int, fen: str, nodes: int) -> None:
        print(f"Position {i:2d}/{len(BENCH_FENS)}: {nodes:10d}  {fen}")

    # The search runs in a worker: the main thread must stay in Python code
    # for Ctrl-C to be seen at once, not after the current C search ends.
    stop = threading.Event()
    outcome: list[BenchResult | BaseException] = []

    def work() -> None:
        try:
            outcome.append(run_bench(args.depth, args.hash_mb, show if args.verbose else None,
                                     stop, args.eval_name))
        except BaseException as exc:  # handed to the main thread
            outcome.append(exc)

    worker = threading.Thread(target=work, name="bench", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.2)
    except KeyboardInterrupt:
        stop.set()
        worker.join()
        print("pibot bench: interrupted; no signature", file=sys.stderr)
        return 130
    res = outcome[0]
    if isinstance(res, BaseException):
        raise res
    print("=" * 40)
    print(format_result(res))
    return 0
