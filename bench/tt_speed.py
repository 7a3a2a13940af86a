"""Transposition-table sizing costs: create, clear, search, resize, free.

    python bench/tt_speed.py [--sizes 64,1024,8192] [--search-ms 1000] [--threads 1]

For each Hash size (MB) it times, through the same cffi Engine the bot uses:
creating the engine (mmap: no page touched, RSS unchanged), the first
`new_game()` (the clear that faults every page in, as the bot and `pibot
uci` do before a game's clock runs), a timed search from a middlegame
position (nodes searched and wall time: a search that has to fault the
table in itself, `--no-clear`, overruns its movetime), a second clear
(pages already resident), a resize to half the size, and closing. Sizes
larger than half the physical RAM are skipped unless given explicitly.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.engine import Engine, SearchLimits  # noqa: E402
from bot.host.platform_info import huge_page_size, thp_mode  # noqa: E402

T = TypeVar("T")
FEN = "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10"


def rss_mb() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) // 1024
    return 0


def timed(fn: Callable[[], T]) -> tuple[T, float]:
    t0 = time.perf_counter()
    out = fn()
    return out, (time.perf_counter() - t0) * 1000


def main() -> int:
    ram_mb = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") >> 20
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", help="comma-separated Hash sizes in MB "
                    "(default 64, 1024, 4096, 8192, 16384 up to half the RAM)")
    ap.add_argument("--search-ms", type=int, default=1000, help="search time per size")
    ap.add_argument("--threads", type=int, default=1, help="engine Threads (clears use as many)")
    ap.add_argument("--no-clear", action="store_true",
                    help="skip the first clear: the search faults the table in itself")
    a = ap.parse_args()
    if a.sizes:
        sizes = [int(s) for s in a.sizes.split(",")]
    else:
        sizes = [mb for mb in (64, 1024, 4096, 8192, 16384) if mb <= ram_mb // 2]
    print(f"RAM {ram_mb} MB, page {os.sysconf('SC_PAGE_SIZE')} B, transparent huge pages "
          f"{thp_mode()} ({huge_page_size()} B), threads {a.threads}, search {a.search_ms} ms, "
          f"base RSS {rss_mb()} MB")
    cols = [("Hash MB", 8), ("create ms", 10), ("RSS", 6), ("1st clear ms", 12), ("RSS", 6),
            ("nodes", 8), ("took ms", 8), ("hashfull", 8), ("clear ms", 9),
            ("resize/2 ms", 11), ("free ms", 8)]
    print(" ".join(f"{name:>{width}}" for name, width in cols))
    limits = SearchLimits(movetime=a.search_ms)
    for mb in sizes:
        eng, t_create = timed(functools.partial(Engine, hash_mb=mb, threads=a.threads))
        rss_created = rss_mb()
        t_first = 0.0 if a.no_clear else timed(eng.new_game)[1]
        rss_cleared = rss_mb()
        eng.set_position(FEN, [])
        res, t_search = timed(functools.partial(eng.search, limits))
        full = eng.hashfull()
        t_clear = timed(eng.new_game)[1]
        t_resize = timed(functools.partial(eng.set_option, hash_mb=max(1, mb // 2)))[1]
        t_free = timed(eng.close)[1]
        row = [f"{mb}", f"{t_create:.2f}", f"{rss_created}", f"{t_first:.1f}", f"{rss_cleared}",
               f"{res.nodes}", f"{t_search:.0f}", f"{full}", f"{t_clear:.1f}",
               f"{t_resize:.2f}", f"{t_free:.2f}"]
        print(" ".join(f"{v:>{w}}" for v, (_, w) in zip(row, cols, strict=True)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
