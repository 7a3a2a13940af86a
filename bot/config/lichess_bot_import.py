"""lichess-bot's config.yml -> a pibot config (`pibot config import`).

The table of lichess-bot's keys, RULES, and its conversions live in
bot/config/lichess_bot_keys.py; this module walks a lichess-bot config through
it and orders the result as pibot's schema (bot/config/schema.py) and its
config.yml do.

The token is never part of the result: pibot keeps it out of config.yml.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

from bot.config.lichess_bot_keys import (
    LICHESS_DAYS,
    QUIET,
    Dropped,
    Result,
    get_dotted,
    has_rules_below,
    rule_for,
)
from bot.config.schema import CHALLENGE_VARIANTS, Config, MatchmakingConfig
from bot.lichess_limits import ULTRABULLET_BELOW_S


def _set(out: dict[str, Any], dotted: str, value: Any) -> None:
    *parents, last = dotted.split(".")
    node = out
    for p in parents:
        node = node.setdefault(p, {})
    node[last] = value


def ordered(data: dict[str, Any], cls: Any = Config) -> dict[str, Any]:
    """`data` in the order of pibot's schema (and of its config.yml)."""
    fields = [f.name for f in dataclasses.fields(cls)]
    hints = typing.get_type_hints(cls)
    out: dict[str, Any] = {}
    for name in fields:
        if name in data:
            value = data[name]
            tp = hints[name]
            out[name] = ordered(value, tp) if dataclasses.is_dataclass(tp) and \
                isinstance(value, dict) else value
    return out


def import_config(src: Any) -> Result:
    """Convert a parsed lichess-bot config.yml; the token goes to `Result.token`."""
    res = Result()
    if not isinstance(src, dict):
        return res

    def walk(node: dict[str, Any], prefix: str) -> None:
        for name, value in node.items():
            key = f"{prefix}{name}"
            if key == "token":
                res.token = value if isinstance(value, str) else None
                continue
            rule = rule_for(key)
            if rule is None:
                if isinstance(value, dict) and has_rules_below(key):
                    walk(value, key + ".")
                else:
                    res.drop(key, "not a key of lichess-bot's config.yml.default; "
                                  "pibot has no such setting")
                continue
            if rule.target is None:
                res.drop(key, rule.why)
                continue
            if value is None and not rule.keeps_none:
                res.drop(key, "empty; pibot's default applies")
                continue
            noted = len(res.converted) + len(res.dropped)
            try:
                new = rule.convert(value, src, res) if rule.convert else value
            except Dropped as exc:
                res.drop(key, str(exc))
                continue
            if new is None and not rule.keeps_none:
                continue  # consumed: nothing of its own to write
            # One line per change: conversions that explain themselves are not repeated.
            if new != value and rule.convert not in QUIET and \
                    len(res.converted) + len(res.dropped) == noted:
                res.note(key, f"{value!r} -> {rule.target}: {new!r}")
            _set(res.config, rule.target, new)
            res.carried += 1

    walk(src, "")
    if get_dotted(src, "matchmaking.include_challenge_block_list") is True:
        for name in ("block_list", "online_block_list"):
            merged = list(get_dotted(res.config, f"matchmaking.{name}") or [])
            for item in get_dotted(res.config, f"challenge.{name}") or []:
                if item not in merged:
                    merged.append(item)
            if merged:
                _set(res.config, f"matchmaking.{name}", merged)
    _matchmaking_types(src, res)
    res.config = ordered(res.config)
    return res


def _matchmaking_types(src: dict[str, Any], res: Result) -> None:
    """lichess-bot's challenge_variant and challenge_days -> matchmaking.types.

    lichess-bot draws a variant (random: one of challenge.variants), a clock from
    challenge_initial_time x challenge_increment and a days value, then tosses a
    coin between correspondence and the clock when it has both
    (lib/matchmaking.py choose_challenge).  As types: one per variant and clock,
    and one per variant and days value, weighted so that the clock types together
    are as likely as the days types together."""
    mm = get_dotted(src, "matchmaking") or {}
    variant = mm.get("challenge_variant")
    days_in = mm.get("challenge_days")
    days = [d for d in (days_in if isinstance(days_in, list) else [days_in])
            if d in LICHESS_DAYS]
    if variant == "random":
        listed = get_dotted(res.config, "challenge.variants") or ["standard"]
        variants = [v for v in listed if v in CHALLENGE_VARIANTS]
    else:
        variants = [variant] if variant in CHALLENGE_VARIANTS else ["standard"]
    if variants == ["standard"] and not days:
        return  # the default keys say it: no types
    defaults, out = MatchmakingConfig(), res.config.setdefault("matchmaking", {})
    bases = out.get("challenge_initial_time", defaults.challenge_initial_time)
    incs = out.get("challenge_increment", defaults.challenge_increment)
    clocks = [(b, i) for b in bases for i in incs if b + 40 * i >= ULTRABULLET_BELOW_S]
    mode = out.get("challenge_mode", defaults.challenge_mode)
    types = [{"tc": f"{b / 60:g}+{i}", "variant": v, "mode": mode, "weight": len(days) or 1}
             for v in variants for b, i in clocks]
    types += [{"days": d, "variant": v, "mode": mode, "weight": len(clocks) or 1}
              for v in variants for d in days]
    for key in ("challenge_initial_time", "challenge_increment", "challenge_mode"):
        out.pop(key, None)  # the types hold them now
    out["types"] = types
    res.note("matchmaking.challenge_variant", f"{variant!r} with challenge_days {days} -> "
                                              f"matchmaking.types: {len(types)} types")
