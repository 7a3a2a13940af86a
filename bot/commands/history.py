"""`pibot history`: what the bot has played, from the records database.

Results per speed, per period, per opponent and per strength level (who scores
what against `match`: docs/strength.md), and the rating per speed, of the games
that ended in a period (default: the last 90 days).  Read-only: it
works while the service runs (WAL) and never changes the file."""

from __future__ import annotations

import argparse
import json
import sqlite3
import time

from bot.commands import records_db
from bot.errors import UserError
from bot.store import queries

DEFAULT_DAYS = 90
TOP_OPPONENTS = 15


def add_arguments(parser: argparse.ArgumentParser) -> None:
    records_db.add_arguments(parser)
    parser.add_argument("--since", metavar="DATE", default=None,
                        help=f"first day, YYYY-MM-DD UTC (default: {DEFAULT_DAYS} days ago)")
    parser.add_argument("--until", metavar="DATE", default=None,
                        help="last day, YYYY-MM-DD UTC, included (default: today)")
    parser.add_argument("--period", choices=("day", "week", "month"), default="week",
                        help="results per day, ISO week or month (default: week)")
    parser.add_argument("--json", action="store_true", help="one JSON document (for scripts)")


def _line(name: str, t: queries.Tally) -> str:
    return (f"  {name:<22} {t['games']:>5}  +{t['wins']:<4} ={t['draws']:<4} "
            f"-{t['losses']:<4} {100 * t['score']:5.1f}%")


def render(h: queries.History, day: queries.DayCounts) -> list[str]:
    t = h["total"]
    out = [f"{h['since']} .. {h['until']} (UTC): {t['games']} game(s), +{t['wins']} "
           f"={t['draws']} -{t['losses']}" + (f" ({100 * t['score']:.1f}%)" if t["games"]
                                              else ""),
           f"today ({day['date']}): +{day['wins']} ={day['draws']} -{day['losses']}, "
           f"{day['bot_games']} game(s) against bots"]
    if not t["games"]:
        return out
    out.append("by speed:")
    out += [_line(k, v) for k, v in sorted(h["by_speed"].items(), key=lambda kv: -kv[1]["games"])]
    out.append(f"by {h['period']}:")
    out += [_line(k, v) for k, v in sorted(h["by_period"].items())]
    ranked = sorted(h["by_opponent"].items(), key=lambda kv: (-kv[1]["games"], kv[0].lower()))
    more = len(ranked) - TOP_OPPONENTS
    out.append("by opponent" + (f" (the {TOP_OPPONENTS} most played):" if more > 0 else ":"))
    out += [_line(k, v) for k, v in ranked[:TOP_OPPONENTS]]
    if more > 0:
        out.append(f"  ... and {more} more (--json lists them all)")
    if h["by_level"]:
        out.append("by level (what set it; the opponents' score after ';'):")
        for name, lv in sorted(h["by_level"].items(), key=lambda kv: -kv[1]["games"]):
            lo, hi = lv["lowest"], lv["highest"]
            played = "full" if lo is None else (str(lo) if lo == hi else f"{lo}..{hi}")
            out.append(_line(name, lv) + f"  level {played}; they score "
                       f"{100 * (1 - lv['score']):.1f}%")
    if h["rating"]:
        out.append("rating (rated games):")
        for speed, points in sorted(h["rating"].items()):
            first, last = points[0]["rating"], points[-1]["rating"]
            low, high = min(p["rating"] for p in points), max(p["rating"] for p in points)
            out.append(f"  {speed:<22} {first} -> {last} ({last - first:+d}) over "
                       f"{len(points)} game(s); lowest {low}, highest {high}")
    return out


def run(args: argparse.Namespace) -> int:
    now = time.time()
    until = records_db.parse_date(args.until, "--until") + 86400 if args.until else now
    since = records_db.parse_date(args.since, "--since") if args.since \
        else now - DEFAULT_DAYS * 86400
    if since >= until:
        raise UserError("--since is after --until; swap them")
    conn, path = records_db.open_db(args)
    try:
        h = queries.history(conn, since, until, args.period)
        day = queries.today(conn, now)
    except sqlite3.Error as exc:
        raise UserError(f"cannot read records database {path}: {exc}") from None
    finally:
        conn.close()
    if args.json:
        print(json.dumps({"database": str(path), "today": day, **h}, indent=2))
    else:
        for text in render(h, day):
            print(text)
    return 0
