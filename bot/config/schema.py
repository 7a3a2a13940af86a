"""The config's schema: one frozen dataclass per section of config.yml.

A key exists in exactly one place, its dataclass field here: the field's
default is the key's default, and its metadata holds the key's bounds, choices
and one-line doc, which the loader (bot/config/build.py) checks every value
against.  The few checks within one section (records, alerts, an arena entry)
live in that section's __post_init__, so they fail as one-line UserErrors as
well.  Key names follow lichess-bot where the concept is the same, so existing
configs read naturally.
"""

from __future__ import annotations

import dataclasses
import re
import typing
import urllib.parse
from dataclasses import dataclass, field
from typing import Any, Literal

from bot.config.redact import show
from bot.config.strength import FULL, Level, parse_level
from bot.errors import UserError
from bot.host.machine import EngineSizing
from bot.lichess_limits import MODES, SPEEDS, VARIANTS


def _meta(lo: float | None = None, hi: float | None = None,
          choices: tuple[str, ...] | None = None, doc: str = "",
          auto: bool = False, parse: Any = None) -> dict[str, Any]:
    # `parse(key, value)`: a value with a grammar of its own (a strength level), read
    # by that function instead of the type's checks (bot/config/build.py).
    return {"lo": lo, "hi": hi, "choices": choices, "doc": doc, "auto": auto, "parse": parse}


def _list(default: list[Any], **kw: Any) -> Any:
    return field(default_factory=lambda: list(default), metadata=_meta(**kw))


def _val(default: Any, **kw: Any) -> Any:
    return field(default=default, metadata=_meta(**kw))


def _level(default: Level | None, doc: str, match: bool = True) -> Any:
    def parse(key: str, value: Any) -> Level:
        return parse_level(key, value, match)

    return field(default=default, metadata=_meta(doc=doc, parse=parse))


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
    enabled: bool = _val(False, doc="Lichess online tablebase (up to 7 pieces; 8 in "
                                    "standard chess's op1 positions)")
    min_time: float = _val(20.0, lo=0, doc="only with at least this much clock left (s)")
    timeout_s: float = _val(1.0, lo=0.05, hi=30, doc="give up on the request after this")
    # 7 also asks the 8-piece positions lila-tablebase answers (op1: opposed pawns, no
    # castling; src/op1.rs), as lichess-bot's max_pieces: 8 does (bot/sources/online.py).
    max_pieces: int = _val(7, lo=3, hi=7, doc="at most this many pieces (7: and 8-piece op1)")
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
    rating_difference: int | None = _val(
        None, lo=0, hi=5000, doc="decline a challenger rated further than this from our own "
                                 "rating in the challenge's perf; null = off")
    max_game_minutes: float | None = _val(
        None, lo=1, hi=1440, doc="decline a real-time game estimated to last longer "
                                 "(2 x (base + 40 x increment)); null = off")
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
    queue_humans_first: bool = _val(False, doc="a waiting human gets the next free slot "
                                               "before a waiting BOT (then queue_order)")


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
    spectator_eval: bool = _val(False, doc="answer !eval and !pv to spectators during the game "
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


# -- strength levels (issue 47) --------------------------------------------------------
# The level grammar and the Elo scale are bot/config/strength.py's; a game's profile
# and level are chosen at its start (bot/play/terms.py).

@dataclass(frozen=True)
class StrengthProfile:
    """A kind of game the owner treats apart (strength.profiles).  The first profile
    whose every condition holds applies; a setting it leaves null keeps the general
    one (strength.humans / bots, draw_or_resign, game, greeting)."""

    name: str = _val("", doc="names it in the log and `pibot status`")
    opponent: str = _val("any", choices=("any", "human", "bot"))
    modes: list[str] = _list([], choices=MODES, doc="rated and/or casual; empty = both")
    pairing: str = _val("any", choices=("any", "arena", "direct"),
                        doc="arena = an arena's game; direct = a challenge's")
    speeds: list[str] = _list([], choices=SPEEDS, doc="empty = every speed")
    variants: list[str] = _list([], choices=VARIANTS, doc="empty = every variant")
    level: Level | None = _level(None, "full, an Elo, or match[+-N]; null = "
                                       "strength.humans / bots")
    book: bool | None = _val(None, doc="false: no opening-book moves in these games; "
                                       "null = engine.polyglot")
    takebacks: int | None = _val(None, lo=0, hi=1000,
                                 doc="takebacks accepted per game, humans only; null = game's")
    resign: bool | None = _val(None, doc="false: never resign, play on to the end; "
                                         "null = draw_or_resign.resign_enabled")
    draw: bool | None = _val(None, doc="false: neither offer nor accept a draw; "
                                       "null = draw_or_resign.offer_draw_enabled")
    hello: str | None = _val(None, doc="the greeting to the opponent; null = greeting.hello")
    goodbye: str | None = _val(None, doc="null = greeting.goodbye")


@dataclass(frozen=True)
class StrengthConfig:
    """The engine's level per kind of opponent (docs/strength.md)."""

    humans: Level = _level(FULL, "full, an Elo 800..2850, or match[+-N]: the "
                                 "challenger's rating, converted, plus N")
    bots: Level = _level(FULL, "the same, against BOT accounts")
    fallback: Level = _level(Level("elo", 1500), "the level of a `match` game whose "
                                                 "opponent's rating is provisional or "
                                                 "missing: full or an Elo", match=False)
    profiles: list[StrengthProfile] = _list(
        [], doc="games treated apart, first match wins: {name, opponent, modes, pairing, "
                "speeds, variants, level, book, takebacks, resign, draw, hello, goodbye}")


# Days per move lila offers (modules/setup/src/main/Mappings.scala `daysChoices`,
# which ApiConfig's `days` field takes).
CORRESPONDENCE_DAYS = (1, 2, 3, 5, 7, 10, 14)
# What matchmaking may ask for: From Position needs a FEN, which it does not send.
CHALLENGE_VARIANTS = tuple(v for v in VARIANTS if v != "fromPosition")
_TC_RE = re.compile(r"\s*(\d+(?:\.\d+)?|\.\d+)\s*\+\s*(\d+)\s*")


def tc_seconds(text: str) -> tuple[int, int] | None:
    """'3+2' (minutes + seconds, as on lichess.org) -> (180, 2); None if not of that form."""
    m = _TC_RE.fullmatch(text)
    if m is None:
        return None
    return round(float(m.group(1)) * 60), int(m.group(2))


@dataclass(frozen=True)
class MatchmakingType:
    """One kind of game matchmaking asks for (matchmaking.types): each challenge draws
    one type, by weight (BotLi's `types`), and challenges in it.  bot/config/checks.py
    checks the clock or days against what Lichess takes."""

    name: str = _val("", doc="names it in the log; empty = its time control and variant")
    tc: str | None = _val(None, doc="a clock as MINUTES+SECONDS (3+2, 0.5+0); null with days")
    days: int | None = _val(None, lo=1, hi=14, doc="correspondence: days per move (1, 2, 3, "
                                                   "5, 7, 10 or 14); null with tc")
    variant: str = _val("standard", choices=CHALLENGE_VARIANTS)
    mode: str = _val("casual", choices=("casual", "rated", "random"))
    weight: float = _val(1.0, lo=0, hi=1e6, doc="how often it is drawn, relative to the "
                                                "other types' weights; 0 = never")

    @property
    def clock(self) -> tuple[int, int] | None:
        """(base s, increment s); None for correspondence (or a tc not yet checked)."""
        return tc_seconds(self.tc) if self.tc is not None else None

    @property
    def speed(self) -> str:
        """Lichess's speed (lila Speed: base + 40 x increment)."""
        clock = self.clock
        if clock is None:
            return "correspondence"
        est = clock[0] + 40 * clock[1]
        return next((s for limit, s in ((30, "ultraBullet"), (180, "bullet"), (480, "blitz"),
                                        (1500, "rapid")) if est < limit), "classical")

    @property
    def perf(self) -> str:
        """The Lichess perf its games are rated in: the variant's own, or the speed's."""
        return self.speed if self.variant == "standard" else self.variant

    @property
    def label(self) -> str:
        when = f"{self.days}d" if self.days is not None else str(self.tc).replace(" ", "")
        return self.name or f"{when} {self.variant}"


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
    types: list[MatchmakingType] = _list(
        [], doc="kinds of game to challenge in, one drawn per challenge by weight: {name, "
                "tc or days, variant, mode, weight}; empty = standard chess with "
                "challenge_initial_time x challenge_increment and challenge_mode")
    # Why two holds: a reason of lasting kind (too fast, rated, variant, no bots,
    # generic) follows from the other bot's config, which changes seldom; `later` is
    # "busy now".  bot/challenges/declines.py; docs/bot.md "Matchmaking".
    decline_hours: float = _val(168.0, lo=0.0003, hi=87600,
                                doc="challenge_filter: how long a decline for a lasting "
                                    "reason holds (h); remembered across restarts")
    decline_later_hours: float = _val(24.0, lo=0.0003, hi=87600,
                                      doc="challenge_filter: how long a `later` decline "
                                          "holds (h)")


@dataclass(frozen=True)
class NetworkConfig:
    """Timeouts and retry knobs; tests shrink them, production rarely touches them."""

    connect_timeout_s: float = _val(5.0, lo=0.1, hi=120)
    request_timeout_s: float = _val(15.0, lo=0.1, hi=300)
    stream_read_timeout_s: float = _val(12.0, lo=0.1, hi=300,
                                        doc="one keep-alive gap (Lichess: 7 s on every "
                                            "stream) plus 5 s for Wi-Fi and server jitter")
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
            raise UserError(f"config key 'alerts.url': {show(self.url)} is not an http:// "
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
            raise UserError(f"config key 'tournaments': id {show(self.id)} is not an arena "
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
    strength: StrengthConfig = field(default_factory=StrengthConfig)
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


INTERNAL = {"source", "sizing"}  # Config-level only (engine...explorer.source is a key)


def describe() -> list[tuple[str, str, str]]:
    """(key, default, doc) rows for the docs' key reference."""
    rows: list[tuple[str, str, str]] = []

    def walk(cls: Any, prefix: str) -> None:
        for f in dataclasses.fields(cls):
            if cls is Config and f.name in INTERNAL:
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
