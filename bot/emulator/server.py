"""HTTP/1.1 server plumbing: parse requests, apply faults and limits, write
JSON / ndjson / chunked streams. What each route does lives in api.py and
control.py; this module only knows how to speak HTTP.
"""

from __future__ import annotations

import json
import logging
import re
import select
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

from bot.emulator.config import AccountSpec
from bot.emulator.errors import ApiError, EmulatorUsageError
from bot.emulator.faults import ERROR_TEXT, Fault
from bot.emulator.streams import Subscriber

if TYPE_CHECKING:
    from bot.emulator.core import Core

log = logging.getLogger(__name__)

TOO_MANY = ERROR_TEXT[429]


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, str]
    body: dict[str, Any]
    raw_body: bytes
    headers: dict[str, str]
    params: dict[str, str] = field(default_factory=dict)
    account: AccountSpec | None = None
    bearer: str = ""  # the token it was sent with (never logged)


@dataclass
class Reply:
    status: int = 200
    body: Any = None  # JSON-able, or str for text bodies
    content_type: str = "application/json"


@dataclass
class NdjsonReply:
    items: list[Any]


@dataclass
class StreamReply:
    sub: Subscriber
    keepalive_s: float


Handler = Callable[[Request], "Reply | NdjsonReply | StreamReply"]


@dataclass
class Route:
    method: str
    template: str  # e.g. "/api/bot/game/{id}/move/{move}"
    handler: Handler
    auth: bool = False
    scopes: tuple[str, ...] = ()  # any one of these is enough
    bot_only: bool = False
    regex: re.Pattern[str] = field(init=False)

    def __post_init__(self) -> None:
        pattern = re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", self.template)
        self.regex = re.compile(f"^{pattern}$")

    @property
    def name(self) -> str:
        return f"{self.method} {self.template}"


class EmuHTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64  # a soak run opens many connections at once

    def __init__(self, addr: tuple[str, int], core: Core, routes: list[Route]) -> None:
        self.core = core
        self.routes = routes
        self._conns: set[socket.socket] = set()
        self._conns_lock = threading.Lock()
        super().__init__(addr, EmuRequestHandler)

    def track(self, sock: socket.socket, add: bool) -> None:
        with self._conns_lock:
            if add:
                self._conns.add(sock)
            else:
                self._conns.discard(sock)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Clients vanishing mid-request is normal here (faults, reconnects):
        # log at debug level instead of socketserver's traceback on stderr.
        log.debug("connection from %s ended with an error", client_address, exc_info=True)

    def close_all_connections(self) -> None:
        """Cut every open connection so no handler thread outlives stop()."""
        with self._conns_lock:
            conns = list(self._conns)
        for sock in conns:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class EmuRequestHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: EmuHTTPServer
    server_version = "lichess-emulator/1.0"
    _pending_record: tuple[str, str, str] | None = None  # (method, path, route) not yet logged
    _one_way_s = 0.0  # this request's one-way network latency (EmulatorConfig.rtt_ms)
    _late_s = 0.0  # slow faults with after=True: the answer waits this long

    def setup(self) -> None:
        super().setup()
        # StreamRequestHandler.timeout is per class: this server's is per config.
        self.connection.settimeout(self.server.core.config.handler_timeout_s)
        self.server.track(self.connection, True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.track(self.connection, False)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        # Paths only (never headers), at debug level: the token must not reach logs.
        log.debug("%s %s", self.address_string(), format % args)

    def do_GET(self) -> None:  # noqa: N802 - stdlib naming
        self._dispatch("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._dispatch("POST")

    def do_DELETE(self) -> None:  # noqa: N802
        self._dispatch("DELETE")

    # ------------------------------------------------------------------ dispatch
    def _dispatch(self, method: str) -> None:
        core = self.server.core
        self._one_way_s = 0.0
        self._late_s = 0.0
        split = urlsplit(self.path)
        path = split.path
        query = {k: v[-1] for k, v in parse_qs(split.query, keep_blank_values=True).items()}
        raw = self._read_body()
        route, params = self._match(method, path)
        route_name = route.name if route else f"{method} (unknown)"
        status = 500
        # Recorded just before the answer is written (see _send), so a client that
        # has its response can already see the request in emu.traffic.requests().
        self._pending_record = (method, path, route_name)
        control = path.startswith("/emu/")
        if not control:
            # Network latency: the request reaches lila only now (and BOTs get no
            # lag compensation), the answer takes as long again (see _send).
            self._one_way_s = core.one_way_s()
            if self._one_way_s:
                time.sleep(self._one_way_s)
        try:
            if route is None:
                raise ApiError(404, "Not found")
            req = Request(
                method,
                path,
                query,
                _parse_control_body(raw) if control else _parse_body(self.headers, raw),
                raw,
                {k.lower(): v for k, v in self.headers.items()},
                params,
            )
            if not control:
                stall = self._apply_request_faults(method, path)
                if stall is not None:
                    status = 0
                    self._stall(stall, route, req)
                    return
                if core.rate_limited(method, path):
                    raise ApiError(429, TOO_MANY)
                self._authenticate(route, req)
            result = route.handler(req)
            if self._late_s:
                time.sleep(self._late_s)
            if isinstance(result, StreamReply):
                status = 200
                self._pending_record = None
                core.record(method, path, route_name, status)
                result.sub.delay_s = self._one_way_s
                self._write_stream(result)
                return
            if isinstance(result, NdjsonReply):
                status = 200
                body = "".join(json.dumps(i) + "\n" for i in result.items).encode()
                self._send(status, body, "application/x-ndjson")
            else:
                status = result.status
                self._send_reply(result)
        except ApiError as exc:
            status = exc.status
            self._send(status, json.dumps(exc.body).encode(), "application/json")
        except EmulatorUsageError as exc:
            status = 400
            self._send(status, json.dumps({"error": str(exc)}).encode(), "application/json")
        except _Dropped:
            status = 0
            self._abort()
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            status = 0
            self.close_connection = True
        except Exception as exc:
            if control and isinstance(
                exc, (TypeError, ValueError, KeyError, AttributeError)
            ):
                # Control input the checks missed: still the caller's mistake, not a 500.
                status = 400
                error = {"error": f"bad control input for {method} {path}: {exc}"}
                payload, ctype = json.dumps(error).encode(), "application/json"
            else:
                log.exception("emulator: internal error on %s %s", method, path)
                status = 500
                payload, ctype = b'{"error": "Internal server error"}', "application/json"
            try:
                self._send(status, payload, ctype)
            except OSError:
                self.close_connection = True
        if status and self._pending_record is not None:
            core.record(method, path, route_name, status)

    def _match(self, method: str, path: str) -> tuple[Route | None, dict[str, str]]:
        for route in self.server.routes:
            if route.method != method:
                continue
            m = route.regex.match(path)
            if m:
                return route, m.groupdict()
        return None, {}

    def _read_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def _apply_request_faults(self, method: str, path: str) -> Fault | None:
        """Sleep for a slow fault (or, with after=True, set the answer's wait),
        raise an http_error one; return a stall fault.

        A 429 is answered at once, even when a slow fault fires too: lila checks
        its limiters before it does the work (`lila.memo.RateLimit` around the
        action in app/controllers), so a rate-limited request is never a slow one,
        and a client that gave up on a slow request must not miss a 429.
        """
        faults = self.server.core.request_faults(method, path)
        for fault in faults:
            if fault.kind == "http_error" and fault.status == 429:
                raise ApiError(fault.status, fault.error_text())
        for fault in faults:
            if fault.kind == "slow" and fault.duration_s:
                if fault.after:
                    self._late_s += fault.duration_s
                else:
                    time.sleep(fault.duration_s)
        for fault in faults:
            if fault.kind == "stall":
                return fault
        for fault in faults:
            if fault.kind == "http_error":
                raise ApiError(fault.status, fault.error_text())
        return None

    def _stall(self, fault: Fault, route: Route, req: Request) -> None:
        """A stall fault: maybe handle the request, then never answer it.

        Recorded with status 0 (no answer) as soon as it is read, so a test can
        see it arrived while the client is still waiting.
        """
        core = self.server.core
        pending, self._pending_record = self._pending_record, None
        if pending is not None:
            core.record(*pending, 0)
        if fault.apply:
            try:
                self._authenticate(route, req)
                result = route.handler(req)
                if isinstance(result, StreamReply):
                    core.close_stream(result.sub)
            except Exception as exc:  # the client never learns the outcome either way
                log.debug("stalled %s %s was handled with %r", req.method, req.path, exc)
        log.info("fault: stalling %s %s for %s s (applied: %s)", req.method, req.path,
                 fault.duration_s if fault.duration_s is not None else "ever", fault.apply)
        self._hold(fault.duration_s)
        self._abort()

    def _hold(self, duration_s: float | None) -> None:
        """Keep the connection open and silent until `duration_s` passed, the
        client hung up or the emulator stops (stop() shuts the socket down)."""
        end = None if duration_s is None else time.monotonic() + duration_s
        while not self.server.core.stopping:
            left = None if end is None else end - time.monotonic()
            if left is not None and left <= 0:
                return
            try:
                readable, _, _ = select.select([self.connection], [], [], left)
                if not readable:
                    continue
                if not self.connection.recv(1, socket.MSG_PEEK):
                    return  # the client closed its end
            except OSError:
                return
            # The client sent more bytes (a pipelined request): it is still there,
            # and this connection never answers; wait without spinning.
            time.sleep(0.05 if left is None else min(0.05, left))

    def _authenticate(self, route: Route, req: Request) -> None:
        auth = req.headers.get("authorization", "")
        token = auth[7:].strip() if auth.lower().startswith("bearer ") else ""
        account = self.server.core.account_for_token(token) if token else None
        if route.auth or account is not None:
            req.account = account
            req.bearer = token if account is not None else ""
        if not route.auth:
            return
        if account is None:
            raise ApiError(401, "No such token")
        if route.scopes and not any(s in account.scopes for s in route.scopes):
            raise ApiError(403, f"Missing scope: {' or '.join(route.scopes)}")
        if route.bot_only and account.title != "BOT":
            raise ApiError(400, "This endpoint can only be used with a Bot account.")

    # ------------------------------------------------------------------ writing
    def _send_reply(self, reply: Reply) -> None:
        if reply.content_type == "application/json":
            body = json.dumps(reply.body if reply.body is not None else {"ok": True}).encode()
        else:
            body = str(reply.body).encode()
        self._send(reply.status, body, reply.content_type)

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        pending, self._pending_record = self._pending_record, None
        if pending is not None:
            self.server.core.record(*pending, status)
        if self._one_way_s:
            time.sleep(self._one_way_s)
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def _write_stream(self, stream: StreamReply) -> None:
        core = self.server.core
        sub = stream.sub
        try:
            if self._one_way_s:
                time.sleep(self._one_way_s)
            self.send_response(200)
            self.send_header("Content-Type", "application/x-ndjson")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.flush()
            while True:
                items, action = core.next_chunk(sub, stream.keepalive_s)
                if action == "drop":
                    self._abort()
                    return
                if items:
                    data = "".join(json.dumps(i) + "\n" for i in items).encode()
                elif action == "send":
                    data = b"\n"  # Lichess keep-alive: an empty line
                else:
                    data = b""
                if data:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                if action == "end":
                    self.wfile.write(b"0\r\n\r\n")
                    self.wfile.flush()
                    # Like Lichess, a finished stream also ends the connection.
                    self.close_connection = True
                    return
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, TimeoutError, OSError):
            self.close_connection = True
        finally:
            core.close_stream(sub)

    def _abort(self) -> None:
        """Cut the TCP connection mid-response (what a network fault looks like)."""
        self.close_connection = True
        try:
            self.wfile.flush()
        except OSError:
            pass
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


class _Dropped(Exception):
    """Raised by a handler to cut the connection without an answer."""


def _parse_control_body(raw: bytes) -> dict[str, Any]:
    """/emu bodies are JSON objects (or empty)."""
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise EmulatorUsageError("the /emu request body must be a JSON object") from None
    if not isinstance(data, dict):
        raise EmulatorUsageError("the /emu request body must be a JSON object, not "
                                 f"{type(data).__name__}")
    return data


def _parse_body(headers: Any, raw: bytes) -> dict[str, Any]:
    """Both JSON and form bodies are accepted, as Lichess does."""
    if not raw:
        return {}
    ctype = (headers.get("Content-Type") or "").lower()
    text = raw.decode("utf-8", errors="replace")
    if "json" in ctype or text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except ValueError:
            raise ApiError(400, "Invalid JSON body") from None
        if not isinstance(data, dict):
            raise ApiError(400, "JSON body must be an object")
        return data
    if "=" in text:
        return {k: v[-1] for k, v in parse_qs(text, keep_blank_values=True).items()}
    return {}
