"""What machine are we on: CPU, memory, pages, temperature -- and does the hash fit.

Everything here reads /proc and /sys directly, never fails (a missing file is
reported as None), and stays within what the hardened systemd unit allows:
/proc/meminfo and /proc/cpuinfo (hence no ProcSubset=pid), /sys read-only.

Hash policy (check_hash_fits): the engine mmaps its table with MAP_NORESERVE,
so an oversized `engine.hash_mb` does not fail at start -- it fails hours later
when the table has filled and the OOM killer ends the bot mid-game.  So the
check is an error at start (the owner picks the size; we never silently clamp
it), and the message gives a size that fits.
"""

from __future__ import annotations

import os
import platform
from pathlib import Path
from typing import TypedDict

from bot.host import machine

# The memory policy lives in bot.host.machine (shared with engine.hash_mb: auto):
# tables take at most HASH_SHARE of the RAM (or MemoryMax) and leave
# RESERVE_MB of MemAvailable free.
HASH_SHARE_OF_RAM = machine.HASH_SHARE
RESERVE_MB = machine.RESERVE_MB

_PROC = Path("/proc")
_SYS = Path("/sys")

# ARM MIDR part numbers (implementer 0x41 = Arm Ltd) of Raspberry Pi CPUs.
_ARM_PARTS = {"0xd03": "Cortex-A53", "0xd08": "Cortex-A72", "0xd0b": "Cortex-A76"}


class PlatformReport(TypedDict):
    arch: str
    python: str
    board: str | None
    cpu_model: str | None
    cpu_cores: int
    cpus_usable: float  # affinity and cgroup cpu.max quota applied
    engine_backend: str | None
    page_size: int | None
    huge_page_size: int | None
    thp_mode: str | None
    mem_total_mb: int | None
    mem_available_mb: int | None
    cgroup_memory_max_mb: int | None
    cpu_temp_c: float | None
    throttled: str | None  # firmware flags now, e.g. "not throttled"; None off the Pi


def _read(path: Path) -> str | None:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return None


def meminfo_kb(text: str | None = None) -> dict[str, int]:
    """/proc/meminfo as {'MemTotal': kB, ...}."""
    text = _read(_PROC / "meminfo") if text is None else text
    out: dict[str, int] = {}
    for line in (text or "").splitlines():
        key, _, rest = line.partition(":")
        parts = rest.split()
        if parts and parts[0].isdigit():
            out[key.strip()] = int(parts[0])
    return out


def cpu_temperature_c() -> float | None:
    """CPU temperature in degrees C (the CPU's thermal zone), None if unknown."""
    return machine.Machine().temperature_c()[0]


def thp_mode() -> str | None:
    """Transparent huge pages mode: the bracketed word of 'always [madvise] never'."""
    raw = _read(_SYS / "kernel/mm/transparent_hugepage/enabled")
    if not raw:
        return None
    for word in raw.split():
        if word.startswith("[") and word.endswith("]"):
            return word[1:-1]
    return None


def huge_page_size() -> int | None:
    """THP (PMD) size in bytes: 2 MiB with 4K pages, 32 MiB on the Pi 5's 16K-page kernel."""
    raw = _read(_SYS / "kernel/mm/transparent_hugepage/hpage_pmd_size")
    if raw and raw.strip().isdigit():
        return int(raw)
    kb = meminfo_kb().get("Hugepagesize")
    return kb * 1024 if kb else None


def _page_size() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError):
        return None


def cpu_model() -> str | None:
    info = _read(_PROC / "cpuinfo") or ""
    implementer = part = None
    for line in info.splitlines():
        key, _, value = (s.strip() for s in line.partition(":"))
        if key in ("model name", "Model name") and value:
            return value
        if key == "CPU implementer":
            implementer = value
        elif key == "CPU part":
            part = value
    if implementer == "0x41" and part in _ARM_PARTS:
        return _ARM_PARTS[part]
    if part:
        return f"implementer {implementer} part {part}"
    return platform.processor() or None


def board_model() -> str | None:
    """'Raspberry Pi 5 Model B Rev 1.0' from the device tree; None on PCs."""
    raw = _read(_PROC / "device-tree/model") or _read(_SYS / "firmware/devicetree/base/model")
    if not raw:
        return None
    return raw.strip("\0\n ") or None


def cgroup_memory_max_mb() -> int | None:
    """The unit's MemoryMax= (cgroup v2 memory.max, tightest along the path) in MiB,
    None if unlimited/unknown."""
    return machine.Machine().memory_max_mb()


def report(engine_backend: str | None = None) -> PlatformReport:
    """The platform as `pibot check` lists it.  `engine_backend` is the engine's
    move generation (bot.engine.backend(); None: not built), from the caller: the
    host is below the engine and does not import it."""
    mach = machine.Machine()
    heat = mach.heat()
    flags = machine.throttle_flags(heat.throttled) if heat.throttled is not None else None
    mem = meminfo_kb()
    total, avail = mem.get("MemTotal"), mem.get("MemAvailable")
    return PlatformReport(
        arch=platform.machine(),
        python=platform.python_version(),
        board=board_model(),
        cpu_model=cpu_model(),
        cpu_cores=os.cpu_count() or 1,
        cpus_usable=mach.facts().usable_cpus,
        engine_backend=engine_backend,
        page_size=_page_size(),
        huge_page_size=huge_page_size(),
        thp_mode=thp_mode(),
        mem_total_mb=total // 1024 if total is not None else None,
        mem_available_mb=avail // 1024 if avail is not None else None,
        cgroup_memory_max_mb=cgroup_memory_max_mb(),
        cpu_temp_c=heat.temp_c,
        throttled=None if flags is None else (", ".join(flags) or "not throttled"),
    )


hash_budget_mb = machine.hash_budget_mb  # pure; see module doc


def hash_fit_message(hash_mb: int, games: int, budget_mb: int) -> str | None:
    """None if games x hash_mb fits budget_mb, else an error naming the key and a fix."""
    games = max(games, 1)
    if hash_mb * games <= budget_mb:
        return None
    per_game = budget_mb // games
    if per_game < 1:
        return (f"config key 'engine.hash_mb' ({hash_mb} MiB x {games} game(s)) does not fit: "
                f"only {budget_mb} MiB of RAM is free for hash tables; "
                f"lower 'challenge.concurrency' or free memory")
    fit = round_down_mb(per_game)
    total = f"{hash_mb} MiB x {games} games = {hash_mb * games} MiB" if games > 1 \
        else f"{hash_mb} MiB"
    return (f"config key 'engine.hash_mb' is too large for this machine: {total}, but only "
            f"{budget_mb} MiB may go to hash tables (half the RAM, leaving {RESERVE_MB} MiB "
            f"free); set engine.hash_mb to {fit} or less")


def check_hash_fits(hash_mb: int, games: int = 1) -> str | None:
    """None if `games` tables of `hash_mb` MiB fit in RAM, else a message for the owner.

    The bot treats a message as a start-up error.  Unknown memory size -> None.
    """
    mem = meminfo_kb()
    total = mem.get("MemTotal")
    if total is None:
        return None
    avail = mem.get("MemAvailable")
    budget = hash_budget_mb(total // 1024, avail // 1024 if avail is not None else None,
                            cgroup_memory_max_mb())
    return hash_fit_message(hash_mb, games, budget)


def free_for_hash_mb() -> int | None:
    """MiB one more hash table may take right now, None if unknown (UCI `setoption Hash`).

    A UCI user (a GUI, a match tool) owns the machine's memory, unlike the bot,
    whose games share half the RAM: everything available except RESERVE_MB,
    within the service's MemoryMax= when there is one."""
    avail = meminfo_kb().get("MemAvailable")
    if avail is None:
        return None
    limit = avail // 1024 - RESERVE_MB
    memory_max = cgroup_memory_max_mb()
    if memory_max is not None:
        limit = min(limit, memory_max - RESERVE_MB)
    return max(limit, 0)


def round_down_mb(mb: int) -> int:
    """A round size to suggest: a multiple of 64 MiB from 64 MiB up."""
    return mb if mb < 64 else mb // 64 * 64


def _fmt_mb(mb: int | None) -> str:
    if mb is None:
        return "unknown"
    return f"{mb / 1024:.1f} GiB" if mb >= 1024 else f"{mb} MiB"


def _fmt_bytes(n: int | None) -> str:
    if n is None:
        return "unknown"
    return f"{n // (1024 * 1024)} MiB" if n >= 1024 * 1024 else f"{n // 1024} KiB"


def format_report(d: PlatformReport) -> list[str]:
    """Human-readable lines for `pibot check`."""
    temp = d["cpu_temp_c"]
    lines = [
        f"machine: {d['board'] or d['arch']} ({d['arch']}), Python {d['python']}",
        f"cpu: {d['cpu_model'] or 'unknown'}, {d['cpu_cores']} cores"
        + (f" ({d['cpus_usable']:g} usable by this process)"
           if d["cpus_usable"] < d["cpu_cores"] else ""),
        f"engine slider index: {d['engine_backend'] or 'engine not built'}",
        f"memory: {_fmt_mb(d['mem_total_mb'])} total, {_fmt_mb(d['mem_available_mb'])} available"
        + (f", service limit {_fmt_mb(d['cgroup_memory_max_mb'])}"
           if d["cgroup_memory_max_mb"] is not None else ""),
        f"pages: {_fmt_bytes(d['page_size'])}, huge pages {_fmt_bytes(d['huge_page_size'])}, "
        f"THP mode {d['thp_mode'] or 'unknown'}",
        f"cpu temperature: {f'{temp:.1f} C' if temp is not None else 'not available'}"
        + (f", firmware: {d['throttled']}" if d["throttled"] is not None else ""),
    ]
    if d["thp_mode"] == "never":
        lines.append("note: transparent huge pages are off; the hash table works but "
                     "is slower (echo madvise > /sys/kernel/mm/transparent_hugepage/enabled)")
    if temp is not None and temp >= 80.0:
        lines.append("warning: the CPU is at or above 80 C, close to where the Pi 5 throttles "
                     "(85 C); fit the Active Cooler or a case fan")
    return lines
