"""cffi build script for the C engine (API mode, out of line) -> bot._engine.

Flags are chosen for the machine that builds:
  * x86-64 with BMI2 gets the PEXT slider index, except AMD Zen 1/2 (family
    0x17), where PEXT is microcoded and slower than magic multiplication;
  * PIBOT_NO_PEXT=1 forces the magic path (to build and test both here);
  * x86-64 with AVX2 gets -mavx2 (gcc vectorises the NNUE loops 16 lanes wide);
  * PIBOT_NATIVE=1 adds -march=native / -mcpu=native (the Pi installer sets it);
  * PIBOT_CPU=NAME adds -mcpu=NAME on aarch64 / -march=NAME on x86-64 instead
    (install.sh --cpu): for builds where native cannot see the CPU, such as
    an arm64 root under qemu-user, which reports the host's CPU (cortex-a76 is the Pi 5);
  * PIBOT_CFLAGS adds arbitrary flags (e.g. sanitizers).
The NNUE net engine_c/nets/default.pbnn is embedded by engine_c/nnue_embed.c
(assembler .incbin of the absolute path passed as PB_NNUE_FILE).
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import sys
import sysconfig
from pathlib import Path

from cffi import FFI

ROOT = Path(__file__).resolve().parent
SRC = ROOT / "engine_c"
NET = SRC / "nets" / "default.pbnn"


def _cpuinfo() -> str:
    try:
        return Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        return ""


def _flags_line(info: str) -> set[str]:
    for line in info.splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    return set()


def fast_pext_available() -> bool:
    """True on x86-64 CPUs whose BMI2 PEXT is fast (not AMD Zen 1/Zen 2)."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return False
    info = _cpuinfo()
    if "bmi2" not in _flags_line(info):
        return False
    if "AuthenticAMD" in info:
        for line in info.splitlines():
            if line.startswith("cpu family") and int(line.split(":")[1]) < 0x19:
                return False  # Zen 1/2 (0x17) and older: microcoded PEXT
    return True


CPU_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*")


def cpu_flag(machine: str) -> str | None:
    """The -mcpu/-march flag that PIBOT_CPU or PIBOT_NATIVE asks for, or None."""
    arm = machine in ("aarch64", "arm64")
    cpu = os.environ.get("PIBOT_CPU", "").strip()
    if cpu:
        if not CPU_NAME.fullmatch(cpu):
            sys.exit(f"pibot build: PIBOT_CPU={cpu!r} is not a CPU name. "
                     "Use a name gcc knows, e.g. PIBOT_CPU=cortex-a76 for a Raspberry Pi 5")
        return f"-mcpu={cpu}" if arm else f"-march={cpu}"
    if os.environ.get("PIBOT_NATIVE", "") not in ("", "0"):
        return "-mcpu=native" if arm else "-march=native"
    return None


def net_hidden() -> int:
    """The embedded net's hidden width (header bytes 16..19): the engine is built for it."""
    try:
        head = NET.read_bytes()[:48]
    except OSError:
        return 384  # _check_toolchain names the missing net
    width = int.from_bytes(head[16:20], "little") if len(head) == 48 else 0
    if head[:8] != b"PIBOTNN\0" or not (64 <= width <= 1024 and width % 64 == 0):
        sys.exit(f"pibot build: {NET} is not a pibot net with a hidden width of 64..1024. "
                 "Restore it: git checkout -- engine_c/nets/default.pbnn")
    return width


def compile_args() -> list[str]:
    args = ["-O3", "-std=c11", "-DNDEBUG", "-Wall", "-Wextra", "-Wno-unused-parameter",
            "-fno-strict-aliasing", "-D_GNU_SOURCE", f'-DPB_NNUE_FILE="{NET}"',
            f"-DPB_NNUE_HIDDEN={net_hidden()}"]
    machine = platform.machine().lower()
    if machine in ("x86_64", "amd64"):
        flags = _flags_line(_cpuinfo())
        if "popcnt" in flags:
            args.append("-mpopcnt")
        if "avx2" in flags:
            args.append("-mavx2")  # the NNUE loops vectorise twice as wide (docs/benchmarks.md)
        forced_magic = os.environ.get("PIBOT_NO_PEXT", "") not in ("", "0")
        if fast_pext_available() and not forced_magic:
            args += ["-mbmi2", "-DPB_USE_PEXT"]
    cpu = cpu_flag(machine)
    if cpu:
        args.append(cpu)
    args += os.environ.get("PIBOT_CFLAGS", "").split()
    return args


def _check_toolchain() -> None:
    if not NET.is_file():
        sys.exit(f"pibot build: the NNUE net {NET} is missing. "
                 "Restore it: git checkout -- engine_c/nets/default.pbnn")
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if os.environ.get("CC"):
        cc = os.environ["CC"].split()[0]
    if not shutil.which(cc):
        sys.exit(f"pibot build: C compiler '{cc}' not found. "
                 "Install it: sudo apt-get install build-essential")
    include = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not include.exists():
        sys.exit(f"pibot build: Python headers not found ({include}). "
                 "Install them: sudo apt-get install python3-dev")


def api_headers() -> list[Path]:
    """pibot_api.h first, then every other pibot*_api.h, in a stable order."""
    main = SRC / "pibot_api.h"
    rest = sorted(p for p in SRC.glob("pibot*_api.h") if p != main)
    return [main, *rest]


def sources(absolute: bool = False) -> list[str]:
    return sorted(str(p if absolute else p.relative_to(ROOT)) for p in SRC.glob("*.c"))


def make_ffibuilder(absolute: bool = False) -> FFI:
    """Called by cffi's setuptools hook (setup.py) at build time only, so that
    importing this module for fast_pext_available() has no side effects.
    absolute=True is for ffi.compile(tmpdir=...), which compiles from tmpdir;
    setuptools wants paths relative to setup.py."""
    _check_toolchain()
    ffibuilder = FFI()
    ffibuilder.cdef("\n".join(p.read_text() for p in api_headers()))
    ffibuilder.set_source(
        "bot._engine",
        "#include <stddef.h>\n#include <stdint.h>\n"
        + "\n".join(f'#include "{p.name}"' for p in api_headers()),
        sources=sources(absolute),
        include_dirs=[str(SRC if absolute else SRC.relative_to(ROOT))],
        extra_compile_args=compile_args(),
        libraries=["m", "pthread"],
    )
    return ffibuilder


if __name__ == "__main__":
    make_ffibuilder().compile(verbose=True)
