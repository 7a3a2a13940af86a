"""The control socket: the owner's commands to the running service (`pibot challenge`,
`pibot queue`, `pibot arena ...`), one JSON line in, one JSON line out.

Who may talk to it: the socket is mode 0660 (owner: the service's user, group:
its group, pibot under systemd), and each peer's credentials are checked again
with SO_PEERCRED/SO_PEERGROUPS, because a filesystem mode is easy to loosen by
accident.  Allowed: root, the service's own uid, and a process whose primary or
supplementary groups include the service's group.  Anyone else reads one
refusal line.  (Under systemd's PrivateUsers= the kernel shows other users as
nobody but keeps the pibot group mapped, so group members still pass.)

A peer gets TIMEOUT_S to send its line of at most MAX_LINE bytes; anything else
(too long, not JSON, not a known command) is one error line, never a traceback,
and one slow peer never holds up the others or the service.
"""

from __future__ import annotations

import array
import asyncio
import json
import logging
import os
import socket
import stat
import struct
from pathlib import Path
from typing import Any

from bot.host.control_socket import MAX_LINE, SOCKET_MODE, TIMEOUT_S
from bot.service.control_registry import Registry, error

log = logging.getLogger(__name__)

SO_PEERGROUPS = getattr(socket, "SO_PEERGROUPS", 59)  # Linux >= 4.13; Python lacks the name
MAX_GROUPS = 256


def peer_credentials(sock: socket.socket) -> tuple[int, int, int]:
    """(pid, uid, gid) of the process at the other end of a Unix socket."""
    raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    pid, uid, gid = struct.unpack("3i", raw)
    return pid, uid, gid


def peer_groups(sock: socket.socket) -> set[int]:
    """The peer's supplementary groups; empty where the kernel cannot say."""
    try:
        raw = sock.getsockopt(socket.SOL_SOCKET, SO_PEERGROUPS, 4 * MAX_GROUPS)
    except OSError:
        return set()
    groups = array.array("I")
    groups.frombytes(raw[: len(raw) - len(raw) % 4])
    return set(groups)


def peer_allowed(uid: int, gid: int, groups: set[int],
                 own_uid: int | None = None, own_gid: int | None = None) -> bool:
    own_uid = os.geteuid() if own_uid is None else own_uid
    own_gid = os.getegid() if own_gid is None else own_gid
    return uid in (0, own_uid) or gid == own_gid or own_gid in groups


class ControlServer:
    def __init__(self, path: Path, registry: Registry, timeout_s: float = TIMEOUT_S) -> None:
        self.path, self.registry, self.timeout_s = path, registry, timeout_s

    async def run(self) -> None:
        """Listen until cancelled (a supervised task); the socket goes with it."""
        self._clear_stale()
        server = await asyncio.start_unix_server(self._serve, path=os.fspath(self.path),
                                                 limit=MAX_LINE)
        try:
            os.chmod(self.path, SOCKET_MODE)
            log.info("control socket %s (mode %o; commands: %s)", self.path, SOCKET_MODE,
                     ", ".join(self.registry.names()))
            await server.serve_forever()
        finally:
            server.close()
            self._unlink()

    def _clear_stale(self) -> None:
        """A socket left by a killed service would make bind() fail."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            if stat.S_ISSOCK(self.path.lstat().st_mode):
                self.path.unlink()
        except FileNotFoundError:
            pass

    def _unlink(self) -> None:
        try:
            self.path.unlink()
        except OSError:
            pass

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            reply = await self._one(reader, writer.get_extra_info("socket"))
            writer.write(json.dumps(reply).encode()[:MAX_LINE - 1] + b"\n")
            await asyncio.wait_for(writer.drain(), self.timeout_s)
        except (OSError, TimeoutError) as exc:
            log.debug("control: peer went away: %s", exc)
        except Exception:  # one connection's bug must not stop the server
            log.exception("control: request failed")
        finally:
            writer.close()

    @staticmethod
    def _refusal(sock: socket.socket) -> str | None:
        _, uid, gid = peer_credentials(sock)
        if peer_allowed(uid, gid, peer_groups(sock)):
            return None
        log.warning("control: refused a peer of uid %d gid %d", uid, gid)
        return f"refused: uid {uid} is not root, the service's user or a member of its group"

    async def _one(self, reader: asyncio.StreamReader, sock: Any) -> dict[str, Any]:
        refusal = self._refusal(sock) if sock is not None else None
        # Read before refusing: a reply before the peer's line would break its pipe.
        line, problem = await self._read(reader)
        if refusal is not None or problem is not None:
            return error(refusal or problem or "")
        try:
            request = json.loads(line.decode())
        except (UnicodeDecodeError, ValueError):
            return error("a request is one line of JSON")
        return await self.registry.answer(request)

    async def _read(self, reader: asyncio.StreamReader) -> tuple[bytes, str | None]:
        """The peer's one line, or why there is none."""
        too_long = f"request too long (at most {MAX_LINE} bytes)"
        try:
            line = await asyncio.wait_for(reader.readuntil(b"\n"), self.timeout_s)
        except asyncio.IncompleteReadError as exc:
            line = exc.partial  # the peer shut its side after the request: fine
        except asyncio.LimitOverrunError:
            return b"", too_long
        except TimeoutError:
            return b"", f"no request within {self.timeout_s:g} s"
        return line, too_long if len(line) > MAX_LINE else None
