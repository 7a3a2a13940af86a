"""Shared pytest fixtures and helpers."""

from __future__ import annotations

import random
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).resolve().parent.parent


def read_epd(name: str) -> list[tuple[str, dict[int, int]]]:
    """Lines 'FEN ;D1 n ;D2 n ...' -> [(fen, {depth: nodes})]."""
    rows = []
    for line in (DATA / name).read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        fen, *counts = line.split(";")
        depths = {}
        for item in counts:
            d, n = item.split()
            depths[int(d[1:])] = int(n)
        rows.append((fen.strip(), depths))
    return rows


def crazyhouse_fens(n: int, seed: int) -> list[str]:
    """Crazyhouse positions of random games that like captures and promotions (full
    pockets, promoted pieces), cut at random lengths: for the variant NNUE's checks."""
    import chess.variant

    rng = random.Random(seed)
    fens: list[str] = []
    while len(fens) < n:
        board = chess.variant.CrazyhouseBoard()
        for _ in range(rng.randrange(2, 120)):
            moves = list(board.legal_moves)
            if not moves:
                break
            captures = [m for m in moves if board.is_capture(m) or m.promotion]
            board.push(rng.choice(captures if captures and rng.random() < 0.6 else moves))
        fens.append(board.fen())
    return fens


def closed_port() -> int:
    """A loopback port nothing listens on, for a test that connects to it (refused)
    or starts a server on it later.  Chosen below the kernel's ephemeral range:
    the servers and connections of tests running in parallel (pytest -n) take
    their ports from that range, so none of them takes this one meanwhile."""
    try:
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    for _ in range(100):
        port = random.randrange(max(1024, low - 12000), low)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue  # in use: another one
            return port
    raise RuntimeError(f"no free loopback port below {low}")


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return DATA


@pytest.fixture
def emu_factory() -> Iterator[Any]:
    """Start emulators with short keep-alives (plus overrides); all stopped afterwards."""
    from bot.emulator import Emulator, EmulatorConfig
    from tests.test_emulator import FAST

    started: list[Any] = []

    def make(**overrides: Any) -> Any:
        emu = Emulator(EmulatorConfig(**{**FAST, **overrides})).start()
        started.append(emu)
        return emu

    yield make
    for emu in started:
        emu.stop()


@pytest.fixture(autouse=True)
def _status_file_in_tmp(tmp_path_factory: pytest.TempPathFactory,
                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Services under test write their status file (bot/host/status_file.py) into a
    directory of their own, never the user's runtime directory nor each other's."""
    monkeypatch.setenv("RUNTIME_DIRECTORY", str(tmp_path_factory.mktemp("run")))


@pytest.fixture(autouse=True)
def _cwd_in_tmp(tmp_path_factory: pytest.TempPathFactory,
                monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test (and every process it starts) works in a scratch directory: a bot run
    with the default records.db writes ./pibot.db, which in the checkout would grow
    there and change under test_deploy's copy of the tree (stop 56's CI failed so)."""
    monkeypatch.chdir(tmp_path_factory.mktemp("cwd"))


@pytest.fixture
def notify(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[socket.socket]:
    """A systemd notify socket (NOTIFY_SOCKET) for a service under test, no watchdog."""
    path = str(tmp_path / "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(0.2)
    monkeypatch.setenv("NOTIFY_SOCKET", path)
    monkeypatch.delenv("WATCHDOG_USEC", raising=False)
    yield sock
    sock.close()


@pytest.fixture
def uci() -> Iterator[Any]:
    """`pibot uci` as a subprocess (tests/uci_process.py), started and ready."""
    from tests.uci_process import Uci

    u = Uci()
    # Interpreter start-up can be slow on a loaded machine (or right after a
    # rebuild): wait for it here so the per-command timeouts only measure the engine.
    u.send("isready")
    u.expect("readyok", timeout=120)
    yield u
    u.close()
