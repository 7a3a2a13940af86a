"""The records the service hands to the RecordWriter.

Plain frozen dataclasses: built on the event loop from what the game stream
said, written later on the writer's thread.  Fields that a caller may not know
yet are optional; a later record for the same game or ply fills them in (a
move's row is merged, column by column, with what is already there).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

SOURCES = ("book", "tablebase", "online", "engine", "opponent")
EVENT_KINDS = ("start", "stop", "reload", "rate_limit", "daily_limit", "throttled",
               "failure", "token")

# Lichess speed from an estimated duration (base + 40 * increment), as lila's Speed.
_SPEED_LIMITS = ((29, "ultraBullet"), (179, "bullet"), (479, "blitz"), (1499, "rapid"))


def speed_of(initial_s: float, increment_s: float) -> str:
    total = initial_s + 40 * increment_s
    for limit, name in _SPEED_LIMITS:
        if total <= limit:
            return name
    return "classical"


@dataclass(frozen=True)
class GameStart:
    game_id: str
    account: str
    color: str                      # ours: white | black
    opponent: str
    opponent_title: str | None
    my_rating: int | None
    opponent_rating: int | None
    speed: str                      # Lichess key: bullet, blitz, correspondence, ...
    variant: str                    # Lichess key: standard, chess960, crazyhouse, ...
    rated: bool
    site: str                       # https://lichess.org
    started_at: float               # Unix time
    initial_fen: str | None = None  # None: the standard start
    clock_initial_ms: int | None = None
    clock_increment_ms: int | None = None
    days_per_turn: int | None = None
    tournament_id: str | None = None
    tournament_name: str | None = None
    strength: str | None = None     # the engine's level: "full" or an Elo ("1450")
    strength_rule: str | None = None  # what set it: full, an Elo, match[+-N], fallback


@dataclass(frozen=True)
class MoveRecord:
    game_id: str
    ply: int                        # 0 = the game's first move
    color: str                      # who played it
    uci: str
    san: str | None = None
    clock_before_ms: int | None = None
    clock_after_ms: int | None = None   # the mover's clock after it (what %clk shows)
    think_ms: int | None = None
    score_cp: int | None = None     # eval after the move, from the MOVER's side
    mate: int | None = None         # mate in N for the mover (negative: mated)
    depth: int | None = None
    nodes: int | None = None
    source: str | None = None       # one of SOURCES
    latency_ms: float | None = None
    at: float = field(default_factory=time.time)


@dataclass(frozen=True)
class GameEnd:
    game_id: str
    status: str                     # Lichess status: mate, resign, outoftime, aborted, ...
    winner: str | None              # white | black | None
    ended_at: float = field(default_factory=time.time)
    my_rating_after: int | None = None
    opponent_rating_after: int | None = None
    plies: int | None = None        # moves in the final game: rows past it were taken back


@dataclass(frozen=True)
class RatingsAfter:
    """What Lichess reports of a rated game once it is over (the event stream's
    gameFinish, lila.game.JsonView.ownerPreview): our rating change, and the
    opponent's rating and change.  Our rating after is the one the game started
    with (GameStart.my_rating) plus our change.  The opponent's after is recorded
    only where the payload gives it (its rating and its change), else it stays
    NULL: it is never guessed as ours negated (Glicko-2 changes are not
    symmetric).  It may reach the writer before or after the game's GameEnd."""

    game_id: str
    my_rating_diff: int | None = None
    opponent_rating_after: int | None = None


@dataclass(frozen=True)
class ServiceEvent:
    kind: str                       # one of EVENT_KINDS
    detail: str = ""
    until: float | None = None      # end of a pause or limit (Unix time)
    game_id: str | None = None
    at: float = field(default_factory=time.time)


@dataclass(frozen=True)
class HeatSample:
    """The CPU over one period (minutes): its hottest reading, and whether it was
    throttled or capped at any moment of it."""

    temp_c: float | None            # None: no sensor
    throttled: bool
    at: float = field(default_factory=time.time)


@dataclass(frozen=True)
class Declined:
    """A bot declined matchmaking's challenge: not challenged again (in `aspect`, or
    at all when it is "") before `until` (bot/challenges/declines.py)."""

    bot: str                        # its id, lowercase
    aspect: str                     # "" = the whole bot; a speed, rated/casual, a variant
    reason: str                     # Lichess's declineReasonKey, lowercase
    until: float                    # Unix time
    at: float = field(default_factory=time.time)


Record = GameStart | MoveRecord | GameEnd | RatingsAfter | ServiceEvent | HeatSample | Declined


def result_for(color: str, status: str, winner: str | None) -> str | None:
    """win | draw | loss from our side; None for a game that counts for nothing."""
    if status in ("aborted", "noStart", "created", "started"):
        return None
    if winner is None:
        return "draw"
    return "win" if winner == color else "loss"
