#!/usr/bin/env python3
"""Instructions per function from insn_count.c's block file.

    by_symbol.py BINARY BLOCKS [--top N] [--nm aarch64-linux-gnu-nm]

BINARY is the static guest program that ran (its symbols, `nm -S`), BLOCKS
the out= file of the plugin ("address instructions executions" per block).
Every instruction of a block (4 bytes each on aarch64) is charged to the
function whose [address, address + size) holds it, so a block that runs
into the next function is split between them. Prints the total and the
functions by instructions executed, like callgrind_annotate's summary, with
the runs of the block at each function's first address (its calls, unless
a loop jumps back to that address) and the instructions per such call.
"""
from __future__ import annotations

import argparse
import bisect
import subprocess
import sys
from collections import defaultdict

INSN_BYTES = 4  # aarch64: fixed-width instructions


def symbols(binary: str, nm: str) -> tuple[list[int], list[int], list[str]]:
    out = subprocess.run([nm, "-S", "--defined-only", binary], capture_output=True,
                         text=True, check=True).stdout
    rows = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "tTwWiI":
            rows.append((int(parts[0], 16), int(parts[1], 16), parts[3]))
    rows.sort()
    return [r[0] for r in rows], [r[0] + r[1] for r in rows], [r[2] for r in rows]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("binary")
    ap.add_argument("blocks")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--nm", default="aarch64-linux-gnu-nm")
    args = ap.parse_args()
    starts, ends, names = symbols(args.binary, args.nm)
    per: defaultdict[str, int] = defaultdict(int)
    entries: defaultdict[str, int] = defaultdict(int)
    first = dict(zip(starts, names, strict=True))
    total = 0
    with open(args.blocks) as f:
        for line in f:
            addr_s, n_s, execs_s = line.split()
            addr, n, execs = int(addr_s, 16), int(n_s), int(execs_s)
            total += n * execs
            if addr in first:
                entries[first[addr]] += execs
            for k in range(n):
                a = addr + k * INSN_BYTES
                i = bisect.bisect_right(starts, a) - 1
                name = names[i] if i >= 0 and a < ends[i] else "???"
                per[name] += execs
    out = [f"{total:,} instructions in all",
           f"{'instructions':>16}  {'share':>6}  {'calls':>12}  {'per call':>9}  function"]
    for name, count in sorted(per.items(), key=lambda kv: -kv[1])[:args.top]:
        calls = entries.get(name, 0)
        per_call = f"{count / calls:9.1f}" if calls else f"{'-':>9}"
        out.append(f"{count:>16,}  {100 * count / total:5.2f}%  {calls:>12,}  {per_call}  {name}")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
