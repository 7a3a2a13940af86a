"""Tuning builds (-DPB_TUNE): the search constants of engine_c/search_tunables.h
become ints that PIBOT_TUNE sets once (tools/tune/spsa.py relies on it); an
ordinary build keeps them compile-time constants (bench signature unchanged,
tests/test_bench.py)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT

ENGINE = ROOT / "engine_c"

# A tiny program: print every tunable after search_tune_load_env().
MAIN = r"""
#include <stdio.h>
#include "search_params.h"
#include "search_tune.h"
int main(void) {
    int rc = search_tune_load_env();
#define PB_PARAM(name, value, lo, hi) printf("%s=%d\n", #name, name);
#include "search_tunables.h"
#undef PB_PARAM
    printf("rc=%d\n", rc);
    return 0;
}
"""


def tunables() -> dict[str, tuple[int, int, int]]:
    text = (ENGINE / "search_tunables.h").read_text()
    return {m[1]: (int(m[2]), int(m[3]), int(m[4])) for m in
            re.finditer(r"^PB_PARAM\((\w+), (-?\d+), (-?\d+), (-?\d+)\)", text, re.M)}


@pytest.fixture(scope="module")
def probe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler")
    d = tmp_path_factory.mktemp("tune")
    (d / "main.c").write_text(MAIN)
    exe = d / "probe"
    subprocess.run([cc, "-std=c11", "-Wall", "-Werror", "-DPB_TUNE", f"-I{ENGINE}", "-o", str(exe),
                    str(d / "main.c"), str(ENGINE / "search_tune.c")], check=True, timeout=120)
    return exe


def run(exe: Path, spec: str | None) -> tuple[dict[str, int], int, str]:
    env = {k: v for k, v in os.environ.items() if k != "PIBOT_TUNE"}
    if spec is not None:
        env["PIBOT_TUNE"] = spec
    proc = subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=30,
                          check=True)
    values = dict(line.split("=") for line in proc.stdout.split())
    rc = int(values.pop("rc"))
    return {k: int(v) for k, v in values.items()}, rc, proc.stderr


def test_defaults_without_the_variable_and_every_default_in_range(probe: Path) -> None:
    table = tunables()
    assert len(table) >= 10
    for name, (value, lo, hi) in table.items():
        assert lo <= value <= hi, name
    values, rc, err = run(probe, None)
    assert rc == 0 and err == ""
    assert values == {name: v for name, (v, _, _) in table.items()}


def test_values_are_set_from_the_variable(probe: Path) -> None:
    values, rc, _ = run(probe, "RFP_MARGIN=95,LMR_DIVISOR_X100=240")
    assert rc == 0
    assert values["RFP_MARGIN"] == 95 and values["LMR_DIVISOR_X100"] == 240
    assert values["FUT_BASE"] == tunables()["FUT_BASE"][0]


@pytest.mark.parametrize("spec, message", [
    ("RFP_MARGIN=9000", "RFP_MARGIN needs an integer in [30, 180]"),
    ("NOPE=1", "unknown constant NOPE"),
    ("RFP_MARGIN=9x", "RFP_MARGIN needs an integer"),
    ("RFP_MARGIN", "expected NAME=VALUE"),
])
def test_a_bad_entry_is_named_and_changes_nothing(probe: Path, spec: str, message: str) -> None:
    values, rc, err = run(probe, "FUT_BASE=120," + spec)
    assert rc == -1 and message in err
    assert values["FUT_BASE"] == tunables()["FUT_BASE"][0]  # the good entry was rolled back
