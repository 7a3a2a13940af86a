"""build_engine's CPU flags: PIBOT_CPU (install.sh --cpu) names the target CPU
where -mcpu=native cannot see it (an arm64 root under qemu-user), and wins over
PIBOT_NATIVE; a value that is not a CPU name stops the build with one line."""

from __future__ import annotations

import platform
import sys

import pytest
from conftest import ROOT

sys.path.insert(0, str(ROOT))
import build_engine  # noqa: E402


@pytest.fixture(autouse=True)
def _no_cpu_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PIBOT_CPU", raising=False)
    monkeypatch.delenv("PIBOT_NATIVE", raising=False)


def test_explicit_cpu_per_architecture(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PIBOT_CPU", "cortex-a76")
    monkeypatch.setenv("PIBOT_NATIVE", "1")  # the explicit CPU wins
    assert build_engine.cpu_flag("aarch64") == "-mcpu=cortex-a76"
    monkeypatch.setenv("PIBOT_CPU", "x86-64-v3")
    assert build_engine.cpu_flag("x86_64") == "-march=x86-64-v3"


def test_native_and_portable(monkeypatch: pytest.MonkeyPatch) -> None:
    assert build_engine.cpu_flag("aarch64") is None
    monkeypatch.setenv("PIBOT_NATIVE", "1")
    assert build_engine.cpu_flag("aarch64") == "-mcpu=native"
    assert build_engine.cpu_flag("x86_64") == "-march=native"
    monkeypatch.setenv("PIBOT_NATIVE", "0")
    assert build_engine.cpu_flag("aarch64") is None


def test_compile_args_carry_the_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PIBOT_CPU", "x86-64")
    flag = build_engine.cpu_flag(platform.machine().lower())
    assert flag is not None and flag in build_engine.compile_args()


@pytest.mark.parametrize("bad", ["cortex-a76 -fplugin=x.so", "-O0", "a;b"])
def test_a_bad_cpu_name_stops_the_build_with_one_line(monkeypatch: pytest.MonkeyPatch,
                                                      bad: str) -> None:
    monkeypatch.setenv("PIBOT_CPU", bad)
    with pytest.raises(SystemExit) as exc:
        build_engine.cpu_flag("aarch64")
    message = str(exc.value)
    assert "PIBOT_CPU" in message and "cortex-a76" in message and "\n" not in message
