"""What is read back from the records database.

Every function takes an open connection (db.connect_readonly for the CLI, or
the service's own reader) and returns plain values.  `load_memory` is the one
the service calls at start, in a worker thread: what it must not forget over a
restart, and never an exception.
"""

from __future__ import annotations

import datetime as dt
import logging
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypedDict

from bot.store import db
from bot.store.model import MoveRecord

log = logging.getLogger(__name__)

# bot/play/farming.py's lila constants (FarmBoostDetection): the first SAME_PLIES
# plies of the last PREV_GAMES games per opponent; MAX_OPPONENTS bounds the memory.
SAME_PLIES = 20
PREV_GAMES = 2
MAX_OPPONENTS = 1000

Period = Literal["day", "week", "month"]


@dataclass(frozen=True)
class StoredGame:
    game_id: str
    account: str
    color: str
    opponent: str
    opponent_title: str | None
    my_rating: int | None
    opponent_rating: int | None
    my_rating_after: int | None
    opponent_rating_after: int | None
    speed: str
    variant: str
    initial_fen: str | None
    clock_initial_ms: int | None
    clock_increment_ms: int | None
    days_per_turn: int | None
    rated: bool
    tournament_id: str | None
    tournament_name: str | None
    site: str
    started_at: float
    ended_at: float | None
    status: str | None
    winner: str | None
    result: str | None
    strength: str | None = None  # the engine's level: "full" or an Elo; None: not recorded
    strength_rule: str | None = None  # what set it: full, an Elo, match[+-N], fallback


_GAME_FIELDS = ("id", "account", "color", "opponent", "opponent_title", "my_rating",
                "opponent_rating", "my_rating_after", "opponent_rating_after", "speed",
                "variant", "initial_fen", "clock_initial_ms", "clock_increment_ms",
                "days_per_turn", "rated", "tournament_id", "tournament_name", "site",
                "started_at", "ended_at", "status", "winner", "result", "strength",
                "strength_rule")
_MOVE_FIELDS = ("game_id", "ply", "color", "uci", "san", "clock_before_ms", "clock_after_ms",
                "think_ms", "score_cp", "mate", "depth", "nodes", "source", "latency_ms", "at")


def _game(row: tuple[Any, ...]) -> StoredGame:
    values = list(row)
    values[15] = bool(values[15])
    return StoredGame(*values)


def day_start(now: float) -> float:
    """Midnight UTC of `now`'s day (Lichess's days, and the status file's)."""
    d = dt.datetime.fromtimestamp(now, dt.UTC)
    return d.replace(hour=0, minute=0, second=0, microsecond=0).timestamp()


# -- the service's memory ----------------------------------------------------------------

def farming_lines(conn: sqlite3.Connection, plies: int = SAME_PLIES,
                  per_opponent: int = PREV_GAMES,
                  opponents: int = MAX_OPPONENTS) -> list[tuple[str, list[str]]]:
    """(opponent, first plies) of each remembered game, oldest first: replayed into
    bot.play.farming.RecentGames.record in this order, they rebuild it as it was."""
    rows = conn.execute(
        """WITH finished AS (
               SELECT id, opponent, ended_at,
                      ROW_NUMBER() OVER (PARTITION BY lower(opponent)
                                         ORDER BY ended_at DESC) AS nth,
                      MAX(ended_at) OVER (PARTITION BY lower(opponent)) AS last_at
               FROM games WHERE result IS NOT NULL AND ended_at IS NOT NULL),
           recent_opponents AS (
               SELECT DISTINCT lower(opponent) AS who, last_at FROM finished
               ORDER BY last_at DESC LIMIT ?)
           SELECT f.id, f.opponent FROM finished f
           JOIN recent_opponents r ON lower(f.opponent) = r.who
           WHERE f.nth <= ? ORDER BY f.ended_at""", (opponents, per_opponent)).fetchall()
    out: list[tuple[str, list[str]]] = []
    for game_id, opponent in rows:
        moves = [m for (m,) in conn.execute(
            "SELECT uci FROM moves WHERE game_id = ? AND ply < ? ORDER BY ply",
            (game_id, plies))]
        out.append((opponent, moves))
    return out


class DayCounts(TypedDict):
    date: str        # UTC day, YYYY-MM-DD
    wins: int
    draws: int
    losses: int
    bot_games: int   # finished games against BOT accounts that day


def today(conn: sqlite3.Connection, now: float) -> DayCounts:
    """Today's results (UTC day), as bot.host.status_file.DailyTally counts them: a
    game counts on the day it ended, an aborted one not at all."""
    start = day_start(now)
    counts = dict.fromkeys(("win", "draw", "loss"), 0)
    for result, n in conn.execute(
            "SELECT result, COUNT(*) FROM games WHERE ended_at >= ? AND ended_at < ? "
            "AND result IS NOT NULL GROUP BY result", (start, start + 86400)):
        counts[result] = int(n)
    return DayCounts(date=dt.datetime.fromtimestamp(start, dt.UTC).strftime("%Y-%m-%d"),
                     wins=counts["win"], draws=counts["draw"], losses=counts["loss"],
                     bot_games=bot_games_since(conn, start))


def bot_games_since(conn: sqlite3.Connection, since: float) -> int:
    row = conn.execute("SELECT COUNT(*) FROM games WHERE ended_at >= ? AND result IS NOT "
                       "NULL AND opponent_title = 'BOT'", (since,)).fetchone()
    return int(row[0])


def daily_limit_until(conn: sqlite3.Connection, now: float) -> float | None:
    """When the daily bot-game limit Lichess last announced resets, if still ahead."""
    row = conn.execute("SELECT MAX(until) FROM events WHERE kind = 'daily_limit'").fetchone()
    until = row[0]
    return float(until) if until is not None and until > now else None


def starts_since(conn: sqlite3.Connection, since: float) -> int:
    """Service starts since `since` (many in an hour: it keeps failing)."""
    row = conn.execute("SELECT COUNT(*) FROM events WHERE kind = 'start' AND at >= ?",
                       (since,)).fetchone()
    return int(row[0])


def declines(conn: sqlite3.Connection, now: float) -> list[tuple[str, str, float]]:
    """(bot, aspect, until) of the declines still running (bot/challenges/declines.py)."""
    return [(str(b), str(a), float(u)) for b, a, u in conn.execute(
        "SELECT bot, aspect, until FROM declines WHERE until > ? ORDER BY bot, aspect",
        (now,))]


@dataclass
class Memory:
    """What the service reads back at start (load_memory)."""

    farming: list[tuple[str, list[str]]] = field(default_factory=list)
    today: DayCounts | None = None
    daily_limit_until: float | None = None
    starts_last_hour: int = 0
    declines: list[tuple[str, str, float]] = field(default_factory=list)  # still running
    problem: str | None = None  # why nothing could be read (the service starts afresh)


def load_memory(path: str | Path, now: float) -> Memory:
    """Farming lines, today's counts, the daily limit and the declines still running,
    for the service's start.

    Never raises: a missing file is a first start, anything else one log line.
    Opens the file as the writer does (and so may migrate it): the service's
    own process only, never the CLI."""
    p = Path(path).expanduser()
    if not p.exists():
        return Memory()
    try:
        conn = db.connect(p)  # the service's own file: an older schema is upgraded here
    except (sqlite3.Error, OSError) as exc:
        log.error("records database %s: cannot read it (%s); starting without the "
                  "memory of earlier games", p, exc)
        return Memory(problem=str(exc))
    try:
        return Memory(farming=farming_lines(conn), today=today(conn, now),
                      daily_limit_until=daily_limit_until(conn, now),
                      starts_last_hour=starts_since(conn, now - 3600),
                      declines=declines(conn, now))
    except sqlite3.Error as exc:
        log.error("records database %s: cannot read it (%s); starting without the "
                  "memory of earlier games", p, exc)
        return Memory(problem=str(exc))
    finally:
        conn.close()


# -- the owner's view --------------------------------------------------------------------

def games_between(conn: sqlite3.Connection, since: float,
                  until: float | None = None, finished_only: bool = True) -> list[StoredGame]:
    """Games started in [since, until), oldest first."""
    sql = f"SELECT {', '.join(_GAME_FIELDS)} FROM games WHERE started_at >= ?"
    args: list[Any] = [since]
    if until is not None:
        sql += " AND started_at < ?"
        args.append(until)
    if finished_only:
        sql += " AND ended_at IS NOT NULL"
    return [_game(r) for r in conn.execute(sql + " ORDER BY started_at, id", args)]


def game(conn: sqlite3.Connection, game_id: str) -> StoredGame | None:
    row = conn.execute(f"SELECT {', '.join(_GAME_FIELDS)} FROM games WHERE id = ?",
                       (game_id,)).fetchone()
    return _game(row) if row is not None else None


def moves_of(conn: sqlite3.Connection, game_id: str) -> list[MoveRecord]:
    return [MoveRecord(*row) for row in conn.execute(
        f"SELECT {', '.join(_MOVE_FIELDS)} FROM moves WHERE game_id = ? ORDER BY ply",
        (game_id,))]


class Tally(TypedDict):
    games: int
    wins: int
    draws: int
    losses: int
    score: float     # points per game, 0..1 (a draw is half)


class LevelTally(Tally):
    """The games played under one strength rule against one kind of opponent."""

    lowest: int | None   # the lowest and highest Elo played; None: full strength only
    highest: int | None


class RatingPoint(TypedDict):
    date: str        # YYYY-MM-DD (UTC) of the game's end
    game_id: str
    rating: int      # ours after the game (before it when Lichess gave no "after")


class History(TypedDict):
    since: str
    until: str
    period: str
    total: Tally
    by_speed: dict[str, Tally]
    by_opponent: dict[str, Tally]
    by_period: dict[str, Tally]
    # "humans: match+100", "bots: full", ...: what set the engine's level (games with
    # one recorded); the opponents' score is 1 - score.
    by_level: dict[str, LevelTally]
    rating: dict[str, list[RatingPoint]]   # rated games only, per speed, oldest first


def _empty() -> Tally:
    return Tally(games=0, wins=0, draws=0, losses=0, score=0.0)


def _add(t: Tally, result: str) -> None:
    t["games"] += 1
    if result == "win":
        t["wins"] += 1
    elif result == "draw":
        t["draws"] += 1
    else:
        t["losses"] += 1
    t["score"] = round((t["wins"] + t["draws"] / 2) / t["games"], 3)


def _add_level(by_level: dict[str, LevelTally], title: str | None, rule: str,
               level: str | None, result: str) -> None:
    key = f"{'bots' if title == 'BOT' else 'humans'}: {rule}"
    t = by_level.setdefault(key, LevelTally(games=0, wins=0, draws=0, losses=0, score=0.0,
                                            lowest=None, highest=None))
    _add(t, result)
    if level is not None and level.isdigit():
        elo = int(level)
        t["lowest"] = elo if t["lowest"] is None else min(t["lowest"], elo)
        t["highest"] = elo if t["highest"] is None else max(t["highest"], elo)


def period_key(when: float, period: Period) -> str:
    d = dt.datetime.fromtimestamp(when, dt.UTC)
    if period == "day":
        return d.strftime("%Y-%m-%d")
    if period == "month":
        return d.strftime("%Y-%m")
    year, week, _ = d.isocalendar()
    return f"{year}-W{week:02d}"


def history(conn: sqlite3.Connection, since: float, until: float,
            period: Period = "week") -> History:
    """Results per speed, opponent, period and level, and the rating trend, of the
    games that ended in [since, until)."""
    out = History(since=dt.datetime.fromtimestamp(since, dt.UTC).strftime("%Y-%m-%d"),
                  until=dt.datetime.fromtimestamp(until, dt.UTC).strftime("%Y-%m-%d"),
                  period=period, total=_empty(), by_speed={}, by_opponent={}, by_period={},
                  by_level={}, rating={})
    rows = conn.execute(
        "SELECT id, speed, opponent, ended_at, result, rated, my_rating, my_rating_after, "
        "opponent_title, strength, strength_rule "
        "FROM games WHERE ended_at >= ? AND ended_at < ? AND result IS NOT NULL "
        "ORDER BY ended_at, id", (since, until))
    for (game_id, speed, opponent, ended, result, rated, before, after, title, level,
         rule) in rows:
        _add(out["total"], result)
        if rule is not None:
            _add_level(out["by_level"], title, rule, level, result)
        _add(out["by_speed"].setdefault(speed, _empty()), result)
        _add(out["by_opponent"].setdefault(opponent, _empty()), result)
        _add(out["by_period"].setdefault(period_key(ended, period), _empty()), result)
        rating = after if after is not None else before
        if rated and rating is not None:
            out["rating"].setdefault(speed, []).append(RatingPoint(
                date=dt.datetime.fromtimestamp(ended, dt.UTC).strftime("%Y-%m-%d"),
                game_id=game_id, rating=int(rating)))
    return out
