"""The bot service: event stream, challenge handling, game supervision,
sd_notify, signals, warm engines, heat, the status file.

Everything is one asyncio loop; blocking HTTP runs in threads.  Every
long-lived task is supervised (restarted with backoff when it dies) and the
loop pings the systemd watchdog, so a hung loop is restarted by systemd.
Each watchdog tick also reads the CPU's heat (fewer search threads over
engine.thermal_limit_c) and rewrites the status file for `pibot status`,
whose one-line summary is the systemd STATUS= line.

Engines live in an EnginePool, one per concurrency slot, created and cleared
in the background at start-up and after each game, so no game pays for a
table clear on its clock.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import random
import signal
import time
from collections.abc import Awaitable, Callable
from typing import Any

from bot.blocklist import OnlineBlockList
from bot.config import Config, load_config, restart_keys_changed
from bot.engine.pool import EnginePool
from bot.errors import PibotError, UserError
from bot.host import sdnotify, status_file
from bot.host.heat import HeatMonitor
from bot.host.logsetup import set_level
from bot.host.platform_info import check_hash_fits
from bot.host.status_history import boards
from bot.host.status_page import StatusPage
from bot.lichess.client import (
    DAILY_BOT_GAMES,
    PLAYING_MIN_INTERVAL_S,
    ApiRejected,
    DailyLimitReached,
    Lichess,
    LichessError,
    OpponentAtDailyLimit,
    RateLimited,
    backoff_s,
)
from bot.lichess.events import Account, Challenge
from bot.lichess.streams import StreamClosed, StreamOpened
from bot.lichess.token import CREATE_URL, Token, scope_problem
from bot.matchmaking import Matchmaker
from bot.play import records
from bot.play.clock import clock_running
from bot.play.correspondence import Parked, is_correspondence
from bot.play.farming import RecentGames
from bot.play.game import GameHooks, GameRunner
from bot.policy import Decision, RecentChallenges, Slots, decide
from bot.sources.chain import MoveSources

log = logging.getLogger(__name__)

MAX_GAME_RESTARTS = 5
STREAM_CONFLICT_WINDOW_S = 30.0  # a clean close this soon after opening is suspicious...
STREAM_CONFLICTS = 3  # ...this many times in a row: another client holds the stream
CHALLENGE_MEMORY_S = 600.0  # how long an answered challenge's id is remembered
# After the event stream (re)opens, lila lists the challenges still waiting
# (modules/api/src/main/EventStream.scala); one not listed by then is gone.
CHALLENGE_LISTING_S = 3.0


class Service:
    def __init__(self, cfg: Config, token: Token | None, config_path: str | None = None,
                 hooks: GameHooks | None = None, handle_signals: bool = True) -> None:
        self.cfg = cfg
        self.config_path = config_path
        self.api = Lichess(cfg.url, token, cfg.network)
        self.hooks = hooks or GameHooks()
        self.handle_signals = handle_signals
        self.me = ""
        self.slots = Slots()
        self.games: dict[str, asyncio.Task[None]] = {}
        self.runners: dict[str, GameRunner] = {}
        # The read-only status page (status_page.listen): fed each tick and each move.
        self.page = StatusPage(cfg.status_page.listen) if cfg.status_page.listen else None
        if self.page is not None:
            self.hooks = self.page.history.hooks(self.hooks, self.runners.get)
        self.draining = False
        self.ready = asyncio.Event()  # set once the event stream is connected
        self._stop = asyncio.Event()
        self._hard = False
        self._tasks: set[asyncio.Task[Any]] = set()
        self.matchmaker: Matchmaker | None = None
        self.waiting_for = "connecting to Lichess"  # sd_notify STATUS until ready
        self._challenge_seen: dict[str, float] = {}  # id -> monotonic arrival
        self._challenge_gone: set[str] = set()  # canceled/declined while an answer waited
        self._answering: set[str] = set()  # challenges whose answer is pending
        self._listed: dict[str, int] = {}  # challenge id -> event stream it was last listed on
        self._stream_no = 0  # event streams opened so far
        self._stream_opened_at = 0.0  # when the current one opened (monotonic)
        self._stream_up = False  # the event stream is open (else cancels go unseen)
        self._ended: dict[str, float] = {}  # game id -> when its task ended
        self.pool: EnginePool | None = None  # created by run()
        self._warmed = False  # the pool's first warm-up has been started
        self.heat = HeatMonitor(cfg.engine.threads, cfg.engine.thermal_limit_c)
        self.tally = status_file.DailyTally(bot_limit=DAILY_BOT_GAMES)
        self.status_writer: status_file.Writer | None = None  # created by the watchdog
        self.summary = ""  # the last status line (sd_notify STATUS=)
        # Correspondence games have slots of their own and park while idle.
        self.corr_slots = Slots()
        self.parked = Parked()
        # PGN comments (ply -> "book", ...) per game, kept across a game task's restarts
        # and a correspondence game's parking.
        self._comments: dict[str, dict[int, str]] = {}
        self.sources: MoveSources | None = None  # opened in run(): a bad book stops the start
        self.saver = records.Saver()  # PGNs the disk refused wait here, retried each tick
        self._token = token
        self._fatal: UserError | None = None  # why a supervised task stopped the service
        self.blocked_online = OnlineBlockList()  # challenge.online_block_list's names
        self.recent_challenges = RecentChallenges()  # max_recent_bot_challenges
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
        log.info("stop requested: declining new challenges, finishing %d game(s) "
                 "(grace %.0f s)", len(self.games), self.cfg.shutdown_grace_s)
        self._spawn(self._drain(), "drain")

    def reload(self) -> None:
        if self.config_path is None:
            log.warning("SIGHUP: no config file to reload (running on defaults)")
            return
        sdnotify.reloading()
        try:
            new = load_config(self.config_path)
            self._check_tables_fit(new)
        except PibotError as exc:
            log.error("config reload failed, keeping the old config: %s", exc)
        except Exception as exc:  # noqa: BLE001 - whatever it was, the service keeps running
            log.error("config reload failed, keeping the old config: %s: %s",
                      type(exc).__name__, exc)
        else:
            stale = restart_keys_changed(self.cfg, new)
            self.cfg = new
            set_level(new.log_level)
            self._apply_engine_config(new)
            log.info("config reloaded from %s (applies to new challenges and games)",
                     self.config_path)
            if stale:
                log.warning("config reload: %s changed but take effect only after a "
                            "restart (systemctl restart pibot)", ", ".join(stale))
        finally:
            sdnotify.ready()  # systemd waits for READY=1 after RELOADING=1, always

    def _check_tables_fit(self, new: Config) -> None:
        """The start-up rule for a hand-set engine.hash_mb, for more table memory only
        (our own tables already count against what the machine has available)."""
        if new.sizing is not None and new.sizing.hash_auto:
            return  # auto is sized within the budget
        e, games = new.engine, new.challenge.concurrency
        if self.pool is not None and e.hash_mb * games <= self.pool.hash_mb * self.pool.size:
            return
        problem = check_hash_fits(e.hash_mb, games)
        if problem:
            raise UserError(problem)

    def _apply_engine_config(self, new: Config) -> None:
        """Slots, table size and threads follow the reloaded config; running games
        keep their engine untouched (a resized table is resized at its next clear)."""
        self.heat.reconfigure(new.engine.threads, new.engine.thermal_limit_c)
        pool = self.pool
        if pool is None:
            return
        pool.threads = new.engine.threads  # new engines; searches take heat.threads_now
        slots, hash_mb = new.challenge.concurrency, new.engine.hash_mb
        if slots != pool.size or hash_mb != pool.hash_mb:
            log.info("engine tables: %d slot(s) of %d MiB (were %d of %d MiB)", slots, hash_mb,
                     pool.size, pool.hash_mb)
            pool.resize(slots, hash_mb)
            self._warm()

    def _warm_once(self) -> None:
        if not self._warmed:
            self._warmed = True
            self._warm()

    def _warm(self) -> None:
        """Create and clear idle slots' engines in the background (errors are logged)."""
        assert self.pool is not None

        def done(fut: concurrent.futures.Future[None]) -> None:
            if not fut.cancelled() and fut.exception() is not None:
                log.error("could not prepare an engine: %s (a game will try again)",
                          fut.exception())

        for fut in self.pool.warm():
            fut.add_done_callback(done)

    def _threads_now(self) -> int:
        """Search threads for the next search: the heat monitor's, which follows the config."""
        return self.heat.threads_now

    # -- main -----------------------------------------------------------------
    async def run(self) -> int:
        try:
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
        self.sources = MoveSources.open(self.cfg, token=self._token)
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
        e = self.cfg.engine
        self.pool = EnginePool(self.cfg.challenge.concurrency, e.hash_mb, e.threads,
                               move_overhead_ms=e.move_overhead_ms, eval_name=e.eval)
        self._supervise("watchdog", self._watchdog)  # fed while we wait for the network too
        login = asyncio.ensure_future(self._login())
        stopped = asyncio.ensure_future(self._stop.wait())
        await asyncio.wait({login, stopped}, return_when=asyncio.FIRST_COMPLETED)
        stopped.cancel()
        if not login.done():  # SIGTERM while still waiting for the network
            login.cancel()
            return await self._shutdown()
        account = login.result()
        self.me = str(account.get("username") or account.get("id") or "")
        if account.get("title") != "BOT":
            # lila PlayApi answers 400 to every /api/bot/* call of a non-BOT account.
            raise UserError(f"account {self.me} is not a BOT account; run `pibot upgrade` "
                            "to upgrade it (irreversible), then start pibot again")
        log.info("logged in as %s on %s", self.me, self.api.url)
        # Tables are created and cleared while the event stream opens, not on the first
        # game's clock; not before the account check, or a refused start would first
        # fill (and the exit wait for) a multi-GB table.
        self._warm_once()
        self.waiting_for = "opening the Lichess event stream"
        self.matchmaker = Matchmaker(self.api, self.me, lambda: self.cfg,
                                     lambda: not self.draining and self.slots.used() == 0,
                                     self.slots, recent=self.recent_games)
        self._supervise("events", self._event_stream)
        self._supervise("matchmaking", self.matchmaker.run)
        self._supervise("block-lists", self._block_lists)
        self._supervise("checkin", self._checkins)
        self._spawn(self._resume_playing(), "resume")
        await self._stop.wait()
        code = await self._shutdown()
        if self._fatal is not None:
            raise self._fatal
        return code

    async def _block_lists(self) -> None:
        assert self.matchmaker is not None
        refresh = lambda: self.cfg.network.block_list_refresh_s  # noqa: E731
        await asyncio.gather(
            self.blocked_online.run(lambda: self.cfg.challenge.online_block_list, refresh),
            self.matchmaker.blocked_online.run(lambda: self.cfg.matchmaking.online_block_list,
                                               refresh))

    async def _login(self) -> Account:
        """GET /api/account, retried forever on network trouble (a Pi often boots
        before its network is up): only a rejected token ends the process."""
        attempt = 0
        while True:
            try:
                account = await self.api.account()
                if self._token is not None:
                    # Without bot:play the event stream still opens (challenge:read), and
                    # then every game stream answers 403: refuse to start instead.
                    problem = scope_problem(await self.api.token_test(self._token),
                                            self.api.url)
                    if problem:
                        raise UserError(problem)
                return account
            except ApiRejected as exc:
                if exc.status == 401:
                    raise UserError("Lichess rejected the token (HTTP 401): it is revoked or "
                                    "mistyped; create a new one with the bot:play scope"
                                    ) from None
                raise UserError(f"Lichess refused the account check: {exc}") from None
            except LichessError as exc:  # network, 5xx, 429
                delay = backoff_s(attempt, max(1.0, self.cfg.network.backoff_base_s),
                                  self.cfg.network.backoff_max_s)
                self.waiting_for = f"waiting for {self.api.url}: {exc}"
                sdnotify.status(self.waiting_for)
                if attempt == 0:
                    # The network may be down for minutes at boot: use the wait.
                    self._warm_once()
                    # Up and working, just waiting for the network: without READY
                    # systemd would fail the start after TimeoutStartSec (90 s) and
                    # give up after StartLimitBurst restarts.
                    sdnotify.ready()
                (log.warning if attempt == 0 else log.info)(
                    "cannot reach Lichess (%s); retrying in %.0f s", exc, delay)
                attempt += 1
                await asyncio.sleep(delay)

    async def _shutdown(self) -> int:
        left = [gid for gid, t in self.games.items()
                if not t.done() and not (gid in self.runners and self.runners[gid].over)]
        if left:
            log.warning("exiting with %d game(s) unfinished (not resigned): %s",
                        len(left), ", ".join(left))
        everything = list(self._tasks) + list(self.games.values())
        for t in everything:
            t.cancel()
        # Cancelled tasks still have to run to take it (game cleanup stops engines and
        # outboxes): wait for them, or a loop closed right after run() destroys them
        # mid-cancel.  A moment only: never hang the exit.
        pending = [t for t in everything if not t.done()]
        if pending:
            await asyncio.wait(pending, timeout=2.0)
        if self.status_writer is not None:
            self.status_writer.close()  # no file: `pibot status` says "not running" at once
        if self.pool is not None and not self._hard \
                and not any(not t.done() for t in self.games.values()):
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
        deadline = time.monotonic() + self.cfg.shutdown_grace_s
        while self._realtime_games() and time.monotonic() < deadline:
            await asyncio.wait(self._realtime_games(),
                               timeout=max(0.0, deadline - time.monotonic()))
        self._stop.set()

    def _realtime_games(self) -> list[asyncio.Task[None]]:
        """Games a drain waits for: a correspondence game may last weeks and is
        simply continued after the restart (check-ins find it)."""
        return [t for gid, t in self.games.items()
                if not (gid in self.runners and self.runners[gid].correspondence)]

    # -- supervision -------------------------------------------------------
    def _spawn(self, coro: Awaitable[Any], name: str) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(coro)
        task.set_name(name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _supervise(self, name: str, factory: Callable[[], Awaitable[None]]) -> None:
        async def loop() -> None:
            attempt = 0
            while True:
                started = time.monotonic()
                try:
                    await factory()
                    log.warning("task %s returned; restarting", name)
                except asyncio.CancelledError:
                    raise
                except UserError as exc:
                    # Retrying cannot help (e.g. a revoked token): stop, with its one line.
                    self._fatal = exc
                    self._stop.set()
                    return
                except Exception:
                    log.exception("task %s crashed; restarting", name)
                if time.monotonic() - started > 60:
                    attempt = 0  # it ran fine for a while: start backoff afresh
                await asyncio.sleep(backoff_s(attempt, self.cfg.network.backoff_base_s,
                                              self.cfg.network.backoff_max_s))
                attempt += 1

        self._spawn(loop(), name)

    async def _watchdog(self) -> None:
        interval = sdnotify.watchdog_interval_s()
        # The status file and heat readings want seconds, not half of WatchdogSec=60.
        period = min(interval / 2, self.cfg.network.watchdog_s) if interval \
            else self.cfg.network.watchdog_s
        if self.status_writer is None:
            self.status_writer = status_file.Writer(period)
        while True:
            sdnotify.watchdog_ping()
            # Sysfs reads and the tables' fill run in a thread: never stall the loop.
            await asyncio.to_thread(self.heat.poll)
            if self.saver.pending:
                await asyncio.to_thread(self.saver.retry)
            self.summary = await self._publish_status()
            if self.page is not None:
                self.page.history.tick(self.status_writer.last, boards(self.runners.values()))
            sdnotify.status(self.waiting_for or self.summary)
            await asyncio.sleep(period)

    async def _publish_status(self) -> str:
        assert self.status_writer is not None
        slots = await asyncio.to_thread(self.pool.slot_status) if self.pool else []
        cfg = self.cfg
        state = "connecting" if self.waiting_for else \
            ("draining" if self.draining else "accepting")
        today = self.tally.snapshot()
        engine = status_file.EngineStatus(
            hash_mb=self.pool.hash_mb if self.pool else cfg.engine.hash_mb,
            threads=self.heat.configured, threads_now=self.heat.threads_now, slots=slots)
        games = [game_status(r) for r in list(self.runners.values()) if r.st.full]
        return await asyncio.to_thread(
            self.status_writer.publish, account=self.me, url=self.api.url, state=state,
            concurrency=cfg.challenge.concurrency,
            free_slots=self.slots.free(cfg.challenge.concurrency), games=games,
            engine=engine, heat=self.heat.status(), today=today,
            unsaved_pgns=self.saver.pending, pgn_problem=self.saver.problem)

    # -- event stream --------------------------------------------------------
    async def _event_stream(self) -> None:
        """Keep one event stream open, re-opening it with backoff.

        lila allows one event stream per account: opening one ends the previous
        one cleanly (modules/api/src/main/EventStream.scala publishes PoisonPill to
        `eventStreamFor:<user>`). So our stream ending cleanly soon after it opened,
        again and again, means another program is using this token: say so once
        and back off for minutes instead of fighting over the stream.
        """
        net = self.cfg.network
        failures = 0
        conflicts = 0
        warned = False
        while True:
            await self.api.wait_unpaused("event_stream")
            queue: asyncio.Queue[Any] = asyncio.Queue()
            stream = self.api.start_stream("event_stream", queue)
            closed = StreamClosed("not opened")
            try:
                while True:
                    item = await queue.get()
                    if isinstance(item, StreamOpened):
                        self._stream_no += 1
                        self._stream_opened_at = time.monotonic()
                        self._stream_up = True
                        self.waiting_for = ""
                        if not self.ready.is_set():
                            self.ready.set()
                            sdnotify.ready()
                            log.info("event stream connected; ready")
                        continue
                    if isinstance(item, StreamClosed):
                        closed = item
                        break
                    await self._dispatch(item)
            finally:
                self._stream_up = False
                stream.stop()
            if closed.status == 401:
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
            self.waiting_for = f"event stream closed ({closed.reason}); re-opening"
            await asyncio.sleep(max(delay, closed.retry_at - time.monotonic()))
            # Games whose gameStart we may have missed while disconnected (throttled:
            # Lichess also replays gameStart for every game in progress on reconnect).
            self._spawn(self._resume_playing(), "resume")

    async def _dispatch(self, ev: dict[str, Any]) -> None:
        kind = ev.get("type")
        if kind == "challenge":
            self._on_challenge(ev.get("challenge") or {})
        elif kind in ("challengeCanceled", "challengeDeclined"):
            cid = str((ev.get("challenge") or {}).get("id", ""))
            self._release(cid)
            if cid in self._challenge_seen:
                self._challenge_gone.add(cid)  # a queued answer to it is dropped
            if self.matchmaker:
                if kind == "challengeDeclined":
                    self.matchmaker.declined(ev.get("challenge") or {})
                self.matchmaker.challenge_answered(cid)
        elif kind == "gameStart":
            game = ev.get("game") or {}
            gid = str(game.get("gameId") or game.get("id") or "")
            if self.matchmaker:
                self.matchmaker.challenge_answered(gid)
            opponent = str((game.get("opponent") or {}).get("username", ""))
            corr = is_correspondence(game)
            if gid in self.parked and not game.get("isMyTurn"):
                return  # replayed on reconnect for a parked game: the check-ins bring it back
            if corr and game.get("lastMove") and not game.get("isMyTurn") \
                    and gid not in self.games:
                # A correspondence game in progress (replayed when the stream opens)
                # waiting for the opponent: park it, as the playing list would.
                self._park_waiting(gid, opponent)
                return
            self._start_game(gid, opponent, corr)
        elif kind == "gameFinish":
            game = ev.get("game") or {}
            gid = str(game.get("gameId") or game.get("id") or "")
            runner = self.runners.get(gid)
            if runner is not None:
                runner.poke()
            elif gid in self.parked:
                self._start_game(gid, self.parked.games[gid], True)  # to record the end
        else:
            log.debug("ignoring event type %r", kind)

    # -- challenges ----------------------------------------------------------
    def _on_challenge(self, ch: Challenge) -> None:
        cid = str(ch.get("id", ""))
        challenger = ch.get("challenger") or {}
        user = str(challenger.get("id") or challenger.get("name") or "")
        if user.lower() == self.me.lower():
            return  # our own outgoing challenge, echoed on the stream
        self._listed[cid] = self._stream_no
        if cid in self._answering:
            return  # listed again on a re-opened stream: its answer is on its way
        now = time.monotonic()
        for old, t in list(self._challenge_seen.items()):
            if now - t > CHALLENGE_MEMORY_S and old not in self._answering:
                del self._challenge_seen[old]
                self._challenge_gone.discard(old)
                self._listed.pop(old, None)
        self._challenge_seen[cid] = now
        corr = is_correspondence(ch)
        slots = self.corr_slots if corr else self.slots
        limit = self.cfg.challenge.max_correspondence_games if corr \
            else self.cfg.challenge.concurrency
        d = decide(ch, self.cfg.challenge, games_with_user=self.slots.with_user(user)
                   + self.corr_slots.with_user(user),
                   slots_free=slots.free(limit),
                   shutting_down=self.draining,
                   bot_limit_reached=self.api.bot_limit_until > time.time(),
                   online_blocked=user in self.blocked_online,
                   recent_from_bot=self.recent_challenges.count(
                       user, self.cfg.challenge.recent_bot_challenge_age_s))
        if d.accept:
            slots.reserve(cid, user)  # before any await: bursts can't overshoot
            if challenger.get("title") == "BOT":  # the limit is for BOTs only
                self.recent_challenges.add(user)
        self._answering.add(cid)
        task = self._spawn(self._answer_challenge(cid, user, ch, d), f"challenge-{cid}")
        task.add_done_callback(lambda _t: self._answering.discard(cid))

    def _challenge_waits(self, cid: str) -> bool:
        """Lichess still waits for our answer: not withdrawn, and listed by the event
        stream opened last (lila never expires a challenge whose challenger keeps it
        alive, and sends no event when it takes one offline: ChallengeApi.sweep)."""
        if cid in self._challenge_gone:
            return False
        relisted = self._listed.get(cid) == self._stream_no
        return relisted or time.monotonic() - self._stream_opened_at < CHALLENGE_LISTING_S

    async def _hold_answer(self, name: str, cid: str) -> None:
        """Wait while the answer's class is paused, and while it is unknown whether
        Lichess still waits for it: the event stream is down, or has just re-opened
        and may still list it."""
        while self._challenge_waits(cid):
            if self.api.paused_for(name) > 0:
                await self.api.wait_unpaused(name, lambda: self._challenge_waits(cid))
                continue
            if not self._stream_up:
                await asyncio.sleep(0.2)
                continue
            settle = self._stream_opened_at + CHALLENGE_LISTING_S - time.monotonic()
            if settle <= 0 or self._listed.get(cid) == self._stream_no:
                return
            await asyncio.sleep(settle)

    async def _answer_challenge(self, cid: str, user: str, ch: Challenge, d: Decision) -> None:
        tc = ch.get("timeControl") or {}
        desc = f"{cid} from {user} ({(ch.get('variant') or {}).get('key')}, " \
               f"{ch.get('speed')} {tc.get('limit', '-')}+{tc.get('increment', '-')}, " \
               f"{'rated' if ch.get('rated') else 'casual'})"
        # While challenge answers are rate-limited the answer waits, and goes out when
        # the pause ends: Lichess still waits for it, unless the challenge was withdrawn
        # or the re-opened event stream no longer lists it.
        def wanted() -> bool:
            return self._challenge_waits(cid)

        if d.accept:
            log.info("accepting challenge %s", desc)
        else:
            log.info("declining challenge %s: %s (%s)", desc, d.reason, d.detail)
        try:
            await self._hold_answer("accept" if d.accept else "decline", cid)
            if d.accept:
                await self.api.accept(cid, wanted=wanted)
            else:
                await self.api.decline(cid, d.reason, wanted=wanted)
        except DailyLimitReached as exc:
            # lila Challenge.apiAccept: a BOT at its daily bot-game limit gets 429.
            self._release(cid)
            log.warning("challenge %s: %s; declining bot challenges until then", cid, exc)
            await self._decline_quietly(cid, "later", wanted)
        except OpponentAtDailyLimit as exc:
            self._release(cid)
            log.info("challenge %s: the challenger is at its daily bot limit (%s)", cid, exc)
            await self._decline_quietly(cid, "later", wanted)
        except RateLimited as exc:
            log.info("challenge %s: answer dropped (%s)", cid, exc)
            self._release(cid)
        except ApiRejected as exc:
            log.info("challenge %s gone before we answered: %s", cid, exc)
            self._release(cid)
        except LichessError as exc:
            log.warning("challenge %s: %s", cid, exc)
            self._release(cid)

    def _release(self, cid: str) -> None:
        self.slots.release(cid)
        self.corr_slots.release(cid)

    async def _decline_quietly(self, cid: str, reason: str,
                               wanted: Callable[[], bool]) -> None:
        try:
            await self.api.decline(cid, reason, wanted=wanted)
        except LichessError as exc:
            log.info("challenge %s: decline failed: %s", cid, exc)

    # -- games ---------------------------------------------------------------
    async def _resume_playing(self) -> None:
        try:
            playing = await self.api.playing()
        except LichessError as exc:
            log.warning("could not list ongoing games: %s", exc)
            return
        now = time.monotonic()
        for old, t in list(self._ended.items()):
            if now - t > 2 * PLAYING_MIN_INTERVAL_S:
                del self._ended[old]
        ids = {str(g.get("gameId") or g.get("id") or "") for g in playing}
        for gid in self.parked.gone(ids):
            # Ended while parked (resigned, timed out, ...): its stream's gameFull tells
            # the runner so, which records the game and frees the slot.
            self._start_game(gid, self.parked.games[gid], True)
        for g in playing:
            gid = str(g.get("gameId") or g.get("id") or "")
            opponent = str((g.get("opponent") or {}).get("username", ""))
            corr = is_correspondence(g)
            # The list may be up to a minute old: a game that ended since is not resumed.
            if not gid or gid in self.games or gid in self._ended:
                continue
            if corr and not g.get("isMyTurn"):
                self._park_waiting(gid, opponent)
                continue
            log.info("%s game %s", "checking in to" if gid in self.parked else "resuming", gid)
            self._start_game(gid, opponent, corr)

    def _park_waiting(self, gid: str, opponent: str) -> None:
        """A correspondence game where it is not our turn: hold its slot, open
        nothing; a later check-in brings it back."""
        if gid not in self.parked:
            self.parked.park(gid, opponent)
            self.corr_slots.start(gid, opponent)

    async def _checkins(self) -> None:
        """Correspondence: every checkin_period, look for parked games where it is our
        turn (api.playing() asks Lichess at most once a minute)."""
        while True:
            await asyncio.sleep(self.cfg.correspondence.checkin_period)
            if self.parked.games:
                await self._resume_playing()

    def _start_game(self, gid: str, opponent: str, corr: bool = False) -> None:
        if not gid or gid in self.games:
            return
        self.parked.unpark(gid)
        (self.corr_slots if corr else self.slots).start(gid, opponent)
        cfg = self.cfg  # a game keeps the config it started with, even across SIGHUP
        task = asyncio.create_task(self._supervise_game(gid, cfg, opponent),
                                   name=f"game-{gid}")
        self.games[gid] = task

    async def _supervise_game(self, gid: str, cfg: Config, opponent: str = "") -> None:
        parked = False
        try:
            for attempt in range(MAX_GAME_RESTARTS):
                runner = GameRunner(gid, self.api, cfg, self.me, self.hooks, self.pool,
                                    self._threads_now)
                runner.sources = self.sources
                runner.previous_lines = self.recent_games.lines(opponent)
                runner.saver = self.saver
                runner.st.comments = self._comments.setdefault(gid, {})
                self.runners[gid] = runner
                try:
                    await runner.run()
                    if runner.farewell is not None:
                        # The goodbye chat outlives the game task; shutdown cancels it.
                        self._tasks.add(runner.farewell)
                        runner.farewell.add_done_callback(self._tasks.discard)
                    parked = runner.parked and not runner.over
                    self._count_result(runner)
                    return
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.exception("game %s task crashed; restarting it", gid)
                await asyncio.sleep(backoff_s(attempt, cfg.network.backoff_base_s, 10.0))
            log.error("game %s crashed %d times; leaving it", gid, MAX_GAME_RESTARTS)
        finally:
            self.runners.pop(gid, None)
            self.games.pop(gid, None)
            self.slots.finish(gid)
            if parked:
                self.parked.park(gid, opponent)  # keeps its correspondence slot
            else:
                self.corr_slots.finish(gid)
                self._comments.pop(gid, None)
                self._ended[gid] = time.monotonic()

    def _count_result(self, runner: GameRunner) -> None:
        """Today's tally for `pibot status` (an aborted game is no result)."""
        st = runner.st
        if not runner.over or st.status == "aborted" or not st.full:
            return
        self.recent_games.record("" if st.opponent == "?" else st.opponent, st.moves)
        opp = st.full.get("black" if st.color == "white" else "white") or {}
        self.tally.game_over(st.winner, st.color, opponent_is_bot=opp.get("title") == "BOT")
        if self.api.bot_limit_until > time.time():
            # Lichess said stop: whatever we counted, today's bot games are used up.
            self.tally.bot_games = max(self.tally.bot_games, DAILY_BOT_GAMES)


def _time_control(full: dict[str, Any]) -> str:
    clock = full.get("clock") or {}
    if clock:
        return f"{int(clock.get('initial', 0)) // 1000}+{int(clock.get('increment', 0)) // 1000}"
    days = full.get("daysPerTurn")
    return f"{days}d" if days else "-"


def game_status(runner: GameRunner) -> status_file.GameStatus:
    """One game as the status file shows it."""
    st = runner.st
    now = time.monotonic()
    mine = theirs = None
    if st.clock is not None and st.clock.has_clock:
        to_move = st.to_move()
        running = clock_running(len(st.moves))
        other = "black" if st.color == "white" else "white"
        mine = int(st.clock.remaining_ms(st.color, to_move if running else "", now))
        theirs = int(st.clock.remaining_ms(other, to_move if running else "", now))
    res = runner.thinker.last if runner.thinker is not None else None
    recent = runner.latency.recent
    return status_file.GameStatus(
        id=runner.game_id, opponent=st.opponent, color=st.color,
        time_control=_time_control(st.full), plies=len(st.moves), my_clock_ms=mine,
        opponent_clock_ms=theirs, eval_cp=res.score_cp if res is not None else None,
        mate=res.mate if res is not None else None, depth=res.depth if res is not None else None,
        latency_ms=recent[-1] if recent else None)
