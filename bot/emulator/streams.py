"""The open ndjson streams (event streams, game streams) seen from the core.

The core pushes payloads into a Subscriber's `queue` under its lock and
notifies `cond`; the HTTP handler thread waits on `cond` (never polls) and
writes what it drained. StreamTable finds the streams an event goes to: an
account's events go to every event stream it has open, one per token (lila
subscribes each stream to `userStartGame:<userId>` and the like, and closes one
only when the same token opens another: modules/api/src/main/EventStream.scala).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from typing import Any


class Subscriber:
    def __init__(self, lock: threading.RLock, key: str, owner: str) -> None:
        self.cond = threading.Condition(lock)
        self.key = key  # "event" or "game:<id>"
        self.owner = owner  # username of the account that opened it
        self.bearer = ""  # the token an event stream was opened with (its kill channel)
        # (monotonic time produced, payload); delivered delay_s after it was produced
        self.queue: deque[tuple[float, dict[str, Any]]] = deque()
        self.delay_s = 0.0  # one-way network latency of this stream
        self.closed = False  # end the stream cleanly after draining the queue
        self.dropped = False  # cut the TCP connection now
        self.silent_until: float | None = None  # send nothing (not even keep-alives) until

    def push(self, payload: dict[str, Any]) -> None:
        """Caller holds the lock."""
        if not self.closed and not self.dropped:
            self.queue.append((time.monotonic(), payload))
            self.cond.notify()

    def close(self) -> None:
        self.closed = True
        self.cond.notify()

    def drop(self) -> None:
        self.dropped = True
        self.cond.notify()


class StreamTable:
    """Every open stream, by who reads it. Caller holds the core's lock."""

    def __init__(self) -> None:
        # token -> the event stream opened with it (lila `eventStreamForBearer:<token>`)
        self.event: dict[str, Subscriber] = {}
        self.game: dict[str, list[Subscriber]] = {}  # game id -> its open game streams
        self.live: set[Subscriber] = set()  # every stream with a handler thread

    def all(self) -> list[Subscriber]:
        return list(self.live)

    def event_streams(self, username: str) -> list[Subscriber]:
        """The account's open event streams (one per token that opened one)."""
        return [s for s in self.event.values() if s.owner == username.lower()]

    def publish_event(self, username: str, payload: dict[str, Any]) -> None:
        for sub in self.event_streams(username):
            sub.push(payload)

    def publish_game(self, game_id: str, payload: dict[str, Any]) -> None:
        for sub in self.game.get(game_id, []):
            sub.push(payload)
