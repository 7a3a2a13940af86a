"""platform_info on this machine, and the hash-fit arithmetic on made-up figures."""

from __future__ import annotations

import os

import pytest

from bot.engine import backend
from bot.host import platform_info as pi

pytestmark = pytest.mark.arm64  # scripts/arm64-check.sh runs these on arm64

MEMINFO = """\
MemTotal:        8245036 kB
MemFree:         6901234 kB
MemAvailable:    7600000 kB
Hugepagesize:      32768 kB
"""


def test_report_has_sane_values_here() -> None:
    r = pi.report(backend())
    assert set(r) == set(pi.PlatformReport.__annotations__)
    assert r["arch"]
    assert r["cpu_cores"] == os.cpu_count()
    assert r["page_size"] is not None and r["page_size"] >= 4096
    assert r["page_size"] & (r["page_size"] - 1) == 0  # a power of two
    if r["huge_page_size"] is not None:
        assert r["huge_page_size"] > r["page_size"]
    assert r["thp_mode"] in (None, "always", "madvise", "never")
    assert r["mem_total_mb"] is not None and r["mem_total_mb"] > 0
    assert r["mem_available_mb"] is not None
    assert 0 <= r["mem_available_mb"] <= r["mem_total_mb"]
    assert r["engine_backend"] in ("pext", "magic")
    assert pi.report()["engine_backend"] is None  # the host does not import the engine
    temp = pi.cpu_temperature_c()
    assert temp is None or -40.0 < temp < 150.0


def test_format_report_lines() -> None:
    lines = pi.format_report(pi.report())
    assert lines and all(isinstance(line, str) and "\n" not in line for line in lines)
    text = "\n".join(lines)
    for word in ("cpu:", "memory:", "pages:", "cpu temperature:", "engine"):
        assert word in text


def test_format_report_warns_when_hot_and_thp_off() -> None:
    r = pi.report()
    r["cpu_temp_c"] = 82.5
    r["thp_mode"] = "never"
    text = "\n".join(pi.format_report(r))
    assert "82.5 C" in text and "throttles" in text
    assert "transparent huge pages are off" in text


def test_meminfo_parsing() -> None:
    mem = pi.meminfo_kb(MEMINFO)
    assert mem["MemTotal"] == 8245036
    assert mem["MemAvailable"] == 7600000
    assert mem["Hugepagesize"] == 32768
    assert pi.meminfo_kb("") == {}


def test_budget_is_half_of_ram_capped_by_available_and_memory_max() -> None:
    assert pi.hash_budget_mb(8000, 7500) == 4000
    assert pi.hash_budget_mb(8000, 1256) == 1000          # busy machine: keep 256 MiB free
    assert pi.hash_budget_mb(8000, 7500, memory_max_mb=2000) == 1000  # MemoryMax=2G
    assert pi.hash_budget_mb(8000, None) == 4000
    assert pi.hash_budget_mb(8000, 100) == 0


def test_fits() -> None:
    assert pi.hash_fit_message(256, 1, 4000) is None
    assert pi.hash_fit_message(1000, 4, 4000) is None
    assert pi.hash_fit_message(4000, 1, 4000) is None
    assert pi.hash_fit_message(4000, 0, 4000) is None  # games < 1 counts as one


def test_too_big_names_key_and_a_size_that_fits() -> None:
    msg = pi.hash_fit_message(4096, 2, 1900)
    assert msg is not None
    assert "engine.hash_mb" in msg and "8192 MiB" in msg
    suggested = int(msg.rsplit("set engine.hash_mb to ", 1)[1].split()[0])
    assert suggested == 896 and suggested * 2 <= 1900
    assert pi.hash_fit_message(suggested, 2, 1900) is None


def test_small_suggestions_are_exact() -> None:
    msg = pi.hash_fit_message(64, 1, 40)
    assert msg is not None and "set engine.hash_mb to 40 or less" in msg


def test_nothing_fits_points_at_concurrency() -> None:
    msg = pi.hash_fit_message(16, 8, 4)
    assert msg is not None and "challenge.concurrency" in msg


def test_check_hash_fits_on_this_machine() -> None:
    assert pi.check_hash_fits(1) is None
    msg = pi.check_hash_fits(65536, games=64)  # 4 TiB: no machine running CI has that
    assert msg is not None and "engine.hash_mb" in msg
