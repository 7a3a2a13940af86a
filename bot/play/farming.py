"""Not farming: a rated game must not repeat a recent game's opening.

lila drops the rating result of a rated game with a BOT in it when one of the
pair's last PREV_GAMES games had the same first SAME_PLIES plies and the same
winner (lichess-org/lila modules/round/src/main/FarmBoostDetection.scala,
`botFarming`).  Two deterministic engines repeat each other exactly, so pibot:

- remembers the first SAME_PLIES plies of its last PREV_GAMES finished games per
  opponent (in memory: a restart forgets them);
- lets matchmaking prefer opponents it has no such game with;
- in a rated standard game against an opponent it remembers, plays its first
  move off those lines when the game is still on one of them: a different sound
  first move (white) or reply (black).  One differing ply early is enough for
  the first SAME_PLIES plies to differ, whoever wins.
"""

from __future__ import annotations

import random
from collections import OrderedDict

SAME_PLIES = 20  # lila FarmBoostDetection.SAME_PLIES
PREV_GAMES = 2  # lila FarmBoostDetection.PREV_GAMES
MAX_OPPONENTS = 1000  # memory bound: the least recent opponents are forgotten first

# Sound first moves, and replies sound against any first move (all legal after
# any first move of White's): the variation never costs the game.
WHITE_FIRST = ("e2e4", "d2d4", "c2c4", "g1f3")
BLACK_REPLIES = ("e7e6", "c7c6", "g8f6", "d7d6", "g7g6")


class RecentGames:
    """opponent -> the first SAME_PLIES plies of the last PREV_GAMES games (oldest first)."""

    def __init__(self) -> None:
        self._games: OrderedDict[str, list[tuple[str, ...]]] = OrderedDict()

    def record(self, opponent: str, moves: list[str]) -> None:
        key = opponent.lower()
        if not key or len(moves) < 2:
            return  # no game to compare (lila rates nothing under two plies either)
        games = self._games.pop(key, [])
        games.append(tuple(moves[:SAME_PLIES]))
        self._games[key] = games[-PREV_GAMES:]
        while len(self._games) > MAX_OPPONENTS:
            self._games.popitem(last=False)

    def lines(self, opponent: str) -> list[tuple[str, ...]]:
        return list(self._games.get(opponent.lower(), []))

    def __contains__(self, opponent: object) -> bool:
        return isinstance(opponent, str) and opponent.lower() in self._games


def avoided(lines: list[tuple[str, ...]], moves: list[str]) -> set[str]:
    """Moves that would keep this game on a remembered line's first SAME_PLIES plies."""
    ply = len(moves)
    if ply >= SAME_PLIES:
        return set()
    return {line[ply] for line in lines if len(line) > ply and list(line[:ply]) == moves}


def vary(lines: list[tuple[str, ...]], moves: list[str],
         rng: random.Random | None = None) -> str | None:
    """Our first move when the game from the standard start is still on a
    remembered line, chosen off it; None when there is nothing to vary."""
    if len(moves) > 1:
        return None
    avoid = avoided(lines, moves)
    if not avoid:
        return None
    pool = [m for m in (WHITE_FIRST if not moves else BLACK_REPLIES) if m not in avoid]
    return (rng or random).choice(pool) if pool else None
