"""The control socket (bot/service/control.py): its mode and group, the peer check
(SO_PEERCRED, a peer of another uid run in a forked child under that uid), bad
input answered with one line, and the CLI without a running service."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import stat
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.host import control_socket
from bot.host.control_socket import MAX_LINE
from bot.service.control import ControlServer, peer_allowed
from bot.service.control_commands import register_arenas, register_queue
from bot.service.control_registry import Registry

NOBODY = 65534


@dataclass(frozen=True)
class Waiting:
    id: str
    challenger: str
    rating: int | None
    speed: str
    waiting_since: float


class Arenas:
    """The arena room's side of the protocol (bot/service/control_commands.py
    ArenaRoom), as the room on the arena branch implements it: joined ids."""

    def __init__(self) -> None:
        self.joined: dict[str, tuple[str | None, str | None]] = {}

    async def join(self, id: str, team: str | None, password: str | None) -> str:
        self.joined[id] = (team, password)
        return f"joined {id}"

    async def leave(self, id: str) -> str:
        if self.joined.pop(id, None) is None:
            raise ValueError(f"not in arena {id}")
        return f"left {id}"

    def list(self) -> list[str]:
        return sorted(self.joined)


class Served:
    """A ControlServer on its own loop in a thread, with the queue command."""

    def __init__(self, path: Path, timeout_s: float = 2.0) -> None:
        self.path = path
        self.queued = [Waiting("c1", "alice", 1800, "blitz", time.time() - 5)]
        self.arenas = Arenas()
        registry = Registry()
        register_queue(registry, lambda: self.queued)
        register_arenas(registry, self.arenas)
        self.server = ControlServer(path, registry, timeout_s)
        self.loop = asyncio.new_event_loop()
        self.task: asyncio.Task[None] | None = None
        self.thread = threading.Thread(target=self._main, daemon=True)

    def _main(self) -> None:
        self.task = self.loop.create_task(self.server.run())
        try:
            self.loop.run_until_complete(self.task)
        except asyncio.CancelledError:
            pass

    def __enter__(self) -> Served:
        self.thread.start()
        end = time.monotonic() + 5
        while not (self.path.exists() and stat.S_IMODE(self.path.stat().st_mode) == 0o660):
            assert time.monotonic() < end, "the control socket did not appear"
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.task is not None
        self.loop.call_soon_threadsafe(self.task.cancel)
        self.thread.join(5)


@pytest.fixture
def sock_dir() -> Iterator[Path]:
    """A directory every uid may traverse (pytest's own are 0700), so the peer
    check, not the path, decides for a child of another uid."""
    d = Path(tempfile.mkdtemp(prefix="pibot-ctl-"))
    d.chmod(0o755)
    yield d
    for p in d.iterdir():
        p.unlink()
    d.rmdir()


def raw(path: Path, data: bytes, shut: bool = True) -> list[bytes]:
    """Send bytes, read everything back: the answer's lines."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(10)
        s.connect(str(path))
        s.sendall(data)
        if shut:
            s.shutdown(socket.SHUT_WR)
        out = b""
        while chunk := s.recv(65536):
            out += chunk
    return out.splitlines()


def error_of(lines: list[bytes]) -> str:
    assert len(lines) == 1, lines
    reply = json.loads(lines[0])
    assert reply["ok"] is False, reply
    return str(reply["error"])


def test_the_socket_is_0660_of_the_services_user_and_group(sock_dir: Path) -> None:
    path = sock_dir / "control.sock"
    with Served(path):
        st = path.stat()
        assert stat.S_ISSOCK(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o660
        assert (st.st_uid, st.st_gid) == (os.geteuid(), os.getegid())
        reply = control_socket.request([path], "queue", {})
        assert reply["ok"] and reply["result"][0]["challenger"] == "alice"
    assert not path.exists()  # gone with the service


def test_bad_input_is_one_error_line_and_the_server_goes_on(sock_dir: Path) -> None:
    path = sock_dir / "control.sock"
    with Served(path, timeout_s=0.5):
        assert "one line of JSON" in error_of(raw(path, b"not json\n"))
        assert "one line of JSON" in error_of(raw(path, b"\xff\xfe\n"))
        assert "too long" in error_of(raw(path, b"{" * (MAX_LINE + 100)))
        assert "too long" in error_of(raw(path, b"x" * (4 * MAX_LINE) + b"\n", shut=False))
        assert "one JSON object" in error_of(raw(path, b"[1, 2]\n"))
        assert "unknown command 'rm'" in error_of(raw(path, b'{"cmd": "rm"}\n'))
        assert "unknown argument" in error_of(
            raw(path, b'{"cmd": "queue", "args": {"all": true}}\n'))
        assert "unknown request field" in error_of(raw(path, b'{"cmd": "queue", "x": 1}\n'))
        assert "'args' must be an object" in error_of(
            raw(path, b'{"cmd": "queue", "args": 3}\n'))
        # A peer that sends nothing gets its line after the timeout, and does not
        # hold up another peer meanwhile.
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as slow:
            slow.settimeout(5)
            slow.connect(str(path))
            t0 = time.monotonic()
            assert control_socket.request([path], "queue", {})["ok"]
            assert time.monotonic() - t0 < 0.4
            assert "no request within" in error_of([slow.recv(4096).rstrip(b"\n")])
        assert control_socket.request([path], "queue", {})["ok"]


def _as_other_user(path: Path, uid: int, gid: int, groups: list[int]) -> dict[str, Any]:
    """Ask the socket from a forked child running as uid/gid; what it got back."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: drop to the other user, ask, report, exit at once
        os.close(r)
        try:
            os.setgroups(groups)
            os.setgid(gid)
            os.setuid(uid)
            result: dict[str, Any] = control_socket.request([path], "queue", {}, 5)
        except Exception as exc:
            result = {"raised": type(exc).__name__, "text": str(exc)}
        os.write(w, json.dumps(result).encode())
        os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        data = f.read()
    os.waitpid(pid, 0)
    return dict(json.loads(data))


@pytest.mark.skipif(os.geteuid() != 0, reason="running a peer under another uid needs root")
def test_a_peer_of_another_uid_is_refused(sock_dir: Path) -> None:
    path = sock_dir / "control.sock"
    with Served(path):
        # The filesystem refuses first: 0660 and not in the group.
        got = _as_other_user(path, NOBODY, NOBODY, [])
        assert got["raised"] == "NotRunning" and "no permission" in got["text"], got
        # With the mode loosened by mistake, SO_PEERCRED still refuses, with one line.
        path.chmod(0o666)
        got = _as_other_user(path, NOBODY, NOBODY, [])
        assert got.get("ok") is False and got["error"].startswith("refused: uid 65534"), got
        # A member of the service's group (a supplementary group: SO_PEERGROUPS) passes.
        got = _as_other_user(path, NOBODY, NOBODY, [os.getegid()])
        assert got["ok"] is True, got
        # And so does one whose primary group it is.
        got = _as_other_user(path, NOBODY, os.getegid(), [])
        assert got["ok"] is True, got


def test_who_is_allowed() -> None:
    assert peer_allowed(0, 5, set(), own_uid=999, own_gid=999)  # root
    assert peer_allowed(999, 5, set(), own_uid=999, own_gid=999)  # the service's user
    assert peer_allowed(1000, 999, set(), own_uid=999, own_gid=999)  # primary group
    assert peer_allowed(1000, 1000, {27, 999}, own_uid=999, own_gid=999)  # a member
    assert not peer_allowed(1000, 1000, {27}, own_uid=999, own_gid=999)
    assert not peer_allowed(NOBODY, NOBODY, set(), own_uid=999, own_gid=999)


def test_without_a_service_the_cli_says_so_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gone = tmp_path / "control.sock"
    for argv in (["queue", "--socket", str(gone)],
                 ["challenge", "sparbot", "--games", "2", "--socket", str(gone)],
                 ["arena", "leave", "abc", "--socket", str(gone)]):
        assert main(argv) == 3
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "not running" in err and "systemctl start" in err, err
    # The default place: the runtime directory the tests give each service.
    assert main(["queue"]) == 3
    assert "not running" in capsys.readouterr().err


@pytest.mark.parametrize("argv, line", [
    (["challenge", "x", "--tc", "0.25+0"], "UltraBullet"),
    (["challenge", "x", "--tc", "1.3+0"], "78 s"),
    (["challenge", "x", "--tc", "2+61"], "increment"),
    (["challenge", "x", "--tc", "three"], "MINUTES+SECONDS"),
    (["challenge", "x", "--games", "0"], "--games"),
])
def test_bad_clock_or_count_is_one_line_before_anything_is_sent(
        argv: list[str], line: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and line in err, err


def test_an_arena_password_comes_from_a_file(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty"
    empty.write_text("\n")
    assert main(["arena", "join", "abc", "--password-file", str(empty)]) == 2
    assert "no password" in capsys.readouterr().err
    assert main(["arena", "join", "abc", "--password-file", str(tmp_path / "none")]) == 2
    assert "cannot read the password file" in capsys.readouterr().err


def test_arena_verbs_reach_the_arena_room_and_the_password_stays_out_of_logs(
        sock_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level("DEBUG")
    path = sock_dir / "control.sock"
    secret = tmp_path / "pw"
    secret.write_text("s3cret-Arena\n")
    sock = ["--socket", str(path)]
    with Served(path) as served:
        assert main(["arena", "join", "Ab12", "--team", "pibots", "--password-file",
                     str(secret), *sock]) == 0
        assert served.arenas.joined == {"Ab12": ("pibots", "s3cret-Arena")}
        assert main(["arena", "list", *sock]) == 0
        assert main(["arena", "leave", "Ab12", *sock]) == 0
        assert capsys.readouterr().out.split("\n")[:2] == ["joined Ab12", "["]
        assert main(["arena", "leave", "Ab12", *sock]) == 1
        err = capsys.readouterr().err
        assert err == "pibot arena: the service refused: arena.leave: not in arena Ab12\n"
        assert main(["queue", *sock]) == 0
        assert "alice (1800)  blitz  waiting" in capsys.readouterr().out
    assert "s3cret" not in caplog.text and "arena.join" in caplog.text
