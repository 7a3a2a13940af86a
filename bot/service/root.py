"""The bot service's composition root: it builds the rooms and runs the loop.

Everything is one asyncio loop; blocking HTTP runs in threads.  Every long-lived
task is supervised (tasks.py) and the loop pings the systemd watchdog, so a hung
loop is restarted by systemd.  Each watchdog tick also reads the CPU's heat
(fewer search threads over engine.thermal_limit_c) and rewrites the status file
for `pibot status`, whose one-line summary is the systemd STATUS= line.

The event stream's events go to the challenge desk (bot/challenges) and the game
supervisor (supervisor.py), built with the arena room (challenges/arenas.py) once
the account is known; the owner's commands come in on the control socket
(control.py).  Engines live in an EnginePool, one per concurrency slot, warmed
in the background (tables.py).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import signal
import time

from bot.challenges.arenas import Arenas
from bot.challenges.desk import ChallengeDesk
from bot.challenges.slots import Slots
from bot.config import Config, LiveConfig
from bot.engine.pool import EnginePool
from bot.errors import UserError
from bot.host import sdnotify, status_file
from bot.host.heat import HeatMonitor
from bot.host.status_history import boards
from bot.host.status_page import StatusPage
from bot.lichess import events
from bot.lichess.client import DAILY_BOT_GAMES, Lichess
from bot.lichess.streams import StreamStatus
from bot.lichess.token import Token
from bot.play import records
from bot.play.farming import RecentGames
from bot.play.game_state import GameHooks
from bot.service import control_commands, reload, status, tables
from bot.service.event_stream import EventStream
from bot.service.login import check_bot, login
from bot.service.memory import OwnerMemory
from bot.service.supervisor import GameSupervisor
from bot.service.tasks import Tasks
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
        self.me = ""
        # The rooms, built once the account is known (run()).
        self.supervisor: GameSupervisor | None = None
        self.desk: ChallengeDesk | None = None
        if self.page is not None:
            self.hooks = self.page.history.hooks(
                self.hooks, lambda gid: self.supervisor.runners.get(gid)
                if self.supervisor is not None else None)
        self.draining = False
        self.ready = asyncio.Event()  # set once the event stream is connected
        self._stop = asyncio.Event()
        self._hard = False
        self.tasks = Tasks(self.live, self._fatal_error)
        self.waiting_for = "connecting to Lichess"  # sd_notify STATUS until ready
        self.stream = StreamStatus()
        self.pool: EnginePool | None = None  # created by run()
        self._warmed = False  # the pool's first warm-up has been started
        self.heat = HeatMonitor(cfg.sized.threads, cfg.engine.thermal_limit_c)
        self.tally = status_file.DailyTally(bot_limit=DAILY_BOT_GAMES)
        self.status_writer: status_file.Writer | None = None  # created by the watchdog
        self.summary = ""  # the last status line (sd_notify STATUS=)
        self.slots = Slots()  # real-time games; correspondence games have slots of their own
        self.corr_slots = Slots()
        self.arenas = Arenas(self.api, self.live, self.slots, lambda: self.draining)
        self.sources: MoveSources | None = None  # opened in run(): a bad book stops the start
        self.saver = records.Saver()  # PGNs the disk refused wait here, retried each tick
        self._token = token
        self._fatal: UserError | None = None  # why a supervised task stopped the service
        self.recent_games = RecentGames()  # openings not to repeat (bot/play/farming.py)

    @property
    def hard_exit(self) -> bool:
        """True once a second stop request asked to exit without waiting."""
        return self._hard

    # -- public control (signals, tests, demo) --
    def request_stop(self) -> None:
        """First call: drain (finish games, decline new ones). Second: exit now."""
        if self.draining:
            log.warning("second stop request: exiting now")
            self._hard = True
            self._stop.set()
            return
        self.draining = True
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
                reload.switch(self.live.now, new, self.config_path, self.pool, self.heat)
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
            if self.status_writer is not None:
                self.status_writer.close()
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
        await self.memory.start(self.recent_games, self.tally, self.api)  # what a restart keeps
        self.tasks.supervise("watchdog", self._watchdog)  # fed while we wait for the network too
        logged_in = asyncio.ensure_future(login(self.api, self._token, self.live,
                                                self._network_wait))
        stopped = asyncio.ensure_future(self._stop.wait())
        await asyncio.wait({logged_in, stopped}, return_when=asyncio.FIRST_COMPLETED)
        stopped.cancel()
        if not logged_in.done():  # SIGTERM while still waiting for the network
            logged_in.cancel()
            return await self._shutdown()
        self.me = check_bot(logged_in.result())
        log.info("logged in as %s on %s", self.me, self.api.url)
        # Tables are created and cleared while the event stream opens, not on the first
        # game's clock; not before the account check, or a refused start would first
        # fill (and the exit wait for) a multi-GB table.
        self._warm()
        self.waiting_for = "opening the Lichess event stream"
        self._build_rooms()
        await self._stop.wait()
        code = await self._shutdown()
        if self._fatal is not None:
            raise self._fatal
        return code

    def _build_rooms(self) -> None:
        """The game supervisor, the challenge desk and the event stream feeding them."""
        sup = self.supervisor = GameSupervisor(
            self.api, self.me, self.live, self.hooks, self.pool,
            lambda: self.heat.threads_now, self.sources, self.saver, self.slots,
            self.corr_slots, self.recent_games, self.tally, self.memory.writer, self.arenas.name_of)
        self.desk = ChallengeDesk(self.api, self.me, self.live, self.slots,
                                  self.corr_slots, lambda: self.draining, self.recent_games,
                                  self.stream, self.tasks.spawn)
        stream = EventStream(self.api, self.live, self.stream, self._dispatch,
                             self._stream_opened, self._closed_for, sup.check_in_soon)
        self.tasks.supervise("events", stream.run)
        control = control_commands.server(self.desk, self.desk.queued, self.arenas)
        for name, factory in {**self.desk.tasks(), "checkin": sup.checkins,
                              "arenas": self.arenas.run, "control": control.run}.items():
            self.tasks.supervise(name, factory)
        self.tasks.spawn(sup.resume_playing(), "resume")

    def _closed_for(self, why: str) -> None:
        self.waiting_for = f"event stream closed ({why}); re-opening"

    def _fatal_error(self, exc: UserError) -> None:
        self._fatal = exc
        self._stop.set()

    def _network_wait(self, why: str, attempt: int) -> None:
        self.waiting_for = why
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
        if self.status_writer is not None:
            self.status_writer.close()  # no file: `pibot status` says "not running" at once
        if self.pool is not None and not self._hard and (sup is None or sup.all_stopped()):
            # Every engine is back (a game still holding one may be mid-search: then
            # the process exit frees the tables instead).
            await asyncio.to_thread(self.pool.close)
        if self.sources is not None:
            self.sources.close()
        if self.saver.pending:
            await asyncio.to_thread(self.saver.give_up)
        log.info("pibot stopped")
        return 0

    async def _drain(self) -> None:
        deadline = time.monotonic() + self.live.now.shutdown_grace_s
        sup = self.supervisor
        while sup is not None and sup.realtime_games() and time.monotonic() < deadline:
            await asyncio.wait(sup.realtime_games(),
                               timeout=max(0.0, deadline - time.monotonic()))
        self._stop.set()

    # -- watchdog and status -----------------------------------------------
    async def _watchdog(self) -> None:
        interval = sdnotify.watchdog_interval_s()
        # The status file and heat readings want seconds, not half of WatchdogSec=60.
        period = min(interval / 2, self.live.now.network.watchdog_s) if interval \
            else self.live.now.network.watchdog_s
        if self.status_writer is None:
            self.status_writer = status_file.Writer(period)
        while True:
            sdnotify.watchdog_ping()
            # Sysfs reads and the tables' fill run in a thread: never stall the loop.
            await asyncio.to_thread(self.heat.poll)
            if self.saver.pending:
                await asyncio.to_thread(self.saver.retry)
            runners = list(self.supervisor.runners.values()) if self.supervisor else []
            self.summary = await status.publish(
                self.status_writer, self.me, self.api.url, status.state_of(
                    self.waiting_for, self.draining), self.live.now, self.pool, self.heat,
                runners, self.slots, self.tally, self.saver,
                self.desk.queued() if self.desk else None, self.memory.status(),
                self.arenas.listing())
            self.memory.tick(self.heat, self.tally, self.live.now.pgn_directory)
            if self.page is not None:
                self.page.history.tick(self.status_writer.last, boards(runners))
            sdnotify.status(self.waiting_for or self.summary)
            await asyncio.sleep(period)

    # -- the event stream ------------------------------------------------------
    def _stream_opened(self) -> None:
        self.waiting_for = ""
        if not self.ready.is_set():
            self.ready.set()
            sdnotify.ready()
            log.info("event stream connected; ready")

    async def _dispatch(self, ev: events.AccountEvent) -> None:
        """Each event of the stream to its room: challenges to the desk, games to the
        supervisor (and a started game to the desk, which may have sent its challenge)."""
        assert self.desk is not None and self.supervisor is not None
        if isinstance(ev, events.ChallengeEvent | events.ChallengeCanceled
                      | events.ChallengeDeclined):
            self.desk.on_event(ev)
        elif isinstance(ev, events.GameStart):
            self.desk.game_started(ev.game.id)
            self.supervisor.game_started(ev.game)
        elif isinstance(ev, events.GameFinish):
            self.supervisor.game_finished(ev.game)
        else:
            log.debug("event stream: ignoring %s", type(ev).__name__)
