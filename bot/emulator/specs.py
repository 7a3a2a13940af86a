"""The records behind the long keyword lists of the Python control API.

`Emulator.challenge_bot(**kw)`, `start_game_directly(**kw)`,
`emu.arenas.create(**kw)` and `emu.faults.inject(kind, target, **kw)` take
typed keywords (a TypedDict unpacked, PEP 692: mypy checks each name and
type at the call site) and hand the core one frozen record with the defaults.
Each TypedDict names the same keys and types as its record (a test holds
them together); `build` checks the values at run time too, for the /emu API
and untyped callers.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TypedDict, TypeVar

from bot.emulator.config import OpponentSpec
from bot.emulator.validate import check_kwargs

ArenaEntry = str | tuple[str, int] | tuple[str, int, OpponentSpec]


class ChallengeOptions(TypedDict, total=False):
    challenger: str
    rated: bool
    variant: str
    clock_limit_s: int | None
    increment_s: int | None
    color: str
    challenger_title: str | None
    challenger_rating: int
    initial_fen: str | None
    opponent: OpponentSpec | None
    days: int | None
    bot_username: str | None
    force: bool
    keep_alive: bool


@dataclass(frozen=True)
class ChallengeSpec:
    """A user's challenge to the bot (Emulator.challenge_bot says what each field does)."""

    challenger: str = "alice"
    rated: bool = True
    variant: str = "standard"
    clock_limit_s: int | None = 60
    increment_s: int | None = 1
    color: str = "random"
    challenger_title: str | None = None
    challenger_rating: int = 1500
    initial_fen: str | None = None
    opponent: OpponentSpec | None = None  # None: OpponentSpec()
    days: int | None = None
    bot_username: str | None = None
    force: bool = False
    keep_alive: bool = False


class GameOptions(TypedDict, total=False):
    bot_color: str
    moves: Iterable[str]
    variant: str
    initial_fen: str | None
    clock_limit_s: int | None
    increment_s: int | None
    days: int | None
    rated: bool
    opponent: OpponentSpec | None
    opponent_name: str
    opponent_title: str | None
    opponent_rating: int
    wtime_ms: int | None
    btime_ms: int | None
    bot_username: str | None
    source: str


@dataclass(frozen=True)
class GameSpec:
    """A game already in progress (Emulator.start_game_directly)."""

    bot_color: str = "white"
    moves: Iterable[str] = ()
    variant: str = "standard"
    initial_fen: str | None = None
    clock_limit_s: int | None = 60
    increment_s: int | None = 0
    days: int | None = None
    rated: bool = False
    opponent: OpponentSpec | None = None  # None: OpponentSpec()
    opponent_name: str = "alice"
    opponent_title: str | None = None
    opponent_rating: int = 1500
    wtime_ms: int | None = None
    btime_ms: int | None = None
    bot_username: str | None = None
    source: str = "friend"


class ArenaOptions(TypedDict, total=False):
    minutes: float
    clock_limit_s: int
    increment_s: int
    starts_in_s: float
    bots_allowed: bool
    password: str | None
    team: str | None
    rated: bool
    name: str
    opponents: Iterable[ArenaEntry]


@dataclass(frozen=True)
class ArenaSpec:
    """An arena tournament (emu.arenas.create); `opponents` join it at once."""

    minutes: float = 10.0
    clock_limit_s: int = 60
    increment_s: int = 0
    starts_in_s: float = 0.0
    bots_allowed: bool = True
    password: str | None = None
    team: str | None = None
    rated: bool = True
    name: str = "Emulator"
    opponents: Iterable[ArenaEntry] = ()


class FaultOptions(TypedDict, total=False):
    """faults.Fault's fields past kind and target (the record is Fault itself)."""

    status: int
    error: str | None
    count: int | None
    probability: float
    duration_s: float | None
    apply: bool
    after: bool


Spec = TypeVar("Spec", ChallengeSpec, GameSpec, ArenaSpec)


def build(cls: type[Spec], kw: dict[str, Any], what: str) -> Spec:
    """`cls(**kw)` once every keyword is known and of its field's type."""
    names = {f.name for f in dataclasses.fields(cls)}
    for name in kw:
        if name not in names:
            raise TypeError(f"{what}() got an unexpected keyword argument {name!r}")
    check_kwargs(cls, kw, what)
    return cls(**kw)

