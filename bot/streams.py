"""Stream plumbing: one daemon thread per NDJSON stream, feeding asyncio.

Kept apart from bot.lichess (which owns endpoints and retry policy) so each
module stays small; the thread only asks the client to open its stream.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import requests
from berserk.exceptions import ApiError, ResponseError

from bot.events import ErrorPayload

if TYPE_CHECKING:
    from bot.lichess import Lichess

log = logging.getLogger(__name__)

_tls = threading.local()  # per stream thread: callback when its response headers arrive


def _error_payload(exc: ResponseError) -> ErrorPayload:
    cause = exc.cause
    return cast(ErrorPayload, cause) if isinstance(cause, dict) else {}


def _short(exc: BaseException) -> str:
    if isinstance(exc, ResponseError):
        payload = _error_payload(exc)
        return f"HTTP {exc.status_code} {payload.get('error', exc.reason)}"
    inner = getattr(exc, "error", None) or exc
    return f"{type(inner).__name__}: {str(inner)[:200]}"


@dataclass
class StreamOpened:
    """Queued when a stream's HTTP response arrived with a 2xx status."""


@dataclass
class StreamClosed:
    """Sentinel a stream thread puts on its queue when it stops, with why."""

    reason: str
    status: int | None = None
    retry_at: float = 0.0


class StreamThread(threading.Thread):
    """Reads one NDJSON stream in a daemon thread, feeding the event loop.

    One connection per thread; when it ends (EOF, read timeout, error) a
    StreamClosed sentinel is queued and the thread exits: the owner decides
    whether and when to re-open, so reconnection has one home.
    """

    def __init__(self, api: Lichess, name: str, args: tuple[str, ...],
                 queue: asyncio.Queue[Any], loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(name=f"stream-{name}{'-' + args[0] if args else ''}", daemon=True)
        self.api, self.kind, self.args = api, name, args
        self.queue, self.loop = queue, loop
        self.stopped = threading.Event()

    def stop(self) -> None:
        # The blocked read notices within one read timeout; items after this are dropped.
        self.stopped.set()

    def _put(self, item: Any) -> None:
        if self.stopped.is_set():
            return
        if isinstance(item, dict):
            # Stamp arrival here, not when the loop gets to it: clock ageing and the
            # overhead figures then include the hand-over to the event loop.
            item["_received_at"] = time.monotonic()
        try:
            self.loop.call_soon_threadsafe(self.queue.put_nowait, item)
        except RuntimeError:  # loop closed during shutdown
            self.stopped.set()

    def run(self) -> None:
        closed = StreamClosed("ended by server")
        _tls.on_open = lambda: self._put(StreamOpened())
        try:
            for item in self.api._open(self.kind, *self.args):
                if self.stopped.is_set():
                    return
                self._put(item)
        except ResponseError as exc:
            if exc.status_code == 429:
                rl = self.api._on_429(self.kind, exc)
                closed = StreamClosed("rate limited", 429, rl.retry_at)
            else:
                closed = StreamClosed(_short(exc), exc.status_code)
        except (ApiError, requests.RequestException) as exc:
            closed = StreamClosed(_short(exc))
        except Exception as exc:  # noqa: BLE001 - a stream must always report its end
            closed = StreamClosed(f"unexpected {type(exc).__name__}: {exc}")
            log.exception("stream %s crashed", self.name)
        self._put(closed)
