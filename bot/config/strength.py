"""Strength levels: how config.yml writes one, and the Elo scale they are on.

A level is `full` (the engine as strong as it is), an Elo number on Stockfish
15.1's `UCI_Elo` scale (src/ucioption.cpp: 1350..2850; the engine's levels go on
down to 800, below Stockfish's range, for beginners), or `match` with an
optional offset (`match+100`, `match-200`): the opponent's Lichess rating in
the game's perf, converted to that scale (`lichess_to_engine`), plus the
offset, clamped to the range.  A provisional or missing rating cannot be
matched: the owner's `strength.fallback` applies then.  The engine plays a
level through `Engine.strength.set` (bot/engine/strength.py); docs/strength.md says how
the levels were calibrated and why the conversion is what it is.

Pure functions, unit-tested (tests/test_strength_config.py).  With
lichess_bot_keys.py the bottom of bot/config/: it imports only `bot.errors`,
so that the lichess-bot import (`Skill Level` -> `skill_level_elo`) can use it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from bot.errors import UserError

# The engine's levels (engine_c/pibot_engine_api.h STRENGTH_MIN_ELO..MAX_ELO): Stockfish
# 15.1's UCI_Elo range (src/ucioption.cpp: Option(1350, 1350, 2850)) widened down to 800,
# so that a beginner who challenges meets a level near their own; below 1350 the levels
# are placed by head-to-heads with the calibrated ones (docs/strength.md).
ELO_MIN = 800
ELO_MAX = 2850
SF_ELO_MIN = 1350  # Stockfish's own bottom: where its Skill Level 0 and UCI_Elo start
MAX_OFFSET = 1500  # `match+N`: |N| at most this

_MATCH = re.compile(r"^match\s*(?:([+-])\s*(\d+))?$")


@dataclass(frozen=True)
class Level:
    """A level as config.yml writes it: `full`, an Elo, or `match` with an offset."""

    kind: Literal["full", "elo", "match"] = "full"
    elo: int | None = None  # kind "elo"
    offset: int = 0  # kind "match": added to the converted rating

    def __str__(self) -> str:
        if self.kind == "elo":
            return str(self.elo)
        if self.kind == "match" and self.offset:
            return f"match{self.offset:+d}"
        return self.kind


FULL = Level()


def _allowed(match: bool) -> str:
    what = f"full or an Elo from {ELO_MIN} to {ELO_MAX}"
    return what + (f", or match with an optional offset (match+100, match-200; at most "
                   f"±{MAX_OFFSET})" if match else "")


def parse_level(key: str, value: Any, match: bool = True) -> Level:
    """A config value -> a Level; a bad one is one UserError naming `key` and what is
    allowed.  `match` False: the key takes no `match` (strength.fallback)."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise UserError(f"config key '{key}' is {value!r}; use {_allowed(match)}")
    text = str(value).strip().lower()
    if text == "full":
        return FULL
    if re.fullmatch(r"\d+", text):
        elo = int(text)
        if not ELO_MIN <= elo <= ELO_MAX:
            raise UserError(f"config key '{key}' is {elo}, outside the engine's range "
                            f"{ELO_MIN}..{ELO_MAX}; use {_allowed(match)}")
        return Level("elo", elo)
    found = _MATCH.match(text)
    if found is None or not match:
        raise UserError(f"config key '{key}' is {str(value)[:40]!r}; use {_allowed(match)}")
    sign, digits = found.groups()
    offset = int(digits or 0) * (-1 if sign == "-" else 1)
    if abs(offset) > MAX_OFFSET:
        raise UserError(f"config key '{key}': the offset of {value!r} is beyond "
                        f"±{MAX_OFFSET}; use {_allowed(match)}")
    return Level("match", offset=offset)


def clamp_elo(elo: float, lowest: int = ELO_MIN) -> int:
    return int(min(ELO_MAX, max(lowest, round(elo))))


def lichess_to_engine(rating: int) -> int:
    """A Lichess rating (the player's, in the game's perf) on the engine's UCI_Elo scale.

    No authoritative mapping exists, so this is an assumption, kept in this one
    place and corrected by the owner's offset (`match-200`):

    - Stockfish's UCI_Elo is engine-vs-engine Elo at 60+0.6, anchored to CCRL 40/4
      (sf_15.1 src/search.cpp, README; commit 0dbc72d, "the anchoring to CCRL is a
      bit weak").  Lichess ratings are Glicko-2 among people, per speed.
    - The one calibration against Lichess people, J. VandeVondele's experimental
      Stockfish commit caa7faa5 (never merged), sets UCI_Elo 1500 to the strength
      of maia1, whose Lichess blitz rating against people is 1500: there the two
      scales agree.  No measurement of how they diverge away from 1500 was found.
    - Stockfish's own later measurement (commit a08b8d4e, in sf_16) says 15.1's
      levels above ~1800 play stronger than their label (UCI_Elo 2000 ~ 2400 CCRL
      blitz), so the same number errs towards a harder game for strong players.
    - Bots are underrated against people on Lichess by ~250 points in standard
      chess (lila issues #13602, #19063): the Lichess rating of a BOT is a weaker
      guide to its strength than a person's.

    Hence the identity: a Lichess rating is taken as the engine level of the same
    number.  Each speed is its own pool on Lichess, so the rating already is the
    player's strength at the game's speed; no speed term is added.  `pibot history`
    shows how humans score against `match`, for the owner to adjust the offset.
    """
    return rating


def match_elo(level: Level, rating: int | None, provisional: bool,
              fallback: Level) -> tuple[int | None, bool]:
    """The Elo a game is played at (None: full strength), and whether `fallback`
    decided it: a `match` level whose opponent's rating is provisional or missing."""
    if level.kind == "full":
        return None, False
    if level.kind == "elo":
        return level.elo, False
    if rating is None or provisional:
        return (fallback.elo if fallback.kind == "elo" else None), True
    return clamp_elo(lichess_to_engine(rating) + level.offset), False


def skill_level_elo(skill: float) -> int | None:
    """Stockfish's `Skill Level` (0..20) on its UCI_Elo scale; None for 20 (full).

    Stockfish 15.1 turns UCI_Elo into a skill level by
    level = ((elo - 1346.6) / 143.4) ** (1 / 0.806) (src/search.cpp, struct Skill);
    this is its inverse, elo = 1346.6 + 143.4 * level ** 0.806, clamped to the range
    (level 0 -> 1347 -> 1350; level 19 -> 2885 -> 2850)."""
    if skill >= 20:
        return None
    return clamp_elo(1346.6 + 143.4 * max(0.0, skill) ** 0.806, SF_ELO_MIN)
