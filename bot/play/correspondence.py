"""Correspondence (days-per-move) games: what sets them apart from real-time ones.

- They have their own slots (`challenge.max_correspondence_games`), so a game
  that lasts weeks never blocks a real-time one (`challenge.concurrency`).
- A game whose opponent has been quiet for `correspondence.disconnect_time`
  "parks": its stream closes and its engine goes back; the game still holds its
  correspondence slot.  The game's stream reader (game_stream.py) checks
  `should_park` whenever nothing has come for a while.
- The service checks in every `correspondence.checkin_period` with
  /api/account/playing (`isMyTurn`; Lichess is asked at most once a minute) and
  brings back the parked games where it is our turn.
- No no-first-move abort timer, and `correspondence.move_time` per move.
"""

from __future__ import annotations

from dataclasses import dataclass, field


def should_park(correspondence: bool, over: bool, busy: bool, my_turn: bool,
                last_activity: float, disconnect_time: float, now: float) -> bool:
    """Leave the game now? Only while the opponent thinks and we have nothing in flight."""
    return (correspondence and not over and not busy and not my_turn
            and now - last_activity >= disconnect_time)


@dataclass
class Parked:
    """Parked correspondence games: id -> opponent (their slot stays taken)."""

    games: dict[str, str] = field(default_factory=dict)

    def park(self, game_id: str, opponent: str) -> None:
        self.games[game_id] = opponent

    def unpark(self, game_id: str) -> None:
        self.games.pop(game_id, None)

    def __contains__(self, game_id: object) -> bool:
        return game_id in self.games

    def gone(self, playing: set[str]) -> list[str]:
        """Parked games no longer in progress (ended while we were away)."""
        return [gid for gid in self.games if gid not in playing]
