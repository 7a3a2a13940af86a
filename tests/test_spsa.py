"""tools/tune/spsa.py: the SPSA step, its state and resumption, fastchess's
PGN counted from the plus engine's side, bad input in one line, and (where
../shared has fastchess) an iteration played by real engines."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

sys.path.insert(0, str(ROOT / "tools" / "tune"))
import spsa  # noqa: E402

SHARED = ROOT.parent / "shared"
TABLE = {"A": (100, 0, 400), "B": (50, 10, 90)}


def new_state(iterations: int = 200, r_end: float = 0.002) -> spsa.State:
    return spsa.State(iterations, spsa.initial_params(["A", "B"], r_end, TABLE))


def spec_values(s: str) -> dict[str, int]:
    return {k: int(v) for k, v in (item.split("=") for item in s.split(","))}


def quadratic_match(target: dict[str, int]) -> spsa.Match:
    """Plus wins a game pair when it is nearer the target than minus, distances
    in each constant's range (a known optimum stands in for the engines; what is
    tested is the step's sign and size)."""
    def dist(v: dict[str, int]) -> float:
        return sum(((v[n] - t) / (TABLE[n][2] - TABLE[n][1])) ** 2 for n, t in target.items())

    def match(plus: str, minus: str, k: int) -> spsa.Outcome:
        dp, dm = dist(spec_values(plus)), dist(spec_values(minus))
        return spsa.Outcome(2, 0, 0) if dp < dm else spsa.Outcome(0, 0, 2) if dp > dm \
            else spsa.Outcome(0, 2, 0)
    return match


def test_spsa_moves_every_constant_toward_a_known_optimum(tmp_path: Path) -> None:
    # A learning rate ten times the default, so that a noiseless 300 steps arrive.
    state = new_state(300, r_end=0.02)
    spsa.run(state, tmp_path / "s.json", quadratic_match({"A": 250, "B": 30}), seed=3,
             deadline=None)
    a, b = (p.value for p in state.params)
    # From 100 and 50 to within a tenth of each range of 250 and 30.
    assert abs(a - 250) < 40 and abs(b - 30) < 8, (a, b)
    assert state.iteration == 300 and sum(state.totals.values()) == 600


def test_a_resumed_run_is_the_same_run(tmp_path: Path) -> None:
    match = quadratic_match({"A": 180, "B": 70})
    whole = new_state(40)
    spsa.run(whole, tmp_path / "whole.json", match, seed=9, deadline=None)
    half = new_state(40)
    path = tmp_path / "half.json"
    for _ in range(20):
        spsa.iterate(half, match, seed=9)
    spsa.save_state(path, half)
    resumed = spsa.load_state(path)
    spsa.run(resumed, path, match, seed=9, deadline=None)
    assert spsa.load_state(path) == whole
    assert json.loads(path.read_text())["iteration"] == 40


def test_the_step_shrinks_on_schedule() -> None:
    p = spsa.initial_params(["A"], 0.002, TABLE)[0]
    assert p.c_end == 20.0  # a twentieth of 0..400
    assert spsa.c_k(p, 1000, 1000) == pytest.approx(20.0)
    assert spsa.c_k(p, 1, 1000) > spsa.c_k(p, 500, 1000) > spsa.c_k(p, 1000, 1000)
    assert spsa.a_k(p, 1000, 1000) == pytest.approx(0.002 * 400)
    assert spsa.a_k(p, 1, 1000) > spsa.a_k(p, 1000, 1000)


def test_a_deadline_starts_no_iteration_it_cannot_finish(tmp_path: Path) -> None:
    import time
    state = new_state(100)

    def slow(plus: str, minus: str, k: int) -> spsa.Outcome:
        time.sleep(0.05)
        return spsa.Outcome(1, 0, 1)
    spsa.run(state, tmp_path / "s.json", slow, seed=1, deadline=time.time() + 0.22)
    assert 2 <= state.iteration <= 4
    assert spsa.load_state(tmp_path / "s.json").iteration == state.iteration


def pgn(games: list[tuple[str, str, str, str]]) -> str:
    return "\n\n".join(
        f'[Event "t"]\n[White "{w}"]\n[Black "{b}"]\n[Result "{r}"]\n[Termination "{t}"]\n\n'
        f"1. e4 e5 {r}" for w, b, r, t in games) + "\n"


def test_the_pgn_is_counted_from_the_plus_side() -> None:
    text = pgn([("plus", "minus", "1-0", "normal"), ("minus", "plus", "1-0", "normal"),
                ("minus", "plus", "0-1", "time forfeit"), ("plus", "minus", "1/2-1/2",
                                                           "adjudication"),
                ("plus", "minus", "*", "stall")])
    assert spsa.pgn_outcome(text) == spsa.Outcome(wins=2, draws=1, losses=1, unusual=2)
    assert spsa.pgn_outcome("") == spsa.Outcome(0, 0, 0, 0)


def cli(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "tools/tune/spsa.py"), *map(str, args)],
                          capture_output=True, text=True, timeout=120, cwd=cwd)


def test_bad_input_is_one_line(tmp_path: Path) -> None:
    fake = tmp_path / "fastchess"
    fake.write_text("#!/bin/sh\nexit 1\n")
    fake.chmod(0o755)
    book = tmp_path / "book.pgn"
    book.write_text("")
    bad_state = tmp_path / "bad.json"
    bad_state.write_text("{not json")
    base = ["--fastchess", fake, "--book", book, "--engine", "true"]
    cases = (
        ([*base, "--state", tmp_path / "s.json", "--tc", "4+0.04", "--params", "NO_SUCH"],
         "unknown constant(s) NO_SUCH"),
        ([*base, "--state", tmp_path / "s.json", "--tc", "fast"], "--tc fast: not a clock"),
        ([*base, "--state", tmp_path / "s.json"], "give one of --tc"),
        ([*base, "--state", tmp_path / "s.json", "--tc", "4", "--nodes", "100"],
         "give one of --tc"),
        ([*base, "--state", bad_state, "--tc", "4+0.04"], "not an SPSA state file"),
        (["--fastchess", tmp_path / "none", "--book", book, "--state", tmp_path / "s.json",
          "--tc", "4"], "fastchess"),
        # fastchess that plays nothing: named, with its exit status, and no state written
        ([*base, "--state", tmp_path / "s.json", "--tc", "4+0.04", "--params", "RFP_MARGIN"],
         "fastchess played 0 of 4 games (exit 1)"),
    )
    for args, why in cases:
        proc = cli(*args, cwd=tmp_path)
        assert proc.returncode == 2 and why in proc.stderr, (args, proc.stderr)
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert not (tmp_path / "s.json").exists()


@pytest.mark.skipif(not (SHARED / "tools" / "fastchess").is_file(),
                    reason="fastchess is in ../shared only")
def test_real_engines_play_an_iteration_through_fastchess(tmp_path: Path) -> None:
    """The package's own engine (an ordinary build: it ignores PIBOT_TUNE) on both
    sides, at a node budget: the wiring from fastchess's PGN to the state."""
    engine = f"{shlex.quote(sys.executable)} -m bot uci"
    state = tmp_path / "state.json"
    args = ["--state", state, "--params", "RFP_MARGIN,FUT_BASE", "--iterations", "2",
            "--pairs", "1", "--nodes", "400", "--engine", engine]
    proc = cli(*args, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    saved = json.loads(state.read_text())
    assert saved["iteration"] == 2
    t = saved["totals"]
    assert t["wins"] + t["draws"] + t["losses"] == 4 and t["unusual"] == 0
    assert proc.stdout.startswith("PIBOT_TUNE=RFP_MARGIN=")
