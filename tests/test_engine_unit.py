"""C-level checks of engine internals and of the C API contract (engine_c/tools/
unit_main.c), in the optimised build and under ASan/UBSan: repetition relative
to the search root, TT ageing, and what the C API promises about freeing,
stopping and configuring an engine while another thread searches; the NNUE
accumulators, net validation and an NNUE search, a crazyhouse net's too (sanitizers
catch over-reads);
the move picker hands out every legal move once, in falling score order."""

from __future__ import annotations

import subprocess

import pytest
from test_c_builds import ENGINE, build

CHECKS = ["repetition_root", "tt_age_refresh", "api_free_during_search", "api_stop_race",
          "api_setters_race", "nnue_walk", "nnue_parse", "nnue_search", "nnue_crazyhouse",
          "nnue_mirror", "nnue_chess_on_crazyhouse",
          "key_after", "is_legal", "picker", "qsearch_picker", "corr_keys", "timeman_scale"]


@pytest.fixture(scope="module", params=["magic", "san"])
def unit_exe(request: pytest.FixtureRequest) -> str:
    return str(build(request.param, "unit_main"))


@pytest.mark.parametrize("check", CHECKS)
def test_unit_check(unit_exe: str, check: str) -> None:
    proc = subprocess.run([unit_exe, check], capture_output=True, text=True, timeout=300,
                          cwd=ENGINE)
    assert proc.returncode == 0 and f"ok {check}" in proc.stdout, proc.stdout + proc.stderr
