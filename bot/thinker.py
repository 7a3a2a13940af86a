"""One game's engine: created per game, searches serialised, pondering.

All engine calls go through a private single-thread executor, so two
searches (or a search and set_position/close) can never overlap, even when
the asyncio task that started a search was cancelled: cancelling an awaiting
task does not stop a C search, only `engine.stop()` does.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
from typing import Any

from bot.config import EngineConfig

log = logging.getLogger(__name__)


class Thinker:
    def __init__(self, game_id: str, cfg: EngineConfig, initial_fen: str | None,
                 chess960: bool) -> None:
        self.game_id = game_id
        self.cfg = cfg
        self.initial_fen = initial_fen
        self.chess960 = chess960
        self.engine: Any = None
        self._pool = concurrent.futures.ThreadPoolExecutor(1, f"engine-{game_id}")
        self._job: concurrent.futures.Future[Any] | None = None
        self._ponder_moves: list[str] | None = None
        self.last: Any = None  # last SearchResult, for !eval

    def _create(self) -> Any:
        from bot.engine import Engine
        from bot.engine.exceptions import EngineMemoryError

        hash_mb = self.cfg.hash_mb
        while True:
            try:
                eng = Engine(hash_mb=hash_mb, threads=self.cfg.threads)
                break
            except EngineMemoryError:
                if hash_mb <= 1:
                    raise
                # A Pi under memory pressure: play with a smaller hash rather than not at all.
                log.warning("game %s: %d MiB hash not available, trying %d MiB",
                            self.game_id, hash_mb, hash_mb // 2)
                hash_mb //= 2
        eng.set_option(move_overhead_ms=self.cfg.move_overhead_ms)
        eng.new_game()
        return eng

    async def open(self) -> None:
        loop = asyncio.get_running_loop()
        self.engine = await loop.run_in_executor(self._pool, self._create)

    def _run(self, moves: list[str], limits: Any, overhead_ms: int | None = None) -> Any:
        if overhead_ms is not None:
            # Per search: the game measures its latency and raises this as needed.
            self.engine.set_option(move_overhead_ms=overhead_ms)
        self.engine.set_position(self.initial_fen, moves, self.chess960)
        return self.engine.search(limits)

    async def _idle(self) -> None:
        """Stop whatever search is running and wait for it to return."""
        job = self._job
        self._ponder_moves = None
        if job is None:
            return
        if not job.done():
            self.engine.stop()
        try:
            await asyncio.wrap_future(job)
        except Exception:  # noqa: BLE001 - a stopped search's outcome no longer matters
            pass
        self._job = None

    async def search(self, moves: list[str], limits: Any, overhead_ms: int | None = None) -> Any:
        await self._idle()
        job = self._pool.submit(self._run, list(moves), limits, overhead_ms)
        self._job = job
        res = await asyncio.shield(asyncio.wrap_future(job))
        self.last = res
        return res

    async def start_ponder(self, moves: list[str], limits: Any,
                           overhead_ms: int | None = None) -> None:
        await self._idle()
        self._job = self._pool.submit(self._run, list(moves), limits, overhead_ms)
        self._ponder_moves = list(moves)

    async def take_ponder(self, moves: list[str]) -> Any | None:
        """If we pondered exactly this position, turn it into the real search."""
        job = self._job
        if job is None or self._ponder_moves != list(moves):
            return None
        self._ponder_moves = None
        if not job.done():
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
            if self.engine is not None:
                loop = asyncio.get_running_loop()
                await loop.run_in_executor(self._pool, self.engine.close)
                self.engine = None
            self._pool.shutdown(wait=False)
