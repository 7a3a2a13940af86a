"""Soak benchmark: the real bot service plays many games against the emulator
with random faults on, and reports time losses, games lost through faults and
the per-move overhead (position received -> move posted, minus think time).

    python bench/soak.py                      # full run: 50 games, 1+0 and 3+2
    python bench/soak.py --games 10 --tc 60+0 # a shorter run

Not a unit test: it takes a long time (the bot really uses its clock).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import statistics
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

from bot.config import parse_config
from bot.emulator import Emulator, EmulatorConfig, OpponentSpec
from bot.game import GameHooks
from bot.logsetup import setup_logging
from bot.service import Service
from bot.token import Token

log = logging.getLogger("soak")


@dataclass
class Stats:
    overhead_ms: list[float] = field(default_factory=list)
    think_ms: list[float] = field(default_factory=list)
    ends: dict[str, tuple[str, str | None, str]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def on_move(self, game_id: str, overhead: float, think: float) -> None:
        with self.lock:
            self.overhead_ms.append(overhead)
            self.think_ms.append(think)

    def on_end(self, game_id: str, status: str, winner: str | None, color: str) -> None:
        with self.lock:
            self.ends[game_id] = (status, winner, color)


def parse_tc(text: str) -> tuple[int, int]:
    base, inc = text.split("+")
    return int(base), int(inc)


def inject_faults(emu: Emulator, rate: float) -> None:
    """Random faults for the whole run (count=None: unlimited)."""
    if rate <= 0:
        return
    emu.inject("http_error", "POST /api/bot/game/*/move/*", status=503, count=None,
               probability=rate)
    emu.inject("http_error", "POST /api/bot/game/*/move/*", status=429, count=None,
               probability=rate / 2)
    emu.inject("http_error", "GET /api/bot/game/stream/*", status=502, count=None,
               probability=rate)
    emu.inject("drop_stream", "game", count=None, probability=rate)
    emu.inject("drop_stream", "event", count=None, probability=rate)
    emu.inject("silent_stream", "game", count=None, probability=rate / 2, duration_s=None)
    emu.inject("silent_stream", "event", count=None, probability=rate / 2, duration_s=None)
    emu.inject("slow", "POST /api/bot/game/*/chat", count=None, probability=rate * 5,
               duration_s=0.5)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


async def soak(args: argparse.Namespace) -> int:
    tcs = [parse_tc(t) for t in args.tc.split(",")]
    emu = Emulator(EmulatorConfig(seed=args.seed, event_keepalive_s=3.0,
                                  game_keepalive_s=3.0)).start()
    stats = Stats()
    cfg = parse_config({
        "url": emu.url, "pgn_directory": args.pgn_dir, "log_level": args.log_level,
        "engine": {"hash_mb": args.hash_mb, "move_overhead_ms": args.move_overhead_ms,
                   "ponder": args.ponder},
        "challenge": {"concurrency": args.concurrency, "max_simultaneous_games_per_user": 64,
                      "time_controls": ["ultraBullet", "bullet", "blitz", "rapid"]},
        "greeting": {"hello": "", "hello_spectators": "", "goodbye": "",
                     "goodbye_spectators": ""},
        "network": {"stream_read_timeout_s": 7.0, "backoff_base_s": 0.2, "backoff_max_s": 2.0,
                    "rate_limit_pause_s": 2.0}})
    service = Service(cfg, Token(emu.token, "emulator"), hooks=GameHooks(stats.on_move,
                                                                       stats.on_end))
    run = asyncio.create_task(service.run())
    await asyncio.wait_for(service.ready.wait(), 30)
    inject_faults(emu, args.fault_rate)
    t0 = time.monotonic()
    games: list[str] = []
    pending: set[str] = set()
    declined: Counter[str] = Counter()
    i = 0
    while len(games) < args.games or pending:
        for gid in list(pending):
            if emu.game(gid).over:
                pending.discard(gid)
                snap = emu.game(gid)
                log.warning("game %d/%d %s over: %s %s (%d plies)", len(games) - len(pending),
                            args.games, gid, snap.status, snap.winner or "", len(snap.moves))
        while len(games) < args.games and len(pending) < args.concurrency:
            base, inc = tcs[i % len(tcs)]
            opp = OpponentSpec(policy="greedy" if i % 2 else "random", think_time_s=0.05,
                               seed=args.seed + i)
            cid = await asyncio.to_thread(emu.challenge_bot, challenger=f"soak{i % 7}",
                                          rated=False, clock_limit_s=base, increment_s=inc,
                                          opponent=opp)
            i += 1
            status = await asyncio.to_thread(emu.wait_challenge_answered, cid, 25)
            if status != "accepted":
                # Usually "later": the previous game's slot is freed only after its
                # goodbye/PGN, a moment after the emulator reports the game over.
                declined[emu.decline_reason(cid) or status] += 1
                await asyncio.sleep(1.0)
                continue
            await asyncio.to_thread(emu.wait_game_started, cid, 25)
            games.append(cid)
            pending.add(cid)
        await asyncio.sleep(0.5)
    elapsed = time.monotonic() - t0
    emu.clear_faults()
    service.request_stop()
    await asyncio.wait_for(run, 60)
    fired = sum(emu._core.faults.fired.values())  # noqa: SLF001 - report only

    snaps = [emu.game(g) for g in games]
    results: Counter[str] = Counter()
    time_losses = fault_losses = 0
    for s in snaps:
        outcome = "draw" if not s.winner else ("win" if s.winner == s.bot_color else "loss")
        results[f"{outcome} ({s.status})"] += 1
        if s.status == "outoftime" and s.winner and s.winner != s.bot_color:
            time_losses += 1
        if s.status in ("aborted", "noStart") or not s.over:
            fault_losses += 1
    report = {
        "games": len(snaps), "time_controls": args.tc, "concurrency": args.concurrency,
        "fault_rate": args.fault_rate, "faults_fired": fired, "minutes": round(elapsed / 60, 1),
        "results": dict(results), "challenges_declined": dict(declined),
        "time_losses": time_losses,
        "games_lost_through_faults": fault_losses, "moves": len(stats.overhead_ms),
        "overhead_ms_median": round(statistics.median(stats.overhead_ms), 2)
        if stats.overhead_ms else None,
        "overhead_ms_p95": round(percentile(stats.overhead_ms, 0.95), 2),
        "overhead_ms_max": round(max(stats.overhead_ms), 2) if stats.overhead_ms else None,
    }
    print(json.dumps(report, indent=2))
    emu.stop()
    ok = time_losses == 0 and fault_losses == 0
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=50)
    p.add_argument("--tc", default="60+0,180+2", help="comma-separated BASE+INC list")
    p.add_argument("--concurrency", type=int, default=2)
    p.add_argument("--fault-rate", type=float, default=0.02,
                   help="probability of each random fault per opportunity")
    p.add_argument("--hash-mb", type=int, default=16)
    p.add_argument("--move-overhead-ms", type=int, default=100)
    p.add_argument("--ponder", action="store_true")
    p.add_argument("--pgn-dir", default=None)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--log-level", default="warning")
    args = p.parse_args()
    setup_logging(args.log_level)
    logging.getLogger("soak").setLevel(logging.INFO)
    return asyncio.run(soak(args))


if __name__ == "__main__":
    sys.exit(main())
