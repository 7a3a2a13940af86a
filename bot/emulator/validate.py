"""Type checks for control input (Python calls and /emu JSON alike), so bad
values get a 400 / EmulatorUsageError naming the field instead of a crash."""

from __future__ import annotations

import types
import typing
from collections.abc import Iterable
from typing import Any, Literal, Union


def matches(value: Any, hint: Any) -> bool:
    """Whether `value` fits the (simple) type hint `hint`."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if hint is Any:
        return True
    if origin in (Union, types.UnionType):
        return any(matches(value, a) for a in args)
    if origin is Literal:
        return value in args
    if hint is type(None):
        return value is None
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is str:
        return isinstance(value, str)
    if origin is Iterable and not isinstance(value, (list, tuple)):
        # Any iterable but a string (whose items would be single characters).
        return isinstance(value, Iterable) and not isinstance(value, (str, bytes, dict))
    if origin in (list, tuple, Iterable):
        if not isinstance(value, (list, tuple)):
            return False
        if origin is tuple and args and args[-1] is not Ellipsis:
            return len(value) == len(args) and all(map(matches, value, args))
        return not args or all(matches(v, args[0]) for v in value)
    return True  # anything richer (dataclasses, ...) is checked where it is built


def describe(hint: Any) -> str:
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (Union, types.UnionType):
        return " or ".join(describe(a) for a in args)
    if origin is Literal:
        return "one of " + ", ".join(repr(a) for a in args)
    if hint is type(None):
        return "null"
    if origin in (list, tuple, Iterable):
        return f"a list of {describe(args[0])}" if args else "a list"
    return {bool: "true or false", int: "an integer", float: "a number", str: "a string"}.get(
        hint, str(hint)
    )


def check_fields(obj: Any, what: str) -> None:
    """Check every annotated attribute of dataclass instance `obj`."""
    from bot.emulator.errors import EmulatorUsageError

    for name, hint in typing.get_type_hints(type(obj)).items():
        value = getattr(obj, name)
        if not matches(value, hint):
            raise EmulatorUsageError(f"{what}.{name}={value!r} must be {describe(hint)}")


def check_kwargs(func: Any, kwargs: dict[str, Any], what: str) -> None:
    """Check keyword arguments against the annotations of `func` (a function, or a
    record class such as specs.ChallengeSpec)."""
    from bot.emulator.errors import EmulatorUsageError

    hints = typing.get_type_hints(func)
    for name, value in kwargs.items():
        hint = hints.get(name)
        if hint is not None and not matches(value, hint):
            raise EmulatorUsageError(f"{what}: {name}={value!r} must be {describe(hint)}")
