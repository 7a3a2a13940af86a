"""One game's engine: borrowed from the pool, searches serialised, pondering.

The engine comes from the service's EnginePool at the game's first search, not
at gameFull: book, tablebase and online moves never wait for an engine.  It is
a warm engine whose table was cleared in the background after its last game;
if that clear (or the start-up warm-up) is still running, it is hurried
(`acquire(hurry=True)`), so the search starts within milliseconds.  The engine
goes back at the end (`release`: cleared in the background again).  Only when
the pool has no free slot (more games than `challenge.concurrency`, e.g. games
resumed after a restart) or there is no pool does the game create an engine of
its own, closed at its end.  The game's level goes to the engine when the game
takes it, before its first search.

All engine calls go through a private single-thread executor, so two
searches (or a search and set_position/close) can never overlap, even when
the asyncio task that started a search was cancelled: cancelling an awaiting
task does not stop a C search, only `engine.stop()` does.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bot.config import EngineConfig
from bot.engine.pool import EnginePool, PoolError
from bot.host.machine import EngineSizing

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class StartPosition:
    """Where a game's searches start from."""

    fen: str | None = None  # None: the variant's start position
    chess960: bool = False
    variant: str = "chess"  # the engine's UCI_Variant name (bot/variants.py)


class Thinker:
    def __init__(self, game_id: str, cfg: EngineConfig, sizing: EngineSizing,
                 start: StartPosition, pool: EnginePool | None = None,
                 threads_now: Callable[[], int] | None = None,
                 strength: int | None = None) -> None:
        self.game_id = game_id
        self.cfg = cfg
        self.sizing = sizing  # engine.hash_mb and engine.threads as numbers
        self.start = start
        # The game's level (bot/play/terms.py): an Elo, or None for full strength, set
        # on the engine once, when the game takes it.
        self.strength = strength
        self.engine: Any = None
        self.pooled = False  # the engine is the pool's (released, not closed, at the end)
        self.slot: int | None = None  # the pool slot, for the status file
        self._engine_pool = pool
        # Threads for the next search (the heat monitor lowers it on a hot Pi).
        self._threads_now = threads_now or (lambda: sizing.threads)
        self._threads: int | None = None  # what the engine was last set to by this game
        self._exec = concurrent.futures.ThreadPoolExecutor(1, f"engine-{game_id}")
        self._job: concurrent.futures.Future[Any] | None = None
        # The job's stop and ponderhit, as events the search picks up even when they
        # are set before it has started (engine.stop() alone would be lost then, and
        # a lost ponderhit leaves a ponder search running for ever).
        self._stop_ev = threading.Event()
        self._hit_ev = threading.Event()
        self._ponder_moves: list[str] | None = None
        self.last: Any = None  # last SearchResult, for !eval

    def _create(self) -> Any:
        from bot.engine import Engine
        from bot.engine.pool import fit_table

        # No new_game(): a new table is empty already, and faulting it all in
        # would come out of this search's time; its pages fault in as touched.
        eng, _ = fit_table(lambda mb: Engine(hash_mb=mb, threads=self.sizing.threads),
                           self.sizing.hash_mb, f"game {self.game_id}")
        eng.set_option(move_overhead_ms=self.cfg.move_overhead_ms)
        return eng

    def _borrow(self) -> Any:
        pool = self._engine_pool
        if pool is not None:
            try:
                eng = pool.acquire(hurry=True)
            except PoolError as exc:
                # More games than slots: play with an engine of our own rather than not at all.
                log.warning("game %s: %s; creating an extra engine for this game (its table "
                            "faults in on this game's clock)", self.game_id, exc)
            else:
                self.pooled = True
                self.slot = pool.slot_of(eng)
                log.debug("game %s: engine slot %d", self.game_id, self.slot)
                return eng
        return self._create()

    def _run(self, moves: list[str], limits: Any, overhead_ms: int | None,
             stop: threading.Event, hit: threading.Event) -> Any:
        if self.engine is None:
            # First search: borrow here, on the engine thread (acquire may block for
            # a moment); a search cancelled meanwhile still leaves it for close().
            self.engine = self._borrow()
            # The game's level, set once when it takes its engine: a pooled engine is
            # handed back at full strength (EnginePool), and None keeps it there.
            self.engine.strength.set(self.strength)
        threads = max(1, self._threads_now())
        if threads != self._threads:
            # First search on this (possibly reused) engine, or the thermal limit changed.
            self.engine.set_option(threads=threads)
            self._threads = threads
        if overhead_ms is not None:
            # Per search: the game measures its latency and raises this as needed.
            self.engine.set_option(move_overhead_ms=overhead_ms)
        # The variant with every position: a pooled engine may have played another
        # variant, or standard chess, in its last game.
        start = self.start
        self.engine.set_position(start.fen, moves, start.chess960, variant=start.variant)
        return self.engine.search(limits, stop_event=stop, ponderhit_event=hit)

    def _submit(self, moves: list[str], limits: Any, overhead_ms: int | None
                ) -> concurrent.futures.Future[Any]:
        self._stop_ev, self._hit_ev = threading.Event(), threading.Event()
        self._job = self._exec.submit(self._run, list(moves), limits, overhead_ms,
                                      self._stop_ev, self._hit_ev)
        return self._job

    async def _idle(self) -> None:
        """Stop whatever search is running and wait for it to return."""
        job = self._job
        self._ponder_moves = None
        if job is None:
            return
        self._stop_ev.set()
        if not job.done() and self.engine is not None:  # else the search sees _stop_ev
            self.engine.stop()
        try:
            await asyncio.wrap_future(job)
        except Exception:  # noqa: BLE001 - a stopped search's outcome no longer matters
            pass
        self._job = None

    async def search(self, moves: list[str], limits: Any, overhead_ms: int | None = None) -> Any:
        await self._idle()
        job = self._submit(moves, limits, overhead_ms)
        res = await asyncio.shield(asyncio.wrap_future(job))
        self.last = res
        return res

    async def start_ponder(self, moves: list[str], limits: Any,
                           overhead_ms: int | None = None) -> None:
        await self._idle()
        self._submit(moves, limits, overhead_ms)
        self._ponder_moves = list(moves)

    async def take_ponder(self, moves: list[str]) -> Any | None:
        """If we pondered exactly this position, turn it into the real search."""
        job = self._job
        if job is None or self._ponder_moves != list(moves):
            return None
        log.debug("game %s: ponderhit after %s", self.game_id, moves[-1] if moves else "-")
        self._ponder_moves = None
        self._hit_ev.set()
        if not job.done() and self.engine is not None:  # else the search sees _hit_ev
            self.engine.ponderhit()
        try:
            res = await asyncio.shield(asyncio.wrap_future(job))
        except Exception as exc:  # noqa: BLE001
            log.warning("game %s: ponder search failed (%s); searching afresh",
                        self.game_id, exc)
            return None
        self.last = res
        return res

    async def stop(self) -> None:
        await self._idle()

    async def close(self) -> None:
        try:
            await self._idle()
        finally:
            eng, self.engine = self.engine, None
            if eng is not None:
                if self.pooled and self._engine_pool is not None:
                    # Returns at once; the pool stops and clears it in the background.
                    self._engine_pool.release(eng)
                else:
                    loop = asyncio.get_running_loop()
                    await loop.run_in_executor(self._exec, eng.close)
            self._exec.shutdown(wait=False)
