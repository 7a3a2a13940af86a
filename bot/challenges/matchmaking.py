"""Challenge online bots when idle (off by default).

Each challenge draws a type of game (mm_types.py: the owner's weighted
matchmaking.types, or standard chess with the configured clocks): a clock or,
for correspondence, days per move, a variant, rated or casual.  A
correspondence type is drawn only while a correspondence slot is free
(challenge.max_correspondence_games), and its challenge holds that slot.

Respects Lichess's limits: only time controls the challenge API accepts and a
BOT may play (never UltraBullet); our own bot-vs-bot daily limit (429
`bot.vsBot.day`) stops matchmaking until it resets; an opponent at its daily
limit (400) is skipped until its limit resets. An outgoing challenge holds a
concurrency slot until it is answered, cancelled or expires.

Whom to challenge (semantics of lichess-bot lib/matchmaking.py): not ourselves,
nor a bot on block_list or a downloaded online_block_list, nor one that declined
us (challenge_filter; declines.py: kept across restarts), within
opponent_min_rating..opponent_max_rating and, when opponent_rating_difference is
set, within that of our own rating, each in the type's perf (the variant's own,
or the speed's for standard chess).  A bot without a rating in that perf is
unknown, not 1500: it fits no rating range and is not challenged.  Bots we have
no recent game with are preferred (bot/play/farming.py: repeated pairings risk
lila's farming check).  With `opponents` listed (a gauntlet), those bots are
challenged in turn instead, without the rating range: the owner named them.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time

from bot.challenges import mm_types
from bot.challenges.answers import RecentAnswers
from bot.challenges.blocklist import OnlineBlockList
from bot.challenges.declines import Declines, aspects
from bot.challenges.mm_types import valid_clock
from bot.challenges.ratings import OurRatings
from bot.challenges.shared import ChallengeShared
from bot.challenges.slots import Slots
from bot.config import LiveConfig, MatchmakingType
from bot.lichess.client import (
    Lichess,
    LichessError,
    OpponentAtDailyLimit,
    RateLimited,
)
from bot.lichess.events import Challenge, Profile

__all__ = ["Matchmaker", "valid_clock"]

log = logging.getLogger(__name__)

class Matchmaker:
    def __init__(self, api: Lichess, me: str, live: LiveConfig, shared: ChallengeShared,
                 answers: RecentAnswers | None = None, declines: Declines | None = None,
                 ratings: OurRatings | None = None) -> None:
        self.api, self.me = api, me.lower()
        self.live, self.shared = live, shared
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
        # Who declined what, and until when: the records database's, handed over at start.
        self.declines = declines if declines is not None else Declines()
        # Our own ratings (opponent_rating_difference): the desk's reader, shared with
        # challenge.rating_difference.
        self.ratings = ratings if ratings is not None else OurRatings(api, live)
        self._turn = 0  # the gauntlet's next opponent (matchmaking.opponents)

    def declined(self, challenge: Challenge) -> None:
        """A challengeDeclined event: with challenge_filter, remember who said no to what."""
        if challenge.challenger.login.lower() == self.me:
            self.declines.declined(challenge, self.live.now.matchmaking)

    def _free(self, uid: str, of: tuple[str, ...]) -> bool:
        """Not us, not blocked, not at its daily limit, not holding a decline of `of`
        (while challenge_filter is on: `none` lets remembered declines rest)."""
        mm = self.live.now.matchmaking
        blocked = {b.lower() for b in mm.block_list}
        return bool(uid) and uid != self.me and uid not in blocked \
            and uid not in self.blocked_online and self.skip_until.get(uid, 0.0) <= time.time() \
            and (mm.challenge_filter == "none" or not self.declines.holds(uid, of))

    def challenge_answered(self, challenge_id: str) -> None:
        """Called by the desk on gameStart/challengeDeclined/Canceled, once the
        answer is in `answers`."""
        if challenge_id == self.pending:
            self._answered.set()

    def _pick(self, bots: list[Profile], speed: str, rated: bool = False,
              my_rating: int | None = None, variant: str = "standard") -> str | None:
        """One of `bots` for a game of this speed, mode and variant, judged in its perf
        (the variant's own, or the speed's in standard chess); None if none fits."""
        mm = self.live.now.matchmaking
        lo, hi = mm.opponent_min_rating, mm.opponent_max_rating
        if mm.opponent_rating_difference is not None and my_rating is not None:
            lo = max(lo, my_rating - mm.opponent_rating_difference)
            hi = min(hi, my_rating + mm.opponent_rating_difference)
        of = aspects(speed, rated, variant)
        choices = []
        for bot in bots:
            uid = (bot.id or bot.username).lower()
            if not self._free(uid, of):
                continue
            perf = bot.perf(speed if variant == "standard" else variant)
            if perf.rating is None or not perf.known:
                continue  # unknown (never played this perf): fits no rating range
            if lo <= perf.rating <= hi:
                choices.append(bot.username or uid)
        fresh = [c for c in choices if c not in self.shared.recent_games]
        return random.choice(fresh or choices) if choices else None

    async def _online_opponent(self, t: MatchmakingType, rated: bool) -> str | None:
        mm = self.live.now.matchmaking
        try:
            bots = await self.api.account.online_bots()
        except LichessError as exc:
            log.info("matchmaking: cannot list online bots: %s", exc)
            return None
        # None when Lichess does not say: then only the absolute range applies
        my_rating = await self.ratings.current(t.perf) \
            if mm.opponent_rating_difference is not None else None
        opponent = self._pick(bots, t.speed, rated, my_rating, t.variant)
        if opponent is None:
            log.info("matchmaking: no online bot fits %s (rating range, block lists, declines)",
                     t.label)
        return opponent

    def _next_named(self, names: list[str], t: MatchmakingType, rated: bool) -> str | None:
        """A gauntlet (matchmaking.opponents): the next bot of the list in turn, past
        those at their daily limit, blocked, or that declined us (challenge_filter)."""
        of = aspects(t.speed, rated, t.variant)
        for _ in range(len(names)):
            name = names[self._turn % len(names)]
            self._turn += 1
            if self._free(name.lower(), of):
                return name
        log.info("matchmaking: no bot of matchmaking.opponents can be challenged to %s now "
                 "(daily limits, block lists, declines)", t.label)
        return None

    async def run(self) -> None:
        while True:
            cfg = self.live.now.matchmaking
            await asyncio.sleep(min(5.0, cfg.challenge_timeout_s))
            now = time.monotonic()
            if self.shared.draining or self.shared.slots.used() != 0:  # not idle
                self.idle_since = now
                continue
            if not cfg.allow_matchmaking or now < self.paused_until or \
                    now - self.idle_since < cfg.challenge_timeout_s:
                continue
            await self._challenge_one()
            self.idle_since = time.monotonic()

    def _type(self) -> MatchmakingType | None:
        """This challenge's type; correspondence ones only while a slot is free for it."""
        live = self.live.now
        types = mm_types.types_of(live.matchmaking)
        if not types and not self._warned_clocks:
            self._warned_clocks = True
            log.warning("matchmaking: no usable clock in challenge_initial_time x "
                        "challenge_increment (Lichess accepts limits 0, 15, 30, 45, 60, 90 or "
                        "multiples of 60 up to 10800 s, increments 0-60 s, and no UltraBullet "
                        "for bots); not challenging")
        if self.shared.corr_slots.free(live.challenge.max_correspondence_games) <= 0:
            types = [t for t in types if t.days is None]
        return mm_types.draw(types)

    async def _challenge_one(self) -> None:
        mm = self.live.now.matchmaking
        t = self._type()
        if t is None:
            return
        rated = mm_types.rated(t)
        opponent = self._next_named(mm.opponents, t, rated) if mm.opponents \
            else await self._online_opponent(t, rated)
        if opponent is None:
            return
        # Hold a slot before sending: an incoming challenge accepted while ours is
        # pending must not push us over concurrency when ours is accepted too.
        slots = self.shared.slots if t.days is None else self.shared.corr_slots
        key = f"outgoing:{opponent.lower()}"
        slots.reserve(key, opponent, mm.challenge_expiry_s + 30, bot=True)  # BOTs only
        cid = await self._send(slots, key, opponent, t, rated)
        if cid is None:
            return
        self.pending = cid
        self._answered.clear()
        if self.answers.get(cid) is not None:
            # Answered before the POST's response came back: a decline or cancel then
            # found no slot under this id to free (a started game holds its own).
            slots.release(cid)
            self._answered.set()
        try:
            await asyncio.wait_for(self._answered.wait(), mm.challenge_expiry_s)
        except TimeoutError:
            log.info("matchmaking: %s did not answer; cancelling %s", opponent, cid)
            slots.release(cid)
            try:
                await self.api.challenges.cancel(cid)
            except LichessError as exc:
                log.info("matchmaking: cancel failed: %s", exc)
        finally:
            self.pending = None

    async def _send(self, slots: Slots, key: str, opponent: str, t: MatchmakingType,
                    rated: bool) -> str | None:
        """POST the challenge; its id (holding the slot `key` reserved), or None."""
        clock = t.clock
        try:
            if clock is None:
                ch = await self.api.challenges.create_correspondence(
                    opponent, rated, t.days or 1, variant=t.variant)
            else:
                ch = await self.api.challenges.create(opponent, rated, clock[0], clock[1],
                                                     variant=t.variant)
        except OpponentAtDailyLimit as exc:
            slots.release(key)
            self.skip_until[opponent.lower()] = exc.until_wall
            log.info("matchmaking: %s reached its daily bot-game limit; skipping it for "
                     "%.0f s", opponent, exc.until_wall - time.time())
            return None
        except RateLimited as exc:  # our daily bot limit, or challenge creation is paused
            slots.release(key)
            self.paused_until = exc.retry_at
            log.warning("matchmaking: %s; paused for %.0f s", exc,
                        exc.retry_at - time.monotonic())
            return None
        except LichessError as exc:
            slots.release(key)
            log.info("matchmaking: challenge to %s failed: %s", opponent, exc)
            return None
        slots.rename(key, ch.id)
        log.info("matchmaking: challenged %s (%s, %s), id %s", opponent, t.label,
                 "rated" if rated else "casual", ch.id)
        return ch.id
