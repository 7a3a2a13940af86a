"""The latest answers to our own challenges, kept by the desk for both senders.

An answer (gameStart: the game has its challenge's id; challengeDeclined;
challengeCanceled) arrives on the event stream, and can arrive before the POST
that created the challenge has returned -- a bot that declines at once, a slow
way back.  So every answer is recorded here, whether anyone waits on it yet or
not, and matchmaking and `pibot challenge` series look theirs up when their
POST returns.  The record is bounded: oldest first out.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Literal

Answer = Literal["started", "declined", "canceled"]
KEPT = 256  # far more answers than arrive while one POST is on its way back


class RecentAnswers:
    def __init__(self, kept: int = KEPT) -> None:
        self._kept = kept
        self._by_id: OrderedDict[str, Answer] = OrderedDict()

    def record(self, challenge_id: str, how: Answer) -> None:
        self._by_id[challenge_id] = how
        self._by_id.move_to_end(challenge_id)
        while len(self._by_id) > self._kept:
            self._by_id.popitem(last=False)

    def get(self, challenge_id: str) -> Answer | None:
        return self._by_id.get(challenge_id)

    def __len__(self) -> int:
        return len(self._by_id)
