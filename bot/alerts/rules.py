"""Alerts: when the service tells the owner something, and what it says.

The service calls one method per happening; each decides whether it is worth
a message and hands it to the AlertSender (which never blocks).  All methods
are cheap and safe to call when alerts are off (`alerts.url: null`): they do
nothing then.

What is worth a message:
- `started(starts_last_hour)`: the service has started `failing_restarts`
  times within an hour -- it keeps failing (systemd restarts it);
- `token_rejected()`: Lichess answered 401: the token was revoked or expired,
  and nothing will be played until the owner makes a new one;
- `daily_limit(until)`: Lichess's daily bot-game limit is reached;
- `heat(throttled, ...)`: the CPU has stayed throttled for `throttle_minutes`;
- `daily_summary(day)`: once a day at `daily_summary_hour` UTC (ask
  `summary_due(now)` on each watchdog tick).
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING

from bot.alerts.sender import AlertSender, Priority

if TYPE_CHECKING:
    from bot.config import AlertsConfig
    from bot.store.queries import DayCounts

log = logging.getLogger(__name__)


def _utc(t: float) -> str:
    return dt.datetime.fromtimestamp(t, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


class ThrottleWatch:
    """Fires once per stretch of throttling that lasts at least `limit_s`."""

    def __init__(self, limit_s: float) -> None:
        self.limit_s = limit_s
        self._since: float | None = None
        self._fired = False

    def sample(self, throttled: bool, now: float) -> float | None:
        """The stretch's length when it first reaches the limit, else None."""
        if not throttled:
            self._since, self._fired = None, False
            return None
        if self._since is None:
            self._since = now
        length = now - self._since
        if length >= self.limit_s and not self._fired:
            self._fired = True
            return length
        return None


class SummaryClock:
    """Due once per UTC day, at `hour` or at the first tick after it.  A day whose
    hour had passed when the service started is skipped: a restart loop must not
    send a summary with every start."""

    def __init__(self, hour: int | None, now: float) -> None:
        self.hour = hour
        self._last = self._day(now) if hour is not None and self._past(now) else ""

    @staticmethod
    def _day(now: float) -> str:
        return dt.datetime.fromtimestamp(now, dt.UTC).strftime("%Y-%m-%d")

    def _past(self, now: float) -> bool:
        return self.hour is not None and dt.datetime.fromtimestamp(now, dt.UTC).hour >= self.hour

    def due(self, now: float) -> bool:
        if self.hour is None or not self._past(now) or self._day(now) == self._last:
            return False
        self._last = self._day(now)
        return True


class Alerts:
    def __init__(self, sender: AlertSender | None, failing_restarts: int = 3,
                 throttle_s: float = 1800.0, summary_hour: int | None = None,
                 now: float | None = None) -> None:
        self.sender = sender
        self.failing_restarts = failing_restarts
        self.throttle = ThrottleWatch(throttle_s)
        self.summary = SummaryClock(summary_hour, time.time() if now is None else now)

    @classmethod
    def from_config(cls, cfg: AlertsConfig, secrets: Iterable[str] = (),
                    now: float | None = None) -> Alerts:
        """`secrets`: what must never appear in an alert (the token's value)."""
        sender = AlertSender(cfg.url, cfg.format, cfg.repeat_minutes * 60, secrets) \
            if cfg.url else None
        if sender is not None:
            log.info("alerts on: %s (%s)", sender.shown_url, "ntfy" if sender.ntfy else "JSON")
        return cls(sender, cfg.failing_restarts, cfg.throttle_minutes * 60,
                   cfg.daily_summary_hour, now)

    @property
    def enabled(self) -> bool:
        return self.sender is not None

    def _send(self, kind: str, title: str, message: str, priority: Priority = "default",
              repeat: bool = False) -> bool:
        if self.sender is None:
            return False
        return self.sender.send(kind, title, message, priority, repeat)

    def started(self, starts_last_hour: int) -> bool:
        if starts_last_hour < self.failing_restarts:
            return False
        return self._send("failing", "pibot keeps restarting",
                          f"The service has started {starts_last_hour} times within an hour: "
                          f"it keeps failing. See `journalctl -u pibot` and `pibot check`.",
                          "urgent")

    def failure(self, what: str) -> bool:
        """The service stops on an error (sent before it exits)."""
        return self._send("failure", "pibot stopped on an error", what, "high")

    def token_rejected(self) -> bool:
        return self._send("token", "pibot's Lichess token stopped working",
                          "Lichess answers 401 Unauthorized: the token was revoked or has "
                          "expired. No games until a new token (bot:play) is installed.",
                          "urgent")

    def daily_limit(self, until: float) -> bool:
        return self._send("daily_limit", "pibot reached the daily bot-game limit",
                          f"Lichess allows no more games against bots until {_utc(until)}; "
                          f"games against humans go on.", "low")

    def heat(self, throttled: bool, temp_c: float | None = None,
             now: float | None = None) -> bool:
        length = self.throttle.sample(throttled, time.monotonic() if now is None else now)
        if length is None:
            return False
        temp = f" at {temp_c:.1f} C" if temp_c is not None else ""
        return self._send("throttled", "pibot's Pi is throttling",
                          f"The CPU has been throttled for {length / 60:.0f} minutes{temp}: "
                          f"the engine plays slower. Check the cooling and the power supply.",
                          "high")

    def summary_due(self, now: float | None = None) -> bool:
        return self.sender is not None and \
            self.summary.due(time.time() if now is None else now)

    def daily_summary(self, day: DayCounts, notes: Iterable[str] = ()) -> bool:
        games = day["wins"] + day["draws"] + day["losses"]
        lines = [f"{day['date']}: {games} game(s), +{day['wins']} ={day['draws']} "
                 f"-{day['losses']}; {day['bot_games']} against bots.", *notes]
        return self._send("summary", f"pibot today: +{day['wins']} ={day['draws']} "
                          f"-{day['losses']}", "\n".join(lines), "low", repeat=True)

    def close(self, timeout: float = 2.0) -> None:
        if self.sender is not None:
            self.sender.close(timeout)
