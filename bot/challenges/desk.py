"""The challenge desk: every challenge, incoming or our own, goes through here.

It holds the incoming challenges' answers (incoming.py, with the accept policy
of policy.py), our own challenges (matchmaking.py; the owner's `pibot
challenge` series: outgoing.py) and the online block lists both consult
(blocklist.py), and the answers to our own challenges both senders read
(answers.py).  Slots are shared with the game supervisor: the desk reserves
one before it accepts or sends a challenge, the supervisor fills it when the
game starts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Container

from bot.challenges.answers import RecentAnswers
from bot.challenges.blocklist import OnlineBlockList
from bot.challenges.incoming import Incoming, Spawn
from bot.challenges.matchmaking import Matchmaker
from bot.challenges.outgoing import Outgoing
from bot.challenges.queue import QueuedChallenge
from bot.challenges.slots import Slots
from bot.config import LiveConfig
from bot.lichess.client import Lichess
from bot.lichess.events import ChallengeCanceled, ChallengeDeclined, ChallengeEvent
from bot.lichess.streams import StreamStatus


class ChallengeDesk:
    def __init__(self, api: Lichess, me: str, live: LiveConfig, slots: Slots,
                 corr_slots: Slots, draining: Callable[[], bool],
                 recent_opponents: Container[str], stream: StreamStatus, spawn: Spawn) -> None:
        self.live = live
        self.blocked_online = OnlineBlockList()  # challenge.online_block_list's names
        self.incoming = Incoming(api, me, live, slots, corr_slots, draining,
                                 self.blocked_online, stream, spawn)
        self.answers = RecentAnswers()  # to our own challenges, read by both senders
        self.matchmaker = Matchmaker(api, me, live,
                                     lambda: not draining() and slots.used() == 0,
                                     slots, recent=recent_opponents, answers=self.answers)
        self.outgoing = Outgoing(api, me, live, slots, draining, spawn,  # pibot challenge
                                 self.answers)

    def tasks(self) -> dict[str, Callable[[], Awaitable[None]]]:
        """The desk's long-lived tasks, for the service to supervise."""
        return {"matchmaking": self.matchmaker.run, "block-lists": self._block_lists,
                "challenge-queue": self.incoming.serve_queue}

    def queued(self) -> list[QueuedChallenge]:
        """The challenges waiting for a free slot, the next one first: id, challenger,
        rating, speed, waiting since (Unix time), bot (`pibot status`, `pibot queue`)."""
        return self.incoming.queued()

    def on_event(self, ev: ChallengeEvent | ChallengeCanceled | ChallengeDeclined) -> None:
        if isinstance(ev, ChallengeEvent):
            self.incoming.arrived(ev.challenge)
            return
        cid = ev.challenge.id
        self.incoming.withdrawn(cid)
        self.answers.record(cid, "declined" if isinstance(ev, ChallengeDeclined)
                            else "canceled")
        if isinstance(ev, ChallengeDeclined):
            self.matchmaker.declined(ev.challenge)
        self.matchmaker.challenge_answered(cid)

    def game_started(self, game_id: str) -> None:
        """A game created from a challenge has the challenge's id."""
        self.answers.record(game_id, "started")
        self.matchmaker.challenge_answered(game_id)

    async def _block_lists(self) -> None:
        live = self.live
        refresh = lambda: live.now.network.block_list_refresh_s  # noqa: E731
        await asyncio.gather(
            self.blocked_online.run(lambda: live.now.challenge.online_block_list, refresh),
            self.matchmaker.blocked_online.run(lambda: live.now.matchmaking.online_block_list,
                                               refresh))
