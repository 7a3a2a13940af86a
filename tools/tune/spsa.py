"""SPSA tuning of the search constants in engine_c/search_tunables.h.

Builds (once) a tuning build of the engine (-DPB_TUNE, tools/tune/build_variant.sh),
then repeats: perturb every tuned constant by +-c_k at random, play game pairs
between the "plus" and the "minus" engine (each opening with both colours,
a fixed node budget per move: independent of the machine's load), and move the
constants along the measured gradient (the usual Fishtest schedule: a_k =
a / (A + k)^0.602, c_k = c / k^0.101, with c_end and r_end per constant).
The state is saved after every iteration and a run resumes from it.

    python3 tools/tune/spsa.py --state /tmp/spsa/state.json --iterations 2000 \\
        --params RFP_MARGIN,FUT_BASE,FUT_PER_PLY,LMR_BASE_X100,LMR_DIVISOR_X100

Then measure the result against the defaults with the same build, e.g.
    python3 tools/tune/engine_match.py --a "env PIBOT_TUNE=<spec> <build>/pibot-uci" \\
        --b <build>/pibot-uci --games 800 --nodes 8000
and record both in docs/strength.md before changing search_tunables.h.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import re
import shlex
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import chess
import chess.engine

sys.path.insert(0, str(Path(__file__).resolve().parent))
from engine_match import load_openings, play  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TUNABLES = ROOT / "engine_c" / "search_tunables.h"
ALPHA, GAMMA = 0.602, 0.101
log = logging.getLogger("spsa")


@dataclass
class Param:
    name: str
    value: float  # theta, continuous; the engine gets it rounded
    lo: int
    hi: int
    c_end: float  # perturbation at the last iteration
    r_end: float  # learning rate at the last iteration (a_end / c_end^2)


def read_tunables(path: Path = TUNABLES) -> dict[str, tuple[int, int, int]]:
    """name -> (default, min, max) from search_tunables.h."""
    text = path.read_text()
    return {m[1]: (int(m[2]), int(m[3]), int(m[4])) for m in
            re.finditer(r"^PB_PARAM\((\w+), (-?\d+), (-?\d+), (-?\d+)\)", text, re.M)}


def initial_params(names: list[str], r_end: float) -> list[Param]:
    table = read_tunables()
    unknown = [n for n in names if n not in table]
    if unknown:
        raise SystemExit(f"spsa: unknown constant(s) {', '.join(unknown)}; "
                         f"choose from {', '.join(table)}")
    params = []
    for name in names:
        value, lo, hi = table[name]
        # A twentieth of the range, at least one unit: big enough to be seen in a
        # few games, small enough to stay near the current value.
        params.append(Param(name, float(value), lo, hi, max(1.0, (hi - lo) / 20), r_end))
    return params


def spec(params: list[Param], values: list[float]) -> str:
    return ",".join(f"{p.name}={round(v)}" for p, v in zip(params, values, strict=True))


def clip(p: Param, v: float) -> float:
    return min(max(v, float(p.lo)), float(p.hi))


def build_engine(out: Path) -> Path:
    env = {**os.environ, "PIBOT_CFLAGS": (os.environ.get("PIBOT_CFLAGS", "") + " -DPB_TUNE")}
    script = ROOT / "tools" / "tune" / "build_variant.sh"
    proc = subprocess.run([str(script), str(out), str(ROOT / "engine_c" / "evalparams.h")],
                          env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"spsa: building the tuning engine failed:\n{proc.stderr}")
    return out / "pibot-uci"


def open_engine(cmd: Path, tune: str) -> chess.engine.SimpleEngine:
    env = {**os.environ, "PIBOT_TUNE": tune}
    return chess.engine.SimpleEngine.popen_uci(shlex.split(str(cmd)), timeout=30, env=env)


def play_pairs(cmd: Path, plus: str, minus: str, openings: list[chess.Board],
               limit: chess.engine.Limit) -> float:
    """Score of `plus` minus the score of `minus` over the games (each opening twice)."""
    a, b = open_engine(cmd, plus), open_engine(cmd, minus)
    try:
        total = 0.0
        for start in openings:
            for a_white in (True, False):
                for e in (a, b):
                    e.protocol.send_line("ucinewgame")
                s = play(a, b, start, (limit, limit), a_white)
                total += s - (1.0 - s)
        return total
    finally:
        a.quit()
        b.quit()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--state", type=Path, required=True, help="JSON state (resumed if present)")
    ap.add_argument("--params", default="", help="comma-separated constants (default: all)")
    ap.add_argument("--iterations", type=int, default=1000)
    ap.add_argument("--pairs", type=int, default=2, help="game pairs per iteration")
    ap.add_argument("--nodes", type=int, default=5000, help="nodes per move")
    ap.add_argument("--r-end", type=float, default=0.002, help="r_end of every constant")
    ap.add_argument("--book", type=Path, default=ROOT.parent / "shared" / "books" / "8moves_v3.pgn")
    ap.add_argument("--build-dir", type=Path, default=Path("/tmp/spsa_build"))
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    logging.getLogger("chess.engine").setLevel(logging.CRITICAL)
    if not args.book.is_file():
        ap.error(f"opening book {args.book} not found; pass --book with a PGN file")
    if args.iterations < 1 or args.pairs < 1:
        ap.error("--iterations and --pairs must be at least 1")

    if args.state.is_file():
        state = json.loads(args.state.read_text())
        params = [Param(**p) for p in state["params"]]
        k0 = state["iteration"]
        log.info("resuming %s at iteration %d", args.state, k0)
    else:
        names = [n for n in args.params.split(",") if n] or list(read_tunables())
        params, k0 = initial_params(names, args.r_end), 0
    engine = build_engine(args.build_dir)
    n = args.iterations
    big_a = 0.1 * n
    openings = load_openings(args.book, 100_000, args.seed)
    rng = random.Random(args.seed * 1_000_003 + k0)
    limit = chess.engine.Limit(nodes=args.nodes)
    started = time.monotonic()
    for k in range(k0 + 1, n + 1):
        flips = [rng.choice((-1, 1)) for _ in params]
        c_k = [p.c_end * n ** GAMMA / k ** GAMMA for p in params]
        a_k = [p.r_end * p.c_end ** 2 * (big_a + n) ** ALPHA / (big_a + k) ** ALPHA
               for p in params]
        plus = [clip(p, p.value + c * f) for p, c, f in zip(params, c_k, flips, strict=True)]
        minus = [clip(p, p.value - c * f) for p, c, f in zip(params, c_k, flips, strict=True)]
        chosen = [openings[(k * args.pairs + i) % len(openings)] for i in range(args.pairs)]
        result = play_pairs(engine, spec(params, plus), spec(params, minus), chosen, limit)
        for p, a, c, f in zip(params, a_k, c_k, flips, strict=True):
            p.value = clip(p, p.value + a / c * result * f)
        args.state.parent.mkdir(parents=True, exist_ok=True)
        tmp = args.state.with_suffix(".tmp")
        tmp.write_text(json.dumps({"iteration": k, "params": [asdict(p) for p in params]},
                                  indent=1))
        tmp.replace(args.state)
        if k % 10 == 0 or k == n:
            rate = (k - k0) / (time.monotonic() - started)
            log.info("iteration %d/%d (%.2f/s): %s", k, n, rate,
                     " ".join(f"{p.name}={p.value:.1f}" for p in params))
    sys.stdout.write("PIBOT_TUNE=" + spec(params, [p.value for p in params]) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
