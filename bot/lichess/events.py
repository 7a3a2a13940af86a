"""TypedDicts for the Lichess bot API payloads we read.

Only the fields pibot uses are declared (total=False: Lichess adds fields over
time and omits some, e.g. `rating` for anonymous users).  Clock fields are
typed `Any` because berserk turns some of them into timedelta/datetime and
leaves others as ints; bot.play.clock normalises them once.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict


class LightUser(TypedDict, total=False):
    id: str
    name: str
    title: str | None
    rating: int
    provisional: bool


class Variant(TypedDict, total=False):
    key: str
    name: str


class TimeControl(TypedDict, total=False):
    type: Literal["clock", "correspondence", "unlimited"]
    limit: int  # seconds
    increment: int  # seconds
    daysPerTurn: int


class Challenge(TypedDict, total=False):
    id: str
    status: str
    challenger: LightUser
    destUser: LightUser | None
    variant: Variant
    rated: bool
    speed: str
    timeControl: TimeControl
    color: str
    initialFen: str


class ChallengeEvent(TypedDict):
    type: Literal["challenge", "challengeCanceled", "challengeDeclined"]
    challenge: Challenge


class GameInfo(TypedDict, total=False):
    gameId: str
    id: str
    fullId: str
    color: Literal["white", "black"]
    fen: str
    isMyTurn: bool
    opponent: dict[str, Any]
    rated: bool
    speed: str
    variant: Variant
    source: str


class GameEvent(TypedDict):
    type: Literal["gameStart", "gameFinish"]
    game: GameInfo


class GameStateEvent(TypedDict, total=False):
    type: Literal["gameState"]
    moves: str
    wtime: Any
    btime: Any
    winc: Any
    binc: Any
    status: str
    winner: Literal["white", "black"]
    wdraw: bool
    bdraw: bool
    wtakeback: bool
    btakeback: bool


class GamePlayer(TypedDict, total=False):
    id: str
    name: str
    title: str | None
    rating: int
    aiLevel: int


class GameClock(TypedDict, total=False):
    initial: int  # ms
    increment: int  # ms


class GameFullEvent(TypedDict, total=False):
    type: Literal["gameFull"]
    id: str
    variant: Variant
    clock: GameClock | None
    daysPerTurn: int
    speed: str
    rated: bool
    createdAt: Any
    white: GamePlayer
    black: GamePlayer
    initialFen: str
    state: GameStateEvent


class ChatLineEvent(TypedDict, total=False):
    type: Literal["chatLine"]
    room: Literal["player", "spectator"]
    username: str
    text: str


class OpponentGoneEvent(TypedDict, total=False):
    type: Literal["opponentGone"]
    gone: bool
    claimWinInSeconds: int


class RateLimit(TypedDict, total=False):
    key: str
    seconds: int


class ErrorPayload(TypedDict, total=False):
    error: str
    ratelimit: RateLimit


class TokenInfo(TypedDict, total=False):
    userId: str
    scopes: str
    expires: Any


class Account(TypedDict, total=False):
    id: str
    username: str
    title: str
    perfs: dict[str, Any]


Event = dict[str, Any]  # an event before dispatch on its "type"
