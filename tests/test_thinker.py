"""The game's Thinker (bot.play.thinker) around a real engine: a stop or ponderhit that
comes before the search has started must not be lost.  A lost stop keeps a game
task waiting for a search it no longer wants; a lost ponderhit leaves the ponder
search running for ever while our clock runs out."""

from __future__ import annotations

import asyncio
import time

import pytest
from test_service_helpers import bot_config, needs_engine

from bot.engine import SearchLimits
from bot.play.thinker import StartPosition, Thinker

pytestmark = needs_engine

MOVES = ["e2e4", "e7e5", "g1f3"]


def late_starting_thinker() -> Thinker:
    """The job sits in its thread for 0.3 s before the engine search begins: the
    window a loaded machine opens between submitting a search and starting it."""
    cfg = bot_config("http://127.0.0.1:9", engine={"hash_mb": 8, "threads": 1})

    def slow_threads() -> int:
        time.sleep(0.3)
        return 1

    return Thinker("g1", cfg.engine, cfg.sized, StartPosition(), threads_now=slow_threads)


@pytest.mark.parametrize("action", ["ponderhit", "stop"])
def test_early_ponderhit_or_stop_reaches_the_search(action: str) -> None:
    async def go() -> tuple[float, object]:
        th = late_starting_thinker()
        try:
            # Our clock: 2 s each, so a ponderhit search moves within a fraction of that.
            await th.start_ponder(MOVES, SearchLimits(wtime=2000, btime=2000, ponder=True))
            t0 = time.monotonic()
            if action == "ponderhit":
                res = await asyncio.wait_for(th.take_ponder(MOVES), 10)
            else:
                res = await asyncio.wait_for(th.stop(), 10)
            return time.monotonic() - t0, res
        finally:
            await asyncio.wait_for(th.close(), 10)

    took, res = asyncio.run(go())
    assert took < 5.0, took
    if action == "ponderhit":
        assert res is not None and res.bestmove, res  # type: ignore[attr-defined]
