"""sd_notify against real AF_UNIX datagram sockets (filesystem and abstract)."""

from __future__ import annotations

import os
import socket
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.host import sdnotify


@pytest.fixture
def listener(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[socket.socket]:
    path = tmp_path / "notify.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.settimeout(2.0)
    monkeypatch.setenv("NOTIFY_SOCKET", str(path))
    yield sock
    sock.close()


@pytest.fixture
def abstract_listener(monkeypatch: pytest.MonkeyPatch) -> Iterator[socket.socket]:
    name = f"pibot-test-{uuid.uuid4().hex}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(b"\0" + name.encode())
    sock.settimeout(2.0)
    monkeypatch.setenv("NOTIFY_SOCKET", "@" + name)
    yield sock
    sock.close()


def _recv(sock: socket.socket) -> list[str]:
    return sock.recv(4096).decode().split("\n")


def test_ready_stopping_watchdog(listener: socket.socket) -> None:
    assert sdnotify.ready()
    assert _recv(listener) == ["READY=1"]
    assert sdnotify.watchdog_ping()
    assert _recv(listener) == ["WATCHDOG=1"]
    assert sdnotify.stopping()
    assert _recv(listener) == ["STOPPING=1"]


def test_reloading_sends_monotonic_usec(listener: socket.socket) -> None:
    before = time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000
    assert sdnotify.reloading()
    fields = _recv(listener)
    after = time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000
    assert fields[0] == "RELOADING=1"
    key, value = fields[1].split("=")
    assert key == "MONOTONIC_USEC" and before <= int(value) <= after


def test_status_is_one_line_and_cannot_inject_fields(listener: socket.socket) -> None:
    assert sdnotify.status("playing 2 games\nREADY=1")
    assert _recv(listener) == ["STATUS=playing 2 games READY=1"]


def test_abstract_namespace(abstract_listener: socket.socket) -> None:
    assert sdnotify.ready()
    assert _recv(abstract_listener) == ["READY=1"]


def test_noop_without_notify_socket(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    assert not sdnotify.ready()
    assert not sdnotify.status("x")
    assert not sdnotify.watchdog_ping()


def test_missing_socket_is_logged_not_raised(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "gone.sock"))
    assert not sdnotify.ready()
    assert "sd_notify" in caplog.text


def test_relative_socket_path_is_ignored(monkeypatch: pytest.MonkeyPatch,
                                         caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("NOTIFY_SOCKET", "relative.sock")
    assert not sdnotify.ready()
    assert "NOTIFY_SOCKET" in caplog.text


def test_watchdog_interval(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WATCHDOG_USEC", raising=False)
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    assert sdnotify.watchdog_interval_s() is None
    monkeypatch.setenv("WATCHDOG_USEC", "60000000")
    assert sdnotify.watchdog_interval_s() == 60.0
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
    assert sdnotify.watchdog_interval_s() == 60.0
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid() + 1))  # meant for another process
    assert sdnotify.watchdog_interval_s() is None
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
    for bad in ("0", "soon"):
        monkeypatch.setenv("WATCHDOG_USEC", bad)
        assert sdnotify.watchdog_interval_s() is None


def test_a_reader_that_stops_reading_never_blocks_the_sender(listener: socket.socket) -> None:
    # The service notifies from its event loop: a full queue must cost a datagram,
    # never a stalled loop (a blocking sendto would hang here forever).
    t0 = time.monotonic()
    results = [sdnotify.status("x" * 2000) for _ in range(2000)]
    assert time.monotonic() - t0 < 10
    assert results[0] and not all(results)
