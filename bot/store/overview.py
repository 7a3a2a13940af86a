"""The status page's long view, read from the records database.

`overview` returns plain JSON-able data over the last `weeks` weeks: the
rating per speed at the end of each ISO week (rated games), the results per
week, per opponent (the most played) and per time control, and the last
games with their mean search depth and nodes per second (engine moves only),
and the CPU temperature samples of the last HEAT_DAYS days ([at, temp_c,
throttled 0/1], oldest first).
The service reads it in a thread now and then (bot/service/memory.py) and
hands it to the page, which may import nothing of the store (tests/test_layout.py).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from bot.store.queries import period_key

TOP_OPPONENTS = 10
LAST_GAMES = 15
HEAT_DAYS = 7


def _tally() -> dict[str, int]:
    return {"wins": 0, "draws": 0, "losses": 0}


def _add(t: dict[str, int], result: str) -> None:
    t[{"win": "wins", "draw": "draws"}.get(result, "losses")] += 1


def _tc(initial_ms: int | None, increment_ms: int | None, days: int | None) -> str:
    if initial_ms is None:
        return f"{days}d" if days else "-"
    return f"{initial_ms // 1000}+{(increment_ms or 0) // 1000}"


def overview(conn: sqlite3.Connection, now: float, weeks: int = 12) -> dict[str, Any]:
    since = now - weeks * 7 * 86400
    rating: dict[str, dict[str, int]] = {}
    per_week: dict[str, dict[str, int]] = {}
    per_opponent: dict[str, dict[str, int]] = {}
    per_tc: dict[str, dict[str, int]] = {}
    rows = conn.execute(
        "SELECT speed, opponent, ended_at, result, rated, my_rating, my_rating_after, "
        "clock_initial_ms, clock_increment_ms, days_per_turn FROM games "
        "WHERE ended_at >= ? AND result IS NOT NULL ORDER BY ended_at, id", (since,))
    for speed, opp, ended, result, rated, before, after, ini, inc, days in rows:
        week = period_key(ended, "week")
        _add(per_week.setdefault(week, _tally()), result)
        _add(per_opponent.setdefault(opp, _tally()), result)
        _add(per_tc.setdefault(_tc(ini, inc, days), _tally()), result)
        r = after if after is not None else before
        if rated and r is not None:
            rating.setdefault(speed, {})[week] = int(r)  # the week's last game stands
    top = sorted(per_opponent.items(), key=lambda kv: (-sum(kv[1].values()), kv[0]))
    games = [{"id": gid, "opponent": opp, "result": result, "speed": speed,
              "mean_depth": round(depth, 1) if depth is not None else None,
              "nps": int(nodes * 1000 / think) if nodes and think else None}
             for gid, opp, result, speed, depth, nodes, think in conn.execute(
                 "SELECT g.id, g.opponent, g.result, g.speed, AVG(m.depth), SUM(m.nodes), "
                 "SUM(CASE WHEN m.nodes IS NOT NULL THEN m.think_ms END) FROM games g "
                 "LEFT JOIN moves m ON m.game_id = g.id AND m.source = 'engine' "
                 "AND m.color = g.color WHERE g.ended_at >= ? AND g.result IS NOT NULL "
                 "GROUP BY g.id ORDER BY g.ended_at DESC LIMIT ?", (since, LAST_GAMES))]
    heat = [[at, temp, int(throttled)] for at, temp, throttled in conn.execute(
        "SELECT at, temp_c, throttled FROM heat WHERE at >= ? ORDER BY at",
        (now - HEAT_DAYS * 86400,))]
    return {"weeks": weeks,
            "rating": {s: sorted(w.items()) for s, w in sorted(rating.items())},
            "per_week": sorted(per_week.items()),
            "per_opponent": top[:TOP_OPPONENTS],
            "per_time_control": sorted(per_tc.items()),
            "games": games,
            "heat": heat}
