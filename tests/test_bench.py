"""The bench signature: `pibot bench` (default depth, one thread) must print
the node count recorded in bench/signature.txt, the Pi's build (aarch64,
magic bitboards, under qemu-user) and the x86 magic build must search the
very same tree, and docs/strength.md must quote the recorded number. With the
NNUE evaluation (`--eval nnue`, not the default, so no recorded number: the net
will change) the Python, x86 magic and aarch64 builds must agree with each other."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from conftest import ROOT
from test_c_builds import build, need, run

from bot.engine.bench import BENCH_FENS, DEFAULT_DEPTH
from bot.engine.search_bindings import DEFAULT_EVAL


def recorded_signature() -> int:
    lines = [ln for ln in (ROOT / "bench/signature.txt").read_text().splitlines()
             if ln.strip() and not ln.startswith("#")]
    assert len(lines) == 1, "bench/signature.txt holds one number after its comments"
    return int(lines[0])


def nodes_in(output: str) -> int:
    found = re.findall(r"^Nodes searched: (\d+)$", output, re.MULTILINE)
    assert len(found) == 1, output
    return int(found[0])


NNUE_DEPTH = 7  # keeps the aarch64 run under qemu to seconds


def c_bench(tmp_path: Path, variant: str, prefix: list[str], eval_name: str = DEFAULT_EVAL,
            depth: int = DEFAULT_DEPTH, **env: str) -> int:
    exe = str(build(variant, "search_main", **env))
    fens = tmp_path / "bench.fens"
    fens.write_text("\n".join(BENCH_FENS) + "\n")
    return nodes_in(run([*prefix, exe, "bench", str(depth), str(fens), eval_name], timeout=600))


def python_nnue_bench() -> int:
    proc = subprocess.run([sys.executable, "-m", "bot.cli", "bench", "--eval", "nnue",
                           "--depth", str(NNUE_DEPTH)], capture_output=True, text=True,
                          timeout=600, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    return nodes_in(proc.stdout)


def test_pibot_bench_prints_the_recorded_signature() -> None:
    proc = subprocess.run([sys.executable, "-m", "bot.cli", "bench"], capture_output=True,
                          text=True, timeout=600, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert nodes_in(proc.stdout) == recorded_signature(), (
        "the search changed: update bench/signature.txt and record the new "
        "signature with its measurement in docs/strength.md")
    assert re.search(r"^Nodes/second: \d+$", proc.stdout, re.MULTILINE)


def test_strength_log_quotes_the_signature() -> None:
    assert str(recorded_signature()) in (ROOT / "docs/strength.md").read_text()


def test_magic_c_build_searches_the_same_tree(tmp_path: Path) -> None:
    assert c_bench(tmp_path, "magic", []) == recorded_signature()


def test_aarch64_build_searches_the_same_tree(tmp_path: Path) -> None:
    cc = need("aarch64-linux-gnu-gcc")
    qemu = need("qemu-aarch64")
    assert c_bench(tmp_path, "arm", [qemu], CC=cc) == recorded_signature()


def test_nnue_bench_is_the_same_in_the_python_and_magic_builds(tmp_path: Path) -> None:
    nodes = python_nnue_bench()
    assert nodes == python_nnue_bench()
    assert c_bench(tmp_path, "magic", [], "nnue", NNUE_DEPTH) == nodes
    assert nodes != c_bench(tmp_path, "magic", [], "hce", NNUE_DEPTH)


def test_aarch64_build_searches_the_same_nnue_tree(tmp_path: Path) -> None:
    cc = need("aarch64-linux-gnu-gcc")
    qemu = need("qemu-aarch64")
    assert c_bench(tmp_path, "arm", [qemu], "nnue", NNUE_DEPTH, CC=cc) == python_nnue_bench()
