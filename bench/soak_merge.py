"""Pool several `bench/soak.py --report` files into one set of figures.

A 300-game realistic soak outlasts a working session, so it runs as chunks
(different --seed values, same commit); this prints the pooled table row.

    python bench/soak_merge.py /tmp/soak/*.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter
from pathlib import Path
from typing import Any


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def merge(reports: list[dict[str, Any]]) -> dict[str, Any]:
    overhead = [x for r in reports for x in r["overhead_ms"]]
    rows = [g for r in reports for g in r["game_rows"]]
    results: Counter[str] = Counter()
    for g in rows:
        outcome = "draw" if not g["winner"] else (
            "win" if g["winner"] == g["bot_color"] else "loss")
        results[f"{outcome} ({g['status']})"] += 1
    declined: Counter[str] = Counter()
    in_pause: Counter[str] = Counter()
    for r in reports:
        declined.update(r.get("challenges_declined", {}))
        in_pause.update(r.get("sent_within_429_pause", {}))
    polled: dict[str, int] = {}
    for r in reports:
        for route, n in r["polled_more_than_once_a_minute"].items():
            polled[route] = max(n, polled.get(route, 0))
    return {
        "runs": len(reports),
        "commits": sorted({r.get("commit", "unknown") for r in reports}),
        "seeds": [r.get("seed") for r in reports],
        "games": len(rows),
        "games_by_clock": dict(Counter(g["clock"] for g in rows)),
        "games_with_book_and_tables": sum(len(r["game_rows"]) for r in reports
                                          if r.get("book") and r.get("syzygy")),
        "minutes": round(sum(r["minutes"] for r in reports), 1),
        "faults_fired": sum(r["faults_fired"] for r in reports),
        "results": dict(sorted(results.items())),
        # "later": the driver challenged before the bot had seen the last game end;
        # "canceled": withdrawn by the emulator's expiry before an answer was due;
        # "created": no answer within 25 s, an answer dropped or held too long.
        "challenges_declined": dict(sorted(declined.items())),
        "challenges_unanswered": declined.get("created", 0),
        "sent_within_429_pause": dict(sorted(in_pause.items())),
        "time_losses": sum(r["time_losses"] for r in reports),
        "games_lost_through_faults": sum(r["games_lost_through_faults"] for r in reports),
        "illegal_moves": sum(r["illegal_moves"] for r in reports),
        "move_400_after_stall": sum(r["move_400_after_stall"] for r in reports),
        "move_400_after_game_end": sum(r.get("move_400_after_game_end", 0) for r in reports),
        "moves": len(overhead),
        "overhead_ms_median": round(statistics.median(overhead), 1) if overhead else None,
        "overhead_ms_p95": round(percentile(overhead, 0.95), 1) if overhead else None,
        "overhead_ms_p99": round(percentile(overhead, 0.99), 1) if overhead else None,
        "overhead_ms_max": round(max(overhead), 1) if overhead else None,
        "account_playing_max_per_60s": max(r["account_playing_max_per_60s"] for r in reports),
        "polled_more_than_once_a_minute": polled,
        "longest_game_plies": max((g["plies"] for g in rows), default=0),
        # The bot's flags with the game's length in moves: compare them with what the
        # clock can carry at the profile's round trips (bench/flag_model.py).
        "bot_flags_clock_moves": sorted((g["clock"], (g["plies"] + 1) // 2) for g in rows
                                        if g["status"] == "outoftime"
                                        and g["winner"] != g["bot_color"]),
        "games_over_100_moves_by_clock": dict(Counter(g["clock"] for g in rows
                                                      if g["plies"] > 200)),
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("reports", nargs="+", type=Path)
    args = p.parse_args()
    reports = []
    for path in args.reports:
        try:
            reports.append(json.loads(path.read_text()))
        except (OSError, ValueError) as exc:
            p.error(f"{path}: {exc}")
        if "game_rows" not in reports[-1]:
            p.error(f"{path}: not a `bench/soak.py --report` file (no game_rows)")
    pooled = merge(reports)
    print(json.dumps(pooled, indent=2))
    ok = (pooled["time_losses"] == 0 and pooled["games_lost_through_faults"] == 0
          and pooled["illegal_moves"] == 0 and not pooled["polled_more_than_once_a_minute"]
          and pooled["challenges_unanswered"] == 0 and not pooled["sent_within_429_pause"])
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
