"""The machine the bot runs on, as the bot may use it: CPUs, memory, heat.

Every fact is read from files under one root directory (`/` in production), so
tests point `Machine(root)` at fixture trees (tests/data/machine/) that look
like a Pi 5 with 4, 8 or 16 GB, a cgroup CPU quota, a MemoryMax, a hot or
throttled SoC.  Nothing here raises on a missing or odd file: an unknown fact
is None and the sizing falls back to what is known.

Also here, as pure functions of those facts:
- auto sizing of `engine.threads` and `engine.hash_mb` (see `auto_threads`,
  `auto_hash_mb`: the policy, with its reasons, lives in their docstrings);
- the thermal decision (`thermal_threads`) and throttle-flag decoding.

Everything stays inside what the hardened systemd unit allows: /proc/meminfo,
/proc/self/*, read-only /sys.  `vcgencmd` is no use there (PrivateDevices=yes
hides /dev/vcio), so the throttle flags come from the firmware driver's sysfs
file.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

# Tests only (undocumented for users): the root `Machine()` reads when none is given.
ROOT_ENV = "PIBOT_MACHINE_ROOT"

# -- sizing policy constants (documented in docs/raspberry-pi.md) ------------

# CPU the Python service needs while a game runs (event loop, HTTP streams,
# the search poller), in cores, excluding the engine's search threads.
# bench/service_cpu.py measured 0.011-0.013 cores (at most 0.026 counting
# threads that ended unattributed) on the 2-core x86-64 dev machine, 60+0 and
# 30+0 games against the emulator (docs/raspberry-pi.md); 0.05 leaves room
# for the Pi's slower cores.  Either way it is far below the half core that
# would cost a search thread (auto_threads).
SERVICE_CPU = 0.05
# Share of the service's memory (RAM, or MemoryMax if lower) that all hash
# tables together may take; the rest is for the OS, the page cache, Python
# (~100 MiB) and whatever else runs on the Pi.  The same share bounds a
# hand-set engine.hash_mb (platform_info.check_hash_fits).
HASH_SHARE = 0.5
# Never plan to use the last of MemAvailable: allocation is lazy, others grow.
RESERVE_MB = 256
# Smallest table auto picks, even when memory looks too tight for it: the
# engine plays acceptably with 16 MiB and the pages only fill during a game.
HASH_FLOOR_MB = 16
# The engine's own ceilings (bot.engine.search_bindings MAX_HASH_MB / MAX_THREADS).
MAX_AUTO_HASH_MB = 65536
MAX_AUTO_THREADS = 64

# -- thermal policy ----------------------------------------------------------

# Back to more threads only once this far below engine.thermal_limit_c, so a
# temperature hovering at the limit does not flip the thread count every move.
THERMAL_HYSTERESIS_C = 5.0

# Firmware get_throttled bits (Raspberry Pi documentation, "get_throttled").
THROTTLE_BITS = {
    0: "under-voltage",
    1: "ARM frequency capped",
    2: "throttled",
    3: "soft temperature limit",
}
_OCCURRED_SHIFT = 16

# Where the raspberrypi-firmware driver puts `get_throttled` (hex, "%x\n";
# raspberrypi/linux drivers/firmware/raspberrypi.c).  raspberrypi-hwmon
# refreshes the value every 2 s; the first read per boot logs a WARN_ONCE
# ("deprecated, use hwmon sysfs instead"), but hwmon only exposes under-voltage.
# The driver binding is stable whatever the device-tree path of the firmware
# node is; soc:firmware is the Pi 4 path, kept as a fallback.
_THROTTLE_GLOBS = (
    "sys/bus/platform/drivers/raspberrypi-firmware/*/get_throttled",
    "sys/devices/platform/soc/soc:firmware/get_throttled",
    "sys/devices/platform/*firmware*/get_throttled",
)
# Thermal zone types of the CPU, best first: the Pi's, then common PC ones.
_CPU_ZONE_TYPES = ("cpu-thermal", "cpu_thermal", "x86_pkg_temp", "soc_thermal", "acpitz")


# cgroup v1 reports "no limit" as a huge page-rounded number (2^63 - 4096 on 4 KiB pages).
_V1_UNLIMITED = 1 << 60


def _read(path: Path) -> str | None:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return None


def parse_cpu_list(text: str | None) -> set[int] | None:
    """'0-3,6' -> {0, 1, 2, 3, 6}; None for empty or malformed text."""
    if not text or not text.strip():
        return None
    cpus: set[int] = set()
    try:
        for part in text.strip().split(","):
            lo, _, hi = part.partition("-")
            cpus.update(range(int(lo), int(hi or lo) + 1))
    except ValueError:
        return None
    return cpus or None


def parse_cpu_max(text: str | None) -> float | None:
    """cgroup v2 cpu.max 'QUOTA PERIOD' -> CPUs (2.0 for '200000 100000'); None = no limit."""
    parts = (text or "").split()
    if len(parts) != 2 or parts[0] == "max":
        return None
    try:
        quota, period = int(parts[0]), int(parts[1])
    except ValueError:
        return None
    return quota / period if quota > 0 and period > 0 else None


def parse_throttled(text: str | None) -> int | None:
    """'50005' (sysfs) or 'throttled=0x50005' (vcgencmd) -> 0x50005."""
    if not text:
        return None
    raw = text.strip().rpartition("=")[2].strip()
    try:
        return int(raw, 16)
    except ValueError:
        return None


def throttle_flags(value: int, *, occurred: bool = False) -> list[str]:
    """Names of the set flags: now (bits 0-3) or since boot / last poll (bits 16-19)."""
    shift = _OCCURRED_SHIFT if occurred else 0
    return [name for bit, name in THROTTLE_BITS.items() if value >> (bit + shift) & 1]


def is_throttling(value: int | None) -> bool:
    """Is the CPU slowed down right now (capped, throttled or at the soft limit)?"""
    return value is not None and bool(value & 0b1110)


@dataclass(frozen=True)
class Heat:
    """One reading of the SoC temperature and the firmware's throttle flags."""

    temp_c: float | None
    zone: str | None           # thermal zone type, e.g. "cpu-thermal"
    throttled: int | None      # raw get_throttled value; None where there is none

    @property
    def throttling(self) -> bool:
        return is_throttling(self.throttled)

    def describe(self) -> str:
        temp = f"{self.temp_c:.1f} C" if self.temp_c is not None else "temperature unknown"
        if self.throttled is None:
            return temp
        now = throttle_flags(self.throttled)
        return f"{temp}, {', '.join(now) if now else 'not throttled'}"


@dataclass(frozen=True)
class MachineFacts:
    """What the sizing needs to know, read once."""

    cpus_online: int
    cpus_allowed: int            # sched_getaffinity / Cpus_allowed_list
    cpu_quota: float | None      # cgroup cpu.max along the path, in CPUs; None = none
    mem_total_mb: int | None
    mem_available_mb: int | None
    memory_max_mb: int | None    # cgroup memory.max along the path; None = unlimited
    board: str | None

    @property
    def usable_cpus(self) -> float:
        """CPUs this process may really use: affinity, then the cgroup quota."""
        cpus = float(max(1, self.cpus_allowed))
        return min(cpus, self.cpu_quota) if self.cpu_quota else cpus


class Machine:
    """Reads machine facts under `root` ('/' in production, a fixture tree in tests)."""

    def __init__(self, root: str | Path | None = None) -> None:
        if root is None:
            # For tests only: run the whole service against a fixture tree (a hot Pi).
            root = os.environ.get(ROOT_ENV) or "/"
        self.root = Path(root)
        self._real = self.root.resolve() == Path("/")

    def _path(self, rel: str) -> Path:
        return self.root / rel

    # -- CPUs ------------------------------------------------------------
    def cpus_online(self) -> int:
        cpus = parse_cpu_list(_read(self._path("sys/devices/system/cpu/online")))
        if cpus:
            return len(cpus)
        return (os.cpu_count() or 1) if self._real else 1

    def cpus_allowed(self) -> int:
        """CPUs the scheduler lets this process run on (taskset, CPUAffinity=)."""
        if self._real and hasattr(os, "sched_getaffinity"):
            return len(os.sched_getaffinity(0))
        for line in (_read(self._path("proc/self/status")) or "").splitlines():
            if line.startswith("Cpus_allowed_list:"):
                cpus = parse_cpu_list(line.partition(":")[2])
                if cpus:
                    return len(cpus)
        return self.cpus_online()

    def cgroup_dirs(self) -> list[Path]:
        """This process's cgroup v2 directory and its ancestors, leaf first.

        A limit anywhere up the tree applies (e.g. MemoryMax on a slice), so
        the effective limit is the smallest along the path.
        """
        rel = None
        for line in (_read(self._path("proc/self/cgroup")) or "").splitlines():
            if line.startswith("0::"):
                rel = line[3:].strip().strip("/")
        if rel is None:
            return []
        base = self._path("sys/fs/cgroup")
        parts = [p for p in rel.split("/") if p]
        return [base.joinpath(*parts[:n]) for n in range(len(parts), -1, -1)]

    def v1_dirs(self, controller: str) -> list[Path]:
        """cgroup v1 (older Docker hosts; Raspberry Pi OS 12 is v2-only): the
        controller's directory for this process, then its mount root (what a
        container sees of its own cgroup)."""
        for line in (_read(self._path("proc/self/cgroup")) or "").splitlines():
            _, names, rel = (line.split(":", 2) + ["", ""])[:3]
            if controller in names.split(","):
                base = self._path("sys/fs/cgroup") / controller
                parts = [p for p in rel.strip().split("/") if p]
                return [base.joinpath(*parts), base] if parts else [base]
        return []

    def cpu_quota(self) -> float | None:
        quotas = [q for d in self.cgroup_dirs()
                  if (q := parse_cpu_max(_read(d / "cpu.max"))) is not None]
        for d in self.v1_dirs("cpu"):
            quota = (_read(d / "cpu.cfs_quota_us") or "").strip()
            period = (_read(d / "cpu.cfs_period_us") or "").strip()
            if (q := parse_cpu_max(f"{quota} {period}")) is not None:
                quotas.append(q)
        return min(quotas) if quotas else None

    # -- memory ----------------------------------------------------------
    def meminfo_kb(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for line in (_read(self._path("proc/meminfo")) or "").splitlines():
            key, _, rest = line.partition(":")
            parts = rest.split()
            if parts and parts[0].isdigit():
                out[key.strip()] = int(parts[0])
        return out

    def _cgroup_mem(self) -> tuple[int | None, int | None]:
        """(memory.max, memory.current) in bytes of the tightest limit on the path."""
        best: tuple[int | None, int | None] = (None, None)
        for d in self.cgroup_dirs():
            raw = (_read(d / "memory.max") or "").strip()
            if not raw.isdigit():
                continue
            cur = (_read(d / "memory.current") or "").strip()
            headroom = int(raw) - (int(cur) if cur.isdigit() else 0)
            if best[0] is None or headroom < best[0] - (best[1] or 0):
                best = (int(raw), int(cur) if cur.isdigit() else None)
        for d in self.v1_dirs("memory"):
            raw = (_read(d / "memory.limit_in_bytes") or "").strip()
            if not raw.isdigit() or int(raw) >= _V1_UNLIMITED:
                continue
            cur = (_read(d / "memory.usage_in_bytes") or "").strip()
            if best[0] is None or int(raw) < best[0]:
                best = (int(raw), int(cur) if cur.isdigit() else None)
        return best

    def memory_max_mb(self) -> int | None:
        limit, _ = self._cgroup_mem()
        return limit // (1024 * 1024) if limit is not None else None

    def mem_available_mb(self) -> int | None:
        """MemAvailable, lowered to what is left under the cgroup limit if that is less."""
        avail_kb = self.meminfo_kb().get("MemAvailable")
        avail = avail_kb // 1024 if avail_kb is not None else None
        limit, current = self._cgroup_mem()
        if limit is not None:
            left = (limit - (current or 0)) // (1024 * 1024)
            avail = left if avail is None else min(avail, left)
        return avail

    def board(self) -> str | None:
        raw = _read(self._path("proc/device-tree/model")) or \
            _read(self._path("sys/firmware/devicetree/base/model"))
        return (raw or "").strip("\0\n ") or None

    def facts(self) -> MachineFacts:
        total = self.meminfo_kb().get("MemTotal")
        return MachineFacts(
            cpus_online=self.cpus_online(), cpus_allowed=self.cpus_allowed(),
            cpu_quota=self.cpu_quota(),
            mem_total_mb=total // 1024 if total is not None else None,
            mem_available_mb=self.mem_available_mb(), memory_max_mb=self.memory_max_mb(),
            board=self.board())

    # -- heat ------------------------------------------------------------
    def cpu_zone(self) -> tuple[Path, str] | None:
        """The thermal zone of the CPU: (its directory, its type)."""
        zones = []
        for d in sorted(self._path("sys/class/thermal").glob("thermal_zone*")):
            zones.append((d, (_read(d / "type") or "").strip()))
        for wanted in _CPU_ZONE_TYPES:
            for d, kind in zones:
                if kind == wanted:
                    return d, kind
        return zones[0] if zones else None

    def temperature_c(self) -> tuple[float | None, str | None]:
        zone = self.cpu_zone()
        if zone is None:
            return None, None
        raw = (_read(zone[0] / "temp") or "").strip()
        try:
            return int(raw) / 1000.0, zone[1] or None
        except ValueError:
            return None, zone[1] or None

    def throttle_file(self) -> Path | None:
        for pattern in _THROTTLE_GLOBS:
            for p in sorted(self.root.glob(pattern)):
                if p.is_file():
                    return p
        return None

    def throttled(self) -> int | None:
        path = self.throttle_file()
        return parse_throttled(_read(path)) if path is not None else None

    def heat(self) -> Heat:
        temp, zone = self.temperature_c()
        return Heat(temp_c=temp, zone=zone, throttled=self.throttled())


# -- auto sizing (pure) --------------------------------------------------------

@dataclass(frozen=True)
class Choice:
    """An auto-sized value and the reason, for `pibot check` and the start-up log."""

    value: int
    reason: str
    at_floor: bool = False


def auto_threads(usable_cpus: float, concurrency: int,
                 service_cpu: float = SERVICE_CPU) -> Choice:
    """Search threads per game: the usable CPUs, less what the service needs,
    shared among `concurrency` games, rounded to the nearest whole thread.

    Rounding to nearest (not down): the service sleeps on the network almost
    all the time, so while it needs well under half a core it only steals
    that share from one search thread; a whole thread is given up only when
    its share would be half a core or more.
    """
    games = max(1, concurrency)
    share = (usable_cpus - service_cpu) / games
    threads = max(1, min(MAX_AUTO_THREADS, math.floor(share + 0.5)))
    cpus = f"{usable_cpus:g} usable CPU(s)"
    reason = (f"{cpus} - {service_cpu:g} for the service, / {games} game(s) "
              f"= {share:.2f} -> {threads}")
    return Choice(threads, reason)


def _pow2_floor(n: int) -> int:
    return 1 << (n.bit_length() - 1) if n >= 1 else 0


def hash_budget_mb(mem_total_mb: int, mem_available_mb: int | None,
                   memory_max_mb: int | None = None) -> int:
    """MiB all games' tables together may use: HASH_SHARE of the RAM (or of
    MemoryMax if lower), and never more than MemAvailable less RESERVE_MB."""
    ceiling = mem_total_mb if memory_max_mb is None else min(mem_total_mb, memory_max_mb)
    budget = int(ceiling * HASH_SHARE)
    if mem_available_mb is not None:
        budget = min(budget, mem_available_mb - RESERVE_MB)
    return max(budget, 0)


def auto_hash_mb(mem_total_mb: int | None, mem_available_mb: int | None,
                 memory_max_mb: int | None, concurrency: int) -> Choice:
    """Table per game: the hash budget (hash_budget_mb) / concurrency, rounded
    down to a power of two MiB, at least HASH_FLOOR_MB."""
    games = max(1, concurrency)
    if mem_total_mb is None:
        return Choice(64, "memory size unknown -> 64 MiB")
    budget = hash_budget_mb(mem_total_mb, mem_available_mb, memory_max_mb)
    per_game = budget // games
    mb = min(MAX_AUTO_HASH_MB, _pow2_floor(per_game))
    limit = f"MemoryMax {memory_max_mb} MiB" if memory_max_mb is not None and \
        memory_max_mb < mem_total_mb else f"RAM {mem_total_mb} MiB"
    avail = f", {mem_available_mb} MiB available" if mem_available_mb is not None else ""
    reason = (f"{HASH_SHARE:.0%} of {limit}{avail} -> {budget} MiB for tables, "
              f"/ {games} game(s) = {per_game} MiB -> power of two {max(mb, HASH_FLOOR_MB)} MiB")
    if mb < HASH_FLOOR_MB:
        return Choice(HASH_FLOOR_MB, reason + " (floor; memory is tight)", at_floor=True)
    return Choice(mb, reason)


@dataclass(frozen=True)
class EngineSizing:
    """Concrete engine.hash_mb / engine.threads, and how each was decided."""

    hash_mb: int
    threads: int
    hash_reason: str      # "set in the config" or the auto reasoning
    threads_reason: str
    hash_auto: bool
    threads_auto: bool
    hash_at_floor: bool = False

    def describe(self) -> str:
        """One line for the start-up log and `pibot check`."""
        def part(name: str, value: int, unit: str, auto: bool, why: str) -> str:
            return f"{name}={value}{unit} ({'auto: ' + why if auto else why})"
        return "; ".join((
            part("engine.threads", self.threads, "", self.threads_auto, self.threads_reason),
            part("engine.hash_mb", self.hash_mb, " MiB", self.hash_auto, self.hash_reason)))


def size_engine(hash_mb: int | str, threads: int | str, concurrency: int,
                facts: MachineFacts) -> EngineSizing:
    """Resolve 'auto' against the machine facts; a number in the config wins."""
    if hash_mb == "auto":
        h = auto_hash_mb(facts.mem_total_mb, facts.mem_available_mb, facts.memory_max_mb,
                         concurrency)
        hash_val, hash_why, floor = h.value, h.reason, h.at_floor
    else:
        hash_val, hash_why, floor = int(hash_mb), "set in the config", False
    if threads == "auto":
        t = auto_threads(facts.usable_cpus, concurrency)
        threads_val, threads_why = t.value, t.reason
    else:
        threads_val, threads_why = int(threads), "set in the config"
    return EngineSizing(hash_mb=hash_val, threads=threads_val, hash_reason=hash_why,
                        threads_reason=threads_why, hash_auto=hash_mb == "auto",
                        threads_auto=threads == "auto", hash_at_floor=floor)


# -- heat (pure) -----------------------------------------------------------------

def thermal_threads(temp_c: float | None, limit_c: float | None, configured: int,
                    current: int, hysteresis_c: float = THERMAL_HYSTERESIS_C) -> int:
    """Threads to search with now, given the SoC temperature.

    At or above the limit: one thread fewer than now (down to 1), so repeated
    calls step down while the Pi stays hot.  At or below limit - hysteresis:
    one more (up to `configured`).  In between: keep `current`.  No limit or
    no temperature: `configured`.
    """
    configured = max(1, configured)
    current = min(max(1, current), configured)
    if limit_c is None or temp_c is None:
        return configured
    if temp_c >= limit_c:
        return max(1, current - 1)
    if temp_c <= limit_c - hysteresis_c:
        return min(configured, current + 1)
    return current


class ThrottleWatch:
    """Turns successive heat readings into log-worthy changes.

    `update()` returns a message when throttling starts or stops (None
    otherwise); the caller logs it (a warning when it starts).
    """

    def __init__(self) -> None:
        self.active: bool | None = None

    def update(self, heat: Heat) -> str | None:
        if heat.throttled is None:
            return None
        now = heat.throttling
        flags = throttle_flags(heat.throttled)
        was, self.active = self.active, now
        temp = f" at {heat.temp_c:.1f} C" if heat.temp_c is not None else ""
        if now and not was:
            return f"the CPU is being slowed down ({', '.join(flags)}){temp}: " \
                   f"search is slower until it cools; improve the cooling"
        if was and not now:
            return f"CPU throttling stopped{temp}"
        return None
