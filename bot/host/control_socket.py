"""The control socket's address, limits and client (the CLI's side).

The running service listens on a Unix socket, `control.sock`, in its runtime
directory (bot/host/status_file.py write_dir: /run/pibot under systemd).  The
protocol is one JSON object per line, one request and one response per
connection:

    -> {"cmd": "challenge", "args": {"user": "sparbot", "games": 2}}
    <- {"ok": true, "result": ...}        or   {"ok": false, "error": "one line"}

The server is bot/service/control.py; the commands it accepts are registered
there (bot/service/control_commands.py).
"""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path
from typing import Any

from bot.errors import PibotError
from bot.host import status_file

FILENAME = "control.sock"
MAX_LINE = 16 * 1024  # a request or a response; more is refused, never buffered
TIMEOUT_S = 10.0  # a peer gets this long to send its line; the CLI waits this long too
SOCKET_MODE = 0o660  # the service's user and group; the peer check (SO_PEERCRED) on top


class NotRunning(PibotError):
    """No service answers on the control socket."""


def socket_path(env: dict[str, str] | None = None) -> Path:
    """Where the service listens: next to its status file."""
    return status_file.write_dir(env) / FILENAME


def candidate_paths(instance: str | None = None,
                    env: dict[str, str] | None = None) -> list[Path]:
    """Where the CLI looks, most specific first (as `pibot status` does)."""
    return [p.with_name(FILENAME) for p in status_file.candidate_paths(instance, env)]


def request(paths: list[Path], cmd: str, args: dict[str, Any],
            timeout_s: float = TIMEOUT_S) -> dict[str, Any]:
    """Send one request to the first socket that answers; its response object.

    NotRunning when none answers; the response's own error is in its "error"."""
    line = json.dumps({"cmd": cmd, "args": args}).encode() + b"\n"
    tried = []
    for path in paths:
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.settimeout(timeout_s)
                s.connect(os.fspath(path))
                s.sendall(line)
                return _read_response(s)
        except (FileNotFoundError, ConnectionRefusedError):
            tried.append(str(path))
        except PermissionError:
            raise NotRunning(f"no permission to use {path}: run as root, the service's "
                             f"user or a member of its group (sudo usermod -aG pibot "
                             f"$USER, then log in again)") from None
        except TimeoutError:
            raise NotRunning(f"the service did not answer on {path} within "
                             f"{timeout_s:.0f} s") from None
        except OSError as exc:
            raise NotRunning(f"cannot talk to the service on {path}: "
                             f"{exc.strerror or exc}") from None
    raise NotRunning(f"the pibot service is not running (no control socket at "
                     f"{' or '.join(tried)}); start it with `sudo systemctl start pibot` "
                     f"or `pibot run`")


def _read_response(s: socket.socket) -> dict[str, Any]:
    data = b""
    while not data.endswith(b"\n") and len(data) <= MAX_LINE:
        chunk = s.recv(4096)
        if not chunk:
            break
        data += chunk
    try:
        reply = json.loads(data.decode())
    except (UnicodeDecodeError, ValueError):
        reply = None
    if not isinstance(reply, dict) or "ok" not in reply:
        raise NotRunning("the service's answer was not understood "
                         f"({len(data)} bytes); is this a pibot control socket?")
    return reply


class Refused(PibotError):
    """The service answered with an error line."""


def call(instance: str | None, cmd: str, args: dict[str, Any],
         path: str | None = None) -> Any:
    """One command to the running service; its result.  NotRunning when no service
    answers, Refused with the service's line when it refuses."""
    paths = [Path(path)] if path else candidate_paths(instance)
    reply = request(paths, cmd, args)
    if not reply.get("ok"):
        raise Refused(str(reply.get("error") or "refused"))
    return reply.get("result")
