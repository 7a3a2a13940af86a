"""The watchdog: the loop that tells systemd the service is alive, and what it publishes.

Each tick pings the systemd watchdog (a hung loop is restarted by systemd),
reads the CPU's heat (fewer search threads over engine.thermal_limit_c) and
retries the PGNs the disk refused, both in a thread; then it rewrites the status
file for `pibot status` (status.py), whose one-line summary is the systemd
STATUS= line, feeds the status page's history and the owner's memory.

It runs from the first moment, while the service still waits for the network,
so it keeps what the service waits for (`waiting_for`, the STATUS= line until
ready) and `ready` (set once the event stream has opened).  The rooms built
later (the engine pool, the game supervisor, the challenge desk) it reads from
the service each tick (`Rooms`), None until they exist.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Protocol

from bot.challenges.arenas import Arenas
from bot.challenges.desk import ChallengeDesk
from bot.config import LiveConfig
from bot.engine.pool import EnginePool
from bot.host import sdnotify, status_file
from bot.host.status_history import boards
from bot.host.status_page import StatusPage
from bot.lichess.client import Lichess
from bot.service.memory import OwnerMemory
from bot.service.shared import Shared
from bot.service.status import Head, Listings, publish, state_of
from bot.service.supervisor import GameSupervisor

log = logging.getLogger(__name__)


class Rooms(Protocol):
    """The rooms the service builds as it starts (root.Service has them)."""

    @property
    def pool(self) -> EnginePool | None: ...  # before the login
    @property
    def supervisor(self) -> GameSupervisor | None: ...  # once the account is known
    @property
    def desk(self) -> ChallengeDesk | None: ...  # once the account is known


class Watchdog:
    def __init__(self, live: LiveConfig, api: Lichess, shared: Shared, memory: OwnerMemory,
                 page: StatusPage | None, arenas: Arenas, rooms: Rooms) -> None:
        self.live, self.api, self.shared, self.memory = live, api, shared, memory
        self.page, self.arenas, self.rooms = page, arenas, rooms
        self.status_writer: status_file.Writer | None = None  # created by run()
        self.summary = ""  # the last status line (sd_notify STATUS=)
        self.waiting_for = "connecting to Lichess"  # sd_notify STATUS until ready
        self.ready = asyncio.Event()  # set once the event stream is connected

    def waiting(self, why: str) -> None:
        self.waiting_for = why

    # -- the event stream (subscribed by the service) ----------------------------------
    def stream_opened(self) -> None:
        self.waiting_for = ""
        if not self.ready.is_set():
            self.ready.set()
            sdnotify.ready()
            log.info("event stream connected; ready")

    def stream_closed(self, why: str) -> None:
        self.waiting_for = f"event stream closed ({why}); re-opening"

    # -- the loop ------------------------------------------------------------------------
    async def run(self) -> None:
        """The supervised task: a tick every period, from the start to the exit."""
        interval = sdnotify.watchdog_interval_s()
        net = self.live.now.network
        # The status file and heat readings want seconds, not half of WatchdogSec=60.
        period = min(interval / 2, net.watchdog_s) if interval else net.watchdog_s
        if self.status_writer is None:
            self.status_writer = status_file.Writer(period)
        while True:
            sdnotify.watchdog_ping()
            await self._tick(self.status_writer)
            sdnotify.status(self.waiting_for or self.summary)
            await asyncio.sleep(period)

    async def _tick(self, writer: status_file.Writer) -> None:
        shared = self.shared
        # Sysfs reads and the tables' fill run in a thread: never stall the loop.
        await asyncio.to_thread(shared.heat.poll)
        if shared.saver.pending:
            await asyncio.to_thread(shared.saver.retry)
        sup, desk = self.rooms.supervisor, self.rooms.desk
        runners = list(sup.runners.values()) if sup else []
        head = Head(sup.me if sup else "", self.api.url,
                    state_of(self.waiting_for, shared.draining))
        rows = Listings(desk.queued() if desk else None, self.memory.status(),
                        self.arenas.listing())
        self.summary = await publish(writer, head, self.live.now, self.rooms.pool, shared,
                                     runners, rows)
        self.memory.tick(shared.heat, shared.tally, self.live.now.pgn_directory)
        if self.page is not None:
            self.page.history.tick(writer.last, boards(runners))

    def close(self) -> None:
        """No file left behind: `pibot status` says "not running" at once."""
        if self.status_writer is not None:
            self.status_writer.close()
