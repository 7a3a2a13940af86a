"""Keeping the account's one event stream open, and telling its subscribers what it says.

The stream thread parses each line into an event (bot.lichess.events) and
queues it; this loop takes them off the queue and hands each to the rooms that
subscribed to its type (`Subscribers`, filled by the service's composition
root).  The dispatch is a `match` over the AccountEvent union ending in
`assert_never`, so an event type added to the union fails mypy here until it
has its row; a type nobody subscribes to is one debug line.  The stream's
status (opened, when, up) has one owner, this loop: the others read it as a
StreamView.

lila allows one event stream per token: opening one ends the previous one
opened with the same token cleanly (modules/api/src/main/EventStream.scala
publishes a PoisonPill to `eventStreamForBearer:<token>`; per account, on
`eventStreamFor:<user>`, before lila 20cd2f84, lichess-org/api#518).  So our
stream ending cleanly soon after it opened, again and again, means another
program is using this token: say so once and back off for minutes instead of
fighting over the stream.  A program on another token of the account never
closes ours (both streams hear every event): that shows only in a game, as a
move of ours pibot did not play (bot/play/moves.py, docs/lichess.md).
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Callable
from typing import TypeVar, assert_never

from bot.config import LiveConfig
from bot.errors import UserError
from bot.lichess.client import Lichess, backoff_s
from bot.lichess.events import (
    AccountEvent,
    ChallengeCanceled,
    ChallengeDeclined,
    ChallengeEvent,
    GameFinish,
    GameStart,
)
from bot.lichess.streams import Item, StreamClosed, StreamOpened, StreamStatus, StreamView
from bot.lichess.token import CREATE_URL

log = logging.getLogger(__name__)

STREAM_CONFLICT_WINDOW_S = 30.0  # a clean close this soon after opening is suspicious...
STREAM_CONFLICTS = 3  # ...this many times in a row: another client holds the stream
# How long the stream may stay closed before the rooms are told it is held (`held`).
# lila announces an arena pairing only as gameStart on this stream, and a bot's
# arena game (Bullet or slower: TournamentForm.validClockForBots) loses by noStart
# 16 s after its start (RoundGame.timeForFirstMove, Finisher.noStart).  A stream
# re-opened within 8 s still hears that gameStart (EventStream.scala lists the
# games in progress when it opens) with 8 s left: enough for the re-open, the
# game stream and a first move (capped at 3 s, docs/lichess.md row 4).  Longer
# (a 429 pause, a long backoff), and the arena room takes a break (arenas.py).
HOLD_GRACE_S = 8.0


_E = TypeVar("_E")


class Subscribers:
    """Who hears what the account's event stream says: a row per kind of event
    (and per moment of the stream's life), each heard in the order subscribed."""

    def __init__(self) -> None:
        self.challenge: list[Callable[[ChallengeEvent], None]] = []
        self.challenge_canceled: list[Callable[[ChallengeCanceled], None]] = []
        self.challenge_declined: list[Callable[[ChallengeDeclined], None]] = []
        self.game_start: list[Callable[[GameStart], None]] = []
        self.game_finish: list[Callable[[GameFinish], None]] = []
        self.opened: list[Callable[[], None]] = []  # a stream has opened
        self.closed: list[Callable[[str], None]] = []  # one has closed (why); the loop waits
        self.reopening: list[Callable[[], None]] = []  # that wait is over
        # The stream stays closed this many seconds, over HOLD_GRACE_S (a 429 pause).
        self.held: list[Callable[[float], None]] = []

    def deliver(self, ev: AccountEvent) -> None:
        match ev:
            case ChallengeEvent():
                _tell(self.challenge, ev)
            case ChallengeCanceled():
                _tell(self.challenge_canceled, ev)
            case ChallengeDeclined():
                _tell(self.challenge_declined, ev)
            case GameStart():
                _tell(self.game_start, ev)
            case GameFinish():
                _tell(self.game_finish, ev)
            case _:
                assert_never(ev)


def _tell(row: list[Callable[[_E], None]], ev: _E) -> None:
    if not row:
        log.debug("event stream: ignoring %s", type(ev).__name__)
    for hear in row:
        hear(ev)


class EventStream:
    def __init__(self, api: Lichess, live: LiveConfig) -> None:
        """The rooms subscribe (`subscribers`) before the service supervises run()."""
        self.api, self.live = api, live
        self.subscribers = Subscribers()
        self._status = StreamStatus()

    @property
    def status(self) -> StreamView:
        return self._status

    async def run(self) -> None:
        """Keep one event stream open, re-opening it with backoff (a supervised task)."""
        failures = conflicts = 0
        warned = False
        while True:
            closed = await self._one()
            net = self.live.now.network
            if closed.status == 401:
                self.api.report("token", "event stream")
                # A revoked token: every retry would be refused too (stops the service).
                raise UserError("Lichess rejected the token (HTTP 401) on the event stream: it "
                                "was revoked or has expired; create a new one with the bot:play "
                                f"scope at {self.api.url}{CREATE_URL} and start pibot again")
            if closed.clean and closed.lived_s < STREAM_CONFLICT_WINDOW_S:
                conflicts += 1
            elif closed.status == 200 and closed.lived_s >= STREAM_CONFLICT_WINDOW_S:
                conflicts, warned = 0, False  # it lived: whatever it was is over
            if closed.status == 200 and closed.lived_s >= 60:
                failures = 0
            if conflicts >= STREAM_CONFLICTS:
                if not warned:
                    warned = True
                    log.warning("another program is using this token's event stream (Lichess "
                                "allows one per token, so each new one closes the other); "
                                "stop it, or pibot will only retry every %.0f s",
                                net.stream_conflict_backoff_s)
                delay = net.stream_conflict_backoff_s * random.uniform(0.8, 1.2)
            else:
                # >= 1 s even after a healthy stream: a server restart must not
                # bring every client back in the same instant.
                delay = backoff_s(failures, max(2.0, net.backoff_base_s),
                                  max(2.0, net.backoff_max_s))  # first: 1-2 s
                failures += 1
            wait = max(delay, closed.retry_at - time.monotonic())
            log.info("event stream closed (%s); re-opening in %.1f s", closed.reason, wait)
            for hear in self.subscribers.closed:
                hear(closed.reason)
            self._hold(wait)
            await asyncio.sleep(wait)
            for again in self.subscribers.reopening:
                again()

    def _hold(self, wait_s: float) -> None:
        """Tell the `held` subscribers when the stream stays closed past the grace."""
        if wait_s > HOLD_GRACE_S:
            for hear in self.subscribers.held:
                hear(wait_s)

    async def _one(self) -> StreamClosed:
        """One stream, from opening to its end: each event goes to its subscribers."""
        self._hold(self.api.paused_for("event_stream"))
        await self.api.wait_unpaused("event_stream")
        queue: asyncio.Queue[Item[AccountEvent]] = asyncio.Queue()
        stream = self.api.start_event_stream(queue)
        try:
            while True:
                item = await queue.get()
                match item:
                    case StreamOpened():
                        self._status.open(time.monotonic())
                        for hear in self.subscribers.opened:
                            hear()
                    case StreamClosed():
                        return item
                    case _:
                        self.subscribers.deliver(item)
        finally:
            self._status.close()
            stream.stop()
