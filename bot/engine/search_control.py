"""The one search an Engine runs at a time: who may start it, the stop and
ponderhit asked of it, and the poller that re-sends those and reports progress.

`run_search` runs the C search in the calling thread (GIL released) so that
nothing stands between its end and the return: under CPU load every extra
thread hand-off on that path costs milliseconds of the clock. A small poller
thread re-sends stop/ponderhit and calls `on_info` with each line (MultiPV)
of each new iteration meanwhile; an exception raised there stops the search
and is re-raised.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from bot.engine import search_bindings as sb
from bot.engine.exceptions import EngineBusyError

POLL_S = 0.01  # progress poll period; also how fast a missed stop is re-sent


class SearchControl:
    """The search lock, and the stop/ponderhit requests of the running search.

    `stop()`/`ponderhit()` act on the running search only, never on one that
    starts later; `stop_event`/`ponderhit_event` given to `running` act like
    them but may be set before the search has started (a UCI `stop` can
    arrive before the worker thread gets going).
    """

    def __init__(self) -> None:
        self._search_lock = threading.Lock()
        # Guards the running search's handle and the request flags.
        self._state_lock = threading.Lock()
        self._ptr: Any = None  # the running search's engine; None between searches
        self._stop_requested = False
        self._ponderhit_requested = False
        self._stop_event: threading.Event | None = None
        self._ponderhit_event: threading.Event | None = None

    @contextmanager
    def running(self, ptr: Any, stop_event: threading.Event | None,
                ponderhit_event: threading.Event | None) -> Iterator[None]:
        """Hold the search lock for one search on `ptr`; EngineBusyError if taken."""
        if not self._search_lock.acquire(blocking=False):
            raise EngineBusyError("this engine is already searching; stop it first")
        try:
            with self._state_lock:
                self._ptr = ptr
                self._stop_requested = False
                self._ponderhit_requested = False
                self._stop_event, self._ponderhit_event = stop_event, ponderhit_event
            yield
        finally:
            with self._state_lock:
                self._ptr = None
            self._search_lock.release()

    @contextmanager
    def quiet(self) -> Iterator[None]:
        """Wait for the running search to end; none starts until the block ends."""
        with self._search_lock:
            yield

    def stop(self) -> None:
        with self._state_lock:
            if self._ptr is None:
                return
            self._stop_requested = True
            sb.stop(self._ptr)

    def ponderhit(self) -> None:
        with self._state_lock:
            if self._ptr is None:
                return
            self._ponderhit_requested = True
            sb.ponderhit(self._ptr)

    def resend(self, ptr: Any) -> None:
        """Send again what was asked: a stop or ponderhit sent before C reset its
        flags would be lost, and sending again is idempotent."""
        stop_event, ponderhit_event = self._stop_event, self._ponderhit_event
        if self._stop_requested or (stop_event is not None and stop_event.is_set()):
            sb.stop(ptr)
        elif self._ponderhit_requested or (
                ponderhit_event is not None and ponderhit_event.is_set()):
            sb.ponderhit(ptr)


def run_search(ptr: Any, raw: sb.RawLimits, start_us: int, control: SearchControl,
               on_info: Callable[[sb.RawInfo], None] | None
               ) -> tuple[sb.RawResult, list[sb.RawInfo]]:
    """Search on `ptr` (inside `control.running`); `on_info` gets each line of
    each new iteration (the lines newer than the last delivered, best first),
    from the poller thread and once more at the end. Returns the result and
    its lines."""
    done = False
    lock = threading.Lock()  # poller actions vs. the end of the search
    seen = [sb.info_seq(ptr)]  # the newest report delivered
    room = [1]  # lines the poller last found: its buffer
    errors: list[BaseException] = []

    def deliver() -> None:
        if on_info is None or sb.info_seq(ptr) == seen[0]:
            return
        lines = sb.get_lines(ptr, room[0])
        room[0] = max(1, len(lines))
        fresh = [line for line in lines if line["seq"] > seen[0] and line["pv"]]
        if fresh:
            seen[0] = max(line["seq"] for line in fresh)
        for line in fresh:
            on_info(line)

    def poll() -> None:
        while True:
            time.sleep(POLL_S)
            with lock:
                if done:
                    return
                control.resend(ptr)
                try:
                    deliver()
                except BaseException as exc:  # re-raised in the caller's thread
                    errors.append(exc)
                    sb.stop(ptr)
                    return

    poller = threading.Thread(target=poll, name="pibot-search-poll", daemon=True)
    poller.start()
    try:
        result = sb.search(ptr, raw, start_us)
    finally:
        with lock:
            done = True
    if errors:
        raise errors[0]
    deliver()
    return result, sb.get_lines(ptr, room[0])
