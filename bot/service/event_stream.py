"""Keeping the account's one event stream open, and queueing what it says.

The stream thread parses each line into an event (bot.lichess.events); this
loop takes them off the queue and hands each to the service's dispatch.  lila
allows one event stream per account: opening one ends the previous one cleanly
(modules/api/src/main/EventStream.scala publishes PoisonPill to
`eventStreamFor:<user>`).  So our stream ending cleanly soon after it opened,
again and again, means another program is using this token: say so once and
back off for minutes instead of fighting over the stream.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any

from bot.config import LiveConfig
from bot.errors import UserError
from bot.lichess.client import Lichess, backoff_s
from bot.lichess.events import AccountEvent
from bot.lichess.streams import StreamClosed, StreamOpened, StreamStatus
from bot.lichess.token import CREATE_URL

log = logging.getLogger(__name__)

STREAM_CONFLICT_WINDOW_S = 30.0  # a clean close this soon after opening is suspicious...
STREAM_CONFLICTS = 3  # ...this many times in a row: another client holds the stream


class EventStream:
    def __init__(self, api: Lichess, live: LiveConfig, status: StreamStatus,
                 dispatch: Callable[[AccountEvent], Awaitable[None]], opened: Callable[[], None],
                 waiting: Callable[[str], None], reopening: Callable[[], None]) -> None:
        """`opened()` when a stream has opened; `waiting(why)` when one has closed and
        the loop waits; `reopening()` when that wait is over."""
        self.api, self.live, self.status = api, live, status
        self.dispatch, self.opened = dispatch, opened
        self.waiting, self.reopening = waiting, reopening

    async def run(self) -> None:
        """Keep one event stream open, re-opening it with backoff (a supervised task)."""
        failures = conflicts = 0
        warned = False
        while True:
            closed = await self._one()
            net = self.live.now.network
            if closed.status == 401:
                self.api.report("token", "event stream")
                # A revoked token: every retry would be refused too (stops the service).
                raise UserError("Lichess rejected the token (HTTP 401) on the event stream: it "
                                "was revoked or has expired; create a new one with the bot:play "
                                f"scope at {self.api.url}{CREATE_URL} and start pibot again")
            if closed.clean and closed.lived_s < STREAM_CONFLICT_WINDOW_S:
                conflicts += 1
            elif closed.status == 200 and closed.lived_s >= STREAM_CONFLICT_WINDOW_S:
                conflicts, warned = 0, False  # it lived: whatever it was is over
            if closed.status == 200 and closed.lived_s >= 60:
                failures = 0
            if conflicts >= STREAM_CONFLICTS:
                if not warned:
                    warned = True
                    log.warning("another program is using this token's event stream (Lichess "
                                "allows one per account, so each new one closes the other); "
                                "stop it, or pibot will only retry every %.0f s",
                                net.stream_conflict_backoff_s)
                delay = net.stream_conflict_backoff_s * random.uniform(0.8, 1.2)
            else:
                # >= 1 s even after a healthy stream: a server restart must not
                # bring every client back in the same instant.
                delay = backoff_s(failures, max(2.0, net.backoff_base_s),
                                  max(2.0, net.backoff_max_s))  # first: 1-2 s
                failures += 1
            log.info("event stream closed (%s); re-opening in %.1f s", closed.reason, delay)
            self.waiting(closed.reason)
            await asyncio.sleep(max(delay, closed.retry_at - time.monotonic()))
            self.reopening()

    async def _one(self) -> StreamClosed:
        """One stream, from opening to its end: each event goes to `dispatch`."""
        await self.api.wait_unpaused("event_stream")
        queue: asyncio.Queue[Any] = asyncio.Queue()
        stream = self.api.start_event_stream(queue)
        try:
            while True:
                item = await queue.get()
                if isinstance(item, StreamOpened):
                    self.status.opened += 1
                    self.status.opened_at = time.monotonic()
                    self.status.up = True
                    self.opened()
                elif isinstance(item, StreamClosed):
                    return item
                else:
                    await self.dispatch(item)
        finally:
            self.status.up = False
            stream.stop()
