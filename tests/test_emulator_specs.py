"""The emulator's keyword records (bot/emulator/specs.py): each TypedDict that
types a control call's keywords names the same keys and types as the record
the call builds, so mypy's check at the call site and the run-time check agree."""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

import pytest

from bot.emulator import Emulator, EmulatorUsageError, Fault
from bot.emulator.specs import (
    ArenaOptions,
    ArenaSpec,
    ChallengeOptions,
    ChallengeSpec,
    FaultOptions,
    GameOptions,
    GameSpec,
)


@pytest.mark.parametrize(("options", "record", "left_out"), [
    (ChallengeOptions, ChallengeSpec, set()),
    (GameOptions, GameSpec, set()),
    (ArenaOptions, ArenaSpec, set()),
    (FaultOptions, Fault, {"kind", "target", "id"}),  # kind and target are positional
])
def test_the_keywords_are_the_records_fields(options: Any, record: Any,
                                             left_out: set[str]) -> None:
    fields = typing.get_type_hints(record)
    for name in left_out:
        del fields[name]
    assert typing.get_type_hints(options) == fields
    assert not options.__required_keys__  # every keyword has the record's default
    assert all(f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
               for f in dataclasses.fields(record) if f.name not in left_out)


def test_an_unknown_keyword_is_a_type_error_and_a_bad_value_a_usage_error() -> None:
    emu = Emulator()
    with pytest.raises(TypeError, match="challenge_bot.*'chalenger'"):
        emu.challenge_bot(chalenger="bob")  # type: ignore[call-arg]
    with pytest.raises(EmulatorUsageError, match="start_game_directly: wtime_ms=1.5 must be"):
        emu.start_game_directly(wtime_ms=1.5)  # type: ignore[arg-type]
    with pytest.raises(EmulatorUsageError, match="create_arena: minutes='10' must be"):
        emu.arenas.create(minutes="10")  # type: ignore[arg-type]
