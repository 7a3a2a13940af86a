"""Incoming challenges: decide, reserve a slot, and answer while Lichess still waits.

An accepted challenge reserves its slot before any await, so a burst cannot
overshoot the concurrency.  An answer held by a rate-limit pause, or by a
closed or just re-opened event stream, goes out only while the challenge is
still open: not withdrawn, and listed again by the stream opened last (lila
lists the challenges still waiting when a stream opens; modules/api/src/main/
EventStream.scala).

A real-time challenge turned away only for want of a free slot waits in the
queue (queue.py, challenge.queue_max) and is accepted when a slot frees.  Lila
may have taken it offline meanwhile (not listed, no event, still acceptable) or
deleted it (404): a queued accept goes out unless the challenger withdrew it,
and a 404 is one line, the slot going to the next one.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from bot.challenges.blocklist import OnlineBlockList
from bot.challenges.policy import Decision, RecentChallenges, Standing, decide
from bot.challenges.queue import ChallengeQueue, QueuedChallenge
from bot.challenges.ratings import OurRatings, perf_of
from bot.challenges.shared import ChallengeShared, ChallengeTasks
from bot.challenges.slots import Slots
from bot.config import LiveConfig
from bot.lichess.client import (
    ApiRejected,
    DailyLimitReached,
    Lichess,
    LichessError,
    OpponentAtDailyLimit,
    RateLimited,
)
from bot.lichess.events import Challenge

log = logging.getLogger(__name__)

CHALLENGE_MEMORY_S = 600.0  # how long an answered challenge's id is remembered
# After the event stream (re)opens, lila lists the challenges still waiting
# (modules/api/src/main/EventStream.scala); one not listed by then is gone.
CHALLENGE_LISTING_S = 3.0
QUEUE_POLL_S = 0.5  # how soon a freed slot goes to a waiting challenge


class Incoming:
    def __init__(self, api: Lichess, me: str, live: LiveConfig, shared: ChallengeShared,
                 blocked_online: OnlineBlockList, tasks: ChallengeTasks,
                 ratings: OurRatings) -> None:
        self.api, self.me, self.live, self.shared = api, me, live, shared
        self.ratings = ratings  # ours per perf (rating_difference), kept fresh by the desk
        self.slots, self.corr_slots = shared.slots, shared.corr_slots
        self.stream = shared.stream  # read-only: the event stream keeps it
        self.blocked_online, self.tasks = blocked_online, tasks
        self.recent = RecentChallenges()  # max_recent_bot_challenges
        self._seen: dict[str, float] = {}  # id -> monotonic arrival
        self._gone: set[str] = set()  # canceled/declined while an answer waited
        self._answering: set[str] = set()  # challenges whose answer is pending
        self._listed: dict[str, int] = {}  # challenge id -> event stream it was last listed on
        self.queue = ChallengeQueue()  # waiting for a free slot (challenge.queue_max)

    # -- events ------------------------------------------------------------------------
    def arrived(self, ch: Challenge) -> None:
        cid, user = ch.id, ch.challenger.login
        if user.lower() == self.me.lower():
            return  # our own outgoing challenge, echoed on the stream
        self._listed[cid] = self.stream.opened
        if cid in self._answering or cid in self.queue:
            return  # listed again on a re-opened stream: answered or waiting already
        self._forget_old()
        self._seen[cid] = time.monotonic()
        cfg = self.live.now.challenge
        # A slot freed since the queue was last served goes to the challenges waiting
        # for one, not to this newcomer (serve_queue polls every QUEUE_POLL_S: a
        # challenge sent the moment a game ended took the slot a waiting one was owed).
        self.take_queued()
        d = self._decide(ch)
        if d.busy and not ch.correspondence and len(self.queue) < cfg.queue_max:
            self.queue.add(ch)
            log.info("challenge %s waits for a free slot (%s; %d of queue_max %d waiting)",
                     ch.describe(), d.detail, len(self.queue), cfg.queue_max)
            return
        self._respond(ch, d)

    def _decide(self, ch: Challenge) -> Decision:
        user = ch.challenger.login
        cfg = self.live.now.challenge
        corr = ch.correspondence
        slots = self._slots_for(ch)
        limit = cfg.max_correspondence_games if corr else cfg.concurrency
        # reserved_for_humans: of the real-time slots, BOTs may hold only the others.
        bot_free = None if corr else \
            cfg.concurrency - cfg.reserved_for_humans - self.slots.bot_games()
        return decide(ch, cfg, Standing(
            games_with_user=self.slots.with_user(user) + self.corr_slots.with_user(user)
            + self.queue.with_user(user) - (ch.id in self.queue),  # not itself
            slots_free=slots.free(limit),
            shutting_down=self.shared.draining,
            bot_limit_reached=self.api.bot_limit_until > time.time(),
            online_blocked=user in self.blocked_online,
            recent_from_bot=self.recent.count(user, cfg.recent_bot_challenge_age_s),
            bot_slots_free=bot_free, my_rating=self.ratings.of(perf_of(ch))))

    def _respond(self, ch: Challenge, d: Decision, queued: bool = False) -> None:
        cid, user = ch.id, ch.challenger.login
        if d.accept:
            slots = self._slots_for(ch)
            # before any await: bursts can't overshoot
            slots.reserve(cid, user, bot=ch.challenger.is_bot, asking=True)
            if ch.challenger.is_bot:  # the limit is for BOTs only
                self.recent.add(user)
        self._answering.add(cid)
        task = self.tasks.spawn(self._answer(ch, d, queued), f"challenge-{cid}")
        task.add_done_callback(lambda _t: self._answering.discard(cid))

    # -- the queue ---------------------------------------------------------------------
    def queued(self) -> list[QueuedChallenge]:
        """The waiting challenges, the next one first (`pibot status`, `pibot queue`)."""
        cfg = self.live.now.challenge
        return self.queue.listing(cfg.queue_order, cfg.queue_humans_first)

    async def serve_queue(self) -> None:
        """Give each freed slot to the next waiting challenge that may take it.
        (Polled: slots free when games end, reservations lapse or a reload raises
        the concurrency, and a waiting BOT may have to let a human pass.)"""
        while True:
            self.take_queued()
            await asyncio.sleep(QUEUE_POLL_S)

    def take_queued(self) -> None:
        if self.shared.draining:
            for ch in self.queue.drain():
                self._respond(ch, Decision.decline("later", "shutting down"), queued=True)
            return
        cfg = self.live.now.challenge
        order = cfg.queue_order
        while len(self.queue):
            # A BOT that only slots for humans could take is passed over: it never
            # holds back a human behind it (lichess-bot's games_reserved_for_humans
            # stops at such a BOT).
            nxt = self.queue.take(order, lambda c: not self._decide(c).busy,
                                  cfg.queue_humans_first)
            if nxt is None:
                return
            self._respond(nxt, self._decide(nxt), queued=True)

    def withdrawn(self, cid: str) -> None:
        """Canceled by the challenger, or declined: its slot is free, a queued answer dropped."""
        if self.queue.remove(cid):
            log.info("challenge %s withdrawn while it waited for a slot", cid)
        self.release(cid)
        if cid in self._seen:
            self._gone.add(cid)

    def _slots_for(self, ch: Challenge) -> Slots:
        return self.corr_slots if ch.correspondence else self.slots

    def release(self, cid: str) -> None:
        self.slots.release(cid)
        self.corr_slots.release(cid)

    def _forget_old(self) -> None:
        now = time.monotonic()
        for old, t in list(self._seen.items()):
            if now - t > CHALLENGE_MEMORY_S and old not in self._answering \
                    and old not in self.queue:
                del self._seen[old]
                self._gone.discard(old)
                self._listed.pop(old, None)

    # -- answers ---------------------------------------------------------------------
    def _waits(self, cid: str) -> bool:
        """Lichess still waits for our answer: not withdrawn, and listed by the event
        stream opened last (lila never expires a challenge whose challenger keeps it
        alive, and sends no event when it takes one offline: ChallengeApi.sweep)."""
        if cid in self._gone:
            return False
        relisted = self._listed.get(cid) == self.stream.opened
        return relisted or time.monotonic() - self.stream.opened_at < CHALLENGE_LISTING_S

    async def _hold(self, name: str, cid: str) -> None:
        """Wait while the answer's class is paused, and while it is unknown whether
        Lichess still waits for it: the event stream is down, or has just re-opened
        and may still list it."""
        while self._waits(cid):
            if self.api.paused_for(name) > 0:
                await self.api.wait_unpaused(name, lambda: self._waits(cid))
                continue
            if not self.stream.up:
                await asyncio.sleep(0.2)
                continue
            settle = self.stream.opened_at + CHALLENGE_LISTING_S - time.monotonic()
            if settle <= 0 or self._listed.get(cid) == self.stream.opened:
                return
            await asyncio.sleep(settle)

    async def _answer(self, ch: Challenge, d: Decision, queued: bool = False) -> None:
        cid = ch.id
        # While challenge answers are rate-limited the answer waits, and goes out when
        # the pause ends: Lichess still waits for it, unless the challenge was withdrawn
        # or the re-opened event stream no longer lists it.  A queued one may have gone
        # offline (unlisted, yet acceptable): only its withdrawal drops the answer.
        def wanted() -> bool:
            return cid not in self._gone if queued else self._waits(cid)

        if d.accept:
            log.info("accepting challenge %s%s", ch.describe(),
                     " (it waited for a free slot)" if queued else "")
        else:
            log.info("declining challenge %s: %s (%s)", ch.describe(), d.reason, d.detail)
        try:
            if not queued:
                await self._hold("accept" if d.accept else "decline", cid)
            if d.accept:
                await self.api.challenges.accept(cid, wanted=wanted)
            else:
                await self.api.challenges.decline(cid, d.reason, wanted=wanted)
        except DailyLimitReached as exc:
            # lila Challenge.apiAccept: a BOT at its daily bot-game limit gets 429.
            self.release(cid)
            log.warning("challenge %s: %s; declining bot challenges until then", cid, exc)
            await self._decline_quietly(cid, "later", wanted)
        except OpponentAtDailyLimit as exc:
            self.release(cid)
            log.info("challenge %s: the challenger is at its daily bot limit (%s)", cid, exc)
            await self._decline_quietly(cid, "later", wanted)
        except RateLimited as exc:
            log.info("challenge %s: answer dropped (%s)", cid, exc)
            self.release(cid)
        except ApiRejected as exc:
            if queued and exc.status == 404:
                # lila deletes an offline challenge 3 h after it went offline
                # (ChallengeApi.sweep); the next waiting one takes the slot.
                log.info("challenge %s no longer exists on Lichess (404) after waiting "
                         "for a slot; skipped", cid)
            else:
                log.info("challenge %s gone before we answered: %s", cid, exc)
            self.release(cid)
        except LichessError as exc:
            log.warning("challenge %s: %s", cid, exc)
            self.release(cid)
        finally:
            if d.accept:  # taken (or released above, or cancelled): the TTL runs from now
                self._slots_for(ch).answered(cid)

    async def _decline_quietly(self, cid: str, reason: str,
                               wanted: Callable[[], bool]) -> None:
        try:
            await self.api.challenges.decline(cid, reason, wanted=wanted)
        except LichessError as exc:
            log.info("challenge %s: decline failed: %s", cid, exc)
