"""The engine pool's tables: what a reloaded config may ask of them, and their
warm-up (engines created and cleared in the background, off any game's clock)."""

from __future__ import annotations

import concurrent.futures
import logging

from bot.config import Config
from bot.engine.pool import EnginePool
from bot.errors import UserError
from bot.host.heat import HeatMonitor
from bot.host.platform_info import check_hash_fits

log = logging.getLogger(__name__)


def check_tables_fit(new: Config, pool: EnginePool | None) -> None:
    """The start-up rule for a hand-set engine.hash_mb, for more table memory only
    (our own tables already count against what the machine has available)."""
    if new.sizing is not None and new.sizing.hash_auto:
        return  # auto is sized within the budget
    hash_mb, games = new.sized.hash_mb, new.challenge.concurrency
    if pool is not None and hash_mb * games <= pool.hash_mb * pool.size:
        return
    problem = check_hash_fits(hash_mb, games)
    if problem:
        raise UserError(problem)


def apply_engine_config(new: Config, pool: EnginePool | None, heat: HeatMonitor) -> None:
    """Slots, table size and threads follow the reloaded config; running games
    keep their engine untouched (a resized table is resized at its next clear)."""
    heat.reconfigure(new.sized.threads, new.engine.thermal_limit_c)
    if pool is None:
        return
    pool.threads = new.sized.threads  # new engines; searches take heat.threads_now
    slots, hash_mb = new.challenge.concurrency, new.sized.hash_mb
    if slots != pool.size or hash_mb != pool.hash_mb:
        log.info("engine tables: %d slot(s) of %d MiB (were %d of %d MiB)", slots, hash_mb,
                 pool.size, pool.hash_mb)
        pool.resize(slots, hash_mb)
        warm(pool)


def warm(pool: EnginePool) -> None:
    """Create and clear idle slots' engines in the background (errors are logged)."""

    def done(fut: concurrent.futures.Future[None]) -> None:
        if not fut.cancelled() and fut.exception() is not None:
            log.error("could not prepare an engine: %s (a game will try again)",
                      fut.exception())

    for fut in pool.warm():
        fut.add_done_callback(done)
