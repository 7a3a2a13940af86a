"""Challenge online bots when idle (off by default).

Respects Lichess's bot-vs-bot daily limit: a challenge refused with
`bot.vsBot.day` stops matchmaking until the limit resets, instead of
hammering the endpoint.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Callable
from typing import Any

from bot.config import Config
from bot.lichess import DailyLimitReached, Lichess, LichessError, RateLimited

log = logging.getLogger(__name__)


def speed_of(base_s: int, inc_s: int) -> str:
    """Lichess's speed category from estimated game duration (base + 40 * inc)."""
    est = base_s + 40 * inc_s
    if est < 30:
        return "ultraBullet"
    if est < 180:
        return "bullet"
    if est < 480:
        return "blitz"
    if est < 1500:
        return "rapid"
    return "classical"


class Matchmaker:
    def __init__(self, api: Lichess, me: str, get_cfg: Callable[[], Config],
                 is_idle: Callable[[], bool]) -> None:
        self.api, self.me = api, me.lower()
        self.get_cfg, self.is_idle = get_cfg, is_idle
        self.paused_until = 0.0
        self.idle_since = time.monotonic()
        self.pending: str | None = None  # id of our outstanding challenge
        self._answered = asyncio.Event()

    def challenge_answered(self, challenge_id: str) -> None:
        """Called by the service on gameStart/challengeDeclined/Canceled."""
        if challenge_id == self.pending:
            self._answered.set()

    def _pick(self, bots: list[dict[str, Any]], speed: str) -> str | None:
        mm = self.get_cfg().matchmaking
        blocked = {b.lower() for b in mm.block_list}
        choices = []
        for bot in bots:
            uid = str(bot.get("id") or bot.get("username", "")).lower()
            if not uid or uid == self.me or uid in blocked:
                continue
            perf = (bot.get("perfs") or {}).get(speed) or {}
            rating = perf.get("rating", 1500)
            if mm.opponent_min_rating <= rating <= mm.opponent_max_rating:
                choices.append(str(bot.get("username") or uid))
        return random.choice(choices) if choices else None

    async def run(self) -> None:
        while True:
            cfg = self.get_cfg().matchmaking
            await asyncio.sleep(min(5.0, cfg.challenge_timeout_s))
            now = time.monotonic()
            if not self.is_idle():
                self.idle_since = now
                continue
            if not cfg.allow_matchmaking or now < self.paused_until or \
                    now - self.idle_since < cfg.challenge_timeout_s:
                continue
            await self._challenge_one()
            self.idle_since = time.monotonic()

    async def _challenge_one(self) -> None:
        mm = self.get_cfg().matchmaking
        base = random.choice(mm.challenge_initial_time)
        inc = random.choice(mm.challenge_increment)
        rated = mm.challenge_mode == "rated" or (mm.challenge_mode == "random"
                                                 and random.random() < 0.5)
        try:
            bots = await self.api.online_bots()
        except LichessError as exc:
            log.info("matchmaking: cannot list online bots: %s", exc)
            return
        opponent = self._pick(bots, speed_of(base, inc))
        if opponent is None:
            log.info("matchmaking: no online bot fits the rating range")
            return
        try:
            ch = await self.api.create_challenge(opponent, rated, base, inc)
        except DailyLimitReached as exc:
            self.paused_until = exc.retry_at
            log.warning("matchmaking: %s; paused until the limit resets", exc)
            return
        except RateLimited as exc:
            self.paused_until = exc.retry_at
            log.warning("matchmaking: %s", exc)
            return
        except LichessError as exc:
            log.info("matchmaking: challenge to %s failed: %s", opponent, exc)
            return
        cid = str((ch.get("challenge") or ch).get("id", ""))
        log.info("matchmaking: challenged %s (%d+%d, %s), id %s", opponent, base, inc,
                 "rated" if rated else "casual", cid)
        self.pending = cid
        self._answered.clear()
        try:
            await asyncio.wait_for(self._answered.wait(), mm.challenge_expiry_s)
        except TimeoutError:
            log.info("matchmaking: %s did not answer; cancelling %s", opponent, cid)
            try:
                await self.api.cancel_challenge(cid)
            except LichessError as exc:
                log.info("matchmaking: cancel failed: %s", exc)
        finally:
            self.pending = None
