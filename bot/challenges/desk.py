"""The challenge desk: every challenge, incoming or our own, goes through here.

It holds the incoming challenges' answers (incoming.py, with the accept policy
of policy.py), our own challenges (matchmaking.py, with the bots that declined
them: declines.py; the owner's `pibot challenge` series: outgoing.py) and the
online block lists both consult (blocklist.py), the answers to our own challenges both senders read
(answers.py) and our own ratings (ratings.py, for rating_difference).  Slots
are shared with the game supervisor: the desk reserves one before it accepts
or sends a challenge, the supervisor fills it when the game starts.
"""

from __future__ import annotations

import asyncio

from bot.challenges.answers import Answer, RecentAnswers
from bot.challenges.blocklist import OnlineBlockList
from bot.challenges.declines import Declines
from bot.challenges.incoming import Incoming
from bot.challenges.matchmaking import Matchmaker
from bot.challenges.outgoing import Outgoing
from bot.challenges.queue import QueuedChallenge
from bot.challenges.ratings import OurRatings
from bot.challenges.shared import ChallengeShared, ChallengeTasks
from bot.config import LiveConfig
from bot.lichess.client import Lichess
from bot.lichess.events import (
    Challenge,
    ChallengeCanceled,
    ChallengeDeclined,
    ChallengeEvent,
    GameStart,
    Profile,
)


class ChallengeDesk:
    def __init__(self, api: Lichess, me: str, live: LiveConfig, shared: ChallengeShared,
                 tasks: ChallengeTasks, account: Profile | None = None,
                 declines: Declines | None = None) -> None:
        """`tasks` runs the desk's answers and series, and supervises its loops (start());
        `account`: ours as the login read it (our ratings until they are read again);
        `declines`: the bots that declined matchmaking, as the records database keeps them."""
        self.live, self.tasks = live, tasks
        self.blocked_online = OnlineBlockList()  # challenge.online_block_list's names
        # for challenge.rating_difference and matchmaking.opponent_rating_difference
        self.ratings = OurRatings(api, live, account)
        self.incoming = Incoming(api, me, live, shared, self.blocked_online, tasks,
                                 self.ratings)
        self.answers = RecentAnswers()  # to our own challenges, read by both senders
        self.matchmaker = Matchmaker(api, me, live, shared, self.answers, declines,
                                     self.ratings)
        self.outgoing = Outgoing(api, me, live, shared, tasks, self.answers)  # pibot challenge

    def start(self) -> None:
        """Supervise the desk's long-lived loops."""
        self.tasks.supervise("matchmaking", self.matchmaker.run)
        self.tasks.supervise("block-lists", self._block_lists)
        self.tasks.supervise("challenge-queue", self.incoming.serve_queue)
        self.tasks.supervise("our-ratings", self.ratings.run)

    def queued(self) -> list[QueuedChallenge]:
        """The challenges waiting for a free slot, the next one first: id, challenger,
        rating, speed, waiting since (Unix time), bot (`pibot status`, `pibot queue`)."""
        return self.incoming.queued()

    # -- what the event stream says (the service subscribes these) ------------------
    def challenge(self, ev: ChallengeEvent) -> None:
        self.incoming.arrived(ev.challenge)

    def canceled(self, ev: ChallengeCanceled) -> None:
        self._withdrawn(ev.challenge, "canceled")

    def declined(self, ev: ChallengeDeclined) -> None:
        self._withdrawn(ev.challenge, "declined")

    def game_started(self, ev: GameStart) -> None:
        """A game created from a challenge has the challenge's id."""
        self.answers.record(ev.game.id, "started")
        self.matchmaker.challenge_answered(ev.game.id)

    def _withdrawn(self, ch: Challenge, how: Answer) -> None:
        self.incoming.withdrawn(ch.id)
        self.answers.record(ch.id, how)
        if how == "declined":
            self.matchmaker.declined(ch)
        self.matchmaker.challenge_answered(ch.id)

    async def _block_lists(self) -> None:
        live = self.live
        refresh = lambda: live.now.network.block_list_refresh_s  # noqa: E731
        await asyncio.gather(
            self.blocked_online.run(lambda: live.now.challenge.online_block_list, refresh),
            self.matchmaker.blocked_online.run(lambda: live.now.matchmaking.online_block_list,
                                               refresh))
