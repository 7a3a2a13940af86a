"""SPSA tuning of the search constants in engine_c/search_tunables.h, at a clock.

Builds (once) a tuning build of the engine (-DPB_TUNE, tools/tune/build_variant.sh),
then repeats: perturb every tuned constant by +-c_k at random, play game pairs
between the "plus" and the "minus" engine through fastchess (each opening with
both colours, a real clock or a node budget, several games at once), and move
the constants along the measured gradient (the usual Fishtest/OpenBench
schedule: a_k = a / (A + k)^0.602, c_k = c / k^0.101, with c_end and r_end per
constant). The state is written after every iteration, and a run resumes from
it: keep it in the repository (docs/matches/spsa/NAME/state.json) so that it
outlives the session.

    python3 tools/tune/spsa.py --state docs/matches/spsa/s50/state.json \\
        --iterations 1500 --tc 4+0.04 --pairs 2 --deadline $(date -d 11:15 +%s) \\
        --params LMR_HISTORY_DIVISOR,HIST_BONUS_PER_PLY,HIST_BONUS_BASE

Then measure the result against the defaults by SPRT (tools/tune/sprt.sh on two
commits, or fastchess on the tuning build with and without PIBOT_TUNE) and
record both in docs/strength.md before changing search_tunables.h.
"""

from __future__ import annotations

import argparse
import io
import json
import logging
import math
import os
import random
import re
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import chess.pgn

ROOT = Path(__file__).resolve().parents[2]
TUNABLES = ROOT / "engine_c" / "search_tunables.h"
ALPHA, GAMMA = 0.602, 0.101
# Adjudication, as tuning frameworks do it: games decided or dead early are
# cut short, which buys iterations; an SPRT of the result plays them out.
ADJUDICATE = ["-draw", "movenumber=40", "movecount=8", "score=10",
              "-resign", "movecount=3", "score=600", "twosided=true", "-maxmoves", "200"]
log = logging.getLogger("spsa")


class SpsaError(Exception):
    """A problem with the run's inputs; the message says what and how to fix it."""


@dataclass
class Param:
    name: str
    value: float  # theta, continuous; the engine gets it rounded
    lo: int
    hi: int
    c_end: float  # perturbation at the last iteration
    r_end: float  # learning rate at the last iteration (a_end / c_end^2)


@dataclass(frozen=True)
class Outcome:
    """One iteration's games from the "plus" engine's side."""

    wins: int
    draws: int
    losses: int
    unusual: int = 0  # games not ended by the rules or adjudication (time, crash, illegal)

    @property
    def score(self) -> int:
        return self.wins - self.losses


@dataclass
class State:
    iterations: int  # N, the schedule's length
    params: list[Param]
    iteration: int = 0  # completed
    totals: dict[str, int] = field(default_factory=lambda: {
        "wins": 0, "draws": 0, "losses": 0, "unusual": 0})


Match = Callable[[str, str, int], Outcome]  # (plus spec, minus spec, iteration) -> outcome


def read_tunables(path: Path = TUNABLES) -> dict[str, tuple[int, int, int]]:
    """name -> (default, min, max) from search_tunables.h."""
    text = path.read_text()
    return {m[1]: (int(m[2]), int(m[3]), int(m[4])) for m in
            re.finditer(r"^PB_PARAM\((\w+), (-?\d+), (-?\d+), (-?\d+)\)", text, re.M)}


def initial_params(names: Sequence[str], r_end: float,
                   table: dict[str, tuple[int, int, int]]) -> list[Param]:
    unknown = [n for n in names if n not in table]
    if unknown:
        raise SpsaError(f"unknown constant(s) {', '.join(unknown)}; "
                        f"choose from {', '.join(table)}")
    if len(set(names)) != len(names):
        raise SpsaError("--params names a constant twice")
    params = []
    for name in names:
        value, lo, hi = table[name]
        # A twentieth of the range, at least one unit: big enough to be seen in a
        # few games, small enough to stay near the current value.
        params.append(Param(name, float(value), lo, hi, max(1.0, (hi - lo) / 20), r_end))
    return params


def spec(params: Sequence[Param], values: Sequence[float]) -> str:
    return ",".join(f"{p.name}={round(v)}" for p, v in zip(params, values, strict=True))


def clip(p: Param, v: float) -> float:
    return min(max(v, float(p.lo)), float(p.hi))


def c_k(p: Param, k: int, n: int) -> float:
    return p.c_end * math.pow(n / k, GAMMA)


def a_k(p: Param, k: int, n: int) -> float:
    big_a = 0.1 * n
    return p.r_end * p.c_end * p.c_end * math.pow((big_a + n) / (big_a + k), ALPHA)


def iterate(state: State, match: Match, seed: int) -> Outcome:
    """One SPSA step: perturb, play, move every constant along the result. The
    signs depend on (seed, iteration) only, so a resumed run is the same run."""
    k, n = state.iteration + 1, state.iterations
    rng = random.Random(seed * 1_000_003 + k)
    flips = [rng.choice((-1, 1)) for _ in state.params]
    cs = [c_k(p, k, n) for p in state.params]
    plus = [clip(p, p.value + c * f) for p, c, f in zip(state.params, cs, flips, strict=True)]
    minus = [clip(p, p.value - c * f) for p, c, f in zip(state.params, cs, flips, strict=True)]
    out = match(spec(state.params, plus), spec(state.params, minus), k)
    for p, c, f in zip(state.params, cs, flips, strict=True):
        p.value = clip(p, p.value + a_k(p, k, n) / c * out.score * f)
    state.iteration = k
    for key in state.totals:
        state.totals[key] += getattr(out, key)
    return out


def load_state(path: Path) -> State:
    try:
        raw = json.loads(path.read_text())
        return State(int(raw["iterations"]), [Param(**p) for p in raw["params"]],
                     int(raw["iteration"]), {k: int(v) for k, v in raw["totals"].items()})
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise SpsaError(f"{path}: not an SPSA state file ({e}); "
                        "move it away to start a new run") from e


def save_state(path: Path, state: State) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(asdict(state), indent=1) + "\n")
    tmp.replace(path)


# ---- games through fastchess


def pgn_outcome(pgn: str, plus: str = "plus") -> Outcome:
    """Count `plus`'s wins, draws and losses in fastchess's PGN output."""
    wins = draws = losses = unusual = 0
    text = io.StringIO(pgn)
    while (tags := chess.pgn.read_headers(text)) is not None:
        result = tags.get("Result", "*")
        if result == "1/2-1/2":
            draws += 1
        elif result in ("1-0", "0-1"):
            if (result == "1-0") == (tags.get("White") == plus):
                wins += 1
            else:
                losses += 1
        else:
            unusual += 1  # "*": not finished
            continue
        if tags.get("Termination", "normal") not in ("normal", "adjudication"):
            unusual += 1
    return Outcome(wins, draws, losses, unusual)


@dataclass(frozen=True)
class FastchessMatch:
    """Plays `pairs` game pairs per iteration between two copies of `engine`,
    each started with its own PIBOT_TUNE, in fastchess."""

    fastchess: Path
    engine: str  # a command line (e.g. DIR/pibot-uci)
    book: Path
    limit: list[str]  # fastchess -each settings: tc=... or nodes=...
    pairs: int
    concurrency: int
    seed: int
    workdir: Path

    def wrapper(self, name: str, tune: str) -> Path:
        path = self.workdir / f"{name}.sh"
        path.write_text(f"#!/bin/sh\nPIBOT_TUNE={shlex.quote(tune)} exec {self.engine} \"$@\"\n")
        path.chmod(0o755)
        return path

    def __call__(self, plus: str, minus: str, k: int) -> Outcome:
        pgn = self.workdir / "games.pgn"
        pgn.unlink(missing_ok=True)
        cmd = [str(self.fastchess),
               "-engine", f"cmd={self.wrapper('plus', plus)}", "name=plus",
               "-engine", f"cmd={self.wrapper('minus', minus)}", "name=minus",
               "-each", *self.limit, "option.Hash=16", "option.Threads=1",
               "-openings", f"file={self.book}", "format=pgn", "order=random",
               "-srand", str(self.seed * 1_000_003 + k),
               "-games", "2", "-repeat", "-rounds", str(self.pairs),
               "-concurrency", str(self.concurrency), *ADJUDICATE,
               "-autosaveinterval", "0", "-pgnout", f"file={pgn}"]
        proc = subprocess.run(cmd, cwd=self.workdir, capture_output=True, text=True,
                              check=False, timeout=3600)
        text = pgn.read_text() if pgn.is_file() else ""
        out = pgn_outcome(text)
        played = out.wins + out.draws + out.losses
        if proc.returncode != 0 or played != 2 * self.pairs:
            tail = (proc.stdout + proc.stderr).strip().splitlines()[-5:]
            raise SpsaError(f"fastchess played {played} of {2 * self.pairs} games "
                            f"(exit {proc.returncode}): " + " | ".join(tail))
        return out


def build_engine(out: Path) -> str:
    env = {**os.environ, "PIBOT_CFLAGS": (os.environ.get("PIBOT_CFLAGS", "") + " -DPB_TUNE")}
    script = ROOT / "tools" / "tune" / "build_variant.sh"
    proc = subprocess.run([str(script), str(out), str(ROOT / "engine_c" / "evalparams.h")],
                          env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SpsaError(f"building the tuning engine failed:\n{proc.stderr}")
    return shlex.quote(str(out / "pibot-uci"))


def limit_args(tc: str | None, nodes: int | None) -> list[str]:
    if (tc is None) == (nodes is None):
        raise SpsaError("give one of --tc (e.g. 4+0.04) or --nodes")
    if tc is not None:
        if not re.fullmatch(r"\d+(\.\d+)?(\+\d+(\.\d+)?)?", tc):
            raise SpsaError(f"--tc {tc}: not a clock; write SECONDS+INCREMENT, e.g. 4+0.04")
        return [f"tc={tc}"]
    assert nodes is not None
    if nodes < 1:
        raise SpsaError("--nodes must be at least 1")
    return ["tc=inf", f"nodes={nodes}"]


def run(state: State, state_path: Path, match: Match, seed: int,
        deadline: float | None) -> None:
    """Iterate to the schedule's end, or until the next iteration would pass
    the deadline (seconds since the epoch) at this run's pace."""
    started, done = time.monotonic(), 0
    while state.iteration < state.iterations:
        if deadline is not None and done:
            pace = (time.monotonic() - started) / done
            if time.time() + pace > deadline:
                log.info("stopping before the deadline at iteration %d", state.iteration)
                return
        out = iterate(state, match, seed)
        save_state(state_path, state)
        done += 1
        if out.unusual:
            log.warning("iteration %d: %d game(s) ended unusually (time, crash, illegal move)",
                        state.iteration, out.unusual)
        if state.iteration % 10 == 0 or state.iteration == state.iterations:
            rate = done / (time.monotonic() - started) * 3600
            t = state.totals
            log.info("iteration %d/%d (%.0f/h; plus +%d =%d -%d): %s", state.iteration,
                     state.iterations, rate, t["wins"], t["draws"], t["losses"],
                     " ".join(f"{p.name}={p.value:.1f}" for p in state.params))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--state", type=Path, required=True, help="JSON state (resumed if present)")
    ap.add_argument("--params", default="", help="comma-separated constants (default: all)")
    ap.add_argument("--iterations", type=int, default=1000, help="the schedule's length")
    ap.add_argument("--pairs", type=int, default=2, help="game pairs per iteration")
    ap.add_argument("--tc", help="a real clock per game, SECONDS+INCREMENT (e.g. 4+0.04)")
    ap.add_argument("--nodes", type=int, help="a node budget per move instead of a clock")
    ap.add_argument("--concurrency", type=int, default=2, help="games at once")
    ap.add_argument("--r-end", type=float, default=0.002, help="r_end of every constant")
    shared = ROOT.parent / "shared"
    ap.add_argument("--book", type=Path, default=shared / "books" / "8moves_v3.pgn")
    ap.add_argument("--fastchess", type=Path, default=shared / "tools" / "fastchess")
    ap.add_argument("--engine", help="a tuning build's UCI command (default: build one)")
    ap.add_argument("--build-dir", type=Path, default=Path(tempfile.gettempdir()) / "spsa_build")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--deadline", type=float, help="seconds since the epoch: start no "
                    "iteration that would end after it")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    try:
        limit = limit_args(args.tc, args.nodes)
        for what, path in (("opening book", args.book), ("fastchess", args.fastchess)):
            if not path.is_file():
                raise SpsaError(f"{what} {path} not found; pass --{what.split()[-1]} "
                                "(../shared beside the checkout has both)")
        if args.iterations < 1 or args.pairs < 1 or args.concurrency < 1:
            raise SpsaError("--iterations, --pairs and --concurrency must be at least 1")
        if args.state.is_file():
            state = load_state(args.state)
            log.info("resuming %s at iteration %d of %d", args.state, state.iteration,
                     state.iterations)
        else:
            names = [n for n in args.params.split(",") if n] or list(read_tunables())
            state = State(args.iterations, initial_params(names, args.r_end, read_tunables()))
        engine = args.engine or build_engine(args.build_dir)
        with tempfile.TemporaryDirectory(prefix="spsa-") as tmp:
            match = FastchessMatch(args.fastchess.resolve(), engine, args.book.resolve(), limit,
                                   args.pairs, args.concurrency, args.seed, Path(tmp))
            run(state, args.state, match, args.seed, args.deadline)
    except SpsaError as e:
        sys.stderr.write(f"spsa: {e}\n")
        return 2
    if state.iteration >= state.iterations:
        sys.stdout.write("PIBOT_TUNE=" + spec(state.params, [p.value for p in state.params])
                         + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
