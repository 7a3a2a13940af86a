"""Standalone C builds of the move-generation core: magic vs PEXT, sanitizers,
aarch64 under qemu-user, and the Python extension forced onto the magic path.

These compile with engine_c/Makefile (a few seconds each). In CI (CI=true) a
missing tool is a failure, elsewhere a skip.
"""

from __future__ import annotations

import fcntl
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DATA, ROOT

ENGINE = ROOT / "engine_c"
IN_CI = os.environ.get("CI", "") not in ("", "0", "false")
sys.path.insert(0, str(ROOT))
from build_engine import fast_pext_available  # noqa: E402


def need(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        if IN_CI:
            pytest.fail(f"{tool} is required in CI (.ci/run installs it)")
        pytest.skip(f"{tool} not installed")
    return path


def build(variant: str, program: str = "perft_main", *make_vars: str, **env: str) -> Path:
    make_env = {**os.environ, **env}
    out = ENGINE / "out"
    out.mkdir(exist_ok=True)
    # One make at a time in engine_c/out: tests in parallel (pytest -n) would
    # otherwise write the same program at once, or run it half written.
    with (out / ".build.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        subprocess.run(["make", "-s", f"VARIANT={variant}", *make_vars,
                        f"out/{variant}/{program}"],
                       cwd=ENGINE, env=make_env, check=True, timeout=600)
    return out / variant / program


def run(cmd: list[str], timeout: int = 300, **env: str) -> str:
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **env}, input=env.pop("_stdin", None))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_magic_build_passes_selftest_and_suites() -> None:
    exe = str(build("magic"))
    assert "magic): 0 mismatches" in run([exe, "selftest"])
    out = run([exe, "suite", str(DATA / "perftsuite.epd")], PERFT_MAX_DEPTH="4")
    assert "0 failures (magic)" in out
    assert "0 failures" in run([exe, "suite", str(DATA / "chess960.epd"), "960"],
                               PERFT_MAX_DEPTH="4")


def test_pext_build_matches_magic() -> None:
    if not fast_pext_available():
        pytest.skip("this CPU has no fast PEXT; the magic path is the one in use")
    pext, magic = str(build("pext")), str(build("magic"))
    assert "pext): 0 mismatches" in run([pext, "selftest"])
    for fen in ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"):
        a = run([pext, "perft", "4", fen]).splitlines()[1]
        b = run([magic, "perft", "4", fen]).splitlines()[1]
        assert a == b and a.startswith("Nodes searched:")


def _fuzz_lines(n: int) -> str:
    rng = random.Random(99)
    seeds = [line.split(";")[0].strip() for line in (DATA / "perftsuite.epd").read_text()
             .splitlines() if line and not line.startswith("#")]
    alphabet = "rnbqkpRNBQKP012345678/ -wbKQkqA-Ha-h9\t\x01\xff"
    lines = []
    for _ in range(n):
        fen = list(rng.choice(seeds))
        for _ in range(rng.randrange(0, 4)):
            pos = rng.randrange(len(fen))
            fen[pos] = rng.choice(alphabet)
        moves = []
        for _ in range(rng.randrange(0, 12)):
            f1, f2 = rng.choice("abcdefghij"), rng.choice("abcdefghz")
            moves.append(f"{f1}{rng.randrange(0, 10)}{f2}{rng.randrange(0, 10)}"
                         + rng.choice(["", "", "q", "n", "x", "qq"]))
        lines.append("".join(fen).replace("|", "") + "|" + " ".join(moves))
    lines.append("")               # empty line
    lines.append("x" * 3000)       # overlong FEN
    return "\n".join(lines) + "\n"


def test_sanitizer_build_perft_and_fuzz_clean() -> None:
    exe = str(build("san"))
    env = {"ASAN_OPTIONS": "detect_leaks=1:abort_on_error=0", "UBSAN_OPTIONS": "halt_on_error=1"}
    proc = subprocess.run([exe, "suite", str(DATA / "standard.epd")], capture_output=True,
                          text=True, timeout=600, env={**os.environ, **env, "PERFT_MAX_DEPTH": "3"})
    assert proc.returncode == 0 and "0 failures" in proc.stdout, proc.stderr
    proc = subprocess.run([exe, "suite", str(DATA / "chess960.epd"), "960"], capture_output=True,
                          text=True, timeout=600, env={**os.environ, **env, "PERFT_MAX_DEPTH": "3"})
    assert proc.returncode == 0 and "0 failures" in proc.stdout, proc.stderr
    proc = subprocess.run([exe, "fuzz"], input=_fuzz_lines(3000).encode("latin-1"),
                          capture_output=True, timeout=600, env={**os.environ, **env})
    stderr = proc.stderr.decode(errors="replace")
    assert proc.returncode == 0, stderr
    assert "runtime error" not in stderr and "AddressSanitizer" not in stderr
    assert b"valid FENs" in proc.stdout


# perft 3 from each variant's start position (python-chess agrees:
# tests/test_variants_perft.py), and FENs to mutate for the fuzz.
VARIANT_STARTS = {
    "kingofthehill": ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 8902),
    "3check": ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 3+3 0 1", 8902),
    "racingkings": ("8/8/8/8/8/8/krbnNBRK/qrbnNBRQ w - - 0 1", 11264),
    "horde": ("rnbqkbnr/pppppppp/8/1PP2PP1/PPPPPPPP/PPPPPPPP/PPPPPPPP/PPPPPPPP w kq - 0 1", 1274),
    "antichess": ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1", 8067),
    "atomic": ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 8902),
    "crazyhouse": ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1", 8902),
}
# The fuzz mangles these where the start position says too little: a
# crazyhouse position with pockets and a promoted piece (~).
FUZZ_FENS = {
    "crazyhouse": "r1b1k2r/1Ppp1N2/1B1b2Q~1/pp1Pp1qp/P2PnP1p/8/NPKP4/R1B3R1[Pbn] w - - 3 31",
}


def test_sanitizer_build_variants_perft_and_fuzz_clean() -> None:
    """Every variant's rules under ASan/UBSan: perft, and mangled FENs and moves
    read as that variant's (an illegal FEN for a variant is an error, never a crash)."""
    exe = str(build("san"))
    env = {**os.environ, "UBSAN_OPTIONS": "halt_on_error=1", "ASAN_OPTIONS": "detect_leaks=1"}
    rng = random.Random(7)
    alphabet = "rnbqkpRNBQKP012345678/ -wbKQkq+~[]9"
    for variant, (fen, nodes) in VARIANT_STARTS.items():
        proc = subprocess.run([exe, "perft", "3"], capture_output=True, text=True, timeout=600,
                              env={**env, "PERFT_VARIANT": variant})
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert f"Nodes searched: {nodes}" in proc.stdout, (variant, proc.stdout)
        lines = []
        for i in range(300):
            chars = list(FUZZ_FENS.get(variant, fen) if i % 2 else fen)
            for _ in range(rng.randrange(0, 4)):
                chars[rng.randrange(len(chars))] = rng.choice(alphabet)
            moves = [f"{rng.choice('abcdefgh')}{rng.randrange(1, 9)}{rng.choice('abcdefgh')}"
                     f"{rng.randrange(1, 9)}{rng.choice(['', '', 'q', 'k', 'n'])}"
                     if rng.random() < 0.8 else
                     f"{rng.choice('PNBRQKpnx')}@{rng.choice('abcdefgh')}{rng.randrange(1, 9)}"
                     for _ in range(20)]
            lines.append("".join(chars) + "|" + " ".join(moves))
        proc = subprocess.run([exe, "fuzz"], input="\n".join(lines) + "\n", capture_output=True,
                              text=True, timeout=600, env={**env, "PERFT_VARIANT": variant})
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert "runtime error" not in proc.stderr and "AddressSanitizer" not in proc.stderr
        assert "valid FENs" in proc.stdout
    proc = subprocess.run([exe, "perft", "1"], capture_output=True, text=True, timeout=60,
                          env={**env, "PERFT_VARIANT": "nosuchvariant"})
    assert proc.returncode == 2 and "unknown or unsupported variant" in proc.stderr


def test_aarch64_cross_build_under_qemu() -> None:
    cc = need("aarch64-linux-gnu-gcc")
    qemu = need("qemu-aarch64")
    exe = str(build("arm", CC=cc))
    assert "magic): 0 mismatches" in run([qemu, exe, "selftest"], timeout=600)
    out = run([qemu, exe, "suite", str(DATA / "standard.epd")], timeout=600, PERFT_MAX_DEPTH="4")
    assert "0 failures (magic)" in out
    out = run([qemu, exe, "perft", "5"], timeout=600)
    assert "Nodes searched: 4865609" in out


def test_python_extension_forced_to_magic(tmp_path: Path) -> None:
    """PIBOT_NO_PEXT=1 builds the cffi extension on the magic path; it reports it."""
    script = f"""
import importlib.util, os, sys
sys.path.insert(0, {str(ROOT)!r})
os.chdir({str(ROOT)!r})
from build_engine import make_ffibuilder
path = make_ffibuilder(absolute=True).compile(tmpdir={str(tmp_path)!r})
spec = importlib.util.spec_from_file_location("bot._engine", path)
mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
lib, ffi = mod.lib, mod.ffi
lib.pb_init()
b = lib.pb_board_new()
print(ffi.string(lib.pb_backend()).decode(), lib.pb_perft(b, 5), lib.pb_attacks_selftest(500))
"""
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=600, env={**os.environ, "PIBOT_NO_PEXT": "1"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split()[-3:] == ["magic", "4865609", "0"]


def sanitized_bench(exe: Path, positions: Path) -> None:
    """A depth-6 bench of the sanitizer build over the positions: no report, a result."""
    proc = subprocess.run([str(exe), "bench", "6", str(positions)],
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "UBSAN_OPTIONS": "halt_on_error=1"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "runtime error" not in proc.stderr and "AddressSanitizer" not in proc.stderr
    assert "Nodes searched" in proc.stdout


def test_sanitizer_build_search_clean(tmp_path: Path) -> None:
    """The whole engine (search, TT, eval) under ASan/UBSan: a fixed-depth bench."""
    exe = build("san", "search_main")
    fens = [line.split(";")[0].strip() for line in (DATA / "standard.epd").read_text()
            .splitlines() if line and not line.startswith("#")]
    fens.append("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1")  # mate in one
    fens.append("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")          # stalemate: no legal move
    positions = tmp_path / "fens.txt"
    positions.write_text("\n".join(fens) + "\n")
    sanitized_bench(exe, positions)


def test_sanitizer_build_variant_search_clean(tmp_path: Path) -> None:
    """The variants' search and evaluation under ASan/UBSan: every variant's
    start, positions after a few moves, and games that are over (kingless
    boards: the horde, antichess, an exploded king)."""
    exe = build("san", "search_main")
    positions = tmp_path / "variants.txt"
    positions.write_text("\n".join([
        "kingofthehill: startpos",
        "kingofthehill: rnbqkbnr/pppppppp/8/8/8/4K3/PPPPPPPP/RNBQ1BNR w kq - 0 1",
        "3check: startpos",
        "3check: rnbqkbnr/pppp1ppp/8/4p3/2B1P3/8/PPPP1PPP/RNBQK1NR w KQkq - 1+3 0 3",
        "racingkings: startpos",
        "racingkings: 8/6K1/8/8/8/8/krbnNBR1/qrbn1BRQ w - - 0 1",
        "horde: startpos",
        "horde: rnbqkbnr/pppppppp/8/8/8/8/8/8 w kq - 0 1",
        "antichess: startpos",
        "antichess: 8/8/8/8/8/8/1p6/R7 w - - 0 1",
        "antichess: 8/8/8/8/8/8/8/2q5 w - - 0 2",
        "atomic: startpos",
        "atomic: rnbqkbnr/pppppppp/8/6N1/8/8/PPPPPPPP/RNBQKB1R w KQkq - 0 1",
        "atomic: rnbq1bnr/ppppp1pp/8/8/8/8/PPPPPPPP/RNBQKB1R b KQ - 0 3",
        "crazyhouse: startpos",
        "crazyhouse: r1bqkb1r/pppp1ppp/2n2n2/8/2B5/5N2/PPPP1PPP/RNBQK2R[Pp] w KQkq - 0 5",
        "crazyhouse: 6k1/5ppp/8/8/8/8/8/4K3[Rqn] w - - 0 1",
    ]) + "\n")
    sanitized_bench(exe, positions)


def test_a_corrupt_embedded_net_is_a_clean_error_at_engine_start(tmp_path: Path) -> None:
    """The net built in is verified (checksum) when an engine starts: an error code
    naming the problem, no crash."""
    data = bytearray((ENGINE / "nets" / "default.pbnn").read_bytes())
    data[4000] ^= 0x10
    bad = tmp_path / "corrupt.pbnn"
    bad.write_bytes(bytes(data))
    exe = build("badnet", "search_main", f"NET={bad}")
    proc = subprocess.run([str(exe), "go", "1"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert "checksum mismatch" in proc.stderr
