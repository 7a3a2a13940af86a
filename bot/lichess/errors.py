"""What a Lichess error answer means: the client's exceptions and the daily limit.

Every request of the client raises one of these (bot.lichess.client re-exports
them); `daily_limit_reset` reads lila's bot-vs-bot day limit out of an error body,
ours (a 429) or the opponent's (a 400).
"""

from __future__ import annotations

import datetime as dt
import re
import time

from bot.errors import PibotError
from bot.lichess.events import ErrorPayload

# lila modules/bot/src/main/BotLimit.scala: 100 bot-vs-bot games per account per day.
DAILY_BOT_LIMIT_KEY = "bot.vsBot.day"
DAILY_BOT_GAMES = 100


class LichessError(PibotError):
    def __init__(self, endpoint: str, message: str, status: int | None = None) -> None:
        super().__init__(f"{endpoint}: {message}")
        self.endpoint = endpoint
        self.status = status


class ApiRejected(LichessError):
    """A final 4xx: retrying the same request cannot help."""

    def __init__(self, endpoint: str, message: str, status: int | None = None,
                 payload: ErrorPayload | None = None) -> None:
        super().__init__(endpoint, message, status)
        self.payload: ErrorPayload = payload or {}


class OpponentAtDailyLimit(ApiRejected):
    """400: the other BOT played its 100 bot games today (lila OpponentLimit)."""

    def __init__(self, endpoint: str, message: str, until_wall: float) -> None:
        super().__init__(endpoint, message, 400)
        self.until_wall = until_wall  # time.time() when it resets


class NetworkError(LichessError):
    """Network failure or 5xx that outlived its retries."""


class RateLimited(LichessError):
    """429 (or a request dropped because its endpoint class is paused) until `retry_at`."""

    def __init__(self, endpoint: str, message: str, retry_at: float) -> None:
        super().__init__(endpoint, message, 429)
        self.retry_at = retry_at


class DailyLimitReached(RateLimited):
    """429 with ratelimit.key == bot.vsBot.day: no more bot games until it resets."""


def _next_utc_midnight() -> float:
    now = dt.datetime.now(dt.UTC)
    tomorrow = (now + dt.timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    return tomorrow.timestamp()


def daily_limit_reset(payload: ErrorPayload) -> float | None:
    """time.time() when a bot.vsBot.day limit named in an error body resets, else None.

    lila answers `{"error", "ratelimit": {"key", "seconds"}}` (429, our limit) or a 400
    whose text says the opponent "played 100 games against other bots today, please
    wait until <ISO date>" (app/controllers/Challenge.scala, eitherBotLimitResponse).
    """
    rl = payload.get("ratelimit") or {}
    text = str(payload.get("error", ""))
    if rl.get("key") != DAILY_BOT_LIMIT_KEY and DAILY_BOT_LIMIT_KEY not in text \
            and "games against other bots today" not in text:
        return None
    if rl.get("seconds"):
        return time.time() + float(rl["seconds"])
    m = re.search(r"until (\d{4}-\d\d-\d\dT[\d:.]+(?:Z|[+-]\d\d:?\d\d)?)", text)
    if m:
        try:
            when = dt.datetime.fromisoformat(m.group(1).replace("Z", "+00:00"))
            if when.tzinfo is None:
                when = when.replace(tzinfo=dt.UTC)
            return when.timestamp()
        except ValueError:
            pass
    return _next_utc_midnight()
