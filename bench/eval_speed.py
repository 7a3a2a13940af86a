"""Cost of one evaluation, HCE vs NNUE, per build flavour (docs/benchmarks.md,
"NNUE evaluation cost").

Builds engine_c/tools/eval_speed.c with the cffi build's flags minus -mavx2
(the x86-64 baseline: the NNUE loops vectorised with SSE2), with them (-mavx2
on CPUs that have it) and with -march=native, then runs them in
turn for --rounds rounds of short runs and keeps each figure's best (the machine
is shared: the best short run is the closest to an idle machine). Optionally
also the bench nps of both evals.

    python bench/eval_speed.py [--iters N] [--rounds R] [--nps]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from build_engine import SRC, compile_args, sources  # noqa: E402

BASE = [a for a in compile_args() if a != "-mavx2"]
FLAVOURS = {
    "SSE2 (x86-64 baseline)": BASE,
    "cffi build flags": compile_args(),
    "-march=native": [*BASE, "-march=native"],
}


def build(tmp: Path, name: str, extra: list[str]) -> Path:
    exe = tmp / name.replace(" ", "_").replace(",", "").replace("(", "").replace(")", "")
    cmd = ["gcc", *extra, "-I", str(SRC), "-o", str(exe),
           str(SRC / "tools" / "eval_speed.c"), *sources(absolute=True), "-lm", "-lpthread"]
    subprocess.run(cmd, check=True)
    return exe


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iters", type=int, default=200_000)
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--nps", action="store_true", help="also `pibot bench` nps, hce vs nnue")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        exes = {name: build(Path(tmp), name, extra) for name, extra in FLAVOURS.items()}
        best: dict[str, dict[str, float]] = {}
        for _ in range(args.rounds):
            for name, exe in exes.items():
                out = subprocess.run([str(exe), str(args.iters), "3"], capture_output=True,
                                     text=True, check=True).stdout.split()
                got = dict(zip(out[::2], (float(v) for v in out[1::2]), strict=True))
                old = best.setdefault(name, got)
                for key, value in got.items():
                    old[key] = min(old[key], value)
        for name, vals in best.items():
            print(f"{name:32s} HCE {vals['hce_ns']:7.1f} ns | NNUE output "
                  f"{vals['nnue_output_ns']:6.1f} ns, update {vals['nnue_update_ns']:6.1f} ns, "
                  f"refresh {vals['nnue_refresh_ns']:7.1f} ns", flush=True)
    if args.nps:
        for ev in ("hce", "nnue"):
            top = 0
            for _ in range(3):
                text = subprocess.run([sys.executable, "-m", "bot.cli", "bench", "--eval", ev,
                                       "--depth", "9"], capture_output=True, text=True,
                                      check=True, cwd=ROOT).stdout
                nps = int(text.split("Nodes/second:")[1].split()[0])
                nodes = int(text.split("Nodes searched:")[1].split()[0])
                top = max(top, nps)
            print(f"pibot bench --depth 9 --eval {ev}: {nodes} nodes, best {top} nps")
    return 0


if __name__ == "__main__":
    sys.exit(main())
