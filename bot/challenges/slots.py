"""Concurrency accounting, shared by the challenge desk (which reserves a slot
before it accepts or sends a challenge) and the game supervisor (which starts
and finishes games in them)."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

RESERVATION_TTL_S = 30.0  # accepted challenges that never start free their slot after this


@dataclass
class Slots:
    """Concurrency accounting: running games plus accepted-but-not-started ones.

    A challenge is reserved *before* the accept request is sent, so a burst
    of challenges arriving together can never overshoot `concurrency`. Its
    reservation lapses only once the accept is answered: a 429 pause holds an
    accept for a minute, and a slot given away meanwhile would be taken twice
    when the held accept goes out.
    """

    running: dict[str, str] = field(default_factory=dict)  # game id -> opponent
    reserved: dict[str, tuple[str, float]] = field(default_factory=dict)  # id -> (user, expiry)
    # Arenas we are in hold a slot each (as BotLi does), which their games then use.
    arenas: set[str] = field(default_factory=set)
    arena_games: dict[str, str] = field(default_factory=dict)  # game id -> tournament id
    # ids of the reserved or running ones against BOT accounts (reserved_for_humans)
    bots: set[str] = field(default_factory=set)

    @property
    def asking(self) -> set[str]:
        """Reserved ones whose accept is not answered yet (no expiry until then)."""
        return {cid for cid, (_, until) in self.reserved.items() if until == math.inf}

    def _expire(self, now: float) -> None:
        for cid, (_, until) in list(self.reserved.items()):
            if now > until:
                del self.reserved[cid]

    def used(self, now: float | None = None) -> int:
        self._expire(time.monotonic() if now is None else now)
        in_held = sum(1 for tid in self.arena_games.values() if tid in self.arenas)
        return len(self.running) + len(self.reserved) + len(self.arenas) - in_held

    def hold_arena(self, tournament_id: str) -> None:
        self.arenas.add(tournament_id)

    def release_arena(self, tournament_id: str) -> None:
        self.arenas.discard(tournament_id)

    def free(self, concurrency: int) -> int:
        return concurrency - self.used()

    def with_user(self, user: str) -> int:
        user = user.lower()
        return sum(1 for u in self.running.values() if u == user) + \
            sum(1 for u, _ in self.reserved.values() if u == user)

    def reserve(self, challenge_id: str, user: str, ttl_s: float = RESERVATION_TTL_S,
                bot: bool = False, asking: bool = False) -> None:
        """Hold a slot for a challenge we accept or sent (until started or released).
        asking: our accept is on its way; the slot does not lapse until `answered`."""
        until = math.inf if asking else time.monotonic() + ttl_s
        self.reserved[challenge_id] = (user.lower(), until)
        if bot:
            self.bots.add(challenge_id)

    def answered(self, challenge_id: str) -> None:
        """Lichess took our accept: the game should start soon, or the slot lapses
        RESERVATION_TTL_S from now."""
        held = self.reserved.get(challenge_id)
        if held is not None:
            self.reserved[challenge_id] = (held[0], time.monotonic() + RESERVATION_TTL_S)

    def bot_games(self) -> int:
        """Slots held by games (or accepted challenges) against BOT accounts."""
        self._expire(time.monotonic())
        self.bots &= self.running.keys() | self.reserved.keys()
        return len(self.bots)

    def rename(self, old_id: str, new_id: str) -> None:
        """Our outgoing challenge got its id from the server."""
        held = self.reserved.pop(old_id, None)
        if held is not None and new_id not in self.running:  # gameStart may come first
            self.reserved[new_id] = held
        if old_id in self.bots:
            self.bots.discard(old_id)
            self.bots.add(new_id)

    def release(self, challenge_id: str) -> None:
        self.reserved.pop(challenge_id, None)

    def start(self, game_id: str, user: str, tournament_id: str | None = None) -> None:
        # On Lichess a game created from a challenge has the challenge's id.
        self.reserved.pop(game_id, None)
        self.running[game_id] = user.lower()
        if tournament_id is not None:
            self.arena_games[game_id] = tournament_id

    def finish(self, game_id: str) -> None:
        self.running.pop(game_id, None)
        self.reserved.pop(game_id, None)
        self.arena_games.pop(game_id, None)
