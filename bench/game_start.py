"""Game start latency: gameFull -> first move sent, with the bot as White.

    python bench/game_start.py                       # 64 MiB, 1 GiB, 4 GiB tables, 3 games each
    python bench/game_start.py --tables 64,256 --games 5

The real bot service (bot.service.Service, in this process) plays against the
emulator; whatever the service does at a game start -- with the engine pool:
take the slot's warm, already cleared engine (before it: create an engine and
clear its table per game) -- is what gets measured.  The service prepares the
pool in the background at start-up; the first challenge is sent once that is
done (as a real first challenge comes well after start), and how long it took
is printed as "warm-up".  Both ends are the emulator's
own request log: the game stream request (gameFull is its first line) and
the first move POST.  The first move's think time (the service's move hook)
is reported beside it, and "start overhead" = latency - think is the part a
warm table should remove.

Each game ends after the first move (the opponent resigns); the next starts
--gap seconds later, about as soon as a real next challenge could arrive.
Not a unit test; the machine's load average is printed with the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import threading
import time

from bot.config import parse_config
from bot.emulator import Emulator, EmulatorConfig, OpponentSpec
from bot.host.logsetup import setup_logging
from bot.lichess.token import Token
from bot.play.game_state import GameHooks
from bot.service import Service


class FirstThink:
    """Think time of each game's first move, from the service's move hook."""

    def __init__(self) -> None:
        self.ms: dict[str, float] = {}
        self.lock = threading.Lock()

    def on_move(self, game_id: str, overhead_ms: float, think_ms: float) -> None:
        with self.lock:
            self.ms.setdefault(game_id, think_ms)


def _first(records: list, route_word: str) -> float | None:  # type: ignore[type-arg]
    times = [r.t for r in records if route_word in r.route]
    return min(times) if times else None


async def one_size(hash_mb: int, args: argparse.Namespace) -> list[dict[str, float | None]]:
    emu = Emulator(EmulatorConfig(seed=1, event_keepalive_s=2.0, game_keepalive_s=2.0,
                                  first_move_timeout_s=120)).start()
    think = FirstThink()
    cfg = parse_config({
        "url": emu.url, "pgn_directory": None, "log_level": args.log_level,
        "engine": {"hash_mb": hash_mb, "threads": args.threads},
        "challenge": {"concurrency": 1, "time_controls": ["bullet", "blitz", "rapid"]},
        "greeting": {"hello": "", "hello_spectators": "", "goodbye": "",
                     "goodbye_spectators": ""}})
    service = Service(cfg, Token(emu.token, "emulator"), hooks=GameHooks(on_move=think.on_move),
                      handle_signals=False)
    run = asyncio.create_task(service.run())
    rows: list[dict[str, float | None]] = []
    try:
        t0 = time.monotonic()
        await asyncio.wait_for(service.ready.wait(), 30)
        pool = service.pool
        while pool is not None and any(i.hash_mb is None or i.clearing for i in pool.info()):
            await asyncio.sleep(0.05)
        print(f"hash {hash_mb} MiB: warm-up (service start -> slot ready) "
              f"{time.monotonic() - t0:.1f} s", flush=True)
        base, inc = (int(x) for x in args.tc.split("+"))
        for i in range(args.games):
            cid = await asyncio.to_thread(
                emu.challenge_bot, challenger=f"starter{i}", rated=False, color="black",
                clock_limit_s=base, increment_s=inc,
                opponent=OpponentSpec(policy="random", think_time_s=0.5, seed=i))
            status = await asyncio.to_thread(emu.challenges.wait_answered, cid, 60)
            if status != "accepted":
                raise RuntimeError(f"challenge {cid} not accepted: {status} "
                                   f"({emu.challenges.decline_reason(cid)})")
            def moved(c: str = cid) -> bool:
                return len(emu.game(c).moves) >= 1

            await asyncio.to_thread(emu.wait_until, moved, 120)
            records = emu.traffic.requests(f"* /api/bot/game/*{cid}*")
            stream = _first([r for r in records if r.method == "GET"], "stream")
            move = _first([r for r in records if r.method == "POST"], "move")
            latency = (move - stream) * 1000 if move is not None and stream is not None else None
            await asyncio.sleep(0.1)  # the hook runs right after the POST returns
            th = think.ms.get(cid)
            rows.append({"game": i + 1, "latency_ms": latency, "think_ms": th,
                         "overhead_ms": latency - th if latency is not None and th is not None
                         else None})
            await asyncio.to_thread(emu.opponent_action, cid, "resign")
            await asyncio.to_thread(emu.wait_game_over, cid, 30)
            deadline = time.monotonic() + 60
            while service.supervisor is not None and service.supervisor.games \
                    and time.monotonic() < deadline:
                await asyncio.sleep(0.05)  # the slot is free once the game task ended
            await asyncio.sleep(args.gap)
    finally:
        service.request_stop()
        service.request_stop()  # second request: exit without waiting
        await asyncio.wait_for(run, 60)
        emu.stop()
    return rows


def fmt(v: float | None) -> str:
    return "-" if v is None else f"{v:.0f}"


async def main_async(args: argparse.Namespace) -> int:
    sizes = [int(x) for x in args.tables.split(",")]
    load0 = os.getloadavg()
    report = {}
    for mb in sizes:
        rows = await one_size(mb, args)
        report[mb] = rows
        print(f"\nhash {mb} MiB, {args.threads} thread(s):")
        print("  game  latency_ms  think_ms  start_overhead_ms")
        for r in rows:
            print(f"  {r['game']:>4.0f}  {fmt(r['latency_ms']):>10}  {fmt(r['think_ms']):>8}  "
                  f"{fmt(r['overhead_ms']):>17}")
        later = [r["overhead_ms"] for r in rows[1:] if r["overhead_ms"] is not None]
        if later:
            print(f"  median start overhead of games 2..{len(rows)}: "
                  f"{statistics.median(later):.0f} ms")
    load1 = os.getloadavg()
    print(f"\nload average before {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}, "
          f"after {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}; {os.cpu_count()} CPUs")
    if args.json:
        print(json.dumps({str(k): v for k, v in report.items()}))
    return 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tables", default="64,1024,4096", help="hash sizes in MiB, comma-separated")
    p.add_argument("--games", type=int, default=3, help="games per table size")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--tc", default="60+0", help="BASE+INC seconds")
    p.add_argument("--gap", type=float, default=2.0, help="seconds between games")
    p.add_argument("--json", action="store_true", help="also print the figures as JSON")
    p.add_argument("--log-level", default="warning")
    args = p.parse_args()
    setup_logging(args.log_level)
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
