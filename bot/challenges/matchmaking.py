"""Challenge online bots when idle (off by default).

Respects Lichess's limits: only time controls the challenge API accepts and a
BOT may play (never UltraBullet); our own bot-vs-bot daily limit (429
`bot.vsBot.day`) stops matchmaking until it resets; an opponent at its daily
limit (400) is skipped until its limit resets. An outgoing challenge holds a
concurrency slot until it is answered, cancelled or expires.

Whom to challenge (semantics of lichess-bot lib/matchmaking.py): not ourselves,
nor a bot on block_list or a downloaded online_block_list, nor one that declined
us today (challenge_filter), within opponent_min_rating..opponent_max_rating and,
when opponent_rating_difference is set, within that of our own rating for the
speed.  A bot without a rating for the speed is unknown, not 1500: it fits no
rating range and is not challenged.  Bots we have no recent game with are
preferred (bot/play/farming.py: repeated pairings risk lila's farming check).
With `opponents` listed (a gauntlet), those bots are challenged in turn
instead, without the rating range: the owner named them.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time

from bot.challenges.answers import RecentAnswers
from bot.challenges.blocklist import OnlineBlockList
from bot.challenges.shared import ChallengeShared
from bot.config import LiveConfig
from bot.lichess.client import (
    Lichess,
    LichessError,
    OpponentAtDailyLimit,
    RateLimited,
)
from bot.lichess.events import Challenge, Perf, Profile

log = logging.getLogger(__name__)

MAX_LIMIT_S = 10800  # lichess-org/api challengeCreate: clock.limit 0..10800
MAX_INCREMENT_S = 60  # clock.increment 0..60
FILTER_S = 86400.0  # challenge_filter: a decline holds for a day (lichess-bot: days(1))
ACCOUNT_MAX_AGE_S = 300.0  # our own ratings are re-read this often (lichess-bot: 5 min)
# declineReasonKey -> the aspect of our challenge it objects to ("" = the challenge as
# such); lichess-bot lib/matchmaking.py declined_challenge.
_DECLINE_ASPECT = {"toofast": "speed", "tooslow": "speed", "timecontrol": "speed",
                   "rated": "mode", "casual": "mode", "standard": "variant",
                   "variant": "variant"}


def valid_clock(base_s: int, inc_s: int) -> bool:
    """A clock the challenge API accepts and a BOT may play.

    clock.limit must be 0, 15, 30, 45, 60, 90 or a multiple of 60 up to 10800
    (lichess-org/api doc/specs/tags/challenges/api-challenge-username.yaml), and
    UltraBullet is not bot-compatible (lila isBotCompatible: speed >= Bullet).
    """
    base_ok = base_s in (0, 15, 30, 45, 60, 90) or (base_s % 60 == 0
                                                     and 0 < base_s <= MAX_LIMIT_S)
    return base_ok and 0 <= inc_s <= MAX_INCREMENT_S and speed_of(base_s, inc_s) != "ultraBullet"


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
    def __init__(self, api: Lichess, me: str, live: LiveConfig, shared: ChallengeShared,
                 answers: RecentAnswers | None = None) -> None:
        self.api, self.me = api, me.lower()
        self.live, self.shared = live, shared
        self.slots = shared.slots  # real-time: what our challenges reserve
        self.paused_until = 0.0
        self.skip_until: dict[str, float] = {}  # opponent -> time.time() its daily limit resets
        self._warned_clocks = False
        self.idle_since = time.monotonic()
        self.pending: str | None = None  # id of our outstanding challenge
        self._answered = asyncio.Event()
        # Recorded by the desk; an answer can beat our POST's own response (a bot
        # that declines at once, a slow way back) and is then found here.
        self.answers = answers if answers is not None else RecentAnswers()
        self.blocked_online = OnlineBlockList()  # refreshed by the desk
        self.declined_until: dict[tuple[str, str], float] = {}  # (bot, aspect) -> time.time()
        self._me: Profile | None = None
        self._perfs_at = -ACCOUNT_MAX_AGE_S
        self._turn = 0  # the gauntlet's next opponent (matchmaking.opponents)

    def declined(self, challenge: Challenge) -> None:
        """A challengeDeclined event: with challenge_filter, remember who said no to what."""
        mode = self.live.now.matchmaking.challenge_filter
        if mode == "none" or challenge.challenger.login.lower() != self.me:
            return
        bot = challenge.dest_user.login.lower() if challenge.dest_user is not None else ""
        key = (challenge.decline_reason_key or "generic").lower()
        aspect = _DECLINE_ASPECT.get(key, "") if mode == "fine" else ""
        value = {"speed": challenge.speed,
                 "mode": "rated" if challenge.rated else "casual",
                 "variant": challenge.variant}.get(aspect, "")
        self.declined_until[(bot, value)] = time.time() + FILTER_S
        log.info("matchmaking: %s declined (%s); not challenging it to %s for a day", bot, key,
                 f"another {value} game" if value else "anything")

    def _filtered(self, bot: str, aspects: tuple[str, ...]) -> bool:
        now = time.time()
        return any(self.declined_until.get((bot, a), 0.0) > now for a in ("", *aspects))

    async def _my_rating(self, speed: str) -> int | None:
        """Our own rating for `speed` from /api/account (re-read every 5 minutes);
        None when Lichess does not say (then only the absolute range applies)."""
        if time.monotonic() - self._perfs_at >= ACCOUNT_MAX_AGE_S:
            try:
                self._me = await self.api.account.profile()
                self._perfs_at = time.monotonic()
            except LichessError as exc:
                log.info("matchmaking: cannot read our own ratings: %s", exc)
        perf = self._me.perf(speed) if self._me is not None else Perf()
        return perf.rating if perf.known else None

    def challenge_answered(self, challenge_id: str) -> None:
        """Called by the desk on gameStart/challengeDeclined/Canceled, once the
        answer is in `answers`."""
        if challenge_id == self.pending:
            self._answered.set()

    def _pick(self, bots: list[Profile], speed: str, rated: bool = False,
              my_rating: int | None = None) -> str | None:
        mm = self.live.now.matchmaking
        blocked = {b.lower() for b in mm.block_list}
        lo, hi = mm.opponent_min_rating, mm.opponent_max_rating
        if mm.opponent_rating_difference is not None and my_rating is not None:
            lo = max(lo, my_rating - mm.opponent_rating_difference)
            hi = min(hi, my_rating + mm.opponent_rating_difference)
        aspects = (speed, "rated" if rated else "casual", "standard")
        choices = []
        for bot in bots:
            uid = (bot.id or bot.username).lower()
            if not uid or uid == self.me or uid in blocked or uid in self.blocked_online or \
                    self.skip_until.get(uid, 0.0) > time.time() or self._filtered(uid, aspects):
                continue
            perf = bot.perf(speed)
            if perf.rating is None or not perf.known:
                continue  # unknown (never played this speed): fits no rating range
            if lo <= perf.rating <= hi:
                choices.append(bot.username or uid)
        fresh = [c for c in choices if c not in self.shared.recent_games]
        return random.choice(fresh or choices) if choices else None

    async def _online_opponent(self, speed: str, rated: bool) -> str | None:
        mm = self.live.now.matchmaking
        try:
            bots = await self.api.account.online_bots()
        except LichessError as exc:
            log.info("matchmaking: cannot list online bots: %s", exc)
            return None
        my_rating = await self._my_rating(speed) if mm.opponent_rating_difference is not None \
            else None
        opponent = self._pick(bots, speed, rated, my_rating)
        if opponent is None:
            log.info("matchmaking: no online bot fits (rating range, block lists, declines)")
        return opponent

    def _next_named(self, names: list[str], speed: str, rated: bool) -> str | None:
        """A gauntlet (matchmaking.opponents): the next bot of the list in turn, past
        those at their daily limit, blocked, or that declined us (challenge_filter)."""
        blocked = {b.lower() for b in self.live.now.matchmaking.block_list}
        aspects = (speed, "rated" if rated else "casual", "standard")
        for _ in range(len(names)):
            name = names[self._turn % len(names)]
            self._turn += 1
            uid = name.lower()
            if uid != self.me and uid not in blocked and uid not in self.blocked_online \
                    and self.skip_until.get(uid, 0.0) <= time.time() \
                    and not self._filtered(uid, aspects):
                return name
        log.info("matchmaking: no bot of matchmaking.opponents can be challenged now "
                 "(daily limits, block lists, declines)")
        return None

    async def run(self) -> None:
        while True:
            cfg = self.live.now.matchmaking
            await asyncio.sleep(min(5.0, cfg.challenge_timeout_s))
            now = time.monotonic()
            if self.shared.draining or self.slots.used() != 0:  # not idle
                self.idle_since = now
                continue
            if not cfg.allow_matchmaking or now < self.paused_until or \
                    now - self.idle_since < cfg.challenge_timeout_s:
                continue
            await self._challenge_one()
            self.idle_since = time.monotonic()

    def _clock(self) -> tuple[int, int] | None:
        mm = self.live.now.matchmaking
        clocks = [(b, i) for b in mm.challenge_initial_time for i in mm.challenge_increment
                  if valid_clock(b, i)]
        if not clocks and not self._warned_clocks:
            self._warned_clocks = True
            log.warning("matchmaking: no usable clock in challenge_initial_time x "
                        "challenge_increment (Lichess accepts limits 0, 15, 30, 45, 60, 90 or "
                        "multiples of 60 up to 10800 s, increments 0-60 s, and no UltraBullet "
                        "for bots); not challenging")
        return random.choice(clocks) if clocks else None

    async def _challenge_one(self) -> None:
        mm = self.live.now.matchmaking
        clock = self._clock()
        if clock is None:
            return
        base, inc = clock
        rated = mm.challenge_mode == "rated" or (mm.challenge_mode == "random"
                                                 and random.random() < 0.5)
        speed = speed_of(base, inc)
        opponent = self._next_named(mm.opponents, speed, rated) if mm.opponents \
            else await self._online_opponent(speed, rated)
        if opponent is None:
            return
        # Hold a slot before sending: an incoming challenge accepted while ours is
        # pending must not push us over concurrency when ours is accepted too.
        key = f"outgoing:{opponent.lower()}"
        self.slots.reserve(key, opponent, mm.challenge_expiry_s + 30, bot=True)  # BOTs only
        try:
            ch = await self.api.challenges.create(opponent, rated, base, inc)
        except OpponentAtDailyLimit as exc:
            self.slots.release(key)
            self.skip_until[opponent.lower()] = exc.until_wall
            log.info("matchmaking: %s reached its daily bot-game limit; skipping it for "
                     "%.0f s", opponent, exc.until_wall - time.time())
            return
        except RateLimited as exc:  # our daily bot limit, or challenge creation is paused
            self.slots.release(key)
            self.paused_until = exc.retry_at
            log.warning("matchmaking: %s; paused for %.0f s", exc,
                        exc.retry_at - time.monotonic())
            return
        except LichessError as exc:
            self.slots.release(key)
            log.info("matchmaking: challenge to %s failed: %s", opponent, exc)
            return
        cid = ch.id
        self.slots.rename(key, cid)
        log.info("matchmaking: challenged %s (%d+%d, %s), id %s", opponent, base, inc,
                 "rated" if rated else "casual", cid)
        self.pending = cid
        self._answered.clear()
        if self.answers.get(cid) is not None:
            # Answered before the POST's response came back: a decline or cancel then
            # found no slot under this id to free (a started game holds its own).
            self.slots.release(cid)
            self._answered.set()
        try:
            await asyncio.wait_for(self._answered.wait(), mm.challenge_expiry_s)
        except TimeoutError:
            log.info("matchmaking: %s did not answer; cancelling %s", opponent, cid)
            self.slots.release(cid)
            try:
                await self.api.challenges.cancel(cid)
            except LichessError as exc:
                log.info("matchmaking: cancel failed: %s", exc)
        finally:
            self.pending = None
