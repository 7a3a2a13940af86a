"""What the challenge rooms are handed by the service when built: the part of its
shared state they use, and its tasks.

Both are Protocols, satisfied by the service's own objects (bot/service/shared.py
`Shared`, bot/service/tasks.py `Tasks`).  The service's shared object also holds
the PGN saver and the recent games (bot.play), which the challenges may not
import, nor the service itself; so each room declares here what it reads and
writes, mypy checks at the composition root that the one object fits, and the
challenges stay free of both packages.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Container, Coroutine
from typing import Any, Protocol

from bot.challenges.slots import Slots
from bot.lichess.streams import StreamView


class ChallengeShared(Protocol):
    """The service's state the desk, its senders and the arena room share."""

    @property
    def slots(self) -> Slots: ...  # real-time games, shared with the game supervisor
    @property
    def corr_slots(self) -> Slots: ...  # correspondence games
    @property
    def draining(self) -> bool: ...  # stopping: decline, send nothing, leave the arenas
    @property
    def recent_games(self) -> Container[str]: ...  # opponents of our recent games
    @property
    def stream(self) -> StreamView: ...  # the event stream's status


class ChallengeTasks(Protocol):
    """The service's tasks: an answer or a series spawned, a long-lived loop supervised
    (restarted with backoff); the service cancels them all at shutdown."""

    def spawn(self, coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]: ...
    def supervise(self, name: str, factory: Callable[[], Awaitable[None]]) -> None: ...
