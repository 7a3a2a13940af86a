"""The bot service's composition root: it builds the rooms, wires them, and runs the loop.

Everything is one asyncio loop; blocking HTTP runs in threads.  Every long-lived
task is supervised (tasks.py).  Each room is handed what it needs when built:
the one live config (`LiveConfig`, replaced by a reload) and the one shared
state (shared.py: slots, tally, saver, recent games, heat, the event stream's
status, draining).  The watchdog (watchdog.py) pings systemd, reads the heat
and publishes the status from the first moment.  Once the account is known the
game supervisor (supervisor.py) and the challenge desk (bot/challenges) are
built and subscribed to the event stream (event_stream.py), which tells each
what the account's stream says.  The owner's commands come in on the control
socket (control.py).  Engines live in an EnginePool, one per concurrency slot,
warmed in the background (tables.py).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import signal
import time

from bot.challenges.arenas import Arenas
from bot.challenges.declines import Declines
from bot.challenges.desk import ChallengeDesk
from bot.config import Config, LiveConfig
from bot.engine.pool import EnginePool
from bot.host import sdnotify
from bot.host.heat import HeatMonitor
from bot.host.status_page import StatusPage
from bot.lichess.client import Lichess
from bot.lichess.events import Profile
from bot.lichess.token import Token
from bot.play.game_state import GameHooks
from bot.service import control_commands, reload, tables
from bot.service.event_stream import EventStream
from bot.service.login import check_bot, login
from bot.service.memory import OwnerMemory
from bot.service.shared import Shared
from bot.service.supervisor import GameKit, GameSupervisor
from bot.service.tasks import Tasks
from bot.service.watchdog import Watchdog
from bot.sources.chain import MoveSources

log = logging.getLogger(__name__)


class Service:
    def __init__(self, cfg: Config, token: Token | None, config_path: str | None = None,
                 hooks: GameHooks | None = None, handle_signals: bool = True) -> None:
        self.live = LiveConfig(cfg)  # the config in force, for every room (reload: replace)
        self.config_path, self.handle_signals = config_path, handle_signals
        # The read-only status page (status_page.listen): fed each tick and each move.
        self.page = StatusPage(cfg.status_page.listen) if cfg.status_page.listen else None
        self.memory = OwnerMemory(cfg, token,  # records database and alerts (memory.py)
                                  self.page.history.set_records if self.page else None)
        self.api = Lichess(cfg.url, token, cfg.network, self.memory.trouble)
        self.hooks = hooks or GameHooks()
        # The rooms, built once the account is known (run()).
        self.supervisor: GameSupervisor | None = None
        self.desk: ChallengeDesk | None = None
        if self.page is not None:
            self.hooks = self.page.history.hooks(
                self.hooks, lambda gid: self.supervisor.runners.get(gid)
                if self.supervisor is not None else None)
        self._stop = asyncio.Event()
        self._hard = False
        self.tasks = Tasks(self.live, self._stop)
        self.events = EventStream(self.api, self.live)  # the rooms subscribe once built
        self.shared = Shared(HeatMonitor(cfg.sized.threads, cfg.engine.thermal_limit_c),
                             self.events.status)
        self.pool: EnginePool | None = None  # created by run()
        self._warmed = False  # the pool's first warm-up has been started
        self.arenas = Arenas(self.api, self.live, self.shared, self._arena_game_unheard)
        self.sources: MoveSources | None = None  # opened in run(): a bad book stops the start
        self._token = token
        self.watchdog = Watchdog(self.live, self.api, self.shared, self.memory, self.page,
                                 self.arenas, self)
        self.events.subscribers.opened.append(self.watchdog.stream_opened)
        self.events.subscribers.closed.append(self.watchdog.stream_closed)

    @property
    def hard_exit(self) -> bool:
        """True once a second stop request asked to exit without waiting."""
        return self._hard

    @property
    def ready(self) -> asyncio.Event:
        """Set once the event stream is connected."""
        return self.watchdog.ready

    # -- public control (signals, tests, demo) --
    def request_stop(self) -> None:
        """First call: drain (finish games, decline new ones). Second: exit now."""
        if self.shared.draining:
            log.warning("second stop request: exiting now")
            self._hard = True
            self._stop.set()
            return
        self.shared.draining = True
        sdnotify.stopping()
        self.arenas.poke()  # withdraw at once: lila would pair us again
        log.info("stop requested: declining new challenges, finishing %d game(s) "
                 "(grace %.0f s)", len(self.supervisor.games) if self.supervisor else 0,
                 self.live.now.shutdown_grace_s)
        self.tasks.spawn(self._drain(), "drain")

    def reload(self) -> None:
        if self.config_path is None:
            log.warning("SIGHUP: no config file to reload (running on defaults)")
            return
        sdnotify.reloading()
        try:
            new = reload.read(self.config_path, self.pool)
            if new is not None:
                reload.switch(self.live.now, new, self.config_path, self.pool,
                              self.shared.heat)
                self.live.replace(new)
                self.arenas.poke()  # an entry gone from `tournaments:`: withdraw
                self.memory.reloaded(self.config_path)
        finally:
            sdnotify.ready()  # systemd waits for READY=1 after RELOADING=1, always

    def _warm(self) -> None:
        """The start-up warm-up of the engine tables, started once."""
        if not self._warmed and self.pool is not None:
            self._warmed = True
            tables.warm(self.pool)

    # -- main -----------------------------------------------------------------
    async def run(self) -> int:
        try:
            async with self.memory.kept():  # a stop event and the writer closed on any exit
                return await self._run()
        finally:
            # Also when start-up fails (a rejected token): no stale status file left behind.
            self.watchdog.close()
            if self.page is not None:
                self.page.stop()

    async def _run(self) -> int:
        # Books and tables are opened once; a missing/corrupt file is one clear error
        # (UserError) before anything connects, like any other config error.
        self.sources = MoveSources.open(self.live.now, token=self._token)
        for line in self.sources.describe():
            log.info("move sources: %s", line)
        if self.page is not None:
            self.page.start()  # a taken port is one clear error, before anything connects
        loop = asyncio.get_running_loop()
        # Each game holds threads (stream reader, HTTP calls); the default pool
        # (cores + 4 = 6 on a Pi) would starve under concurrency.
        loop.set_default_executor(concurrent.futures.ThreadPoolExecutor(32, "pibot-io"))
        if self.handle_signals:
            loop.add_signal_handler(signal.SIGTERM, self.request_stop)
            loop.add_signal_handler(signal.SIGINT, self.request_stop)
            loop.add_signal_handler(signal.SIGHUP, self.reload)
        cfg = self.live.now
        self.pool = EnginePool(cfg.challenge.concurrency, cfg.sized.hash_mb, cfg.sized.threads,
                               move_overhead_ms=cfg.engine.move_overhead_ms,
                               eval_name=cfg.engine.eval)
        # What a restart keeps.
        await self.memory.start(self.shared.recent_games, self.shared.tally, self.api)
        self.tasks.supervise("watchdog", self.watchdog.run)  # fed while we wait for the network
        logged_in = asyncio.ensure_future(login(self.api, self._token, self.live,
                                                self._network_wait))
        stopped = asyncio.ensure_future(self._stop.wait())
        await asyncio.wait({logged_in, stopped}, return_when=asyncio.FIRST_COMPLETED)
        stopped.cancel()
        if not logged_in.done():  # SIGTERM while still waiting for the network
            logged_in.cancel()
            return await self._shutdown()
        account = logged_in.result()
        me = check_bot(account)
        log.info("logged in as %s on %s", me, self.api.url)
        # Tables are created and cleared while the event stream opens, not on the first
        # game's clock; not before the account check, or a refused start would first
        # fill (and the exit wait for) a multi-GB table.
        self._warm()
        self.watchdog.waiting("opening the Lichess event stream")
        self._build_rooms(me, account)
        await self._stop.wait()
        code = await self._shutdown()
        if self.tasks.fatal is not None:
            raise self.tasks.fatal
        return code

    def _build_rooms(self, me: str, account: Profile) -> None:
        """The game supervisor and the challenge desk, subscribed to the event stream;
        `account` is ours as the login read it (our ratings, until the desk re-reads them)."""
        kit = GameKit(self.hooks, self.pool, self.sources, self.memory.writer,
                      self.arenas.name_of)
        sup = self.supervisor = GameSupervisor(self.api, me, self.live, self.shared, kit)
        declines = Declines(self.memory.declines, self.memory.declined)  # kept on disk
        desk = self.desk = ChallengeDesk(self.api, me, self.live, self.shared, self.tasks,
                                         account, declines)
        on = self.events.subscribers
        on.challenge.append(desk.challenge)
        on.challenge_canceled.append(desk.canceled)
        on.challenge_declined.append(desk.declined)
        # A started game to the desk first: it may have sent its challenge.
        on.game_start.extend((desk.game_started, sup.game_started))
        on.game_finish.append(sup.game_finished)
        on.reopening.append(sup.check_in_soon)  # a gameStart missed while it was down
        # Held closed past a first move's grace: no arena pairings we cannot hear.
        on.held.append(self.arenas.stream_held)
        on.opened.append(self.arenas.stream_opened)
        self.tasks.supervise("events", self.events.run)
        desk.start()
        control = control_commands.server(desk, desk.queued, self.arenas)
        for name, factory in {"checkin": sup.checkins, "arenas": self.arenas.run,
                              "control": control.run}.items():
            self.tasks.supervise(name, factory)
        self.tasks.spawn(sup.resume_playing(), "resume")

    def _arena_game_unheard(self, gid: str, tournament_id: str) -> None:
        """The arena room found a pairing the event stream missed (the supervisor is
        built before the event stream runs, so it is there whenever that can be)."""
        if self.supervisor is not None:
            self.supervisor.arena_game_unheard(gid, tournament_id)

    def _network_wait(self, why: str, attempt: int) -> None:
        self.watchdog.waiting(why)
        sdnotify.status(why)
        if attempt == 0:
            self._warm()  # the network may be down for minutes at boot: use the wait
            # Up, waiting for the network: without READY systemd would fail the start
            # after TimeoutStartSec (90 s), and give up after StartLimitBurst restarts.
            sdnotify.ready()

    async def _shutdown(self) -> int:
        if not self._hard:
            await self.arenas.leave_all()
        sup = self.supervisor
        left = sup.unfinished() if sup is not None else []
        if left:
            log.warning("exiting with %d game(s) unfinished (not resigned): %s",
                        len(left), ", ".join(left))
        await self.tasks.cancel_all(sup.tasks() if sup is not None else [])
        self.watchdog.close()  # no file: `pibot status` says "not running" at once
        if self.pool is not None and not self._hard and (sup is None or sup.all_stopped()):
            # Every engine is back (a game still holding one may be mid-search: then
            # the process exit frees the tables instead).
            await asyncio.to_thread(self.pool.close)
        if self.sources is not None:
            self.sources.close()
        saver = self.shared.saver
        if saver.pending:
            await asyncio.to_thread(saver.give_up)
        log.info("pibot stopped")
        return 0

    async def _drain(self) -> None:
        deadline = time.monotonic() + self.live.now.shutdown_grace_s
        sup = self.supervisor
        while sup is not None and sup.realtime_games() and time.monotonic() < deadline:
            await asyncio.wait(sup.realtime_games(),
                               timeout=max(0.0, deadline - time.monotonic()))
        self._stop.set()
