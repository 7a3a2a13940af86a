"""bot.host.machine: machine facts read from fixture trees (tests/data/machine/*, each
with a README saying what it models), auto sizing, heat decisions."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from bot.host import machine as m
from bot.host.machine import Heat, Machine, size_engine

pytestmark = pytest.mark.arm64  # scripts/arm64-check.sh runs these on arm64

FIXTURES = Path(__file__).parent / "data" / "machine"


def facts(name: str) -> m.MachineFacts:
    return Machine(FIXTURES / name).facts()


def sized(name: str, concurrency: int = 1) -> m.EngineSizing:
    return size_engine("auto", "auto", concurrency, facts(name))


# -- reading facts ---------------------------------------------------------------

def test_pi5_8gb_facts() -> None:
    f = facts("pi5-8gb")
    assert (f.cpus_online, f.cpus_allowed, f.cpu_quota) == (4, 4, None)
    assert f.mem_total_mb == 8048 and f.mem_available_mb == 7476
    assert f.memory_max_mb is None
    assert f.board == "Raspberry Pi 5 Model B Rev 1.0"
    assert f.usable_cpus == 4.0


def test_cgroup_cpu_quota_limits_usable_cpus() -> None:
    f = facts("cgroup-quota-2cpu")
    assert f.cpus_online == 8 and f.cpus_allowed == 8
    assert f.cpu_quota == 2.0 and f.usable_cpus == 2.0


def test_affinity_limits_usable_cpus() -> None:
    f = facts("affinity-2of4")
    assert f.cpus_online == 4 and f.cpus_allowed == 2 and f.usable_cpus == 2.0


def test_memory_max_on_the_unit_caps_memory() -> None:
    f = facts("pi5-8gb-memorymax-1g")
    assert f.memory_max_mb == 1024
    # 1024 MiB limit - 100 MiB already in use, although the Pi has 7.3 GiB free
    assert f.mem_available_mb == 924


def test_the_tightest_limit_along_the_cgroup_path_counts(tmp_path: Path) -> None:
    root = tmp_path / "r"
    (root / "proc/self").mkdir(parents=True)
    (root / "proc/self/cgroup").write_text("0::/pibot.slice/pibot.service\n")
    (root / "proc/meminfo").write_text("MemTotal: 8000000 kB\nMemAvailable: 7000000 kB\n")
    leaf = root / "sys/fs/cgroup/pibot.slice/pibot.service"
    leaf.mkdir(parents=True)
    (leaf / "memory.max").write_text("max\n")
    (leaf / "cpu.max").write_text("300000 100000\n")
    (leaf.parent / "memory.max").write_text(f"{512 * 1024 * 1024}\n")
    (leaf.parent / "cpu.max").write_text("150000 100000\n")
    mach = Machine(root)
    assert mach.memory_max_mb() == 512
    assert mach.cpu_quota() == 1.5


def test_missing_files_mean_unknown_not_errors(tmp_path: Path) -> None:
    mach = Machine(tmp_path)
    f = mach.facts()
    assert f.mem_total_mb is None and f.memory_max_mb is None and f.cpu_quota is None
    assert f.cpus_online == 1 and f.usable_cpus == 1.0
    assert mach.heat() == Heat(temp_c=None, zone=None, throttled=None)
    assert size_engine("auto", "auto", 1, f).hash_mb == 64


def test_this_machine() -> None:
    mach = Machine()
    f = mach.facts()
    assert f.cpus_allowed == len(os.sched_getaffinity(0))
    assert 0 < f.usable_cpus <= (os.cpu_count() or 1)
    assert f.mem_total_mb is not None and f.mem_total_mb > 0
    heat = mach.heat()
    assert heat.temp_c is None or -40 < heat.temp_c < 150


@pytest.mark.parametrize(("text", "cpus"), [
    ("0-3", {0, 1, 2, 3}), ("0,2-3\n", {0, 2, 3}), ("5", {5}), ("", None), ("x-1", None)])
def test_parse_cpu_list(text: str, cpus: set[int] | None) -> None:
    assert m.parse_cpu_list(text) == cpus


@pytest.mark.parametrize(("text", "quota"), [
    ("max 100000", None), ("200000 100000", 2.0), ("50000 100000\n", 0.5), ("", None),
    ("junk", None), ("0 100000", None)])
def test_parse_cpu_max(text: str, quota: float | None) -> None:
    assert m.parse_cpu_max(text) == quota


# -- auto sizing on the fixtures -------------------------------------------------

@pytest.mark.parametrize(("name", "concurrency", "threads", "hash_mb"), [
    ("pi5-4gb", 1, 4, 1024), ("pi5-4gb", 2, 2, 512), ("pi5-4gb", 4, 1, 256),
    ("pi5-8gb", 1, 4, 2048), ("pi5-8gb", 2, 2, 1024), ("pi5-8gb", 4, 1, 512),
    ("pi5-16gb", 1, 4, 4096), ("pi5-16gb", 2, 2, 2048), ("pi5-16gb", 4, 1, 1024),
    ("cgroup-quota-2cpu", 1, 2, 4096), ("cgroup-quota-2cpu", 2, 1, 2048),
    ("affinity-2of4", 1, 2, 2048),
    ("pi5-8gb-memorymax-1g", 1, 4, 512), ("pi5-8gb-memorymax-1g", 2, 2, 256),
])
def test_auto_sizing(name: str, concurrency: int, threads: int, hash_mb: int) -> None:
    s = sized(name, concurrency)
    assert (s.threads, s.hash_mb) == (threads, hash_mb)
    assert s.hash_mb & (s.hash_mb - 1) == 0  # a power of two
    assert not s.hash_at_floor
    assert s.threads_auto and s.hash_auto


def test_pi5_8gb_lands_on_gigabytes_and_four_threads() -> None:
    s = sized("pi5-8gb")
    assert s.hash_mb >= 1024 and s.threads == 4
    line = s.describe()
    assert "engine.threads=4 (auto: 4 usable CPU(s)" in line
    assert "engine.hash_mb=2048 MiB (auto: 50% of RAM 8048 MiB" in line


def test_auto_hash_fits_the_start_up_memory_check() -> None:
    for name in ("pi5-4gb", "pi5-8gb", "pi5-16gb", "pi5-8gb-memorymax-1g"):
        f = facts(name)
        for conc in (1, 2, 3, 4):
            s = size_engine("auto", 1, conc, f)
            assert f.mem_total_mb is not None
            budget = m.hash_budget_mb(f.mem_total_mb, f.mem_available_mb, f.memory_max_mb)
            assert s.hash_mb * conc <= budget, (name, conc)


def test_tiny_machine_gets_the_floor() -> None:
    s = sized("tiny-1gb")
    assert s.hash_mb == m.HASH_FLOOR_MB and s.hash_at_floor
    assert "floor" in s.describe()


def test_a_number_in_the_config_wins() -> None:
    s = size_engine(300, 3, 2, facts("pi5-8gb"))
    assert (s.hash_mb, s.threads) == (300, 3)
    assert not s.hash_auto and not s.threads_auto
    assert s.describe() == ("engine.threads=3 (set in the config); "
                            "engine.hash_mb=300 MiB (set in the config)")


def test_auto_threads_rounding() -> None:
    assert m.auto_threads(4, 1, 0.05).value == 4
    assert m.auto_threads(4, 1, 0.6).value == 3   # the service would take over half a core
    assert m.auto_threads(4, 3, 0.05).value == 1
    assert m.auto_threads(1, 1, 0.05).value == 1
    assert m.auto_threads(0.5, 1, 0.05).value == 1  # never zero
    assert m.auto_threads(256, 1, 0.05).value == m.MAX_AUTO_THREADS


# -- heat ------------------------------------------------------------------------------

def test_heat_normal_hot_throttled() -> None:
    normal = Machine(FIXTURES / "pi5-8gb").heat()
    assert normal == Heat(temp_c=52.7, zone="cpu-thermal", throttled=0)
    assert not normal.throttling and normal.describe() == "52.7 C, not throttled"
    hot = Machine(FIXTURES / "pi5-8gb-hot").heat()
    assert hot.temp_c == 82.4 and hot.throttled == 0x80008 and hot.throttling
    assert m.throttle_flags(0x80008) == ["soft temperature limit"]
    assert m.throttle_flags(0x80008, occurred=True) == ["soft temperature limit"]
    thr = Machine(FIXTURES / "pi5-8gb-throttled").heat()
    assert thr.throttled == 0xE000E and thr.throttling
    assert thr.describe() == ("86.3 C, ARM frequency capped, throttled, "
                              "soft temperature limit")


def test_pi4_firmware_path_and_under_voltage() -> None:
    mach = Machine(FIXTURES / "pi4-soc-firmware")
    path = mach.throttle_file()
    assert path is not None and path.parts[-2] == "soc:firmware"
    assert m.throttle_flags(mach.heat().throttled or 0) == ["under-voltage", "throttled"]


def test_pc_without_firmware_flags() -> None:
    heat = Machine(FIXTURES / "cgroup-quota-2cpu").heat()
    assert heat == Heat(temp_c=45.0, zone="x86_pkg_temp", throttled=None)
    assert heat.describe() == "45.0 C"


def test_cpu_zone_preferred_over_others(tmp_path: Path) -> None:
    for i, (kind, milli) in enumerate([("acpitz", "30000"), ("cpu-thermal", "61500")]):
        z = tmp_path / f"sys/class/thermal/thermal_zone{i}"
        z.mkdir(parents=True)
        (z / "type").write_text(kind + "\n")
        (z / "temp").write_text(milli + "\n")
    assert Machine(tmp_path).temperature_c() == (61.5, "cpu-thermal")


@pytest.mark.parametrize(("text", "value"), [
    ("0\n", 0), ("50005", 0x50005), ("throttled=0x80008\n", 0x80008), ("", None), ("zz", None)])
def test_parse_throttled(text: str, value: int | None) -> None:
    assert m.parse_throttled(text) == value


def test_thermal_threads_steps_down_and_back_with_hysteresis() -> None:
    limit = 80.0
    seq = []
    current = 4
    for temp in (70, 80.5, 82, 83, 79, 76, 74.9, 70, 70, 70, 70):
        current = m.thermal_threads(temp, limit, 4, current)
        seq.append(current)
    # hot: one fewer per reading; 79 and 76 are inside the 5 C band: hold;
    # at or below 75: one more per reading, never above the configured 4
    assert seq == [4, 3, 2, 1, 1, 1, 2, 3, 4, 4, 4]


def test_thermal_threads_without_limit_or_reading() -> None:
    assert m.thermal_threads(95.0, None, 4, 1) == 4
    assert m.thermal_threads(None, 80.0, 4, 2) == 4
    assert m.thermal_threads(90.0, 80.0, 1, 1) == 1


def test_throttle_watch_reports_start_and_stop_once() -> None:
    w = m.ThrottleWatch()
    cool = Heat(60.0, "cpu-thermal", 0)
    hot = Heat(86.0, "cpu-thermal", 0xE000E)
    msgs = [w.update(h) for h in (cool, hot, hot, Heat(70.0, "cpu-thermal", 0xE0000), cool)]
    assert msgs[0] is None and msgs[2] is None and msgs[4] is None
    assert msgs[1] is not None and "slowed down" in msgs[1] and "86.0 C" in msgs[1]
    assert msgs[3] == "CPU throttling stopped at 70.0 C"
    assert w.update(Heat(50.0, None, None)) is None  # no flags on this machine


# -- config: engine.hash_mb / engine.threads: auto ------------------------------------

def test_config_auto_is_the_default_and_resolves_to_numbers_here() -> None:
    from bot.config import parse_config

    cfg = parse_config({"challenge": {"concurrency": 2}})
    here = Machine().facts()
    expect = size_engine("auto", "auto", 2, here)
    assert isinstance(cfg.engine.hash_mb, int) and isinstance(cfg.engine.threads, int)
    assert cfg.engine.threads == expect.threads
    assert cfg.sizing.threads_auto and cfg.sizing.hash_auto
    assert "engine.threads=" in cfg.sizing.describe() and "auto:" in cfg.sizing.describe()
    assert cfg.engine.thermal_limit_c is None


def test_config_numbers_win_over_auto() -> None:
    from bot.config import parse_config

    cfg = parse_config({"engine": {"hash_mb": 16, "threads": "auto", "thermal_limit_c": 80}})
    assert cfg.engine.hash_mb == 16 and not cfg.sizing.hash_auto
    assert cfg.sizing.threads_auto and cfg.engine.thermal_limit_c == 80.0


@pytest.mark.parametrize(("engine", "fragment"), [
    ({"hash_mb": "lots"}, "'engine.hash_mb' must be an integer or auto, got 'lots'"),
    ({"threads": None}, "'engine.threads' must be an integer or auto, got None"),
    ({"threads": "Auto"}, "'engine.threads' must be an integer or auto"),
    ({"thermal_limit_c": 20}, "'engine.thermal_limit_c' is 20.0, below the minimum 40"),
    ({"hash_mb": 0}, "'engine.hash_mb' is 0, below the minimum 1"),
])
def test_config_bad_engine_values(engine: dict[str, object], fragment: str) -> None:
    from bot.config import parse_config
    from bot.errors import UserError

    with pytest.raises(UserError) as err:
        parse_config({"engine": engine})
    assert fragment in str(err.value)


def test_pibot_check_prints_what_auto_chose(tmp_path: Path) -> None:
    import subprocess
    import sys

    cfg = tmp_path / "c.yml"
    cfg.write_text("url: http://127.0.0.1:9\nengine:\n  hash_mb: 32\n")
    env = {k: v for k, v in os.environ.items() if k != "LICHESS_BOT_TOKEN"}
    proc = subprocess.run([sys.executable, "-m", "bot.cli", "check", "--config", str(cfg)],
                          capture_output=True, text=True, env=env, timeout=120)
    line = next(x for x in proc.stdout.splitlines() if "engine sizing:" in x)
    assert "engine.threads=" in line and "(auto: " in line and "usable CPU(s)" in line
    assert "engine.hash_mb=32 MiB (set in the config)" in line


def test_pibot_run_logs_the_engine_sizing_at_start(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys

    from bot.emulator import Emulator, EmulatorConfig

    with Emulator(EmulatorConfig()) as emu:
        cfg = tmp_path / "c.yml"
        cfg.write_text(f"url: {emu.url}\npgn_directory: null\nengine:\n  hash_mb: 16\n")
        env = dict(os.environ, LICHESS_BOT_TOKEN=emu.token)
        proc = subprocess.Popen([sys.executable, "-m", "bot.cli", "run", "--config", str(cfg)],
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, stdin=subprocess.DEVNULL,
                                cwd=tmp_path)  # its records database (pibot.db) there
        assert proc.stdout is not None
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.extend(proc.stdout or []), daemon=True)
        reader.start()
        deadline = time.monotonic() + 30
        try:
            while time.monotonic() < deadline and not any("event stream connected" in x
                                                          for x in list(lines)):
                time.sleep(0.1)
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(60)
            reader.join(10)
    line = next((x for x in lines if "engine sizing:" in x), "")
    assert "engine.threads=" in line and "(auto: " in line, lines
    assert "engine.hash_mb=16 MiB (set in the config)" in line


def test_cgroup_v1_limits(tmp_path: Path) -> None:
    (tmp_path / "proc/self").mkdir(parents=True)
    (tmp_path / "proc/self/cgroup").write_text(
        "5:cpu,cpuacct:/docker/abc\n4:memory:/docker/abc\n0::/\n")
    (tmp_path / "proc/meminfo").write_text("MemTotal: 8000000 kB\nMemAvailable: 7000000 kB\n")
    mem = tmp_path / "sys/fs/cgroup/memory"  # a container sees its cgroup at the mount root
    mem.mkdir(parents=True)
    (mem / "memory.limit_in_bytes").write_text(f"{2 * 1024 ** 3}\n")
    (mem / "memory.usage_in_bytes").write_text(f"{512 * 1024 ** 2}\n")
    cpu = tmp_path / "sys/fs/cgroup/cpu/docker/abc"
    cpu.mkdir(parents=True)
    (cpu / "cpu.cfs_quota_us").write_text("150000\n")
    (cpu / "cpu.cfs_period_us").write_text("100000\n")
    mach = Machine(tmp_path)
    assert mach.memory_max_mb() == 2048 and mach.mem_available_mb() == 1536
    assert mach.cpu_quota() == 1.5
    (mem / "memory.limit_in_bytes").write_text("9223372036854771712\n")  # unlimited
    (cpu / "cpu.cfs_quota_us").write_text("-1\n")
    assert mach.memory_max_mb() is None and mach.cpu_quota() is None
