"""Shapes of the JSON the emulator sends, following lichess-org/api doc/specs.

Only the TypedDicts and the static lookup tables live here; the objects that
fill them in are in game.py / challenge.py.
"""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict

# Game status ids, as in lila's chess.Status.
STATUS_IDS: dict[str, int] = {
    "created": 10,
    "started": 20,
    "aborted": 25,
    "mate": 30,
    "resign": 31,
    "stalemate": 32,
    "timeout": 33,
    "draw": 34,
    "outoftime": 35,
    "cheat": 36,
    "noStart": 37,
    "unknownFinish": 38,
    "insufficientMaterialClaim": 39,  # scalachess Status.scala; api doc/specs GameStatus
    "variantEnd": 60,
}

# Lichess variant key -> (name, short, python-chess variant name or None for standard rules)
VARIANTS: dict[str, tuple[str, str, str | None]] = {
    "standard": ("Standard", "Std", None),
    "chess960": ("Chess960", "960", None),
    "fromPosition": ("From Position", "FEN", None),
    "crazyhouse": ("Crazyhouse", "ZH", "crazyhouse"),
    "antichess": ("Antichess", "Anti", "antichess"),
    "atomic": ("Atomic", "Atom", "atomic"),
    "horde": ("Horde", "Horde", "horde"),
    "kingOfTheHill": ("King of the Hill", "KotH", "kingofthehill"),
    "racingKings": ("Racing Kings", "RK", "racingkings"),
    "threeCheck": ("Three-check", "3check", "threecheck"),
}

# Text Lichess shows for each decline reason key (lila's DeclineReason).
DECLINE_REASONS: dict[str, str] = {
    "generic": "I'm not accepting challenges at the moment.",
    "later": "This is not the right time for me, please ask again later.",
    "tooFast": "This time control is too fast for me, please challenge again with a slower game.",
    "tooSlow": "This time control is too slow for me, please challenge again with a faster game.",
    "timeControl": "I'm not accepting challenges with this time control.",
    "rated": "Please send me a rated challenge instead.",
    "casual": "Please send me a casual challenge instead.",
    "standard": "I'm not accepting variant challenges right now.",
    "variant": "I'm not willing to play this variant right now.",
    "noBot": "I'm not accepting challenges from bots.",
    "onlyBot": "I'm only accepting challenges from bots.",
}

UNLIMITED_MS = 2147483647  # what Lichess puts in wtime/btime for games without a clock


class VariantJson(TypedDict):
    key: str
    name: str
    short: str


class ChallengeUser(TypedDict):
    id: str
    name: str
    title: str | None
    rating: int
    provisional: bool
    online: bool


class TimeControlJson(TypedDict, total=False):
    type: str  # "clock" | "correspondence" | "unlimited"
    limit: int
    increment: int
    show: str
    daysPerTurn: int


class PerfJson(TypedDict):
    icon: str
    name: str


class ChallengeJson(TypedDict):
    id: str
    url: str
    status: str
    challenger: ChallengeUser
    destUser: ChallengeUser | None
    variant: VariantJson
    rated: bool
    speed: str
    timeControl: TimeControlJson
    color: str
    finalColor: str
    perf: PerfJson
    direction: NotRequired[str]
    compat: NotRequired[dict[str, bool]]
    initialFen: NotRequired[str]
    declineReason: NotRequired[str]
    declineReasonKey: NotRequired[str]


class ChallengeEvent(TypedDict):
    type: str  # challenge | challengeCanceled | challengeDeclined
    challenge: ChallengeJson
    compat: NotRequired[dict[str, bool]]


class OpponentJson(TypedDict):
    id: str
    username: str
    rating: int
    ratingDiff: NotRequired[int]  # a rated game over (lila.game.JsonView.ownerPreview)


class GameEventInfo(TypedDict):
    fullId: str
    gameId: str
    id: str
    fen: str
    color: str
    lastMove: str
    source: str
    status: dict[str, Any]
    variant: dict[str, str]
    speed: str
    perf: str
    rated: bool
    hasMoved: bool
    opponent: OpponentJson
    isMyTurn: bool
    secondsLeft: NotRequired[int]  # absent without a clock
    compat: dict[str, bool]
    winner: NotRequired[str]
    tournamentId: NotRequired[str]
    ratingDiff: NotRequired[int]  # ours, a rated game over (lila: pov.player.ratingDiff)


class GameEvent(TypedDict):
    type: str  # gameStart | gameFinish
    game: GameEventInfo


class GameStateJson(TypedDict):
    type: str  # "gameState"
    moves: str
    wtime: int
    btime: int
    winc: int
    binc: int
    status: str
    winner: NotRequired[str]
    wdraw: NotRequired[bool]
    bdraw: NotRequired[bool]
    wtakeback: NotRequired[bool]
    btakeback: NotRequired[bool]
    expiration: NotRequired[ExpirationJson]


class ExpirationJson(TypedDict):
    """api doc/specs/schemas/GameStateEvent.yaml `expiration` (api b6e5874)."""

    idleMillis: int
    millisToMove: int


class PlayerJson(TypedDict):
    id: str
    name: str
    title: str | None
    rating: int
    provisional: bool


class GameFullJson(TypedDict):
    type: str  # "gameFull"
    id: str
    rated: bool
    variant: VariantJson
    clock: NotRequired[dict[str, int]]  # absent for correspondence/unlimited
    daysPerTurn: NotRequired[int]
    speed: str
    perf: dict[str, str]
    createdAt: int
    white: PlayerJson
    black: PlayerJson
    initialFen: str
    state: GameStateJson
    tournamentId: NotRequired[str]


class ChatLineJson(TypedDict):
    type: str  # "chatLine"
    room: str
    username: str
    text: str


class OpponentGoneJson(TypedDict):
    type: str  # "opponentGone"
    gone: bool
    claimWinInSeconds: NotRequired[int]


def speed_of(limit_s: int | None, increment_s: int | None, days: int | None) -> str:
    """Lichess speed category from the estimated game duration (limit + 40 * increment)."""
    if limit_s is None:
        return "correspondence"
    total = limit_s + 40 * (increment_s or 0)
    if total < 30:
        return "ultraBullet"
    if total < 180:
        return "bullet"
    if total < 480:
        return "blitz"
    if total < 1500:
        return "rapid"
    return "classical"


def show_clock(limit_s: int, increment_s: int) -> str:
    """Lichess's display form of a clock, e.g. "1+0", "½+0", "1.5+2"."""
    special = {15: "¼", 30: "½", 45: "¾", 90: "1.5"}
    if limit_s in special:
        base = special[limit_s]
    elif limit_s % 60 == 0:
        base = str(limit_s // 60)
    else:
        base = f"{limit_s / 60:g}"
    return f"{base}+{increment_s}"


def variant_json(key: str) -> VariantJson:
    name, short, _ = VARIANTS[key]
    return {"key": key, "name": name, "short": short}


def perf_key(variant: str, speed: str) -> str:
    """The rating category a game counts for (variants have their own)."""
    if variant in ("standard", "fromPosition"):
        return speed
    return variant


def perf_name(key: str) -> str:
    names = {
        "ultraBullet": "UltraBullet",
        "bullet": "Bullet",
        "blitz": "Blitz",
        "rapid": "Rapid",
        "classical": "Classical",
        "correspondence": "Correspondence",
    }
    if key in names:
        return names[key]
    return VARIANTS[key][0] if key in VARIANTS else key
