"""One open ndjson stream (event stream or game stream) seen from the core.

The core pushes payloads into `queue` under its lock and notifies `cond`; the
HTTP handler thread waits on `cond` (never polls) and writes what it drained.
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
