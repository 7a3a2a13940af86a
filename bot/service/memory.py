"""The owner's memory (issue 35): the records database and the alerts, as the
service uses them.

- at start, what must survive a restart is read back (in a thread): the
  farming lines, today's results and bot-game count, the daily bot-game
  limit, the bots that declined matchmaking (`declines`, for the challenge
  desk; `declined` writes each new one); then a `start` event, and an alert
  when the service keeps restarting;
- `trouble` is the Lichess client's observer (429 pauses, the daily limit, a
  rejected token): an event, and an alert where the owner must know;
- `tick` (each watchdog tick): throttling stretches as events and an alert,
  a temperature sample at most every HEAT_SAMPLE_S (the hottest reading of the
  period, throttled if any tick was), the daily summary when due, PGN retention
  once a day (in a thread);
- at shutdown a `stop` event, then the writer and the alerts are closed.

Nothing here blocks the loop: RecordWriter.put and Alerts only queue.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from bot.alerts.rules import Alerts
from bot.config import Config
from bot.errors import UserError
from bot.host.heat import HeatMonitor
from bot.host.status_file import DailyTally
from bot.lichess.client import Lichess
from bot.lichess.token import Token
from bot.play.farming import RecentGames
from bot.store import db, overview, retention
from bot.store.model import Declined, HeatSample, ServiceEvent
from bot.store.queries import DayCounts, load_memory
from bot.store.writer import RecordWriter

log = logging.getLogger(__name__)

RETENTION_PERIOD_S = 86400.0  # records.keep_days is applied once a day
OVERVIEW_PERIOD_S = 300.0     # the status page's long view is re-read this often...
# ...and at once when a game ends (today's tally changes).
HEAT_SAMPLE_S = 600.0         # one temperature sample per 10 minutes (the page's week)


class OwnerMemory:
    def __init__(self, cfg: Config, token: Token | None,
                 on_overview: Callable[[dict[str, Any]], None] | None = None) -> None:
        self.cfg = cfg  # records and alerts are RESTART_KEYS: the start's config holds
        mb = cfg.records.max_mb
        self.writer = RecordWriter(cfg.records.db, mb * 1024 * 1024 if mb else None) \
            if cfg.records.db else None
        self.alerts = Alerts.from_config(cfg.alerts,
                                         secrets=[token.reveal()] if token is not None else [])
        self._throttled = False
        # The temperature sample being gathered: since (monotonic), hottest, throttled.
        self._heat_since: float | None = None
        self._heat_max: float | None = None
        self._heat_throttled = False
        self._retention_at = 0.0  # monotonic time of the last retention run
        self._retention: asyncio.Task[int] | None = None
        # The status page's long view (bot.store.overview), read in a thread.
        self._on_overview = on_overview
        self._overview: asyncio.Task[dict[str, Any] | None] | None = None
        self._overview_key: tuple[object, ...] = ()
        self._overview_at = 0.0
        # (bot, aspect, until) of the declines still running at start (read by start()).
        self.declines: list[tuple[str, str, float]] = []

    def _put(self, event: ServiceEvent | HeatSample | Declined) -> None:
        if self.writer is not None:
            self.writer.put(event)

    @contextlib.asynccontextmanager
    async def kept(self) -> AsyncIterator[None]:
        """The service's run: on any exit a `stop` event (after a `failure` one when
        it stops on an error), then the writer and the alerts are closed."""
        failure: str | None = None
        try:
            yield
        except UserError as exc:
            failure = str(exc)
            raise
        finally:
            await self.stop(failure)

    async def start(self, recent_games: RecentGames, tally: DailyTally, api: Lichess) -> None:
        """Read back what a restart must not forget: the farming lines, today's
        counts, the daily bot-game limit if Lichess's last one is still on, and the
        declines still running."""
        until = 0.0
        starts = 0
        if self.writer is not None:
            mem = await asyncio.to_thread(load_memory, self.writer.path, time.time())
            for opponent, line in mem.farming:  # oldest first: RecentGames as it was
                recent_games.record(opponent, line)
            if mem.today is not None:
                _seed(tally, mem.today)
            until = mem.daily_limit_until or 0.0
            starts = mem.starts_last_hour
            self.declines = mem.declines
            if mem.farming or mem.today or mem.declines:
                log.info("records database %s: %d remembered opening(s), %d decline(s); "
                         "today %s", self.writer.path, len(mem.farming), len(mem.declines),
                         _show(mem.today))
            self.writer.start()
        self._put(ServiceEvent("start"))
        self.alerts.started(starts + 1)
        api.bot_limit_until = max(api.bot_limit_until, until)

    def trouble(self, kind: str, detail: str, until: float | None) -> None:
        """The Lichess client's observer (any thread): `rate_limit`, `daily_limit`
        or `token`."""
        self._put(ServiceEvent(kind, detail, until))
        if kind == "daily_limit" and until is not None:
            self.alerts.daily_limit(until)
        elif kind == "token":
            self.alerts.token_rejected()

    def declined(self, bot: str, aspect: str, reason: str, until: float) -> None:
        """A bot declined matchmaking's challenge (bot/challenges/declines.py's `keep`)."""
        self._put(Declined(bot, aspect, reason, until))

    def reloaded(self, detail: str = "") -> None:
        self._put(ServiceEvent("reload", detail))

    def tick(self, heat: HeatMonitor, tally: DailyTally, pgn_directory: str | None) -> None:
        """Each watchdog tick: throttling, the daily summary, retention."""
        h = heat.status()
        throttled = bool(h["throttled"])
        if throttled != self._throttled:
            self._throttled = throttled
            self._put(ServiceEvent("throttled", "throttling started" if throttled
                                   else "throttling ended"))
        self.alerts.heat(throttled, h["temp_c"])
        if self.alerts.summary_due():
            self.alerts.daily_summary(_counts(tally))
        now = time.monotonic()
        self._sample_heat(h["temp_c"], bool((h["throttled"] or 0) & 0xF), now)
        self._refresh_overview(tally, now)
        keep = self.cfg.records.keep_days
        if keep and pgn_directory and (self._retention is None or self._retention.done()) \
                and (not self._retention_at or now - self._retention_at >= RETENTION_PERIOD_S):
            self._retention_at = now
            self._retention = asyncio.ensure_future(
                asyncio.to_thread(retention.compress_old, pgn_directory, keep))

    def _sample_heat(self, temp_c: float | None, throttled: bool, now: float) -> None:
        """Gather this tick's reading; a HeatSample once HEAT_SAMPLE_S have passed."""
        if temp_c is not None:
            self._heat_max = temp_c if self._heat_max is None else max(self._heat_max, temp_c)
        self._heat_throttled = self._heat_throttled or throttled
        if self._heat_since is None:
            self._heat_since = now
        elif now - self._heat_since >= HEAT_SAMPLE_S:
            if self._heat_max is not None or self._heat_throttled:
                self._put(HeatSample(self._heat_max, self._heat_throttled))
            self._heat_since, self._heat_max, self._heat_throttled = now, None, False

    def _refresh_overview(self, tally: DailyTally, now: float) -> None:
        if self._on_overview is None or self.writer is None:
            return
        t = tally.snapshot()
        key = (t["date"], t["wins"], t["draws"], t["losses"])
        if (self._overview is not None and not self._overview.done()) or \
                (key == self._overview_key and now - self._overview_at < OVERVIEW_PERIOD_S):
            return
        self._overview_key, self._overview_at = key, now
        self._overview = asyncio.ensure_future(asyncio.to_thread(self._read_overview))
        self._overview.add_done_callback(self._overview_read)

    def _read_overview(self) -> dict[str, Any] | None:
        """In a thread: the game that just ended is written first (a second at most)."""
        assert self.writer is not None
        self.writer.flush(1.0)
        try:
            conn = db.connect_readonly(self.writer.path)
        except (sqlite3.Error, OSError):
            return None  # no database yet, or in trouble: the writer says so
        try:
            return overview.overview(conn, time.time())
        except sqlite3.Error as exc:
            log.warning("records database %s: cannot read the status page's history "
                        "(%s)", self.writer.path, exc)
            return None
        finally:
            conn.close()

    def _overview_read(self, task: asyncio.Task[dict[str, Any] | None]) -> None:
        data = None if task.cancelled() or task.exception() else task.result()
        if data is not None and self._on_overview is not None:
            self._on_overview(data)

    def status(self) -> dict[str, object] | None:
        return self.writer.status() if self.writer is not None else None

    async def stop(self, failure: str | None = None) -> None:
        if failure:
            # No alert of its own: systemd's OnFailure= unit (pibot alert --failing) and
            # the restart count at the next start tell the owner.
            self._put(ServiceEvent("failure", failure))
        self._put(ServiceEvent("stop"))
        if self._retention is not None and not self._retention.done():
            await asyncio.wait([self._retention], timeout=2.0)
        if self.writer is not None:
            await asyncio.to_thread(self.writer.close)
        await asyncio.to_thread(self.alerts.close)


def _seed(tally: DailyTally, day: DayCounts) -> None:
    """Today's results from the database: the status file's counts survive a restart."""
    snap = tally.snapshot()  # rolls the tally to today
    if snap["date"] != day["date"]:
        return
    tally.wins, tally.draws, tally.losses = day["wins"], day["draws"], day["losses"]
    tally.bot_games = day["bot_games"]


def _counts(tally: DailyTally) -> DayCounts:
    s = tally.snapshot()
    return DayCounts(date=s["date"], wins=s["wins"], draws=s["draws"], losses=s["losses"],
                     bot_games=s["bot_games"])


def _show(day: DayCounts | None) -> str:
    if day is None:
        return "nothing"
    return f"+{day['wins']} ={day['draws']} -{day['losses']}, {day['bot_games']} bot game(s)"
