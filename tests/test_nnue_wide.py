"""Another hidden width than the shipped one (issue 36): the engine is built for the
width of the net it embeds (`make NET=...` reads it from the header), evaluates
exactly as tools/nnue/reference.py does at that width, sums the output layer without
int32 overflow past 256 terms, and refuses a net of another width in one line."""

from __future__ import annotations

import fcntl
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import ROOT
from test_c_builds import ENGINE, run
from test_nnue import WALK_FENS

sys.path.insert(0, str(ROOT / "tools" / "nnue"))

import reference as ref  # noqa: E402
from make_random_net import make as make_net  # noqa: E402

# Two full blocks of 256 terms and a part block: both paths of screlu_dot, and more
# than one block summed (the shipped 384 has one of each, tested through the package).
WIDTH = 640
LIMIT = 20000  # NNUE_EVAL_LIMIT (search_params.h)


def build_for(net: Path) -> Path:
    """engine_c's nnue_eval with `net` embedded, in out/magic-hWIDTH/."""
    out = ENGINE / "out"
    out.mkdir(exist_ok=True)
    target = f"out/magic-h{WIDTH}/nnue_eval"
    with (out / ".build.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        subprocess.run(["make", "-s", "VARIANT=magic", f"NET={net}", "-B", target],
                       cwd=ENGINE, check=True, timeout=600)
    return ENGINE / target


@pytest.fixture(scope="module")
def wide(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    d = tmp_path_factory.mktemp("wide")
    net = d / "wide.pbnn"
    net.write_bytes(make_net(7, buckets=8, hidden=WIDTH).to_bytes())
    return build_for(net), net


def evals(exe: Path, fens: list[str], *args: str) -> list[int]:
    return [int(x) for x in run([str(exe), *args], _stdin="\n".join(fens) + "\n").split()]


def test_a_wide_build_evaluates_as_the_reference(wide: tuple[Path, Path]) -> None:
    exe, path = wide
    net = ref.read_pbnn(path)
    assert net.hidden == WIDTH and net.buckets == 8
    want = [max(-LIMIT, min(LIMIT, ref.evaluate(net, f))) for f in WALK_FENS]
    assert evals(exe, WALK_FENS) == want
    assert len(set(want)) > 3  # the positions tell the net something


def test_the_output_sum_is_exact_past_int32(wide: tuple[Path, Path], tmp_path: Path) -> None:
    """Every accumulator at QA and every output weight 127: each half sums to
    640 * 255^2 * 127 = 5.29e9, past int32; the bias brings the eval back to a
    small number, which only an exact sum gives."""
    exe, _ = wide
    ft_w = np.zeros((768, WIDTH), np.int16)
    ft_b = np.full(WIDTH, 255, np.int16)
    out_w = np.full((1, 2 * WIDTH), 127, np.int16)
    total = 2 * WIDTH * 255 ** 2 * 127
    assert total // 2 > 2 ** 31
    net = ref.QuantNet(ft_w, ft_b, out_w, [-(total // 255) + 5000])
    path = tmp_path / "extreme.pbnn"
    ref.write_pbnn(path, net)
    want = ref.evaluate(net, WALK_FENS[0])
    assert 0 < want < 500
    assert evals(exe, WALK_FENS[:1], str(path)) == [want]


def test_a_net_of_another_width_is_one_line(wide: tuple[Path, Path]) -> None:
    exe, _ = wide
    proc = subprocess.run([str(exe), str(ENGINE / "nets" / "default.pbnn")], input="",
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1
    assert f"hidden layer is 384 wide, this engine was built for {WIDTH}" in proc.stderr


def test_reference_and_trainer_tools_take_the_width(tmp_path: Path) -> None:
    path = tmp_path / "n.pbnn"
    proc = subprocess.run([sys.executable, str(ROOT / "tools/nnue/make_random_net.py"), str(path),
                           "--hidden", "512", "--buckets", "2"], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert path.stat().st_size == ref.file_size(2, 512) and ref.read_pbnn(path).hidden == 512
    bad = subprocess.run([sys.executable, str(ROOT / "tools/nnue/make_random_net.py"),
                          str(tmp_path / "x.pbnn"), "--hidden", "300"], capture_output=True,
                         text=True, timeout=60)
    assert bad.returncode == 2 and "multiple of 64" in bad.stderr
