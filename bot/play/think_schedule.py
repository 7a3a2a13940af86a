"""When a game thinks: at most one think (a move chosen and delivered) at a time.

A think starts when a game state puts us to move at a ply where we have not
moved yet, unless one for that ply runs already (a re-synced stream repeats the
state).  It is cancelled when a newer state makes it moot (a takeback), but not
by the echo of our own move, one ply past the think's: that often comes before
the POST's answer, and the think must finish.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

from bot.play.clock import Clock

# A think: the moves played so far and the clock they came with -> our move.
Think = Callable[[list[str], Clock], Coroutine[Any, Any, None]]


class ThinkSchedule:
    def __init__(self, think: Think) -> None:
        self._think = think
        self._task: asyncio.Task[None] | None = None
        self._ply = -1  # the ply the last think was started for

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def follow(self, played: list[str], clock: Clock, my_turn: bool, moved_ply: int) -> None:
        """A new game state: start a think, keep the one running, or cancel it.
        `moved_ply`: the ply at which the server accepted our last move."""
        ply = len(played)
        if my_turn and moved_ply != ply:
            if not (self.running and self._ply == ply):
                self.cancel()
                self._ply = ply
                self._task = asyncio.create_task(self._think(list(played), clock))
        elif not my_turn and self.running and ply != self._ply + 1:
            self.cancel()  # a takeback while we were thinking: that search is moot

    def cancel(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
