"""What a wider NNUE hidden layer costs: x86 time measured, aarch64 (the Pi's NEON)
estimated from the instruction counts of the inner loops.

    python bench/nnue_width.py [--widths 256 384 512] [--rounds 5] [--depth 9]

For each width a net of random weights (tools/nnue/make_random_net.py, 8 buckets,
the same seed) is embedded in a build of this checkout's engine_c/ made for it
(`make NET=...`: the width comes from the net's header), in a temporary directory:
- x86, this machine: `eval_speed` (ns per NNUE output layer, per incremental update
  of one move, per refresh) and `search_main bench` (nodes/second; the random nets
  search different trees, so only the rate compares), run width after width in
  each of --rounds rounds so that a machine getting busier affects all alike;
  medians, and each width's ratio to the first.
- aarch64: the static cross build (`VARIANT=arm`, aarch64-linux-gnu-gcc), its
  nnue_output / nnue_update / nnue_refresh disassembled: the instructions outside
  loops (an unrolled loop counts here) plus each innermost loop's instructions per
  iteration times its trip count (from the loop's `cmp xN, #LIMIT` and
  `add xN, xN, #STEP`; '?' where not visible, counted once).
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools" / "nnue"))

from make_random_net import make as make_net  # noqa: E402

from bot.engine.bench import BENCH_FENS  # noqa: E402

FUNCS = ("nnue_output", "nnue_update", "nnue_refresh")
INSN = re.compile(r"^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$")


def fail(msg: str) -> None:
    sys.exit(f"nnue_width: {msg}")


def make(engine: Path, target: str, *args: str) -> Path:
    # OUT named: the Makefile's own directory depends on the shipped net's width.
    proc = subprocess.run(["make", "-s", *args, f"OUT={Path(target).parent}", target],
                          cwd=engine, capture_output=True, text=True)
    if proc.returncode != 0:
        fail(f"make {target} failed:\n{proc.stdout}{proc.stderr}")
    return engine / target


def eval_speed(exe: Path) -> dict[str, float]:
    out = subprocess.run([str(exe), "300000", "3"], capture_output=True, text=True,
                         check=True).stdout.split()
    return {out[i]: float(out[i + 1]) for i in range(0, len(out), 2)}


def nps(exe: Path, depth: int, fens: Path) -> int:
    out = subprocess.run([str(exe), "bench", str(depth), str(fens), "nnue"],
                         capture_output=True, text=True, check=True).stdout
    m = re.search(r"^Nodes/second: (\d+)$", out, re.MULTILINE)
    if not m:
        fail(f"unexpected bench output from {exe}:\n{out}")
    assert m
    return int(m.group(1))


def loops(objdump: str, func: str) -> tuple[int, list[tuple[int, int | None]]]:
    """func's instruction count and (instructions per iteration, trips or None) of
    each innermost backward branch in it."""
    body = re.search(rf"^[0-9a-f]+ <{func}>:\n(.*?)(?:\n\n|\Z)", objdump, re.S | re.M)
    if not body:
        fail(f"{func} not found in the aarch64 build")
    assert body
    insns = [(int(m[1], 16), m[2], m[3]) for m in map(INSN.match, body[1].splitlines()) if m]
    found: list[tuple[int, int, int | None]] = []  # first and last instruction, trips
    for i, (addr, op, args) in enumerate(insns):
        if not op.startswith(("b.", "cbnz", "cbz", "tbnz", "tbz")):
            continue
        target = re.search(r"\b([0-9a-f]+) <", args)
        if not target or int(target[1], 16) >= addr:
            continue
        start = next(j for j, ins in enumerate(insns) if ins[0] == int(target[1], 16))
        loop = insns[start:i + 1]
        trips = None
        for _, op2, a2 in loop:
            cmp = re.fullmatch(r"(x\d+), #0x([0-9a-f]+)", a2) if op2 == "cmp" else None
            if cmp:
                step = next((int(s[1], 16) for _, o, a in loop if o == "add"
                             for s in [re.fullmatch(rf"{cmp[1]}, {cmp[1]}, #0x([0-9a-f]+)", a)]
                             if s), None)
                if step:
                    trips = int(cmp[2], 16) // step
        if any(lo <= start and i <= hi for lo, hi, _ in found):
            found = [f for f in found if not (f[0] <= start and i <= f[1])]  # keep inner
        if not any(start <= lo and hi <= i for lo, hi, _ in found):
            found.append((start, i, trips))
    return len(insns), [(hi - lo + 1, t) for lo, hi, t in found]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--widths", type=int, nargs="+", default=[256, 384, 512])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--depth", type=int, default=9)
    args = ap.parse_args()
    if any(w % 64 or not 64 <= w <= 1024 for w in args.widths):
        fail("widths are multiples of 64 in 64..1024")
    cross = shutil.which("aarch64-linux-gnu-gcc")
    with tempfile.TemporaryDirectory(prefix="nnue_width.") as tmp:
        t = Path(tmp)
        engine = t / "engine_c"
        shutil.copytree(ROOT / "engine_c", engine, ignore=shutil.ignore_patterns("out"))
        shutil.copy(ROOT / "build_engine.py", t / "build_engine.py")
        fens = t / "bench.fens"
        fens.write_text("\n".join(BENCH_FENS) + "\n")
        built = {}
        for w in args.widths:
            net = t / f"r{w}.pbnn"
            net.write_bytes(make_net(5, buckets=8, hidden=w).to_bytes())
            sfx = f"-h{w}"
            built[w] = (make(engine, f"out/auto{sfx}/eval_speed", f"NET={net}"),
                        make(engine, f"out/auto{sfx}/search_main", f"NET={net}"),
                        make(engine, f"out/arm{sfx}/eval_speed", f"NET={net}", "VARIANT=arm",
                             f"CC={cross}") if cross else None)
        speeds: dict[int, list[dict[str, float]]] = {w: [] for w in args.widths}
        rates: dict[int, list[int]] = {w: [] for w in args.widths}
        for _ in range(args.rounds):
            for w in args.widths:
                speeds[w].append(eval_speed(built[w][0]))
                rates[w].append(nps(built[w][1], args.depth, fens))
        base = args.widths[0]
        kinds = ("nnue_output_ns", "nnue_update_ns", "nnue_refresh_ns")
        med = {w: {k: statistics.median(s[k] for s in speeds[w]) for k in kinds}
               for w in args.widths}
        nps_med = {w: statistics.median(rates[w]) for w in args.widths}
        print(f"x86 (this machine), medians of {args.rounds} rounds; bench depth {args.depth}")
        print("width  output ns  update ns  refresh ns   nodes/s   (ratio to "
              f"{base}: output, update, refresh, nodes/s)")
        for w in args.widths:
            m = med[w]
            ratios = ", ".join(f"{m[k] / med[base][k]:.2f}" for k in kinds)
            print(f"{w:5d}  {m['nnue_output_ns']:9.1f}  {m['nnue_update_ns']:9.1f}  "
                  f"{m['nnue_refresh_ns']:10.1f}  {nps_med[w]:8.0f}   ({ratios}, "
                  f"{nps_med[w] / nps_med[base]:.2f})")
        if not cross:
            print("aarch64: no aarch64-linux-gnu-gcc, skipped "
                  "(apt-get install gcc-aarch64-linux-gnu)")
            return 0
        print("aarch64 (static cross build, NEON): instructions outside counted loops + each "
              "innermost loop's instructions x trips = the instructions of one call if every "
              "path ran (exact for nnue_output, which has one path; nnue_update holds a "
              "path per delta shape, nnue_refresh loops over the pieces, '?')")
        for w in args.widths:
            exe = built[w][2]
            assert exe
            dump = subprocess.run(["aarch64-linux-gnu-objdump", "-d", "--no-show-raw-insn",
                                   str(exe)], capture_output=True, text=True, check=True).stdout
            parts = []
            for f in FUNCS:
                size, ls = loops(dump, f)
                once = size - sum(n for n, t in ls if t)
                total = once + sum(n * t for n, t in ls if t)
                shown = " + ".join(f"{n}x{t if t else '?'}" for n, t in ls)
                parts.append(f"{f} {once} + {shown} = {total}")
            print(f"{w:5d}  " + "; ".join(parts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
