"""Our own ratings, for `challenge.rating_difference` and matchmaking's
`opponent_rating_difference` (one reader, the desk's, for both).

The policy (policy.py) decides without I/O, so our rating in a challenge's perf
must be at hand when the challenge comes: the login's copy of our account
first, then `run` re-reads /api/account every MAX_AGE_S while the filter is on
(lichess-bot re-reads it as often), and `of` answers from the last copy.
Matchmaking asks `current`, which re-reads a copy older than that first.  A
perf we never played has no rating that means anything (Perf.known): the
filters then let the challenge through.
"""

from __future__ import annotations

import asyncio
import logging
import time

from bot.config import LiveConfig
from bot.lichess.client import Lichess, LichessError
from bot.lichess.events import Challenge, Profile

log = logging.getLogger(__name__)

MAX_AGE_S = 300.0  # re-read our ratings this often (lichess-bot: 5 minutes)
RETRY_S = 30.0  # after a failed read
POLL_S = 1.0  # how soon a reload that turns the filter on is noticed


def perf_of(ch: Challenge) -> str:
    """The Lichess perf a challenge's game is rated in: its variant's own, or its
    speed's for standard chess and From Position."""
    return ch.speed if ch.variant in ("standard", "fromPosition") else ch.variant


class OurRatings:
    def __init__(self, api: Lichess, live: LiveConfig, account: Profile | None = None) -> None:
        self.api, self.live = api, live
        self._me = account
        # monotonic time of the next read: at once without the login's copy
        self._next = 0.0 if account is None else time.monotonic() + MAX_AGE_S

    def of(self, perf: str) -> int | None:
        """Our rating in `perf`; None when unknown (not read yet, or never played)."""
        if self._me is None:
            return None
        p = self._me.perf(perf)
        return p.rating if p.known else None

    async def current(self, perf: str) -> int | None:
        """`of`, from a copy re-read first when it is due (matchmaking, before it
        challenges)."""
        if time.monotonic() >= self._next:
            await self.refresh()
        return self.of(perf)

    async def run(self) -> None:
        while True:
            if self.live.now.challenge.rating_difference is not None and \
                    time.monotonic() >= self._next:
                await self.refresh()
            await asyncio.sleep(POLL_S)

    async def refresh(self) -> None:
        try:
            self._me = await self.api.account.profile()
        except LichessError as exc:
            log.info("challenges: cannot read our own ratings (rating_difference): %s", exc)
            self._next = time.monotonic() + RETRY_S
        else:
            self._next = time.monotonic() + MAX_AGE_S
