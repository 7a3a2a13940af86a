"""bot.host.heat.HeatMonitor on a fixture tree whose temperature and flags we change."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest

from bot.host.heat import HeatMonitor
from bot.host.machine import Machine

FIXTURES = Path(__file__).parent / "data" / "machine"
THROTTLE = "sys/bus/platform/drivers/raspberrypi-firmware/firmware/get_throttled"


def set_state(root: Path, temp_c: float, throttled: str) -> None:
    (root / "sys/class/thermal/thermal_zone0/temp").write_text(f"{int(temp_c * 1000)}\n")
    (root / THROTTLE).write_text(throttled + "\n")


def test_limit_steps_threads_down_and_back_and_logs(tmp_path: Path,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    root = tmp_path / "pi"
    shutil.copytree(FIXTURES / "pi5-8gb", root)
    mon = HeatMonitor(4, limit_c=80.0, machine=Machine(root))
    caplog.set_level(logging.INFO, logger="bot.host.heat")
    seen = []
    for temp, flags in [(60, "0"), (81, "80008"), (84, "e000e"), (78, "e0000"),
                        (74, "0"), (70, "0"), (70, "0")]:
        set_state(root, temp, flags)
        mon.poll()
        seen.append(mon.threads_now)
    assert seen == [4, 3, 2, 2, 3, 4, 4]
    text = caplog.text
    assert text.count("the CPU is being slowed down") == 1
    assert "soft temperature limit" in text and "at 81.0 C" in text
    assert text.count("CPU throttling stopped at 78.0 C") == 1
    assert "searching with 3 thread(s) instead of 4" in text
    assert "CPU down to 70.0 C: searching with 4 of 4 thread(s)" in text
    assert mon.status() == {"temp_c": 70.0, "throttled": 0, "flags": []}


def test_no_limit_keeps_threads_but_still_logs_throttling(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    root = tmp_path / "pi"
    shutil.copytree(FIXTURES / "pi5-8gb-throttled", root)
    mon = HeatMonitor(4, limit_c=None, machine=Machine(root))
    caplog.set_level(logging.INFO, logger="bot.host.heat")
    mon.poll()
    assert mon.threads_now == 4
    assert "the CPU is being slowed down (ARM frequency capped, throttled, " \
           "soft temperature limit) at 86.3 C" in caplog.text
    assert mon.status()["flags"] == ["ARM frequency capped", "throttled",
                                     "soft temperature limit"]


def test_a_pc_without_sensors_is_quiet(tmp_path: Path,
                                       caplog: pytest.LogCaptureFixture) -> None:
    mon = HeatMonitor(2, limit_c=80.0, machine=Machine(tmp_path))
    caplog.set_level(logging.DEBUG, logger="bot.host.heat")
    mon.poll()
    assert mon.threads_now == 2 and not caplog.records
    assert mon.status() == {"temp_c": None, "throttled": None, "flags": []}


def test_reconfigure_keeps_what_the_heat_holds_back(tmp_path: Path) -> None:
    root = tmp_path / "pi"
    shutil.copytree(FIXTURES / "pi5-8gb", root)
    mon = HeatMonitor(4, limit_c=80.0, machine=Machine(root))
    set_state(root, 85, "80008")
    mon.poll()
    assert mon.threads_now == 3
    mon.reconfigure(2, 80.0)  # SIGHUP: engine.threads 4 -> 2 while still hot
    assert (mon.configured, mon.threads_now) == (2, 1)
    mon.reconfigure(2, None)  # limit switched off: all configured threads at once
    assert mon.threads_now == 2
