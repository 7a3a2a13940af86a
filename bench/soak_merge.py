"""Pool several `bench/soak.py --report` files into one set of figures.

A 300-game realistic soak outlasts a working session, so it runs as chunks
(different --seed values, same commit); this prints the pooled table row.

Chunks of the mixed mode (`--mix`) add, pooled: the burst challenges' answers
(`declined:later` is an answer; `accepted_from_queue` and
`withdrawn_while_queued` apart; `unanswered` counts with direct challenges that
got no answer), a table per source (arena / challenge / own / matchmaking; rows
of plain chunks are direct challenges) and one per variant. For them a time
loss fails the pool only where bench/flag_model.py says the clock could carry
the game (the row's `model_min_moves`); plain chunks keep "no time loss".

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


SOURCES = ("arena", "challenge", "own", "matchmaking")


def variant_report(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per variant (rows without one are standard): games, results, the bot's time
    losses and illegal moves."""
    out: dict[str, dict[str, Any]] = {}
    for variant in sorted({g.get("variant", "standard") for g in rows}):
        mine = [g for g in rows if g.get("variant", "standard") == variant]
        results: Counter[str] = Counter(
            "draw" if not g["winner"] else ("win" if g["winner"] == g["bot_color"] else "loss")
            for g in mine)
        out[variant] = {
            "games": len(mine), "results": dict(sorted(results.items())),
            "time_losses": sum(1 for g in mine if g["status"] == "outoftime"
                               and g["winner"] != g["bot_color"]),
            "illegal_moves": sum(g.get("illegal", 0) for g in mine),
        }
    return out


def source_report(rows: list[dict[str, Any]], unanswered: dict[str, int | None]
                  ) -> dict[str, dict[str, Any]]:
    """Per source (arena / challenge / own / matchmaking): games, results, time losses (all, and
    those before the flag model's bound: `model_min_moves`, the fewest moves its
    model game reaches at that clock; a flag without it counts as before), games
    lost to faults, illegal moves, and the challenges the bot left unanswered
    (None: no challenge of that kind reaches the bot)."""
    out: dict[str, dict[str, Any]] = {}
    for source in SOURCES:
        mine = [g for g in rows if g.get("source", "challenge") == source]
        results: Counter[str] = Counter()
        flags = forbidden = 0
        for g in mine:
            outcome = "draw" if not g["winner"] else (
                "win" if g["winner"] == g["bot_color"] else "loss")
            results[f"{outcome} ({g['status']})"] += 1
            if g["status"] == "outoftime" and g["winner"] != g["bot_color"]:
                flags += 1
                if (g["plies"] + 1) // 2 < g.get("model_min_moves", 10**9):
                    forbidden += 1
        out[source] = {
            "games": len(mine), "results": dict(sorted(results.items())),
            "time_losses": flags, "time_losses_flag_model_forbids": forbidden,
            "games_lost_through_faults": sum(1 for g in mine if g.get("lost_to_fault")),
            "illegal_moves": sum(g.get("illegal", 0) for g in mine),
            "unanswered_challenges": unanswered.get(source),
        }
    return out


def merge_mix(reports: list[dict[str, Any]], unanswered: int) -> dict[str, Any]:
    """The mixed mode's pooled figures (only when a chunk ran with --mix)."""
    bursts: Counter[str] = Counter()
    refused: Counter[str] = Counter()
    waits: list[float] = []
    for r in reports:
        bursts.update(r.get("burst_answers", {}))
        refused.update(r.get("own_challenges_refused", {}))
        waits += r.get("burst_queue_waits_s", [])
    rows = [g for r in reports for g in r["game_rows"]]
    by_source = source_report(rows, {"arena": None, "challenge": unanswered, "own": 0,
                                     "matchmaking": 0})
    return {
        "mix": sorted({x for r in reports for x in r.get("mix") or []}),
        "bursts_sent": sum(r.get("bursts_sent", 0) for r in reports),
        # accepted_from_queue and withdrawn_while_queued need the queue (absent: none).
        "burst_answers": dict(sorted(bursts.items())),
        "burst_queue_waits_s": sorted(waits),
        # accepted with no slot freed since the full house they were sent on
        "bursts_accepted_while_full": sum(r.get("bursts_accepted_while_full", 0)
                                          for r in reports),
        "own_challenges_asked": sum(r.get("own_challenges_asked", 0) for r in reports),
        "own_challenges_refused_by_lila": sum(r.get("own_challenges_refused_by_lila", 0)
                                              for r in reports),
        "own_challenges_unstarted": sum(r.get("own_challenges_unstarted", 0)
                                        for r in reports),
        "own_challenges_refused": dict(sorted(refused.items())),
        "matchmaking_games": sum(r.get("matchmaking_games", 0) for r in reports),
        "matchmaking_unstarted": sum(r.get("matchmaking_unstarted", 0) for r in reports),
        "time_losses_flag_model_forbids": sum(v["time_losses_flag_model_forbids"]
                                              for v in by_source.values()),
        "by_source": by_source,
        "by_variant": variant_report(rows),
    }


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
    unanswered = declined.get("created", 0) + sum(
        r.get("burst_answers", {}).get("unanswered", 0) for r in reports)
    pooled = {
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
        # and burst challenges (--mix) still open at their check and not in the queue.
        "challenges_unanswered": unanswered,
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
    if any(r.get("mix") for r in reports):
        pooled.update(merge_mix(reports, unanswered))
    return pooled


def unmet(pooled: dict[str, Any]) -> list[str]:
    """The criteria the pool misses, each as `key: value`. Plain chunks: no time loss
    at all; mixed: none the flag model calls avoidable."""
    if "mix" in pooled:
        wanted_zero = ["time_losses_flag_model_forbids", "own_challenges_refused",
                       "bursts_accepted_while_full", "matchmaking_unstarted"]
    else:
        wanted_zero = ["time_losses"]
    wanted_zero += ["games_lost_through_faults", "illegal_moves",
                    "polled_more_than_once_a_minute", "challenges_unanswered",
                    "sent_within_429_pause"]
    return [f"{key}: {pooled[key]}" for key in wanted_zero if pooled.get(key)]


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
    missed = unmet(pooled)
    for line in missed:
        print(f"soak_merge: not met: {line}", file=sys.stderr)
    ok = not missed
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
