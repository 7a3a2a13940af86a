"""A parsed YAML document -> the schema's dataclasses, every value checked.

The loader walks each dataclass's fields (bot/config/schema.py), so it knows
every key without a list of its own: a value of the wrong type, out of its
bounds or not among its choices is one UserError naming the full key path
(``challenge.min_base``) and the fix; a value with a grammar of its own (a
strength level) is read by the function its field names.  An unknown key gets a spelling hint, or,
when it is one of lichess-bot's, what it means here (bot/config/lichess_bot_keys.py).
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import types
import typing
from typing import Any

from bot.config.lichess_bot_keys import foreign_key_note
from bot.config.redact import has_token_text, looks_like_token, show
from bot.config.schema import AUTO, INTERNAL, Config
from bot.errors import UserError


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
            if has_token_text(value):
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
    raise UserError(f"config key '{key}' must be {_type_name(tp)}, got {show(value)}; "
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
            raise UserError(f"config key '{key}': {show(item)} is not allowed{extra}; "
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
    parse = meta.get("parse")
    if parse is not None:  # a value with its own grammar (a strength level)
        return None if value is None and _optional(tp) else parse(key, value)
    if meta.get("auto") and (value is None or isinstance(value, str)):
        if value == AUTO:
            return value
        raise UserError(f"config key '{key}' must be an integer or auto, got {show(value)}; "
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
            raise UserError(f"config key '{key}' must be a list, got {show(value)}; "
                            f"write it as [a, b] or one item per '- ' line")
        if dataclasses.is_dataclass(item_tp):  # a list of sections (tournaments, profiles)
            # A bare string is the section's id (`- abcd1234`), where it has one.
            ids = "id" in {f.name for f in dataclasses.fields(item_tp)}
            return [build(item_tp, {"id": v} if ids and isinstance(v, str) else v,
                          f"{key}[{i}].") for i, v in enumerate(value)]
        out = [_coerce_scalar(key, item_tp, v) for v in value]
        _check_meta(key, out, meta)
        return out
    if dataclasses.is_dataclass(tp):
        return build(tp, value, key + ".")
    out = _coerce_scalar(key, tp, value)
    _check_meta(key, out, meta)
    return out


def _optional(tp: Any) -> bool:
    return typing.get_origin(tp) in (typing.Union, types.UnionType) and \
        type(None) in typing.get_args(tp)


def build(cls: Any, data: Any, prefix: str = "") -> Any:
    where = prefix.rstrip(".") or "the top level"
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise UserError(f"config section '{where}' must be a mapping of keys, "
                        f"got {show(data)}")
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)
              if not (cls is Config and f.name in INTERNAL)}
    for key in data:
        if key not in fields:
            if looks_like_token(key) or has_token_text(key):
                raise UserError(f"the config file has {show(key)} as a key in "
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

