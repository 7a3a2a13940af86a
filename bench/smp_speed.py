"""Lazy SMP scaling: time to depth and nodes/second by thread count.

    python bench/smp_speed.py [--threads 1,2,4] [--depth 13] [--hash 64] [--positions 20]

Searches the first --positions bench positions to a fixed depth with each
thread count (fresh engine and hash per position, so no run helps the next)
and prints, per thread count, the total wall time, the total nodes, nodes per
second, and the time-to-depth speedup against the first thread count. Lazy
SMP threads search more nodes than one thread to reach a depth (they share
work only through the table), so the time-to-depth speedup is the figure
that matters; nodes/second shows how well the cores scale at all. Results
with more threads vary from run to run: repeat with --repeat and compare the
best. Run it on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.engine import Engine, SearchLimits  # noqa: E402
from bot.engine.bench import BENCH_FENS  # noqa: E402


def run(threads: int, depth: int, hash_mb: int, fens: list[str]) -> tuple[float, int]:
    total_s, nodes = 0.0, 0
    for fen in fens:
        with Engine(hash_mb=hash_mb, threads=threads) as eng:
            eng.new_game()
            eng.set_position(fen, [])
            t0 = time.perf_counter()
            res = eng.search(SearchLimits(depth=depth))
            total_s += time.perf_counter() - t0
            nodes += res.nodes
    return total_s, nodes


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", default="1,2", help="comma-separated thread counts")
    ap.add_argument("--depth", type=int, default=13)
    ap.add_argument("--hash", type=int, default=64, dest="hash_mb", help="MB per engine")
    ap.add_argument("--positions", type=int, default=20, help="how many bench positions")
    ap.add_argument("--repeat", type=int, default=1, help="best of N runs per thread count")
    a = ap.parse_args()
    counts = [int(x) for x in a.threads.split(",")]
    fens = list(BENCH_FENS[: a.positions])
    print(f"{len(fens)} positions, depth {a.depth}, hash {a.hash_mb} MB, best of {a.repeat}")
    print(f"{'threads':>7} {'time s':>8} {'nodes':>11} {'knps':>8} {'nps x':>6} {'ttd x':>6}")
    base: tuple[float, float] | None = None
    for n in counts:
        secs, nodes = min((run(n, a.depth, a.hash_mb, fens) for _ in range(a.repeat)),
                          key=lambda r: r[0])
        nps = nodes / secs
        if base is None:
            base = (secs, nps)
        print(f"{n:>7} {secs:>8.2f} {nodes:>11} {nps / 1000:>8.0f} {nps / base[1]:>6.2f} "
              f"{base[0] / secs:>6.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
