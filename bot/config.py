"""config.yml -> validated, frozen dataclasses.

Every section is a dataclass; the generic loader below walks its fields, so a
key exists in exactly one place (the dataclass) and the error messages always
name the full key path (``challenge.min_base``) and the fix.  Key names follow
lichess-bot where the concept is the same, so existing configs read naturally.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import re
import types
import typing
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from bot.errors import UserError, read_user_file
from bot.host.machine import EngineSizing
from bot.lichess_bot_keys import foreign_key_note
from bot.lichess_limits import API_CLOCK_LIMITS_S, MODES, SPEEDS, ULTRABULLET_BELOW_S, VARIANTS

# Lichess personal tokens: lip_ (personal) / lio_ (OAuth) + alphanumerics.
_TOKEN_LIKE = re.compile(r"^li[po]_[A-Za-z0-9]{8,}$")
_TOKEN_INSIDE = re.compile(r"li[po]_[A-Za-z0-9]{8,}")


def looks_like_token(value: object) -> bool:
    return isinstance(value, str) and bool(_TOKEN_LIKE.match(value.strip()))


def _has_token_text(value: object) -> bool:
    """A token anywhere in a string (a URL's query, a path): also never echoed."""
    return isinstance(value, str) and bool(_TOKEN_INSIDE.search(value))


def _holds_token(value: Any) -> bool:
    if isinstance(value, dict):
        return any(_holds_token(k) or _holds_token(v) for k, v in value.items())
    if isinstance(value, list):
        return any(map(_holds_token, value))
    return _has_token_text(value)


def _show(value: Any) -> str:
    """repr() for error messages, except that a pasted token is never echoed."""
    if _holds_token(value):
        return "a value that looks like a Lichess token (not shown)"
    return repr(value)


def _meta(lo: float | None = None, hi: float | None = None,
          choices: tuple[str, ...] | None = None, doc: str = "",
          auto: bool = False) -> dict[str, Any]:
    return {"lo": lo, "hi": hi, "choices": choices, "doc": doc, "auto": auto}


def _list(default: list[Any], **kw: Any) -> Any:
    return field(default_factory=lambda: list(default), metadata=_meta(**kw))


def _val(default: Any, **kw: Any) -> Any:
    return field(default=default, metadata=_meta(**kw))


AUTO = "auto"


@dataclass(frozen=True)
class PolyglotBooks:
    """Book files per variant (Lichess's keys), tried in order. fromPosition games use
    `standard`; a variant with its own rules uses only its own list (a standard book's
    moves are no advice there), so a variant without one plays from the engine."""

    standard: list[str] = _list([], doc="polyglot .bin files")
    chess960: list[str] = _list([], doc="polyglot .bin files")
    crazyhouse: list[str] = _list([], doc="polyglot .bin files")
    atomic: list[str] = _list([], doc="polyglot .bin files")
    antichess: list[str] = _list([], doc="polyglot .bin files")
    kingOfTheHill: list[str] = _list([], doc="polyglot .bin files")
    threeCheck: list[str] = _list([], doc="polyglot .bin files")
    horde: list[str] = _list([], doc="polyglot .bin files")
    racingKings: list[str] = _list([], doc="polyglot .bin files")


@dataclass(frozen=True)
class PolyglotConfig:
    enabled: bool = _val(False, doc="play book moves from polyglot .bin files")
    book: PolyglotBooks = field(default_factory=PolyglotBooks)
    selection: str = _val("weighted_random",
                          choices=("weighted_random", "uniform_random", "best_move"))
    min_weight: int = _val(1, lo=0, hi=65535, doc="ignore entries lighter than this")
    max_depth: int = _val(8, lo=1, hi=1000, doc="use the book for the first N plies")


@dataclass(frozen=True)
class SyzygyConfig:
    enabled: bool = _val(False, doc="play tablebase moves at the root")
    paths: list[str] = _list([], doc="directories holding .rtbw/.rtbz files")
    max_pieces: int = _val(7, lo=3, hi=7, doc="probe positions with at most this many pieces")
    move_quality: str = _val("best", choices=("best", "suggest"),
                             doc="best = play the DTZ-optimal move; suggest = only "
                                 "restrict the search to result-preserving moves")


@dataclass(frozen=True)
class CloudEvalConfig:
    enabled: bool = _val(False, doc="Lichess cloud evaluation (/api/cloud-eval)")
    min_time: float = _val(20.0, lo=0, doc="only with at least this much clock left (s)")
    timeout_s: float = _val(1.0, lo=0.05, hi=30, doc="give up on the request after this")
    move_quality: str = _val("best", choices=("good", "best"))
    max_score_difference: int = _val(50, lo=0, hi=10000, doc="good: cp from the best line")
    min_depth: int = _val(20, lo=0, hi=200)
    min_knodes: int = _val(0, lo=0)


@dataclass(frozen=True)
class ExplorerConfig:
    enabled: bool = _val(False, doc="Lichess opening explorer")
    min_time: float = _val(20.0, lo=0, doc="only with at least this much clock left (s)")
    timeout_s: float = _val(1.0, lo=0.05, hi=30, doc="give up on the request after this")
    source: str = _val("masters", choices=("masters", "lichess"))
    sort: str = _val("winrate", choices=("winrate", "games_played"))
    min_games: int = _val(10, lo=1, doc="a move needs at least this many games")


@dataclass(frozen=True)
class OnlineEgtbConfig:
    enabled: bool = _val(False, doc="Lichess online tablebase (up to 7 pieces)")
    min_time: float = _val(20.0, lo=0, doc="only with at least this much clock left (s)")
    timeout_s: float = _val(1.0, lo=0.05, hi=30, doc="give up on the request after this")
    max_pieces: int = _val(7, lo=3, hi=7)
    move_quality: str = _val("best", choices=("best",))


@dataclass(frozen=True)
class OnlineMovesConfig:
    max_out_of_book_moves: int = _val(10, lo=1, hi=1000,
                                      doc="stop asking explorer/cloud after N misses in a game")
    explorer_url: str = _val("https://explorer.lichess.org",
                             doc="needs the bot's token (sent only to this URL)")
    tablebase_url: str = _val("https://tablebase.lichess.org")
    cloud_url: str | None = _val(None, doc="null = the top-level url")
    lichess_cloud_analysis: CloudEvalConfig = field(default_factory=CloudEvalConfig)
    lichess_opening_explorer: ExplorerConfig = field(default_factory=ExplorerConfig)
    online_egtb: OnlineEgtbConfig = field(default_factory=OnlineEgtbConfig)


@dataclass(frozen=True)
class EngineConfig:
    # "auto" is resolved by Config against the machine (bot.host.machine.size_engine),
    # so every consumer of a Config sees numbers.
    hash_mb: int | Literal["auto"] = _val(AUTO, lo=1, hi=65536, auto=True,
                                          doc="transposition table per game, MiB; auto = "
                                              "sized to the memory")
    threads: int | Literal["auto"] = _val(AUTO, lo=1, hi=64, auto=True,
                                          doc="search threads per game; auto = sized to the CPUs")
    move_overhead_ms: int = _val(150, lo=0, hi=10000,
                                 doc="floor of the per-move latency margin (raised by measurement)")
    ponder: bool = _val(False, doc="think on the opponent's time")
    eval: str = _val("nnue", choices=("hce", "nnue"),
                     doc="static evaluation: hce = hand-crafted, nnue = the built-in net")
    thermal_limit_c: float | None = _val(None, lo=40, hi=110,
                                         doc="search with fewer threads while the CPU is "
                                             "hotter (C); null = off")
    polyglot: PolyglotConfig = field(default_factory=PolyglotConfig)
    syzygy: SyzygyConfig = field(default_factory=SyzygyConfig)
    online_moves: OnlineMovesConfig = field(default_factory=OnlineMovesConfig)


@dataclass(frozen=True)
class ChallengeConfig:
    concurrency: int = _val(1, lo=1, hi=64, doc="games played at once")
    variants: list[str] = _list(["standard"], choices=VARIANTS)
    time_controls: list[str] = _list(["bullet", "blitz", "rapid"], choices=SPEEDS)
    modes: list[str] = _list(["casual", "rated"], choices=MODES)
    min_base: int = _val(0, lo=0, doc="seconds")
    max_base: int = _val(1800, lo=0, doc="seconds")
    min_increment: int = _val(0, lo=0, doc="seconds")
    max_increment: int = _val(180, lo=0, doc="seconds")
    min_days: int = _val(1, lo=1, hi=14, doc="correspondence days per move")
    max_days: int = _val(14, lo=1, hi=14, doc="correspondence days per move")
    accept_bot: bool = _val(True)
    only_bot: bool = _val(False)
    min_rating: int = _val(0, lo=0, hi=5000)
    max_rating: int = _val(5000, lo=0, hi=5000)
    allow_list: list[str] = _list([])
    block_list: list[str] = _list([])
    max_simultaneous_games_per_user: int = _val(1, lo=1, hi=64)
    online_block_list: list[str] = _list([], doc="URLs of text files, one username a line; "
                                                 "refreshed every network.block_list_refresh_s")
    bullet_requires_increment: bool = _val(False, doc="decline a BOT's bullet challenge "
                                                      "without increment")
    max_recent_bot_challenges: int | None = _val(
        None, lo=1, hi=1000, doc="accept at most this many challenges from one BOT per "
                                 "recent_bot_challenge_age_s; null = no limit")
    recent_bot_challenge_age_s: float = _val(60.0, lo=1, hi=86400,
                                             doc="window of max_recent_bot_challenges (s)")
    max_correspondence_games: int = _val(
        4, lo=0, hi=100, doc="correspondence games at once, beside `concurrency` (which "
                            "counts real-time games only)")
    queue_max: int = _val(0, lo=0, hi=100, doc="challenges that wait for a free slot "
                                               "(0: decline `later` when busy)")
    queue_order: str = _val("first", choices=("first", "rating"),
                            doc="which waiting challenge gets the next free slot: first "
                                "come, or the best-rated challenger")
    reserved_for_humans: int = _val(0, lo=0, hi=64, doc="of `concurrency`, slots only "
                                                        "humans may take")


@dataclass(frozen=True)
class CorrespondenceConfig:
    """Days-per-move games (names as lichess-bot's `correspondence:` section)."""

    move_time: float = _val(60.0, lo=0.1, hi=3600, doc="seconds of search per move")
    checkin_period: float = _val(300.0, lo=1, hi=86400,
                                 doc="look for games where it is our turn this often (s); "
                                     "Lichess is asked at most once a minute")
    disconnect_time: float = _val(150.0, lo=1, hi=86400,
                                  doc="close a game's stream after this long without "
                                      "activity while the opponent thinks (s)")
    ponder: bool = _val(False, doc="think on the opponent's time in correspondence games")


@dataclass(frozen=True)
class GameConfig:
    abort_if_no_first_move_s: float = _val(30.0, lo=1, hi=3600)
    accept_takebacks: bool = _val(False)
    max_takebacks_accepted: int | None = _val(
        None, lo=0, hi=1000, doc="takebacks accepted per game; a number overrides "
                                 "accept_takebacks (null: every one if accept_takebacks)")
    chat_commands: bool = _val(True)
    bot_name: str = _val("pibot", doc="answer to !name")
    # lila shows the spectator room to anyone but the players, logged out included
    # (app/controllers/Round.scala getWatcherChat): the opponent can read it too.
    spectator_eval: bool = _val(False, doc="answer !eval to spectators during the game "
                                "(the opponent can read the spectator room)")


@dataclass(frozen=True)
class GreetingConfig:
    hello: str = _val("Hi {opponent}! I'm {me}, a chess engine on a Raspberry Pi. Good luck!")
    goodbye: str = _val("Good game!")
    hello_spectators: str = _val("Hi! I'm {me}. Type !help for commands.")
    goodbye_spectators: str = _val("Thanks for watching!")


@dataclass(frozen=True)
class DrawOrResignConfig:
    resign_enabled: bool = _val(False)
    resign_score: int = _val(-1000, lo=-100000, hi=0, doc="centipawns, our point of view")
    resign_moves: int = _val(3, lo=1, hi=100)
    offer_draw_enabled: bool = _val(True)
    offer_draw_score: int = _val(0, lo=0, hi=10000, doc="|eval| at most this (cp)")
    offer_draw_moves: int = _val(10, lo=1, hi=300)
    offer_draw_pieces: int = _val(10, lo=2, hi=32)
    # lichess-bot's resign_for_egtb_minus_two / offer_draw_for_egtb_zero (default true,
    # under the same master switches): the local Syzygy tables' verdict at the root.
    resign_for_tablebase_loss: bool = _val(True, doc="resign a Syzygy loss "
                                                      "(needs resign_enabled)")
    offer_draw_for_tablebase_draw: bool = _val(True, doc="offer, and accept, a draw in a "
                                                          "Syzygy draw (needs "
                                                          "offer_draw_enabled)")


@dataclass(frozen=True)
class MatchmakingConfig:
    allow_matchmaking: bool = _val(False)
    challenge_initial_time: list[int] = _list([60, 180], lo=0, hi=10800)
    # lichess-org/api challengeCreate: clock.limit 0..10800 s, clock.increment 0..60 s
    challenge_increment: list[int] = _list([1, 2], lo=0, hi=60)
    challenge_mode: str = _val("casual", choices=("casual", "rated", "random"))
    opponent_min_rating: int = _val(600, lo=0, hi=5000)
    opponent_max_rating: int = _val(4000, lo=0, hi=5000)
    challenge_timeout_s: float = _val(600.0, lo=1, doc="idle time before challenging")
    challenge_expiry_s: float = _val(30.0, lo=5, doc="cancel an unanswered challenge")
    block_list: list[str] = _list([])
    online_block_list: list[str] = _list([], doc="URLs of text files of bot names never "
                                                 "challenged")
    opponent_rating_difference: int | None = _val(
        None, lo=0, hi=5000, doc="only opponents within this of our own rating for the speed; "
                                 "null = off")
    challenge_filter: str = _val("none", choices=("none", "coarse", "fine"),
                                 doc="after a decline, do not challenge that bot again today "
                                     "(coarse) or not to the declined speed/mode/variant (fine)")
    opponents: list[str] = _list([], doc="a gauntlet: challenge these bots in turn instead "
                                         "of random online bots; empty = online bots")


@dataclass(frozen=True)
class NetworkConfig:
    """Timeouts and retry knobs; tests shrink them, production rarely touches them."""

    connect_timeout_s: float = _val(5.0, lo=0.1, hi=120)
    request_timeout_s: float = _val(15.0, lo=0.1, hi=300)
    stream_read_timeout_s: float = _val(9.0, lo=0.1, hi=300,
                                        doc="just over one keep-alive gap "
                                            "(Lichess: 6 s events, 7 s games)")
    backoff_base_s: float = _val(1.0, lo=0.01, hi=60)
    backoff_max_s: float = _val(60.0, lo=0.01, hi=3600)
    rate_limit_pause_s: float = _val(60.0, lo=0.01, hi=3600, doc="Lichess asks for >= 60 s")
    stream_conflict_backoff_s: float = _val(
        300.0, lo=0.1, hi=86400, doc="another client holds the event stream: wait this long")
    watchdog_s: float = _val(5.0, lo=0.1, hi=600, doc="liveness check period")
    tournament_poll_s: float = _val(60.0, lo=0.05, hi=3600,
                                    doc="look at a joined or upcoming arena this often "
                                        "(lila sends no event for its start or end)")
    block_list_refresh_s: float = _val(600.0, lo=0.1, hi=86400,
                                       doc="re-read the online block lists this often")
    move_echo_timeout_s: float = _val(3.0, lo=0.1, hi=60,
                                      doc="re-open a game stream that doesn't echo our move")
    # Ignored (kept so existing configs still load): games no longer poll
    # /api/account/playing; keep-alives tell a quiet stream from a dead one.
    game_stale_check_s: float = _val(0.0, lo=0, hi=600, doc="ignored; kept for old configs")


@dataclass(frozen=True)
class StatusPageConfig:
    listen: str | None = _val(None, doc="host:port of the read-only status page "
                                        "(127.0.0.1:8080); empty = off")


# -- records and alerts (issue 35) ---------------------------------------------------
# One self-contained block: the checks that span keys live in __post_init__, so the
# generic loader reports them with the same one-line UserError as a bad value.

@dataclass(frozen=True)
class RecordsConfig:
    """Every game, move and service event in one SQLite file (bot/store/)."""

    db: str | None = _val("pibot.db", doc="SQLite file of games, moves and service events; "
                                          "relative = in the state directory; null = off")
    keep_days: int | None = _val(None, lo=1, hi=36500,
                                 doc="gzip PGN files older than this many days; null = never")
    max_mb: int | None = _val(None, lo=1, hi=1048576,
                              doc="cap on the database's size (MiB): past it, records stop "
                                  "(one log line) and games go on; null = the disk's size")

    def __post_init__(self) -> None:
        if self.db is not None and not self.db.strip():
            raise UserError("config key 'records.db' is empty; give a file name "
                            "(pibot.db) or null to keep no records")


@dataclass(frozen=True)
class AlertsConfig:
    """Messages to the owner's phone when something is wrong (bot/alerts/); off by default."""

    url: str | None = _val(None, doc="ntfy topic URL (https://ntfy.sh/TOPIC) or a webhook "
                                     "taking a JSON POST; null = no alerts")
    format: str = _val("auto", choices=("auto", "ntfy", "json"),
                       doc="auto = ntfy when the host name holds 'ntfy', else JSON")
    throttle_minutes: float = _val(30.0, lo=1, hi=10080,
                                   doc="alert when the CPU stays throttled this long")
    repeat_minutes: float = _val(60.0, lo=1, hi=10080,
                                 doc="the same alert at most once per this many minutes")
    failing_restarts: int = _val(3, lo=1, hi=1000,
                                 doc="alert when the service started this often within an hour")
    daily_summary_hour: int | None = _val(20, lo=0, hi=23,
                                          doc="UTC hour of the daily summary; null = none")

    def __post_init__(self) -> None:
        if self.url is None:
            return
        parts = urllib.parse.urlsplit(self.url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise UserError(f"config key 'alerts.url': {_show(self.url)} is not an http:// "
                            f"or https:// URL; write e.g. https://ntfy.sh/my-pibot-topic, "
                            f"or null for no alerts")


_TOURNAMENT_ID_RE = re.compile(r"^[A-Za-z0-9]{8}$")


@dataclass(frozen=True)
class TournamentEntry:
    """An arena to play in (bot/challenges/arenas.py)."""

    id: str = _val("", doc="the arena's id: the 8 letters and digits of "
                           "lichess.org/tournament/<id>")
    team: str | None = _val(None, doc="team id, for a team battle")
    password_file: str | None = _val(None, doc="file holding the entry code of a private "
                                               "arena (a secret: never in the config itself)")

    def __post_init__(self) -> None:
        if not _TOURNAMENT_ID_RE.match(self.id):
            raise UserError(f"config key 'tournaments': id {_show(self.id)} is not an arena "
                            f"id; copy the 8 letters and digits after "
                            f"lichess.org/tournament/")


@dataclass(frozen=True)
class Config:
    url: str = _val("https://lichess.org")
    token_file: str | None = _val(None, doc="file holding the token (else env/credential)")
    pgn_directory: str | None = _val("games", doc="where finished games are saved; null=off")
    shutdown_grace_s: float = _val(60.0, lo=0, doc="SIGTERM: wait this long for games")
    log_level: str = _val("info", choices=("debug", "info", "warning", "error"))
    engine: EngineConfig = field(default_factory=EngineConfig)
    challenge: ChallengeConfig = field(default_factory=ChallengeConfig)
    game: GameConfig = field(default_factory=GameConfig)
    correspondence: CorrespondenceConfig = field(default_factory=CorrespondenceConfig)
    greeting: GreetingConfig = field(default_factory=GreetingConfig)
    draw_or_resign: DrawOrResignConfig = field(default_factory=DrawOrResignConfig)
    matchmaking: MatchmakingConfig = field(default_factory=MatchmakingConfig)
    network: NetworkConfig = field(default_factory=NetworkConfig)
    status_page: StatusPageConfig = field(default_factory=StatusPageConfig)
    records: RecordsConfig = field(default_factory=RecordsConfig)
    alerts: AlertsConfig = field(default_factory=AlertsConfig)
    tournaments: list[TournamentEntry] = _list(
        [], doc="arenas to join: a list of {id, team, password_file}")
    source: str = field(default="<defaults>", compare=False, metadata=_meta(doc="internal"))
    # How engine.hash_mb / engine.threads were decided (auto or set), for the log and check.
    sizing: EngineSizing | None = field(default=None, compare=False,
                                        metadata=_meta(doc="internal"))

    def __post_init__(self) -> None:
        if self.sizing is not None:
            return
        from bot.host import machine  # reads /proc and /sys; never raises

        e = self.engine
        sizing = machine.size_engine(e.hash_mb, e.threads, self.challenge.concurrency,
                                     machine.Machine().facts())
        # Frozen dataclass: set once, here, before anyone has seen the object.
        object.__setattr__(self, "engine", dataclasses.replace(
            e, hash_mb=sizing.hash_mb, threads=sizing.threads))
        object.__setattr__(self, "sizing", sizing)

    @property
    def sized(self) -> EngineSizing:
        """engine.hash_mb and engine.threads as numbers ('auto' resolved against this
        machine when the Config was built), with how each was decided."""
        if self.sizing is None:  # never: __post_init__ sizes every Config
            raise RuntimeError("the engine of this Config was not sized")
        return self.sizing


_INTERNAL = {"source", "sizing"}  # Config-level only (engine...explorer.source is a key)


def _type_name(tp: Any) -> str:
    return {int: "an integer", float: "a number", bool: "true or false",
            str: "a string"}.get(tp, getattr(tp, "__name__", str(tp)))


def _coerce_scalar(key: str, tp: Any, value: Any) -> Any:
    # bool is an int subclass in Python; `hash_mb: true` must not silently become 1.
    if tp is bool:
        if isinstance(value, bool):
            return value
    elif tp is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    elif tp is float:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
    elif tp is str:
        if isinstance(value, str):
            if _has_token_text(value):
                # Every value may reach a log line or `pibot check`'s output.
                if key == "token_file":
                    raise UserError("config key 'token_file' must be a path; it looks like "
                                    "you pasted the token itself (not shown): put the token "
                                    "in a file (chmod 600) and give its path, or set "
                                    "$LICHESS_BOT_TOKEN")
                raise UserError(f"config key '{key}' holds what looks like a Lichess token "
                                f"(not shown); no config value may hold it: put the token "
                                f"in the file token_file names, or in $LICHESS_BOT_TOKEN")
            return value
    raise UserError(f"config key '{key}' must be {_type_name(tp)}, got {_show(value)}; "
                    f"fix the value in the config file")


def _check_meta(key: str, value: Any, meta: Any) -> None:
    lo, hi, choices = meta.get("lo"), meta.get("hi"), meta.get("choices")
    items = value if isinstance(value, list) else [value]
    for item in items:
        if choices and item not in choices:
            # Case-blind, so that python-chess's and UCI's spellings (3check,
            # kingofthehill) find Lichess's key (threeCheck, kingOfTheHill).
            lower = {c.lower(): c for c in choices}
            hint = [lower[h] for h in difflib.get_close_matches(str(item).lower(), lower, n=1)]
            extra = f" (did you mean '{hint[0]}'?)" if hint else ""
            raise UserError(f"config key '{key}': {_show(item)} is not allowed{extra}; "
                            f"use one of: {', '.join(choices)}")
        if isinstance(item, float) and not math.isfinite(item):
            # NaN passes every < / > test, and an infinite timeout overflows later.
            bounds = f" between {lo} and {hi}" if lo is not None and hi is not None else \
                f" of at least {lo}" if lo is not None else ""
            raise UserError(f"config key '{key}' is {item}, not a finite number; "
                            f"give a number{bounds}")
        if isinstance(item, int | float) and not isinstance(item, bool):
            if lo is not None and item < lo:
                raise UserError(f"config key '{key}' is {item}, below the minimum {lo}; "
                                f"set it to at least {lo}")
            if hi is not None and item > hi:
                raise UserError(f"config key '{key}' is {item}, above the maximum {hi}; "
                                f"set it to at most {hi}")


def _convert(key: str, tp: Any, value: Any, meta: Any) -> Any:
    if meta.get("auto") and (value is None or isinstance(value, str)):
        if value == AUTO:
            return value
        raise UserError(f"config key '{key}' must be an integer or auto, got {_show(value)}; "
                        f"write a number or auto")
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if value is None:
            return None
        return _convert(key, args[0], value, meta)
    if origin is list:
        (item_tp,) = typing.get_args(tp)
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            value = [value]  # a single value is a one-item list, as in lichess-bot
        if not isinstance(value, list):
            raise UserError(f"config key '{key}' must be a list, got {_show(value)}; "
                            f"write it as [a, b] or one item per '- ' line")
        if dataclasses.is_dataclass(item_tp):  # a list of sections (tournaments)
            # A bare string is the section's id (`- abcd1234`).
            return [_build(item_tp, {"id": v} if isinstance(v, str) else v, f"{key}[{i}].")
                    for i, v in enumerate(value)]
        out = [_coerce_scalar(key, item_tp, v) for v in value]
        _check_meta(key, out, meta)
        return out
    if dataclasses.is_dataclass(tp):
        return _build(tp, value, key + ".")
    out = _coerce_scalar(key, tp, value)
    _check_meta(key, out, meta)
    return out


def _build(cls: Any, data: Any, prefix: str = "") -> Any:
    where = prefix.rstrip(".") or "the top level"
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise UserError(f"config section '{where}' must be a mapping of keys, "
                        f"got {_show(data)}")
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)
              if not (cls is Config and f.name in _INTERNAL)}
    for key in data:
        if key not in fields:
            if looks_like_token(key) or _has_token_text(key):
                raise UserError(f"the config file has {_show(key)} as a key in "
                                f"{where}; remove it and keep the token in token_file")
            # A lichess-bot key gets its own note: spelling hints mislead there
            # (challenge_timeout is minutes, challenge_timeout_s seconds).
            note = foreign_key_note(f"{prefix}{key}")
            hint = difflib.get_close_matches(str(key), list(fields), n=1)
            extra = note or (f"did you mean '{prefix}{hint[0]}'?" if hint else
                             f"known keys: {', '.join(fields)}")
            raise UserError(f"unknown config key '{prefix}{key}': {extra}")
    kwargs = {name: _convert(prefix + name, hints[name], data[name], f.metadata)
              for name, f in fields.items() if name in data}
    return cls(**kwargs)


def _cross_checks(cfg: Config) -> None:
    c = cfg.challenge
    pairs = [("challenge.min_base", c.min_base, "challenge.max_base", c.max_base),
             ("challenge.min_increment", c.min_increment, "challenge.max_increment",
              c.max_increment),
             ("challenge.min_rating", c.min_rating, "challenge.max_rating", c.max_rating),
             ("challenge.min_days", c.min_days, "challenge.max_days", c.max_days),
             ("matchmaking.opponent_min_rating", cfg.matchmaking.opponent_min_rating,
              "matchmaking.opponent_max_rating", cfg.matchmaking.opponent_max_rating)]
    for lo_key, lo, hi_key, hi in pairs:
        if lo > hi:
            raise UserError(f"config key '{lo_key}' ({lo}) is greater than '{hi_key}' ({hi}); "
                            f"swap them or widen the range")
    if not cfg.url.startswith(("http://", "https://")):
        raise UserError(f"config key 'url' must start with http:// or https://, "
                        f"got {_show(cfg.url)}")
    om = cfg.engine.online_moves
    for key, url in (("explorer_url", om.explorer_url), ("tablebase_url", om.tablebase_url),
                     ("cloud_url", om.cloud_url)):
        if url is not None and not url.startswith(("http://", "https://")):
            raise UserError(f"config key 'engine.online_moves.{key}' must start with http:// "
                            f"or https://, got {_show(url)}")
    for key, urls in (("challenge.online_block_list", c.online_block_list),
                      ("matchmaking.online_block_list", cfg.matchmaking.online_block_list)):
        for url in urls:
            if not url.startswith(("http://", "https://")):
                raise UserError(f"config key '{key}': {_show(url)} is not a URL; write it "
                                f"with http:// or https://")
    if "ultraBullet" in c.time_controls:
        raise UserError("config key 'challenge.time_controls' lists ultraBullet, but Lichess "
                        "does not let BOT accounts play UltraBullet; remove it")
    _check_matchmaking_clocks(cfg.matchmaking)
    ids = [t.id for t in cfg.tournaments]
    for tid in ids:
        if ids.count(tid) > 1:
            raise UserError(f"config key 'tournaments' lists arena {tid} twice; keep one entry")
    _check_matchmaking_opponents(cfg.matchmaking)
    if cfg.status_page.listen:
        from bot.host.status_page import parse_listen  # the page's modules load only when used

        try:
            parse_listen(cfg.status_page.listen)
        except ValueError as exc:
            raise UserError(f"config key 'status_page.listen': {exc}") from None


_USERNAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,29}$")  # lila's username rule


def _check_matchmaking_opponents(mm: MatchmakingConfig) -> None:
    seen: set[str] = set()
    for name in mm.opponents:
        if not _USERNAME.match(name):
            raise UserError(f"config key 'matchmaking.opponents': {name[:40]!r} is not a "
                            f"Lichess username (letters, digits, _ and -, up to 30)")
        if name.lower() in seen:
            raise UserError(f"config key 'matchmaking.opponents' lists {name!r} twice")
        seen.add(name.lower())


def _check_matchmaking_clocks(mm: MatchmakingConfig) -> None:
    if mm.allow_matchmaking and not (mm.challenge_initial_time and mm.challenge_increment):
        raise UserError("matchmaking is on but 'matchmaking.challenge_initial_time' or "
                        "'matchmaking.challenge_increment' is empty; list at least one value")
    for base in mm.challenge_initial_time:
        if base not in API_CLOCK_LIMITS_S:
            raise UserError(f"config key 'matchmaking.challenge_initial_time': Lichess does not "
                            f"accept {base} s as a clock; use 15, 30, 45, 60, 90 or a whole "
                            f"number of minutes in seconds (120, 180, ... 10800)")
    # Each challenge picks one of each list, so every pairing has to be playable.
    for base in mm.challenge_initial_time:
        for inc in mm.challenge_increment:
            if base + 40 * inc < ULTRABULLET_BELOW_S:
                raise UserError(f"config keys 'matchmaking.challenge_initial_time' and "
                                f"'matchmaking.challenge_increment' pair {base} s with "
                                f"+{inc} s, an UltraBullet clock that Lichess refuses for "
                                f"BOT accounts; use at least 30 s (or an increment)")


# A config is a few hundred values: more (after expanding aliases) is an alias
# bomb, and would take minutes and gigabytes to walk.
MAX_YAML_NODES = 10_000


class _ConfigLoader(yaml.SafeLoader):
    """safe_load that refuses duplicate keys, recursive aliases and alias bombs."""

    def compose_document(self) -> Any:
        node = super().compose_document()
        _check_node_graph(node)
        return node

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        seen: dict[Any, Any] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge" or \
                    not isinstance(key_node, yaml.ScalarNode):
                continue
            if key_node.value in seen:
                first = seen[key_node.value]
                raise _YamlShapeError(
                    f"key {_show(key_node.value)} appears twice (first at line "
                    f"{first.line + 1}); remove one of them", key_node.start_mark)
            seen[key_node.value] = key_node.start_mark
        return super().construct_mapping(node, deep)


class _YamlShapeError(yaml.YAMLError):
    def __init__(self, problem: str, mark: Any) -> None:
        super().__init__(problem)
        self.problem, self.problem_mark = problem, mark


def _check_node_graph(root: Any) -> None:
    """Count the nodes the document expands to (aliases included), refusing a cycle."""
    sizes: dict[int, int] = {}
    on_path: set[int] = set()
    # Iterative depth-first walk: a deep document must not hit Python's recursion limit.
    stack: list[tuple[Any, bool]] = [(root, False)] if root is not None else []
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            on_path.discard(key)
            size = 1 + sum(sizes[id(c)] for c in _children(node))
            if size > MAX_YAML_NODES:
                raise _YamlShapeError(f"the document expands to more than {MAX_YAML_NODES} "
                                      f"values (aliases repeated many times?); write the "
                                      f"values out", node.start_mark)
            sizes[key] = size
            continue
        if key in sizes:
            continue
        if key in on_path:
            raise _YamlShapeError("an alias refers to a value that contains it (a recursive "
                                  "anchor); write the value out", node.start_mark)
        on_path.add(key)
        stack.append((node, True))
        for child in _children(node):
            if id(child) in on_path:
                raise _YamlShapeError("an alias refers to a value that contains it (a "
                                      "recursive anchor); write the value out",
                                      child.start_mark)
            if id(child) not in sizes:
                stack.append((child, False))


def _children(node: Any) -> list[Any]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []


class LiveConfig:
    """The config in force, handed to every room that reads it when the room is built.

    Each use reads `.now`, so a reload (SIGHUP) reaches every room at once, and a
    room never keeps a stale copy of its own.  Only the service's reload replaces it.
    """

    def __init__(self, cfg: Config) -> None:
        self._now = cfg

    @property
    def now(self) -> Config:
        return self._now

    def replace(self, cfg: Config) -> None:
        self._now = cfg


def parse_config(data: Any, source: str = "<memory>") -> Config:
    """Validate an already-parsed YAML document."""
    cfg: Config = _build(Config, data)
    _cross_checks(cfg)
    return dataclasses.replace(cfg, source=source)


def load_config(path: str | Path | None) -> Config:
    """Read and validate config.yml; None means built-in defaults."""
    if path is None:
        return Config()
    p = Path(path)
    text = read_user_file(p, "config file",
                          "pass --config PATH or copy config.yml from the repository",
                          "check the path and permissions")
    try:
        data = yaml.load(text, Loader=_ConfigLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = str(getattr(exc, "problem", None) or exc)
        raise UserError(f"config file {p} is not valid YAML{where}: "
                        f"{_TOKEN_INSIDE.sub('<token-like text>', problem)}"
                        f"{'' if isinstance(exc, _YamlShapeError) else '; fix the syntax'}"
                        ) from None
    try:
        return parse_config(data, source=str(p))
    except UserError as exc:
        raise UserError(f"{p}: {exc}") from None


_LOOPBACK = ("localhost", "127.0.0.1", "::1", "[::1]")


def advice(cfg: Config) -> list[str]:
    """Settings that load but are probably mistakes (`check` and `run` warn)."""
    out: list[str] = []
    c = cfg.challenge
    for key, value in (("challenge.variants", c.variants),
                       ("challenge.time_controls", c.time_controls),
                       ("challenge.modes", c.modes)):
        if not value:
            out.append(f"config key '{key}' is empty: every challenge will be declined; "
                       f"list what to accept or remove the key for the default")
    for key, url in (("url", cfg.url),
                     ("engine.online_moves.explorer_url", cfg.engine.online_moves.explorer_url)):
        parts = urllib.parse.urlsplit(url)
        if parts.scheme == "http" and (parts.hostname or "") not in _LOOPBACK:
            out.append(f"config key '{key}' is plain http:// to {parts.hostname}: the token "
                       f"would cross the network unencrypted; use https://")
    return out


# Read once at start (the HTTP client, the books and tables): a SIGHUP cannot apply them.
RESTART_KEYS = ("url", "token_file", "network", "engine.polyglot", "engine.syzygy",
                "engine.online_moves", "status_page", "records", "alerts")


def restart_keys_changed(old: Config, new: Config) -> list[str]:
    """The RESTART_KEYS whose value differs between two configs."""
    def get(cfg: Config, key: str) -> Any:
        value: Any = cfg
        for part in key.split("."):
            value = getattr(value, part)
        return value

    return [k for k in RESTART_KEYS if get(old, k) != get(new, k)]


def describe() -> list[tuple[str, str, str]]:
    """(key, default, doc) rows for the docs' key reference."""
    rows: list[tuple[str, str, str]] = []

    def walk(cls: Any, prefix: str) -> None:
        for f in dataclasses.fields(cls):
            if cls is Config and f.name in _INTERNAL:
                continue
            tp = typing.get_type_hints(cls)[f.name]
            if dataclasses.is_dataclass(tp):
                walk(tp, prefix + f.name + ".")
                continue
            default = f.default_factory() if f.default_factory is not dataclasses.MISSING \
                else f.default
            rows.append((prefix + f.name, repr(default), f.metadata.get("doc", "")))

    walk(Config, "")
    return rows
