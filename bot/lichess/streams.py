"""Stream plumbing: one daemon thread per NDJSON stream, feeding asyncio.

Kept apart from the client's transport (bot.lichess.transport, which applies the
endpoints' retry policy) so each module stays small.  The transport hands a thread
two callables, one that opens its stream and one that books a 429, so this module
never imports the client back.

The lines are read here, one chunk at a time: Lichess sends an empty line as a
keep-alive (every 7 s on both kinds of stream), and only by seeing those can we tell a quiet but
healthy stream from a dead one without asking the server anything else.  Each
line is parsed here (bot.lichess.events) and queued as an event; a line that is
not JSON or not a well-formed event is one log line and is skipped.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Generic, Protocol, TypeAlias, TypeVar, cast

import requests

from bot.lichess.events import ErrorPayload, Payload

log = logging.getLogger(__name__)

E = TypeVar("E")  # the events of one kind of stream (bot.lichess.events' unions)


def error_payload(resp: requests.Response) -> ErrorPayload:
    """Lichess's JSON error body ({"error": ..., "ratelimit": ...}), or {}."""
    try:
        body = resp.json()
    except ValueError:
        return {}
    return cast(ErrorPayload, body) if isinstance(body, dict) else {}


def short_error(exc: BaseException) -> str:
    inner = getattr(exc, "error", None) or exc
    return f"{type(inner).__name__}: {str(inner)[:200]}"


@dataclass
class StreamOpened:
    """Queued when a stream's HTTP response arrived with a 2xx status."""


class StreamView(Protocol):
    """The event stream's status, read-only: what those who wait on it may read."""

    @property
    def opened(self) -> int: ...  # streams opened so far
    @property
    def opened_at(self) -> float: ...  # when the last one opened (monotonic)
    @property
    def up(self) -> bool: ...  # one is open now (else cancels go unseen)


@dataclass
class StreamStatus:
    """The event stream's status, written by its one owner (the service's event
    stream) and handed to everyone else as a StreamView."""

    opened: int = 0
    opened_at: float = 0.0
    up: bool = False

    def open(self, now: float) -> None:
        """A stream has opened (at `now`, monotonic)."""
        self.opened += 1
        self.opened_at = now
        self.up = True

    def close(self) -> None:
        self.up = False


@dataclass
class StreamClosed:
    """Sentinel a stream thread puts on its queue when it stops, with why.

    `status` is the HTTP status when the server answered (200 for a stream
    that opened and later ended, 404 for a game that no longer exists...),
    None for a network failure. `clean` is True when the server ended an open
    stream itself (no error): on the event stream that is what a second
    client on the same token causes. `lived_s` is how long it was open.
    """

    reason: str
    status: int | None = None
    retry_at: float = 0.0
    clean: bool = False
    lived_s: float = 0.0


# What a stream's queue holds: its events, and the markers of its opening and end.
Item: TypeAlias = "E | StreamOpened | StreamClosed"
# A line's JSON object, when it arrived (monotonic) and the stream's name -> an event,
# or None after one log line (bot.lichess.events.parse_account_event and the like).
Parser: TypeAlias = Callable[[Payload, float, str], "E | None"]


class StreamThread(threading.Thread, Generic[E]):
    """Reads one NDJSON stream in a daemon thread, feeding the event loop.

    One connection per thread; when it ends (EOF, read timeout, error) a
    StreamClosed sentinel is queued and the thread exits: the owner decides
    whether and when to re-open, so reconnection has one home.

    `last_seen` (monotonic) is the last time any byte arrived, keep-alives
    included: game code can use it to tell "quiet" from "dead".

    `open_stream()` opens the HTTP response (a context manager that closes it);
    `on_429(payload)` books a 429 with the client and returns when to retry
    (monotonic); `parse` makes each line an event of this stream's kind.
    """

    def __init__(self, name: str, args: tuple[str, ...],
                 open_stream: Callable[[], AbstractContextManager[requests.Response]],
                 on_429: Callable[[ErrorPayload], float], parse: Parser[E],
                 queue: asyncio.Queue[Item[E]], loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(name=f"stream-{name}{'-' + args[0] if args else ''}", daemon=True)
        self.kind, self.args = name, args
        self._open_stream, self._on_429, self._parse = open_stream, on_429, parse
        self.queue, self.loop = queue, loop
        self.stopped = threading.Event()
        self.last_seen = time.monotonic()
        self.opened_at: float | None = None

    def stop(self) -> None:
        # The blocked read notices within one read timeout; items after this are dropped.
        self.stopped.set()

    def _put(self, item: Item[E]) -> None:
        if self.stopped.is_set():
            return
        try:
            self.loop.call_soon_threadsafe(self.queue.put_nowait, item)
        except RuntimeError:  # loop closed during shutdown
            self.stopped.set()

    def _lines(self, resp: requests.Response) -> None:
        buf = b""
        # chunk_size=None: every chunk as it arrives, so a lone keep-alive "\n" is seen.
        for chunk in resp.iter_content(chunk_size=None):
            self.last_seen = time.monotonic()
            if self.stopped.is_set():
                return
            buf += chunk
            *lines, buf = buf.split(b"\n")
            for raw in lines:
                line = raw.strip()
                if not line:
                    continue  # keep-alive
                try:
                    item = json.loads(line)
                except ValueError:
                    log.warning("%s: ignoring a line that is not JSON: %.100r", self.name, line)
                    continue
                if not isinstance(item, dict):
                    log.warning("%s: ignoring a line that is not a JSON object: %.100r",
                                self.name, line)
                    continue
                # Stamped here, not when the loop gets to it: clock ageing and the
                # overhead figures then include the hand-over to the event loop.
                event = self._parse(item, time.monotonic(), self.name)
                if event is not None:
                    self._put(event)

    def _read(self, resp: requests.Response) -> StreamClosed:
        if resp.status_code != 200:
            payload = error_payload(resp)
            if resp.status_code == 429:
                return StreamClosed("rate limited", 429, self._on_429(payload))
            return StreamClosed(f"HTTP {resp.status_code} {payload.get('error', resp.reason)}",
                                resp.status_code)
        self.opened_at = self.last_seen = time.monotonic()
        self._put(StreamOpened())
        self._lines(resp)
        return StreamClosed("ended by server", 200, clean=True,
                            lived_s=time.monotonic() - self.opened_at)

    def run(self) -> None:
        try:
            with self._open_stream() as resp:
                closed = self._read(resp)
        except requests.RequestException as exc:
            lived = time.monotonic() - self.opened_at if self.opened_at else 0.0
            closed = StreamClosed(short_error(exc), 200 if self.opened_at else None,
                                  lived_s=lived)
        except Exception as exc:  # noqa: BLE001 - a stream must always report its end
            closed = StreamClosed(f"unexpected {type(exc).__name__}: {exc}")
            log.exception("stream %s crashed", self.name)
        self._put(closed)
