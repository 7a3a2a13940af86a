"""What Lichess sends, parsed once at the edge into frozen dataclasses.

The streams (bot.lichess.streams) and the client's JSON answers hand every
payload to a parser here; nothing past this module reads a payload dict.  Only
the fields pibot uses are kept: unknown fields are ignored, a missing optional
field takes its default, and a field of the wrong type makes the whole payload
malformed (`Malformed`).  `parse_account_event` and `parse_game_event` turn that
into one log line and None, so a stream skips a bad event instead of raising.

Shapes follow lichess-org/api doc/specs (the emulator's bot/emulator/payloads.py
writes the same ones).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypedDict, TypeVar

log = logging.getLogger(__name__)

Payload = Mapping[str, Any]
_E = TypeVar("_E")


class Malformed(ValueError):
    """A payload whose fields do not have the types Lichess documents."""


# -- field readers: None (or absent) is the default, a wrong type is Malformed --
def _obj(d: Payload, key: str) -> Payload:
    v = d.get(key)
    if v is None:
        return {}
    if not isinstance(v, Mapping):
        raise Malformed(f"{key} is {type(v).__name__}, not an object")
    return v


def _str(d: Payload, key: str, default: str = "") -> str:
    v = d.get(key)
    if v is None:
        return default
    if not isinstance(v, str):
        raise Malformed(f"{key} is {type(v).__name__}, not a string")
    return v


def _opt_str(d: Payload, key: str) -> str | None:
    return _str(d, key) or None


def _opt_int(d: Payload, key: str) -> int | None:
    v = d.get(key)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise Malformed(f"{key} is {type(v).__name__}, not a number")
    return int(v)


def _int(d: Payload, key: str, default: int = 0) -> int:
    v = _opt_int(d, key)
    return default if v is None else v


def _bool(d: Payload, key: str) -> bool:
    v = d.get(key)
    if v is None:
        return False
    if not isinstance(v, bool):
        raise Malformed(f"{key} is {type(v).__name__}, not a boolean")
    return v


def _variant(d: Payload) -> str:
    """A variant is an object with a key; "standard" when absent."""
    return _str(_obj(d, "variant"), "key", "standard")


# A game stream's move (scalachess format.Uci, as lila's UciDump writes it): a move
# from-to with a promotion (a king's in antichess), or a crazyhouse drop `P@e4`
# (Uci.Drop: the role's PGN letter, `@`, the square).
_UCI_MOVE = re.compile(r"[a-h][1-8][a-h][1-8][qrbnk]?|[PNBRQ]@[a-h][1-8]")


def _moves(d: Payload) -> tuple[str, ...]:
    moves = tuple(_str(d, "moves").split())
    for i, move in enumerate(moves):
        if not _UCI_MOVE.fullmatch(move):
            raise Malformed(f"move {i + 1} ({move[:12]!r}) is neither a UCI move nor a drop")
    return moves


# -- people ------------------------------------------------------------------
@dataclass(frozen=True)
class User:
    """A player as challenges, games and game streams name them."""

    id: str = ""
    name: str = ""
    title: str | None = None
    rating: int | None = None
    ai_level: int | None = None  # Lichess's own AI (game streams only)
    provisional: bool = False  # the rating is provisional (lila shows it with a "?")

    @property
    def login(self) -> str:
        """The id, or the name where a payload gives no id (compared case-insensitively)."""
        return self.id or self.name

    @property
    def is_bot(self) -> bool:
        return self.title == "BOT"

    @property
    def display(self) -> str:
        """How a PGN or a log names this player."""
        if self.name:
            return self.name
        return f"AI level {self.ai_level}" if self.ai_level else ""

    @staticmethod
    def parse(d: Payload, name_key: str = "name") -> User:
        return User(id=_str(d, "id"), name=_str(d, name_key), title=_opt_str(d, "title"),
                    rating=_opt_int(d, "rating"), ai_level=_opt_int(d, "aiLevel"),
                    provisional=_bool(d, "provisional"))


@dataclass(frozen=True)
class Perf:
    rating: int | None = None
    games: int | None = None  # None: Lichess did not say

    @property
    def known(self) -> bool:
        """A rating that means something (a speed never played has none)."""
        return self.rating is not None and self.games != 0


@dataclass(frozen=True)
class Profile:
    """/api/account, and each line of /api/bot/online."""

    id: str
    username: str
    title: str | None = None
    perfs: Mapping[str, Perf] = field(default_factory=dict)

    @property
    def is_bot(self) -> bool:
        return self.title == "BOT"

    def perf(self, speed: str) -> Perf:
        return self.perfs.get(speed) or Perf()

    @staticmethod
    def parse(d: Payload) -> Profile:
        perfs = {k: Perf(_opt_int(v, "rating"), _opt_int(v, "games"))
                 for k, v in _obj(d, "perfs").items() if isinstance(v, Mapping)}
        return Profile(id=_str(d, "id"), username=_str(d, "username"),
                       title=_opt_str(d, "title"), perfs=perfs)


# -- challenges ----------------------------------------------------------------
@dataclass(frozen=True)
class TimeControl:
    type: str = "clock"  # clock | correspondence | unlimited
    limit: int | None = None  # seconds
    increment: int | None = None  # seconds
    days_per_turn: int | None = None

    def show(self) -> str:
        limit = "-" if self.limit is None else str(self.limit)
        inc = "-" if self.increment is None else str(self.increment)
        return f"{limit}+{inc}"


@dataclass(frozen=True)
class Challenge:
    id: str
    challenger: User
    dest_user: User | None = None
    variant: str = "standard"
    rated: bool = False
    speed: str = ""
    time_control: TimeControl = TimeControl()
    color: str = ""
    initial_fen: str | None = None
    decline_reason_key: str = ""  # challengeDeclined only

    @property
    def correspondence(self) -> bool:
        return self.speed == "correspondence" or bool(self.time_control.days_per_turn) \
            or self.time_control.type == "correspondence"

    def describe(self) -> str:
        return (f"{self.id} from {self.challenger.login} ({self.variant}, {self.speed} "
                f"{self.time_control.show()}, {'rated' if self.rated else 'casual'})")

    @staticmethod
    def parse(d: Payload) -> Challenge:
        cid = _str(d, "id")
        if not cid:
            raise Malformed("a challenge without an id")
        tc = _obj(d, "timeControl")
        dest = d.get("destUser")
        return Challenge(
            id=cid, challenger=User.parse(_obj(d, "challenger")),
            dest_user=User.parse(_obj(d, "destUser")) if dest is not None else None,
            variant=_variant(d), rated=_bool(d, "rated"), speed=_str(d, "speed"),
            time_control=TimeControl(_str(tc, "type", "clock"), _opt_int(tc, "limit"),
                                     _opt_int(tc, "increment"), _opt_int(tc, "daysPerTurn")),
            color=_str(d, "color"), initial_fen=_opt_str(d, "initialFen"),
            decline_reason_key=_str(d, "declineReasonKey"))


@dataclass(frozen=True)
class ChallengeEvent:
    """A challenge to us, or our own echoed back (event stream `challenge`)."""

    challenge: Challenge


@dataclass(frozen=True)
class ChallengeCanceled:
    challenge: Challenge


@dataclass(frozen=True)
class ChallengeDeclined:
    challenge: Challenge


# -- games on the event stream and in /api/account/playing ----------------------
@dataclass(frozen=True)
class GameInfo:
    id: str
    opponent: User = User()
    color: str = ""
    is_my_turn: bool = False
    last_move: str = ""
    rated: bool = False
    speed: str = ""
    variant: str = "standard"
    days_per_turn: int | None = None
    tournament_id: str | None = None  # an arena game (lila pairs it; no challenge)
    # A rated game over (gameFinish; lila.game.JsonView.ownerPreview): our rating
    # change (`ratingDiff`) and the opponent's (`opponent.ratingDiff`); None while
    # playing, for a casual game, or where Lichess does not say.
    rating_diff: int | None = None
    opponent_rating_diff: int | None = None

    @property
    def correspondence(self) -> bool:
        return self.speed == "correspondence" or bool(self.days_per_turn)

    @staticmethod
    def parse(d: Payload) -> GameInfo:
        gid = _str(d, "gameId") or _str(d, "id")
        if not gid:
            raise Malformed("a game without an id")
        return GameInfo(
            id=gid, opponent=User.parse(_obj(d, "opponent"), name_key="username"),
            color=_str(d, "color"), is_my_turn=_bool(d, "isMyTurn"),
            last_move=_str(d, "lastMove"), rated=_bool(d, "rated"), speed=_str(d, "speed"),
            variant=_variant(d), days_per_turn=_opt_int(d, "daysPerTurn"),
            tournament_id=_opt_str(d, "tournamentId"),
            rating_diff=_opt_int(d, "ratingDiff"),
            opponent_rating_diff=_opt_int(_obj(d, "opponent"), "ratingDiff"))


@dataclass(frozen=True)
class GameStart:
    game: GameInfo


@dataclass(frozen=True)
class GameFinish:
    game: GameInfo


# -- the game stream --------------------------------------------------------------
@dataclass(frozen=True)
class Expiration:
    """How long a first move may still take before lila ends the game (api doc/specs/
    schemas/GameStateEvent.yaml `expiration`, api b6e5874; lila modules/game/src/main/
    JsonView.scala): sent only before both first moves of a lobby, arena, pool or
    Swiss game, never a challenge's."""

    idle_ms: int  # since the last move, or the start
    to_move_ms: int  # the whole allowance (lila RoundGame timeForFirstMove)

    @property
    def left_ms(self) -> int:
        return self.to_move_ms - self.idle_ms

    @staticmethod
    def parse(d: Payload) -> Expiration | None:
        e = _obj(d, "expiration")
        if not e:
            return None
        idle, to_move = _opt_int(e, "idleMillis"), _opt_int(e, "millisToMove")
        if idle is None or to_move is None:
            raise Malformed("expiration needs idleMillis and millisToMove")
        return Expiration(idle, to_move)


@dataclass(frozen=True)
class GameState:
    """Moves, clocks (ms, as sent; None without a clock) and offers."""

    moves: tuple[str, ...] = ()
    status: str = "started"
    winner: str | None = None
    wtime: int | None = None
    btime: int | None = None
    winc: int = 0
    binc: int = 0
    wdraw: bool = False
    bdraw: bool = False
    wtakeback: bool = False
    btakeback: bool = False
    expiration: Expiration | None = None  # before both first moves of an expirable game
    received_at: float = 0.0  # monotonic, stamped by the stream thread

    def draw_offered_by(self, color: str) -> bool:
        return self.wdraw if color == "white" else self.bdraw

    def takeback_asked_by(self, color: str) -> bool:
        return self.wtakeback if color == "white" else self.btakeback

    @staticmethod
    def parse(d: Payload, received_at: float = 0.0) -> GameState:
        return GameState(
            moves=_moves(d), status=_str(d, "status", "started"),
            winner=_opt_str(d, "winner"), wtime=_opt_int(d, "wtime"),
            btime=_opt_int(d, "btime"), winc=_int(d, "winc"), binc=_int(d, "binc"),
            wdraw=_bool(d, "wdraw"), bdraw=_bool(d, "bdraw"),
            wtakeback=_bool(d, "wtakeback"), btakeback=_bool(d, "btakeback"),
            expiration=Expiration.parse(d), received_at=received_at)


@dataclass(frozen=True)
class GameClock:
    initial_ms: int
    increment_ms: int

    def show(self) -> str:
        return f"{self.initial_ms // 1000}+{self.increment_ms // 1000}"


@dataclass(frozen=True)
class GameFull:
    id: str
    white: User
    black: User
    state: GameState
    variant: str = "standard"
    clock: GameClock | None = None  # None: correspondence or unlimited
    days_per_turn: int | None = None
    speed: str = ""
    rated: bool = False
    created_at_ms: int | None = None
    initial_fen: str = "startpos"
    tournament_id: str | None = None
    received_at: float = 0.0

    @property
    def correspondence(self) -> bool:
        return self.speed == "correspondence" or bool(self.days_per_turn)

    @property
    def start_fen(self) -> str | None:
        """The FEN the game started from; None: the variant's own start position.

        lila writes a FEN only for Chess960 and From Position games, "startpos"
        otherwise (BotJsonView.gameImmutable), so a horde or racing kings game is
        "startpos" too, at that variant's start. A crazyhouse FEN carries the
        pockets in brackets (`[Qn]`) and promoted pieces marked `~`."""
        return None if self.initial_fen in ("", "startpos") else self.initial_fen

    def time_control(self) -> str:
        if self.clock is not None:
            return self.clock.show()
        return f"{self.days_per_turn}d" if self.days_per_turn else "-"

    @staticmethod
    def parse(d: Payload, received_at: float = 0.0) -> GameFull:
        gid = _str(d, "id")
        if not gid:
            raise Malformed("a game without an id")
        clock = _obj(d, "clock")
        return GameFull(
            id=gid, white=User.parse(_obj(d, "white")), black=User.parse(_obj(d, "black")),
            state=GameState.parse(_obj(d, "state"), received_at), variant=_variant(d),
            clock=GameClock(_int(clock, "initial"), _int(clock, "increment")) if clock
            else None,
            days_per_turn=_opt_int(d, "daysPerTurn"), speed=_str(d, "speed"),
            rated=_bool(d, "rated"), created_at_ms=_opt_int(d, "createdAt"),
            initial_fen=_str(d, "initialFen", "startpos"),
            tournament_id=_opt_str(d, "tournamentId"), received_at=received_at)


@dataclass(frozen=True)
class ChatLine:
    room: str
    username: str
    text: str

    @staticmethod
    def parse(d: Payload) -> ChatLine:
        return ChatLine(_str(d, "room", "player"), _str(d, "username"), _str(d, "text"))


@dataclass(frozen=True)
class OpponentGone:
    gone: bool
    claim_win_in_seconds: int | None = None

    @staticmethod
    def parse(d: Payload) -> OpponentGone:
        return OpponentGone(_bool(d, "gone"), _opt_int(d, "claimWinInSeconds"))


@dataclass(frozen=True)
class Tournament:
    """GET /api/tournament/{id}, the parts a bot uses (lila tournament JsonView: the
    booleans are written only when true; `me` only for a player)."""

    id: str
    name: str = ""
    started: bool = False
    finished: bool = False
    seconds_to_start: int | None = None
    seconds_to_finish: int | None = None
    bots_allowed: bool = False
    me_withdrawn: bool | None = None  # None: we are not a player
    # Seconds before a rejoin is allowed after our withdraw (me.pauseDelay, Pause.scala)
    me_pause_delay_s: int | None = None
    # The game lila paired us into and is still playing (me.gameId: tournament
    # JsonView.fetchCurrentGameId, whether or not we have withdrawn since).
    me_game_id: str | None = None

    @property
    def joined(self) -> bool:
        return self.me_withdrawn is False

    @staticmethod
    def parse(d: Payload) -> Tournament:
        tid = _str(d, "id")
        if not tid:
            raise Malformed("a tournament without an id")
        me = d.get("me")
        return Tournament(
            id=tid, name=_str(d, "fullName"), started=_bool(d, "isStarted"),
            finished=_bool(d, "isFinished"), seconds_to_start=_opt_int(d, "secondsToStart"),
            seconds_to_finish=_opt_int(d, "secondsToFinish"),
            bots_allowed=_bool(d, "botsAllowed"),
            me_withdrawn=_bool(me, "withdraw") if isinstance(me, Mapping) else None,
            me_pause_delay_s=_opt_int(me, "pauseDelay") if isinstance(me, Mapping) else None,
            me_game_id=_opt_str(me, "gameId") if isinstance(me, Mapping) else None)


# The account's event stream and a game's stream carry different events: each has
# its union, so a consumer's `match` with `assert_never` fails mypy when one is added.
AccountEvent = ChallengeEvent | ChallengeCanceled | ChallengeDeclined | GameStart | GameFinish
GameEvent = GameFull | GameState | ChatLine | OpponentGone


def _challenge(d: Payload) -> Challenge:
    return Challenge.parse(_obj(d, "challenge"))


def _game(d: Payload) -> GameInfo:
    return GameInfo.parse(_obj(d, "game"))


_ACCOUNT_PARSERS: dict[str, Callable[[Payload, float], AccountEvent]] = {
    "challenge": lambda d, _t: ChallengeEvent(_challenge(d)),
    "challengeCanceled": lambda d, _t: ChallengeCanceled(_challenge(d)),
    "challengeDeclined": lambda d, _t: ChallengeDeclined(_challenge(d)),
    "gameStart": lambda d, _t: GameStart(_game(d)),
    "gameFinish": lambda d, _t: GameFinish(_game(d)),
}
_GAME_PARSERS: dict[str, Callable[[Payload, float], GameEvent]] = {
    "gameFull": GameFull.parse,
    "gameState": GameState.parse,
    "chatLine": lambda d, _t: ChatLine.parse(d),
    "opponentGone": lambda d, _t: OpponentGone.parse(d),
}


def _parse(parsers: Mapping[str, Callable[[Payload, float], _E]], payload: Payload,
           received_at: float, where: str) -> _E | None:
    kind = payload.get("type")
    parse = parsers.get(kind) if isinstance(kind, str) else None
    if parse is None:
        log.debug("%s: ignoring event type %.40r", where, kind)
        return None
    try:
        return parse(payload, received_at)
    except Malformed as exc:
        log.warning("%s: skipping a malformed %s event: %s", where, kind, exc)
        return None


def parse_account_event(payload: Payload, received_at: float = 0.0,
                        where: str = "event stream") -> AccountEvent | None:
    """One line of the account's event stream (/api/stream/event); None (with one
    log line) for a malformed one or a type pibot does not use there."""
    return _parse(_ACCOUNT_PARSERS, payload, received_at, where)


def parse_game_event(payload: Payload, received_at: float = 0.0,
                     where: str = "game stream") -> GameEvent | None:
    """One line of a game's stream (/api/bot/game/stream/{id}); None (with one log
    line) for a malformed one or a type pibot does not use there."""
    return _parse(_GAME_PARSERS, payload, received_at, where)


def parse_playing(body: Any) -> list[GameInfo]:
    """/api/account/playing's nowPlaying; a malformed entry is logged and skipped."""
    entries = body.get("nowPlaying") if isinstance(body, Mapping) else None
    out: list[GameInfo] = []
    for entry in entries if isinstance(entries, list) else []:
        try:
            if not isinstance(entry, Mapping):
                raise Malformed(f"an entry is {type(entry).__name__}, not an object")
            out.append(GameInfo.parse(entry))
        except Malformed as exc:
            log.warning("playing: skipping a malformed game: %s", exc)
    return out


# -- the client's own payloads (error bodies and the token test) -------------------
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

