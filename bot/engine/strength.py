"""Playing-strength levels of an Engine, on Stockfish 15.1's UCI_Elo scale.

    eng.strength.set(1500)      # from the next search on, until changed
    eng.strength.set(None)      # full strength again (0 too)
    eng.strength.elo            # 1500, or None at full strength
    eng.strength.seed(7)        # the level's random choices, reproducible

A level searches less (a node budget and a depth cap), chooses among its best
root lines with a bounded random push, and waits out a think time that is a
share of the full-strength budget (engine_c/strength.h; docs/strength.md,
"Strength levels"). The setting lives in the C engine, so it is cheap and
persists across searches and `new_game()`; it may be changed during a search
and applies from the next one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bot.engine import search_bindings as sb
from bot.engine.exceptions import EngineArgumentError

# The Elo range of the levels: Stockfish 15.1's UCI_Elo (1350..2850), widened down to 800.
MIN_ELO: int = sb.MIN_ELO
MAX_ELO: int = sb.MAX_ELO
MAX_SEED = (1 << 64) - 1


@dataclass(frozen=True)
class LevelParams:
    """What a level does (engine_c/strength.h explains each)."""

    elo: int
    nodes: int        # node budget of the search, all lines together
    depth: int        # deepest iteration
    multipv: int      # candidates chosen among
    spread_cp: int    # random push on a candidate's score: uniform 0..spread_cp
    max_loss_cp: int  # no candidate further below the best plays
    think_pct: int    # average think time, % of the full-strength soft budget


def level_params(elo: int) -> LevelParams:
    """The parameters of level `elo` (clamped into MIN_ELO..MAX_ELO)."""
    _check_elo(elo)
    raw = sb.strength_params(elo)
    return LevelParams(elo=raw["elo"], nodes=raw["nodes"], depth=raw["depth"],
                       multipv=raw["multipv"], spread_cp=raw["spread_cp"],
                       max_loss_cp=raw["max_loss_cp"], think_pct=raw["think_pct"])


class Strength:
    """The strength setting of one engine; `live()` gives its C handle."""

    def __init__(self, live: Callable[[], Any]) -> None:
        self._live = live

    def set(self, elo: int | None) -> int | None:
        """None or 0: full strength; else a level, clamped into MIN_ELO..MAX_ELO.
        Returns the level now in force (None: full strength)."""
        if elo is not None:
            _check_elo(elo)
        level = sb.set_strength(self._live(), elo or 0)
        return level or None

    @property
    def elo(self) -> int | None:
        """The level in force; None at full strength."""
        return sb.get_strength(self._live()) or None

    def seed(self, seed: int) -> None:
        """Seed the random stream the level chooses and times its moves with
        (a new engine's comes from the clock): same seed, same limits, same moves."""
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
            raise EngineArgumentError(f"strength seed must be an integer 0..{MAX_SEED}, "
                                      f"got {seed!r}")
        sb.set_seed(self._live(), seed)


def _check_elo(elo: int) -> None:
    if isinstance(elo, bool) or not isinstance(elo, int):
        raise EngineArgumentError(f"strength must be an Elo (integer) or None, got {elo!r}")
    if elo < 0:
        raise EngineArgumentError(f"strength {elo} is negative: give an Elo "
                                  f"{MIN_ELO}..{MAX_ELO}, or None for full strength")
