"""The open ndjson streams (event streams, game streams) seen from the core.

The core pushes payloads into a Subscriber's `queue` under its lock and
notifies `cond`; the HTTP handler thread waits on `cond` (never polls) and
writes what it drained. StreamTable finds the streams an event goes to.
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
        self.event: dict[str, Subscriber] = {}  # username(lower) -> the open event stream
        self.game: dict[str, list[Subscriber]] = {}  # game id -> its open game streams
        self.live: set[Subscriber] = set()  # every stream with a handler thread

    def all(self) -> list[Subscriber]:
        return list(self.live)

    def publish_event(self, username: str, payload: dict[str, Any]) -> None:
        sub = self.event.get(username.lower())
        if sub is not None:
            sub.push(payload)

    def publish_game(self, game_id: str, payload: dict[str, Any]) -> None:
        for sub in self.game.get(game_id, []):
            sub.push(payload)
