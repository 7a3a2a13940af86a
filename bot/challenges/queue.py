"""Challenges that wait for a free slot (challenge.queue_max, queue_order,
queue_humans_first).

A real-time challenge that arrives while every slot is busy waits here instead
of being declined `later`, and is accepted when a slot frees.  The queue only
orders and picks; the desk's Incoming decides, answers, and drops an entry its
challenger withdrew (`challengeCanceled`).  Lila itself keeps an unanswered
challenge acceptable for a while: a real-time one goes offline ~20 s after its
challenger stops keeping it alive and is deleted 3 h later, without any event
(modules/challenge/src/main/ChallengeApi.scala `sweep`); an accept then gets 404.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from bot.lichess.events import Challenge

ORDERS = ("first", "rating")


@dataclass(frozen=True)
class QueuedChallenge:
    """A waiting challenge as `pibot status` and `pibot queue` list it."""

    id: str
    challenger: str
    rating: int | None
    speed: str
    waiting_since: float  # Unix time it arrived
    bot: bool


@dataclass(frozen=True)
class _Entry:
    challenge: Challenge
    seq: int  # arrival order
    since: float  # Unix time


class ChallengeQueue:
    def __init__(self) -> None:
        self._entries: dict[str, _Entry] = {}
        self._seq = 0

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, cid: object) -> bool:
        return cid in self._entries

    def add(self, ch: Challenge, now: float | None = None) -> None:
        self._seq += 1
        self._entries[ch.id] = _Entry(ch, self._seq, time.time() if now is None else now)

    def remove(self, cid: str) -> bool:
        return self._entries.pop(cid, None) is not None

    def with_user(self, user: str) -> int:
        user = user.lower()
        return sum(1 for e in self._entries.values()
                   if e.challenge.challenger.login.lower() == user)

    def _ordered(self, order: str, humans_first: bool = False) -> list[_Entry]:
        entries = sorted(self._entries.values(), key=lambda e: e.seq)
        if order == "rating":
            # lichess-bot sort_by: best (Challenge.score): the best-rated first; an
            # unrated challenger last; arrival breaks ties (a stable sort).
            entries.sort(key=lambda e: -(e.challenge.challenger.rating or 0))
        if humans_first:  # queue_humans_first: the humans, then the BOTs, each in order
            entries.sort(key=lambda e: e.challenge.challenger.is_bot)
        return entries

    def take(self, order: str, fits: Callable[[Challenge], bool],
             humans_first: bool = False) -> Challenge | None:
        """The first challenge, in `order` (humans before BOTs with `humans_first`),
        that `fits` the free slots, removed.  One that does not fit (a BOT while only
        slots for humans are free) is passed over, never holding back those behind it."""
        for e in self._ordered(order, humans_first):
            if fits(e.challenge):
                del self._entries[e.challenge.id]
                return e.challenge
        return None

    def drain(self) -> list[Challenge]:
        """Every waiting challenge, removed (at shutdown)."""
        out = [e.challenge for e in self._ordered("first")]
        self._entries.clear()
        return out

    def listing(self, order: str, humans_first: bool = False) -> list[QueuedChallenge]:
        return [QueuedChallenge(e.challenge.id, e.challenge.challenger.name
                                or e.challenge.challenger.login,
                                e.challenge.challenger.rating, e.challenge.speed, e.since,
                                e.challenge.challenger.is_bot)
                for e in self._ordered(order, humans_first)]
