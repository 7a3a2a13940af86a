"""The service's long-lived tasks: each one spawned here is kept until it ends,
and a supervised one is restarted with backoff whenever it returns or crashes."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from bot.config import LiveConfig
from bot.errors import UserError
from bot.lichess.client import backoff_s

log = logging.getLogger(__name__)

RAN_FINE_S = 60.0  # a task that ran this long before it ended starts its backoff afresh


class Tasks:
    def __init__(self, live: LiveConfig, stop: asyncio.Event) -> None:
        """A supervised task that raises a UserError, which retrying cannot help (e.g.
        a revoked token), is kept in `fatal` and sets `stop`: the service stops with
        its one line."""
        self.live, self.stop = live, stop
        self.fatal: UserError | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(coro)
        task.set_name(name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def supervise(self, name: str, factory: Callable[[], Awaitable[None]]) -> None:
        self.spawn(self._loop(name, factory), name)

    async def cancel_all(self, also: list[asyncio.Task[Any]]) -> None:
        """Cancel every task (ours and `also`) and give them a moment to take it."""
        everything = self.all() + also
        for t in everything:
            t.cancel()
        # Cancelled tasks still have to run to take it (game cleanup stops engines and
        # outboxes): wait for them, or a loop closed right after run() destroys them
        # mid-cancel.  A moment only: never hang the exit.
        pending = [t for t in everything if not t.done()]
        if pending:
            await asyncio.wait(pending, timeout=2.0)

    def all(self) -> list[asyncio.Task[Any]]:
        return list(self._tasks)

    async def _loop(self, name: str, factory: Callable[[], Awaitable[None]]) -> None:
        attempt = 0
        while True:
            started = time.monotonic()
            try:
                await factory()
                log.warning("task %s returned; restarting", name)
            except asyncio.CancelledError:
                raise
            except UserError as exc:
                self.fatal = exc
                self.stop.set()
                return
            except Exception:
                log.exception("task %s crashed; restarting", name)
            if time.monotonic() - started > RAN_FINE_S:
                attempt = 0  # it ran fine for a while: start backoff afresh
            net = self.live.now.network
            await asyncio.sleep(backoff_s(attempt, net.backoff_base_s, net.backoff_max_s))
            attempt += 1
