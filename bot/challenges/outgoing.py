"""The owner's own challenges (`pibot challenge USER ... --games N`): a series of
games against one player, colours alternating, each next game challenged when
the previous one has ended.

Like matchmaking's, a challenge holds a concurrency slot from before it is sent
until it is answered (the supervisor then fills the slot with the game), and an
unanswered one is cancelled after matchmaking.challenge_expiry_s.  Lichess's
limits end a series with one log line: our bot-vs-bot daily limit (429
`bot.vsBot.day`), the opponent's (400 with a ratelimit), a decline, or any
other refusal (lila's text, e.g. "No such user").
"""

from __future__ import annotations

import asyncio
import logging
import random
import re
from dataclasses import dataclass

from bot.challenges.answers import RecentAnswers
from bot.challenges.shared import ChallengeShared, ChallengeTasks
from bot.config import LiveConfig
from bot.lichess.client import Lichess, LichessError, OpponentAtDailyLimit
from bot.lichess_limits import API_CLOCK_LIMITS_S, ULTRABULLET_BELOW_S
from bot.lichess_limits import VARIANTS as LICHESS_VARIANTS

log = logging.getLogger(__name__)

MAX_GAMES = 100  # lila's bot-vs-bot day holds 100 games: a longer series cannot happen
MAX_INCREMENT_S = 60  # lichess-org/api challengeCreate: clock.increment 0..60
# What a challenge of ours may name: every variant the engine plays, but From
# Position (it needs a FEN, which `pibot challenge` does not take).
VARIANTS = tuple(v for v in LICHESS_VARIANTS if v != "fromPosition")
COLORS = ("white", "black", "random")
POLL_S = 0.25  # how often a series looks at its game's slot
_USERNAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,29}$")  # lila's username rule


def parse_tc(text: str) -> tuple[int, int]:
    """'3+2' (minutes + seconds, as on lichess.org) -> (180, 2); ValueError with the
    one line to show when Lichess would not take it from a bot."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?|\.\d+)\s*\+\s*(\d+)\s*", text)
    if m is None:
        raise ValueError(f"time control {text!r}: use MINUTES+SECONDS, e.g. 3+2 or 0.5+0")
    base_s, inc_s = round(float(m.group(1)) * 60), int(m.group(2))
    return base_s, inc_s


def clock_problem(base_s: int, inc_s: int) -> str | None:
    """Why the challenge API or a BOT account refuses this clock; None if fine."""
    if base_s not in API_CLOCK_LIMITS_S:
        return (f"Lichess does not take {base_s} s as a clock; use 0.25, 0.5, 0.75, 1, 1.5 "
                f"or whole minutes up to 180")
    if not 0 <= inc_s <= MAX_INCREMENT_S:
        return f"the increment must be 0 to {MAX_INCREMENT_S} s"
    if base_s + 40 * inc_s < ULTRABULLET_BELOW_S:
        return "that is UltraBullet, which Lichess refuses for BOT accounts"
    return None


@dataclass(frozen=True)
class Order:
    """One `pibot challenge`: checked by problem() before a series starts."""

    user: str
    base_s: int
    inc_s: int
    rated: bool = False
    color: str = "random"  # the first game's; the next ones alternate
    variant: str = "standard"
    games: int = 1

    def problem(self) -> str | None:
        if not _USERNAME.match(self.user):
            return f"{self.user[:40]!r} is not a Lichess username"
        if self.color not in COLORS:
            return f"colour {self.color[:20]!r}: use white, black or random"
        if self.variant not in VARIANTS:
            return f"variant {self.variant[:20]!r}: use one of {', '.join(VARIANTS)}"
        if not 1 <= self.games <= MAX_GAMES:
            return f"games: 1 to {MAX_GAMES} (lila's bot-vs-bot day)"
        return clock_problem(self.base_s, self.inc_s)

    def colors(self) -> list[str]:
        """Each game's colour: the first as asked (random: drawn), then alternating."""
        first = self.color if self.color != "random" else random.choice(("white", "black"))
        other = "black" if first == "white" else "white"
        return [first if i % 2 == 0 else other for i in range(self.games)]

    def describe(self) -> str:
        return (f"{self.user}, {self.games} game(s) at {self.base_s / 60:g}+{self.inc_s} "
                f"{self.variant} {'rated' if self.rated else 'casual'}")


class Outgoing:
    def __init__(self, api: Lichess, me: str, live: LiveConfig, shared: ChallengeShared,
                 tasks: ChallengeTasks, answers: RecentAnswers) -> None:
        self.api, self.me, self.live, self.shared = api, me.lower(), live, shared
        self.slots, self.tasks = shared.slots, tasks
        self.answers = answers  # recorded by the desk, before or after our POST returns
        self.running: dict[str, Order] = {}  # opponent (lowercase) -> its series

    def start(self, order: Order) -> str:
        """Begin a series (ValueError: why not, one line); what the owner reads."""
        problem = order.problem()
        if problem is None and order.user.lower() == self.me:
            problem = "a bot cannot challenge itself"
        if problem is None and order.user.lower() in self.running:
            problem = f"a series against {order.user} is already running"
        if problem is None and self.shared.draining:
            problem = "the service is stopping"
        if problem is not None:
            raise ValueError(problem)
        self.running[order.user.lower()] = order
        self.tasks.spawn(self._series(order), f"challenge-{order.user.lower()}")
        return f"challenging {order.describe()}"

    async def _series(self, order: Order) -> None:
        played = 0
        try:
            for n, color in enumerate(order.colors(), 1):
                if not await self._slot_free():
                    break
                gid = await self._challenge(order, color, n)
                if gid is None:
                    break
                while gid in self.slots.running:  # the supervisor frees it at the end
                    await asyncio.sleep(POLL_S)
                played += 1
        finally:
            self.running.pop(order.user.lower(), None)
            log.info("challenge series against %s: %d of %d game(s) played", order.user,
                     played, order.games)

    async def _slot_free(self) -> bool:
        while not self.shared.draining:
            if self.slots.free(self.live.now.challenge.concurrency) > 0:
                return True
            await asyncio.sleep(POLL_S)
        return False

    async def _challenge(self, order: Order, color: str, n: int) -> str | None:
        """Send game n's challenge and wait for it to start; its game id, or None."""
        expiry = self.live.now.matchmaking.challenge_expiry_s
        key = f"series:{order.user.lower()}:{n}"
        self.slots.reserve(key, order.user, expiry + 30)
        try:
            ch = await self.api.challenges.create(order.user, order.rated, order.base_s,
                                                 order.inc_s, color=color,
                                                 variant=order.variant)
        except OpponentAtDailyLimit as exc:
            self.slots.release(key)
            log.warning("challenge series: %s reached its daily bot-game limit: %s",
                        order.user, exc)
            return None
        except LichessError as exc:  # RateLimited too: our own daily bot limit (429)
            self.slots.release(key)
            log.warning("challenge series against %s stopped: %s", order.user, exc)
            return None
        cid = ch.id
        self.slots.rename(key, cid)
        log.info("challenge series: game %d of %d, %s as %s (id %s)", n, order.games,
                 order.user, color, cid)
        return await self._answer(order, cid, expiry)

    async def _answer(self, order: Order, cid: str, expiry: float) -> str | None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + expiry
        while cid not in self.slots.running:
            how = self.answers.get(cid)
            if how == "started":
                break  # and already over: the series goes on
            if how is not None or loop.time() > deadline:
                self.slots.release(cid)
                if how is None:
                    log.info("challenge series: %s did not answer; cancelling %s",
                             order.user, cid)
                    await self._cancel(cid)
                else:
                    log.warning("challenge series: %s %s challenge %s", order.user, how, cid)
                return None
            await asyncio.sleep(POLL_S)
        return cid

    async def _cancel(self, cid: str) -> None:
        try:
            await self.api.challenges.cancel(cid)
        except LichessError as exc:
            log.info("challenge series: cancel of %s failed: %s", cid, exc)
