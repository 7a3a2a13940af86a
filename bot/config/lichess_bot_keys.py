"""lichess-bot's config keys, and what each becomes in pibot: the table RULES.

For every key of lichess-bot's config.yml.default (lichess-bot-devs/lichess-bot;
units and defaults from its lib/config.py, lib/engine_wrapper.py,
lib/matchmaking.py) RULES says either which pibot key it becomes, with the unit
conversion, or why pibot has no use for it.  `pibot config import`
(bot/config/lichess_bot_import.py) converts a lichess-bot config with it, the
loader (bot/config/build.py) takes its hints for lichess-bot keys found in a
pibot config from it (`foreign_key_note`), and docs/bot.md shows it as the key
map (tests/test_config_import.py checks that every key has its row there).  The
bottom of bot/config/: it imports nothing of it but the strength scale
(strength.py, for Stockfish's `Skill Level`), and bot.lichess_limits.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bot.config.strength import SF_ELO_MIN, clamp_elo, skill_level_elo
from bot.lichess_limits import API_CLOCK_LIMITS_S, VARIANTS

EXTERNAL = "an external engine's setting: pibot plays with its own built-in engine"
HOMEMADE = "options of a homemade engine: pibot plays with its own built-in engine"
NO_MAX_TIME = ("an upper bound on the game's starting clock; pibot asks online sources in "
               "games of any length, min_time still applies")
LICHESS_TB_MAX = 7  # tablebase.lichess.org serves up to 7 pieces
LICHESS_MAX_DAYS = 14  # lila: correspondence days per move 1..14
# the days a challenge may ask for (lila modules/setup/src/main/Mappings.scala daysChoices)
LICHESS_DAYS = (1, 2, 3, 5, 7, 10, 14)
LICHESS_MAX_BASE_S = 10800  # lila: clock limit up to 180 minutes
MAX_INCREMENT_S = 60  # the challenge API's clock.increment range (see bot/config/schema.py)


class Dropped(Exception):
    """A value that cannot be carried over; the message says why."""


@dataclass
class Result:
    """The imported config plus what the owner needs to read about it."""

    config: dict[str, Any] = field(default_factory=dict)
    dropped: list[str] = field(default_factory=list)  # "KEY: why", one per dropped key
    converted: list[str] = field(default_factory=list)  # "KEY: old -> new key/value"
    carried: int = 0
    token: str | None = None  # kept apart: never written into `config`

    def drop(self, key: str, why: str) -> None:
        self.dropped.append(f"{key}: {why}")

    def note(self, key: str, what: str) -> None:
        self.converted.append(f"{key}: {what}")


# A conversion gets (value, whole lichess-bot config, result) and returns the
# pibot value, or raises Dropped.
Convert = Callable[[Any, dict[str, Any], Result], Any]


@dataclass(frozen=True)
class Rule:
    target: str | None  # pibot key; None = dropped
    why: str  # drop reason, or the conversion in words (docs/bot.md)
    convert: Convert | None = None
    keeps_none: bool = False  # null means something (off, silent) rather than "default"


def to(target: str, how: str = "same meaning and unit", convert: Convert | None = None,
       keeps_none: bool = False) -> Rule:
    return Rule(target, how, convert, keeps_none)


def drop(why: str) -> Rule:
    return Rule(None, why)


def get_dotted(data: dict[str, Any], dotted: str) -> Any:
    node: Any = data
    for part in dotted.split("."):
        if not isinstance(node, dict):
            return None
        node = node.get(part)
    return node


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise Dropped(f"{value!r} is not a number")
    return value


def _clamp(lo: float, hi: float) -> Convert:
    """Into pibot's range; lichess-bot's `.inf` (no limit) becomes `hi`."""
    def conv(value: Any, _src: dict[str, Any], _res: Result) -> Any:
        v = _number(value)
        if math.isnan(v):
            raise Dropped("not a number (.nan)")
        if math.isinf(v) and v > 0:
            return hi
        return min(max(v, lo), hi)
    return conv


def _url(value: Any, _src: dict[str, Any], _res: Result) -> Any:
    return value.rstrip("/") if isinstance(value, str) else value


def _moves_to_plies(value: Any, _src: dict[str, Any], _res: Result) -> Any:
    v = _number(value)
    # lichess-bot: the book is used while len(move_stack) <= 2 * max_depth - 1,
    # i.e. for 2 * max_depth plies (lib/engine_wrapper.py get_book_move).
    return 1000 if math.isinf(v) else max(1, min(1000, int(v) * 2))


# lichess-bot's book lists are keyed by python-chess's uci_variant (engine_wrapper
# get_book_move: "standard"/"chess960" for chess, else board.uci_variant); pibot's
# by Lichess's variant key, as challenge.variants.
_BOOK_VARIANTS = {"kingofthehill": "kingOfTheHill", "3check": "threeCheck",
                  "racingkings": "racingKings"}


def _books(value: Any, _src: dict[str, Any], res: Result) -> Any:
    if not isinstance(value, dict):
        raise Dropped("not a mapping of variant -> book files")
    out: dict[str, Any] = {}
    for variant, files in value.items():
        key = f"engine.polyglot.book.{variant}"
        ours = _BOOK_VARIANTS.get(str(variant).lower(), variant)
        if ours not in VARIANTS or ours == "fromPosition":
            res.drop(key, "not a variant of Lichess's (fromPosition games use the "
                          "standard books)")
        elif files is not None:
            out[ours] = [files] if isinstance(files, str) else files
    return out


def _min_weight(value: Any, src: dict[str, Any], _res: Result) -> Any:
    if (get_dotted(src, "engine.polyglot.normalization") or "none") != "none":
        raise Dropped("set on lichess-bot's normalized 0-100 scale; pibot compares the "
                      "book's raw weights (0..65535): set engine.polyglot.min_weight anew")
    return value


def _explorer_source(value: Any, _src: dict[str, Any], _res: Result) -> Any:
    if value == "player":
        raise Dropped("pibot's explorer reads the masters or lichess databases, not one "
                      "player's games (pibot's default, masters, applies)")
    return value


def _egtb_quality(value: Any, _src: dict[str, Any], res: Result) -> Any:
    if value == "suggest":
        res.note("engine.online_moves.online_egtb.move_quality",
                 "suggest -> best (pibot plays the online tablebase's best move)")
        return "best"
    return value


def _egtb_source(value: Any, _src: dict[str, Any], _res: Result) -> Any:
    if value != "lichess":
        raise Dropped("pibot asks only the Lichess tablebase (engine.online_moves."
                      "tablebase_url)")
    return None  # lichess is what pibot does anyway: nothing to write


def _takebacks(value: Any, _src: dict[str, Any], _res: Result) -> Any:
    return int(min(max(_number(value), 0), 1000))


def _block_urls(value: Any, _src: dict[str, Any], res: Result) -> Any:
    urls = [value] if isinstance(value, str) else list(value or [])
    out = []
    for url in urls:
        url = str(url).strip()
        if url and not url.startswith(("http://", "https://")):
            res.note("online_block_list", f"{url!r} -> 'https://{url}' (pibot needs the scheme)")
            url = "https://" + url
        if url:
            out.append(url)
    return out


def _concurrency(value: Any, _src: dict[str, Any], res: Result) -> Any:
    n = int(_number(value))
    if n < 1:
        res.note("challenge.concurrency", f"{value} -> 1 (pibot plays at least one game; "
                                          "to play none, stop the service)")
    return max(1, min(64, n))


def _reserved(value: Any, _src: dict[str, Any], _res: Result) -> Any:
    return int(min(max(_number(value), 0), 64))


def _sort_by(value: Any, _src: dict[str, Any], res: Result) -> Any:
    # lichess-bot sort_challenges: "best" sorts by Challenge.score() (rating first)
    if value not in ("best", "first"):
        raise Dropped(f"{value!r} is not a lichess-bot sort_by (best or first)")
    return "rating" if value == "best" else "first"


def _variants(value: Any, _src: dict[str, Any], res: Result) -> Any:
    items = [value] if isinstance(value, str) else list(value or [])
    for v in items:
        if v not in VARIANTS:
            res.drop(f"challenge.variants[{v}]", "not a variant of Lichess's")
    return [v for v in items if v in VARIANTS]


def _time_controls(value: Any, _src: dict[str, Any], res: Result) -> Any:
    items = [value] if isinstance(value, str) else list(value or [])
    if "ultraBullet" in items:
        res.drop("challenge.time_controls[ultraBullet]",
                 "Lichess does not let BOT accounts play UltraBullet")
    return [v for v in items if v != "ultraBullet"]


def _minutes_to_s(value: Any, _src: dict[str, Any], _res: Result) -> Any:
    # lichess-bot: minutes, at least 1 (lib/config.py insert_default_values).
    seconds = max(1.0, float(_number(value))) * 60
    return int(seconds) if seconds.is_integer() else seconds


def _initial_times(value: Any, _src: dict[str, Any], res: Result) -> Any:
    items = [v for v in (value if isinstance(value, list) else [value]) if v is not None]
    for v in items:
        if v not in API_CLOCK_LIMITS_S:
            res.drop(f"matchmaking.challenge_initial_time[{v}]",
                     "not a clock the challenge API takes (15, 30, 45, 60, 90 s or whole "
                     "minutes in seconds up to 10800)")
    return [v for v in items if v in API_CLOCK_LIMITS_S]


def _increments(value: Any, _src: dict[str, Any], res: Result) -> Any:
    items = [v for v in (value if isinstance(value, list) else [value]) if v is not None]
    for v in items:
        if not isinstance(v, int) or not 0 <= v <= MAX_INCREMENT_S:
            res.drop(f"matchmaking.challenge_increment[{v}]",
                     f"the challenge API takes increments of 0..{MAX_INCREMENT_S} s")
    return [v for v in items if isinstance(v, int) and 0 <= v <= MAX_INCREMENT_S]


def _challenge_variant(value: Any, src: dict[str, Any], _res: Result) -> Any:
    if value != "random" and (value not in VARIANTS or value == "fromPosition"):
        raise Dropped(f"{value!r} is not a variant matchmaking can ask for (a Lichess "
                      f"variant key, not fromPosition, or random)")
    if value == "standard" and not get_dotted(src, "matchmaking.challenge_days"):
        raise Dropped("standard chess is pibot's matchmaking default: no matchmaking.types "
                      "needed")
    return None  # applied in import_config: matchmaking.types, once every list is known


def _challenge_days(value: Any, _src: dict[str, Any], res: Result) -> Any:
    items = [v for v in (value if isinstance(value, list) else [value]) if v is not None]
    for v in items:
        if v not in LICHESS_DAYS:
            res.drop(f"matchmaking.challenge_days[{v}]", "Lichess offers 1, 2, 3, 5, 7, 10 "
                                                         "or 14 days per move")
    if not any(v in LICHESS_DAYS for v in items):
        raise Dropped("no days per move Lichess offers: real-time challenges only")
    return None  # applied in import_config with challenge_variant


# lichess-bot removes {words} other than {opponent} and {me}; pibot would say them.
_OTHER_PLACEHOLDER = re.compile(r"\{(?!(?:opponent|me)\})[^{}]*\}")


def _greeting(value: Any, _src: dict[str, Any], res: Result) -> Any:
    if value is None:
        return ""  # lichess-bot: empty = say nothing
    if not isinstance(value, str):
        raise Dropped(f"{value!r} is not text")
    text = _OTHER_PLACEHOLDER.sub("", value)
    if text != value:
        res.note("greeting", f"{value!r} -> {text!r} (only {{opponent}} and {{me}} are "
                             "replaced; lichess-bot removed the other {words})")
    return text


def _merge_block_lists(value: Any, src: dict[str, Any], res: Result) -> Any:
    if value is True:
        res.note("matchmaking.include_challenge_block_list",
                 "true -> challenge.block_list and online_block_list copied into "
                 "matchmaking's")
    return None  # applied in import_config once both lists are known


UCI = "engine.uci_options"


def _uci_level(src: dict[str, Any]) -> tuple[int | None, str]:
    """The level Stockfish plays with these uci_options (None: full strength), and
    which option set it.  UCI_LimitStrength on: UCI_Elo (default 1350), whatever
    the Skill Level; off: the Skill Level, 20 being full strength (sf_15.1
    src/search.cpp, struct Skill)."""
    opts = get_dotted(src, UCI)
    opts = opts if isinstance(opts, dict) else {}
    if opts.get("UCI_LimitStrength") is True:
        elo = opts.get("UCI_Elo", 1350)
        return clamp_elo(_number(elo), SF_ELO_MIN), f"UCI_Elo {elo}"  # as Stockfish clamps it
    skill = opts.get("Skill Level")
    if skill is None:
        return None, "no limit"
    return skill_level_elo(_number(skill)), f"Skill Level {skill}"


def _strength(value: Any, src: dict[str, Any], res: Result, key: str) -> Any:
    """One of the three options: the one that sets Stockfish's level writes
    strength.humans and strength.bots, the others say why they do not."""
    elo, by = _uci_level(src)
    limited = get_dotted(src, f"{UCI}.UCI_LimitStrength") is True
    decides = {"UCI_LimitStrength": limited, "UCI_Elo": False,
               "Skill Level": not limited}[key]
    if not decides:
        if key == "UCI_Elo" and not limited:
            raise Dropped("Stockfish ignores UCI_Elo without UCI_LimitStrength: true")
        if key == "UCI_LimitStrength" and get_dotted(src, f"{UCI}.Skill Level") is None:
            raise Dropped(f"{value!r}: full strength, pibot's default")
        if key == "UCI_LimitStrength" or (key == "UCI_Elo" and limited):
            return None  # consumed: the option that sets the level writes it
        raise Dropped("UCI_LimitStrength: true sets the level (UCI_Elo), not Skill Level")
    if key == "UCI_LimitStrength" and value is not True:
        raise Dropped(f"{value!r}: full strength, pibot's default")
    level = "full" if elo is None else elo
    how = "full strength" if elo is None else f"Elo {elo}"
    if key == "Skill Level" and elo is not None:
        how += " (Stockfish 15.1: Elo = 1346.6 + 143.4 x level^0.806)"
    res.note(f"{UCI}.{key}", f"{by} -> strength.humans and strength.bots: {how}")
    return {"humans": level, "bots": level}


def _strength_of(key: str) -> Convert:
    def convert(value: Any, src: dict[str, Any], res: Result) -> Any:
        return _strength(value, src, res, key)
    return convert


# Conversions whose change needs no line of its own: a trailing / dropped from the
# url, and the greeting, which notes its own change.
QUIET: tuple[Convert, ...] = (_url, _greeting)

TB = "engine.lichess_bot_tbs"
OM = "engine.online_moves"
DR = "engine.draw_or_resign"

RULES: dict[str, Rule] = {
    "token": drop("pibot keeps the token out of config.yml: in the file token_file names, "
                  "$LICHESS_BOT_TOKEN or a systemd credential"),
    "url": to("url", "same; a trailing / is removed", _url),
    "engine.dir": drop(EXTERNAL),
    "engine.name": drop(EXTERNAL),
    "engine.debug": drop(EXTERNAL + " (log_level: debug logs pibot's own search)"),
    "engine.interpreter": drop(EXTERNAL),
    "engine.interpreter_options": drop(EXTERNAL),
    "engine.working_dir": drop(EXTERNAL),
    "engine.protocol": drop(EXTERNAL),
    "engine.ponder": to("engine.ponder"),
    "engine.uci_ponder": to("engine.ponder", "engine.ponder (pibot has one ponder switch)"),
    "engine.polyglot.enabled": to("engine.polyglot.enabled"),
    "engine.polyglot.book": to("engine.polyglot.book", "a list per variant (3check -> "
                               "threeCheck, kingofthehill -> kingOfTheHill, racingkings -> "
                               "racingKings)", _books),
    "engine.polyglot.min_weight": to("engine.polyglot.min_weight", "same when normalization "
                                     "is none; dropped otherwise", _min_weight),
    "engine.polyglot.selection": to("engine.polyglot.selection"),
    "engine.polyglot.max_depth": to("engine.polyglot.max_depth", "moves -> plies: x 2",
                                    _moves_to_plies),
    "engine.polyglot.normalization": drop("pibot uses the book's raw weights"),
    f"{DR}.resign_enabled": to("draw_or_resign.resign_enabled", "top-level section"),
    f"{DR}.resign_score": to("draw_or_resign.resign_score", "cp, same"),
    f"{DR}.resign_for_egtb_minus_two": to("draw_or_resign.resign_for_tablebase_loss",
                                          "local Syzygy tables (online: not used)"),
    f"{DR}.resign_moves": to("draw_or_resign.resign_moves", "own moves, same"),
    f"{DR}.offer_draw_enabled": to("draw_or_resign.offer_draw_enabled", "top-level section"),
    f"{DR}.offer_draw_score": to("draw_or_resign.offer_draw_score", "cp, same"),
    f"{DR}.offer_draw_for_egtb_zero": to("draw_or_resign.offer_draw_for_tablebase_draw",
                                         "local Syzygy tables (online: not used)"),
    f"{DR}.offer_draw_moves": to("draw_or_resign.offer_draw_moves", "own moves, same"),
    f"{DR}.offer_draw_pieces": to("draw_or_resign.offer_draw_pieces"),
    f"{OM}.max_out_of_book_moves": to(f"{OM}.max_out_of_book_moves"),
    f"{OM}.max_retries": drop("pibot asks once per move (within timeout_s) and otherwise "
                              "searches"),
    f"{OM}.max_depth": drop("pibot has no move limit for online books "
                            "(max_out_of_book_moves stops them)"),
    f"{OM}.chessdb_book": drop("chessdb.cn is not a pibot source (it asks Lichess's "
                               "explorer, cloud eval and tablebase)"),
    f"{OM}.lichess_cloud_analysis.enabled": to(f"{OM}.lichess_cloud_analysis.enabled"),
    f"{OM}.lichess_cloud_analysis.min_time": to(f"{OM}.lichess_cloud_analysis.min_time",
                                                "seconds, same"),
    f"{OM}.lichess_cloud_analysis.max_time": drop(NO_MAX_TIME),
    f"{OM}.lichess_cloud_analysis.move_quality": to(f"{OM}.lichess_cloud_analysis."
                                                    "move_quality"),
    f"{OM}.lichess_cloud_analysis.max_score_difference": to(
        f"{OM}.lichess_cloud_analysis.max_score_difference", "cp, same"),
    f"{OM}.lichess_cloud_analysis.min_depth": to(f"{OM}.lichess_cloud_analysis.min_depth"),
    f"{OM}.lichess_cloud_analysis.min_knodes": to(f"{OM}.lichess_cloud_analysis.min_knodes"),
    f"{OM}.lichess_opening_explorer.enabled": to(f"{OM}.lichess_opening_explorer.enabled"),
    f"{OM}.lichess_opening_explorer.min_time": to(f"{OM}.lichess_opening_explorer.min_time",
                                                  "seconds, same"),
    f"{OM}.lichess_opening_explorer.max_time": drop(NO_MAX_TIME),
    f"{OM}.lichess_opening_explorer.source": to(f"{OM}.lichess_opening_explorer.source",
                                                "masters and lichess; player is dropped",
                                                _explorer_source),
    f"{OM}.lichess_opening_explorer.player_name": drop("pibot's explorer does not read one "
                                                       "player's games"),
    f"{OM}.lichess_opening_explorer.sort": to(f"{OM}.lichess_opening_explorer.sort"),
    f"{OM}.lichess_opening_explorer.min_games": to(f"{OM}.lichess_opening_explorer.min_games"),
    f"{OM}.online_egtb.enabled": to(f"{OM}.online_egtb.enabled"),
    f"{OM}.online_egtb.min_time": to(f"{OM}.online_egtb.min_time", "seconds, same"),
    f"{OM}.online_egtb.max_time": drop(NO_MAX_TIME),
    f"{OM}.online_egtb.max_pieces": to(f"{OM}.online_egtb.max_pieces", "capped at 7, which "
                                       "also asks the 8-piece op1 positions (lichess-bot's 8)",
                                       _clamp(3, LICHESS_TB_MAX)),
    f"{OM}.online_egtb.source": to(f"{OM}.online_egtb", "lichess is what pibot asks; "
                                   "chessdb is dropped", _egtb_source),
    f"{OM}.online_egtb.move_quality": to(f"{OM}.online_egtb.move_quality", "best; suggest "
                                         "-> best", _egtb_quality),
    f"{TB}.syzygy.enabled": to("engine.syzygy.enabled"),
    f"{TB}.syzygy.paths": to("engine.syzygy.paths"),
    f"{TB}.syzygy.max_pieces": to("engine.syzygy.max_pieces", "capped at 3..7",
                                  _clamp(3, 7)),
    f"{TB}.syzygy.move_quality": to("engine.syzygy.move_quality"),
    f"{TB}.gaviota": drop("pibot reads Syzygy tablebases only"),
    "engine.engine_options": drop(EXTERNAL),
    "engine.homemade_options": drop(HOMEMADE),
    "engine.uci_options.Threads": drop("the external engine's threads; pibot's "
                                       "engine.threads is sized to this machine (auto): set "
                                       "it there to override"),
    "engine.uci_options.Hash": drop("the external engine's hash; pibot's engine.hash_mb is "
                                    "sized to this machine (auto): set it there to override"),
    "engine.uci_options.Move Overhead": drop("the external engine's own margin; pibot keeps "
                                             "one margin, engine.move_overhead_ms, taken from "
                                             "move_overhead"),
    "engine.uci_options.SyzygyPath": drop("tables the external engine reads; pibot reads the "
                                          "tables in engine.syzygy.paths, taken from "
                                          "lichess_bot_tbs.syzygy"),
    **{f"{UCI}.{k}": to("strength", "the level Stockfish would play (UCI_LimitStrength: "
                          "UCI_Elo; else Skill Level through Stockfish 15.1's Elo = "
                          "1346.6 + 143.4 x level^0.806) -> strength.humans and "
                          "strength.bots", _strength_of(k))
       for k in ("UCI_LimitStrength", "UCI_Elo", "Skill Level")},
    "engine.uci_options.go_commands": drop("search limits for the external engine; pibot's "
                                           "search is limited by the clock"),
    "engine.uci_options.*": drop("a UCI option of the external engine (e.g. UCI_ShowWDL)"),
    "engine.xboard_options": drop(EXTERNAL),
    "engine.silence_stderr": drop(EXTERNAL),
    "abort_time": to("game.abort_if_no_first_move_s", "seconds, same (1..3600)",
                     _clamp(1, 3600)),
    "fake_think_time": drop("pibot never slows itself down on purpose"),
    "rate_limiting_delay": drop("pibot paces its requests itself (network.rate_limit_pause_s "
                                "after a 429)"),
    "move_overhead": to("engine.move_overhead_ms", "milliseconds, same (0..10000)",
                        _clamp(0, 10000)),
    "max_takebacks_accepted": to("game.max_takebacks_accepted", "same: takebacks accepted "
                                 "per game", _takebacks),
    "quit_after_all_games_finish": drop("pibot always lets running games finish on SIGTERM, "
                                        "for up to shutdown_grace_s"),
    "correspondence.move_time": to("correspondence.move_time", "seconds, same",
                                   _clamp(0.1, 3600)),
    "correspondence.checkin_period": to("correspondence.checkin_period", "seconds, same"),
    "correspondence.disconnect_time": to("correspondence.disconnect_time", "seconds, same"),
    "correspondence.ponder": to("correspondence.ponder"),
    "correspondence.uci_ponder": to("correspondence.ponder", "correspondence.ponder"),
    "challenge.concurrency": to("challenge.concurrency", "same; 0 -> 1", _concurrency),
    "challenge.games_reserved_for_humans": to("challenge.reserved_for_humans", "same; "
                                              "capped at 64", _reserved),
    "challenge.sort_by": to("challenge.queue_order", "best -> rating, first -> first "
                            "(queue_max stays 0 = no queue: set it)", _sort_by),
    "challenge.preference": drop("pibot answers challenges in the order they arrive "
                                 "(accept_bot / only_bot choose who may play)"),
    "challenge.accept_bot": to("challenge.accept_bot"),
    "challenge.only_bot": to("challenge.only_bot"),
    "challenge.max_increment": to("challenge.max_increment", "seconds, same"),
    "challenge.min_increment": to("challenge.min_increment", "seconds, same"),
    "challenge.max_base": to("challenge.max_base", "seconds, same; .inf -> 10800",
                             _clamp(0, LICHESS_MAX_BASE_S)),
    "challenge.min_base": to("challenge.min_base", "seconds, same"),
    "challenge.max_days": to("challenge.max_days", "days, same; .inf -> 14",
                             _clamp(1, LICHESS_MAX_DAYS)),
    "challenge.min_days": to("challenge.min_days", "days, same",
                             _clamp(1, LICHESS_MAX_DAYS)),
    "challenge.variants": to("challenge.variants", "same (every Lichess variant); unknown "
                             "names are dropped", _variants),
    "challenge.time_controls": to("challenge.time_controls", "same; ultraBullet dropped",
                                  _time_controls),
    "challenge.modes": to("challenge.modes"),
    "challenge.block_list": to("challenge.block_list"),
    "challenge.online_block_list": to("challenge.online_block_list",
                                      "same; https:// added to a URL without a scheme",
                                      _block_urls),
    "challenge.allow_list": to("challenge.allow_list"),
    "challenge.recent_bot_challenge_age": to("challenge.recent_bot_challenge_age_s",
                                             "seconds, same (1..86400)", _clamp(1, 86400)),
    "challenge.max_recent_bot_challenges": to("challenge.max_recent_bot_challenges",
                                              "same (null = no limit)", keeps_none=True),
    "challenge.min_rating": to("challenge.min_rating"),
    "challenge.max_rating": to("challenge.max_rating"),
    "challenge.rating_difference": to("challenge.rating_difference",
                                      "same: against our rating in the challenge's perf"),
    "challenge.bullet_requires_increment": to("challenge.bullet_requires_increment"),
    "challenge.max_simultaneous_games_per_user": to("challenge.max_simultaneous_games_per_user"),
    **{f"greeting.{k}": to(f"greeting.{k}", "same: {opponent} and {me} are replaced; "
                           "empty = say nothing", _greeting, keeps_none=True)
       for k in ("hello", "goodbye", "hello_spectators", "goodbye_spectators")},
    "pgn_directory": to("pgn_directory", "same; empty = no PGN files", keeps_none=True),
    "pgn_file_grouping": drop("pibot writes one file per game (<game id>.pgn)"),
    "matchmaking.allow_matchmaking": to("matchmaking.allow_matchmaking"),
    "matchmaking.allow_during_games": drop("pibot challenges only when idle"),
    "matchmaking.challenge_variant": to(
        "matchmaking.types", "a variant, or random (one of challenge.variants): one type per "
        "variant and clock (and days) in matchmaking.types, as likely as lichess-bot draws "
        "them; standard alone is pibot's default", _challenge_variant),
    "matchmaking.challenge_timeout": to("matchmaking.challenge_timeout_s",
                                        "minutes -> seconds: x 60, at least 60",
                                        _minutes_to_s),
    "matchmaking.challenge_initial_time": to("matchmaking.challenge_initial_time",
                                             "seconds, same; clocks the API refuses are "
                                             "dropped", _initial_times),
    "matchmaking.challenge_increment": to("matchmaking.challenge_increment",
                                          "seconds, same; above 60 dropped", _increments),
    "matchmaking.challenge_days": to(
        "matchmaking.types", "correspondence types in matchmaking.types, drawn as often as "
        "the clock types together (lichess-bot's coin toss between the two)", _challenge_days),
    "matchmaking.opponent_min_rating": to("matchmaking.opponent_min_rating"),
    "matchmaking.opponent_max_rating": to("matchmaking.opponent_max_rating"),
    "matchmaking.opponent_rating_difference": to("matchmaking.opponent_rating_difference",
                                                 "same (null = off); also within "
                                                 "opponent_min/max_rating", keeps_none=True),
    "matchmaking.rating_preference": drop("pibot picks among suitable opponents at random"),
    "matchmaking.challenge_mode": to("matchmaking.challenge_mode"),
    "matchmaking.challenge_filter": to("matchmaking.challenge_filter",
                                       "same: none, coarse or fine; a decline holds "
                                       "decline_hours (later: decline_later_hours), kept "
                                       "across restarts"),
    "matchmaking.delay_after_decline": drop("pibot's challenge_filter holds a decline for "
                                            "matchmaking.decline_hours (decline_later_hours "
                                            "for `later`)"),
    "matchmaking.block_list": to("matchmaking.block_list"),
    "matchmaking.online_block_list": to("matchmaking.online_block_list",
                                        "same; https:// added to a URL without a scheme",
                                        _block_urls),
    "matchmaking.include_challenge_block_list": to(
        "matchmaking.block_list", "true: challenge.block_list / online_block_list are added "
        "to matchmaking's", _merge_block_lists),
    "matchmaking.challenge_decliner_file_name": drop("pibot keeps declines in its records "
                                                     "database (challenge_filter), for "
                                                     "decline_hours, not in a file"),
    "matchmaking.overrides": drop("pibot has one opponent filter; matchmaking.types vary "
                                  "the game (variant, clock, days, mode)"),
}


def rule_for(key: str) -> Rule | None:
    """The rule for a dotted lichess-bot key (`engine.uci_options.Hash` matches `.*`)."""
    if key in RULES:
        return RULES[key]
    parent = key.rpartition(".")[0]
    return RULES.get(parent + ".*") if parent else None


def has_rules_below(key: str) -> bool:
    return any(k.startswith(key + ".") for k in RULES)


def foreign_key_note(key: str) -> str | None:
    """For the loader: what a lichess-bot key found in a pibot config means here,
    or None when `key` is not one of lichess-bot's own.  Keys pibot shares with
    lichess-bot never get here (they load)."""
    rule = rule_for(key)
    if rule is None and has_rules_below(key):
        # a lichess-bot section, e.g. engine.draw_or_resign: where its keys went
        homes = sorted({r.target.rpartition(".")[0] or r.target for k, r in RULES.items()
                        if k.startswith(key + ".") and r.target})
        what = f"a lichess-bot section; pibot's keys for it are in {', '.join(homes)}" \
            if homes else "a lichess-bot section pibot does not use; remove it"
    elif rule is None:
        return None
    elif rule.target is None:
        what = f"a lichess-bot key pibot does not use: {rule.why}; remove it"
    else:
        what = f"a lichess-bot key; pibot's is '{rule.target}': {rule.why}"
    return f"{what} (`pibot config import FILE` converts a lichess-bot config)"

