"""Warm engines: one per concurrency slot, reused across games.

Creating an engine maps its table lazily and `new_game()` then zeroes it and
faults every page in -- with a table of gigabytes that takes seconds, and
before the pool it happened at each game start, on the game's clock.  Here
each slot keeps its engine; `release()` hands it to a background thread that
stops any search and clears the table, so by the time the slot's next game
starts, `acquire()` finds it ready and returns at once.

- `acquire(slot)` returns that slot's engine with a clean table (creating and
  clearing it the first time; waiting for a clear still running only when a
  game follows its predecessor faster than the clear takes).  With
  `hurry=True` (a game about to search) a clear still running -- the start-up
  warm-up of a multi-GB table -- is cut short instead: the table is empty at
  once and the pages not yet zeroed are zero-filled by the kernel as the
  searches touch them.
- `release(engine)` returns at once; the clear runs in the background and puts
  the engine back to full strength and MultiPV 1: a game that wants a level sets
  it on the engine it acquires (`engine.strength.set(elo)`).
- Each slot owns one engine and one table: two slots never share or swap
  tables, and a slot's engine is lent to one game at a time.
- `resize(size, hash_mb)` follows a reloaded config (SIGHUP): new slots are
  warmed by `warm()`, surplus slots free their table (at once when idle, when
  their game releases the engine otherwise), and a slot whose table has the
  old size is resized as part of its next background clear -- never during a game.

Thread-safe: call from the event loop (through an executor, since `acquire`
may block) or from any thread.
"""

from __future__ import annotations

import concurrent.futures
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from bot.engine import Engine
from bot.engine.closing import Closing
from bot.engine.exceptions import EngineError, EngineMemoryError
from bot.host.status_file import SlotStatus

log = logging.getLogger(__name__)
T = TypeVar("T")


def fit_table(make: Callable[[int], T], hash_mb: int, what: str) -> tuple[T, int]:
    """make(hash_mb), halving the table while memory is short: a Pi under memory
    pressure plays with a smaller table rather than not at all."""
    while True:
        try:
            return make(hash_mb), hash_mb
        except EngineMemoryError:
            if hash_mb <= 1:
                raise
            log.warning("%s: %d MiB hash not available, trying %d MiB", what, hash_mb,
                        hash_mb // 2)
            hash_mb //= 2

_STOP_WAIT_S = 10.0  # a stopped search returns within milliseconds; this is a backstop


class PoolError(EngineError):
    """Misuse of the pool: a busy or unknown slot, a foreign engine, a closed pool."""


@dataclass
class SlotInfo:
    """A slot as `pibot status` shows it."""

    slot: int
    busy: bool         # lent to a game
    clearing: bool     # background clear in progress
    hash_mb: int | None  # None until the slot's engine exists
    threads: int | None
    hashfull: int | None  # per mille; None until created or while busy/clearing
    last_clear_s: float | None  # how long the last clear took


class _Slot:
    def __init__(self, index: int) -> None:
        self.index = index
        self.engine: Engine | None = None
        self.hash_mb: int | None = None
        self.busy = False
        self.clean = False  # table cleared since its last game
        self.clear: concurrent.futures.Future[None] | None = None
        self.executor = concurrent.futures.ThreadPoolExecutor(1, f"pibot-pool-{index}")
        self.last_clear_s: float | None = None
        self.retired = False  # removed by resize(): close the engine on release
        self.hurry = False  # the running clear is to be cut short (acquire(hurry=True), close)


class EnginePool(Closing):
    def __init__(self, size: int, hash_mb: int, threads: int, *,
                 move_overhead_ms: int = 100, eval_name: str = "hce") -> None:
        if size < 1:
            raise PoolError(f"an engine pool needs at least one slot, got {size}")
        self.hash_mb = hash_mb
        self.threads = threads
        self.move_overhead_ms = move_overhead_ms
        self.eval_name = eval_name
        self._slots = [_Slot(i) for i in range(size)]
        self._next_index = size
        self._retired: list[_Slot] = []  # removed by resize() while lent to a game
        self._owner: dict[int, _Slot] = {}  # id(engine) -> its slot
        self._lock = threading.Lock()
        self._closed = False

    @property
    def size(self) -> int:
        return len(self._slots)

    # -- engine life ---------------------------------------------------------
    def _create(self, slot: _Slot) -> Engine:
        """The slot's engine; on a Pi short of memory, halve the table until it fits."""
        eng, hash_mb = fit_table(lambda mb: Engine(hash_mb=mb, threads=self.threads),
                                 self.hash_mb, f"engine slot {slot.index}")
        eng.set_option(move_overhead_ms=self.move_overhead_ms)
        eng.set_eval(self.eval_name)
        slot.hash_mb = hash_mb
        return eng

    def _resize_table(self, slot: _Slot, eng: Engine) -> None:
        """The pool's table size changed (resize()): follow it, halving if memory is short."""
        _, hash_mb = fit_table(lambda mb: eng.set_option(hash_mb=mb), self.hash_mb,
                               f"engine slot {slot.index}")
        log.info("engine slot %d: table resized from %s to %d MiB", slot.index, slot.hash_mb,
                 hash_mb)
        slot.hash_mb = hash_mb

    def _clear(self, slot: _Slot, eng: Engine) -> None:
        """Runs on the slot's own thread: stop whatever the last game left running, clear."""
        t0 = time.monotonic()
        eng.stop()
        deadline = t0 + _STOP_WAIT_S
        while eng.searching and time.monotonic() < deadline:
            eng.stop()
            time.sleep(0.005)
        if slot.hash_mb != self.hash_mb:
            self._resize_table(slot, eng)
        eng.strength.set(None)  # the last game's level is not the next one's
        eng.set_option(multipv=1)
        eng.new_game()
        slot.clean = True
        slot.last_clear_s = time.monotonic() - t0
        log.debug("engine slot %d: table cleared in %.3f s", slot.index, slot.last_clear_s)

    def _prepare(self, slot: _Slot) -> None:
        if slot.engine is None:
            eng = self._create(slot)
            with self._lock:
                slot.engine = eng
                self._owner[id(eng)] = slot
                if slot.hurry:  # acquire() found no engine to hurry yet
                    eng.hurry_clear(True)
        self._clear(slot, slot.engine)

    def _schedule(self, slot: _Slot, job: Callable[..., None], *args: Any
                  ) -> concurrent.futures.Future[None]:
        """Queue a create/clear on the slot's thread, at full length (caller holds the lock)."""
        slot.hurry = False
        if slot.engine is not None:
            slot.engine.hurry_clear(False)
        slot.clear = slot.executor.submit(job, slot, *args)
        return slot.clear

    def warm(self) -> list[concurrent.futures.Future[None]]:
        """Create and clear every idle slot's engine in the background (e.g. at start-up)."""
        futures = []
        with self._lock:
            self._check_open()
            for slot in self._slots:
                if slot.engine is None and not slot.busy and slot.clear is None:
                    futures.append(self._schedule(slot, self._prepare))
        return futures

    # -- lending -----------------------------------------------------------------
    def _check_open(self) -> None:
        if self._closed:
            raise PoolError("the engine pool is closed")

    def _pick(self, slot: int | None) -> _Slot:
        if slot is not None:
            if not 0 <= slot < len(self._slots):
                raise PoolError(f"no engine slot {slot}: slots are 0..{len(self._slots) - 1}")
            chosen = self._slots[slot]
            if chosen.busy:
                raise PoolError(f"engine slot {slot} is already lent to a game")
            return chosen
        free = [s for s in self._slots if not s.busy]
        if not free:
            raise PoolError(f"all {len(self._slots)} engine slots are in use")
        # Prefer a slot whose table is ready, then one that has an engine at all.
        ready = [s for s in free if s.engine is not None and (s.clear is None or s.clear.done())]
        return (ready or [s for s in free if s.engine is not None] or free)[0]

    def acquire(self, slot: int | None = None, timeout: float | None = None,
                hurry: bool = False) -> Engine:
        """The engine of `slot` (or of any free slot), with a clean table.

        Blocks only while that slot's engine is being created or cleared;
        with `hurry`, a clear is cut short (milliseconds) rather than waited for.
        """
        with self._lock:
            self._check_open()
            chosen = self._pick(slot)
            chosen.busy = True
            if chosen.clear is None and not chosen.clean:
                # First use, or the last clear failed: create and/or clear now.
                self._schedule(chosen, self._prepare)
            pending = chosen.clear
            if hurry and pending is not None and not pending.done():
                chosen.hurry = True
                if chosen.engine is not None:  # else _prepare passes it on
                    chosen.engine.hurry_clear(True)
        try:
            if pending is not None:
                pending.result(timeout)
        except BaseException:
            with self._lock:
                chosen.busy = False
                if pending is not None and pending.done():
                    chosen.clear = None  # a failed clear is retried by the next acquire
            raise
        with self._lock:
            chosen.clear = None
            chosen.clean = False  # from now on the game writes to it
            assert chosen.engine is not None
            return chosen.engine

    def release(self, engine: Engine) -> concurrent.futures.Future[None]:
        """Take the engine back; its table is cleared in the background.

        Returns the clear's future (done when the slot is ready again).
        """
        with self._lock:
            slot = self._owner.get(id(engine))
            if slot is None or slot.engine is not engine:
                raise PoolError("this engine does not belong to the pool")
            if not slot.busy:
                raise PoolError(f"engine slot {slot.index} was released twice")
            slot.busy = False
            slot.clean = False
            if slot.retired:
                # resize() removed this slot during its game: free the table now.
                self._retired.remove(slot)
                del self._owner[id(engine)]
                return self._retire(slot)
            if self._closed:
                done: concurrent.futures.Future[None] = concurrent.futures.Future()
                done.set_result(None)
                return done
            return self._schedule(slot, self._clear, engine)

    @staticmethod
    def _retire(slot: _Slot) -> concurrent.futures.Future[None]:
        """Close the slot's engine on its own thread (after any clear queued there)."""
        def close() -> None:
            if slot.engine is not None:
                slot.engine.stop()
                slot.engine.close()
                slot.engine = None
        fut = slot.executor.submit(close)
        slot.executor.shutdown(wait=False)
        return fut

    def resize(self, size: int, hash_mb: int | None = None) -> None:
        """Follow a reloaded config: `size` slots of `hash_mb` MiB tables.

        Games in progress keep their engine and table untouched.  Call `warm()`
        afterwards to prepare new slots in the background.
        """
        if size < 1:
            raise PoolError(f"an engine pool needs at least one slot, got {size}")
        with self._lock:
            self._check_open()
            if hash_mb is not None and hash_mb != self.hash_mb:
                self.hash_mb = hash_mb
                for s in self._slots:
                    if s.engine is not None and not s.busy:
                        # Resized with the clear, on the slot's thread; acquire() waits for it.
                        s.clean = False
                        self._schedule(s, self._clear, s.engine)
            while len(self._slots) < size:
                self._slots.append(_Slot(self._next_index))
                self._next_index += 1
            while len(self._slots) > size:
                # Give up idle slots first (those with no engine before those with one).
                idle = [s for s in self._slots if not s.busy]
                victim = (sorted(idle, key=lambda s: s.engine is not None)[0] if idle
                          else self._slots[-1])
                self._slots.remove(victim)
                victim.retired = True
                if victim.busy:
                    self._retired.append(victim)
                else:
                    if victim.engine is not None:
                        self._owner.pop(id(victim.engine), None)
                    self._retire(victim)

    def slot_of(self, engine: Engine) -> int:
        with self._lock:
            slot = self._owner.get(id(engine))
            if slot is None:
                raise PoolError("this engine does not belong to the pool")
            return slot.index

    def info(self) -> list[SlotInfo]:
        out = []
        with self._lock:
            slots = list(self._slots)
            for s in slots:
                clearing = s.clear is not None and not s.clear.done()
                eng = s.engine
                out.append(SlotInfo(
                    slot=s.index, busy=s.busy, clearing=clearing, hash_mb=s.hash_mb,
                    threads=self.threads if eng is not None else None,
                    hashfull=None, last_clear_s=s.last_clear_s))
        # hashfull reads the table; harmless during a search, but not worth a
        # number while a clear rewrites it.
        for item, s in zip(out, slots, strict=True):
            if s.engine is not None and not item.clearing:
                try:
                    item.hashfull = s.engine.hashfull()
                except EngineError:
                    item.hashfull = None
        return out

    def slot_status(self) -> list[SlotStatus]:
        """The slots as the status file records them."""
        return [SlotStatus(slot=i.slot, busy=i.busy, clearing=i.clearing, hash_mb=i.hash_mb,
                           hashfull=i.hashfull) for i in self.info()]

    def close(self) -> None:
        """Stop searches, cut clears short and wait for them, free every table."""
        with self._lock:
            self._closed = True
            slots = list(self._slots) + list(self._retired)
            self._retired.clear()
            for s in slots:
                # A warm-up still running is moot: the exit need not wait for gigabytes.
                s.hurry = True
                if s.engine is not None:
                    s.engine.hurry_clear(True)
        for s in slots:
            if s.engine is not None:
                s.engine.stop()
            # A clear queued behind another (a reload right after start-up) is
            # moot now: drop it rather than wipe a multi-GB table twice on the way out.
            s.executor.shutdown(wait=True, cancel_futures=True)
            if s.engine is not None:
                s.engine.close()
