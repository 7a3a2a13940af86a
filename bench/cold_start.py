"""Cold start: challenge answer and first moves while the engine tables warm up.

    python bench/cold_start.py                  # 3 cold starts, hash_mb/threads auto, 2 slots
    python bench/cold_start.py --runs 5 --concurrency 1

Each run starts a fresh emulator and a fresh bot service (bot.service.Service,
in this process) with `engine.hash_mb: auto` -- on a 24 GB machine with two
slots, two 4 GiB tables whose warm-up starts at log-in -- and a one-move book
(1.e4).  The challenge is sent as soon as the event stream is up, i.e. while
the tables still warm up.  From the emulator's request log:

- challenge: challenge created -> the bot's accept POST;
- first move: the game stream request (gameFull) -> the book move's POST;
- move after challenge: challenge created -> the book move's POST (what the
  opponent sees; a stalled process stalls the stream request too);
- search: the first searched move's think time (the service's move hook; the
  opponent answers 1.e4 with 1...e5 at once, out of the book);
- warm-up: service start -> every slot's table ready (after the game).

p50 and max over the runs are printed with the machine's load average.
Not a unit test.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import struct
import sys
import tempfile
import threading
import time
from pathlib import Path

import chess
import chess.polyglot

from bot.config import parse_config
from bot.emulator import Emulator, EmulatorConfig, OpponentSpec
from bot.host.logsetup import setup_logging
from bot.lichess.token import Token
from bot.play.game_state import GameHooks
from bot.service import Service


def write_e4_book(path: Path) -> Path:
    """A polyglot book with one entry: 1.e4 from the start position."""
    # Polyglot move: to-square bits 0-5, from-square bits 6-11 (e2 = 12, e4 = 28).
    key = chess.polyglot.zobrist_hash(chess.Board())
    path.write_bytes(struct.pack(">QHHI", key, (12 << 6) | 28, 1, 0))
    return path


class Thinks:
    """Think time of every move, per game, from the service's move hook."""

    def __init__(self) -> None:
        self.ms: dict[str, list[float]] = {}
        self.lock = threading.Lock()

    def on_move(self, game_id: str, overhead_ms: float, think_ms: float) -> None:
        with self.lock:
            self.ms.setdefault(game_id, []).append(think_ms)


def _first(records: list, method: str, route_word: str) -> float | None:  # type: ignore[type-arg]
    times = [r.t for r in records if r.method == method and route_word in r.route]
    return min(times) if times else None


async def one_run(i: int, book: Path, args: argparse.Namespace) -> dict[str, float | None]:
    emu = Emulator(EmulatorConfig(seed=i, event_keepalive_s=2.0, game_keepalive_s=2.0,
                                  first_move_timeout_s=120)).start()
    thinks = Thinks()
    cfg = parse_config({
        "url": emu.url, "pgn_directory": None, "log_level": args.log_level,
        "engine": {"hash_mb": args.hash_mb, "threads": "auto",
                   "polyglot": {"enabled": True, "book": {"standard": [str(book)]}}},
        "challenge": {"concurrency": args.concurrency,
                      "time_controls": ["bullet", "blitz", "rapid"]},
        "greeting": {"hello": "", "hello_spectators": "", "goodbye": "",
                     "goodbye_spectators": ""}})
    t0 = time.monotonic()
    service = Service(cfg, Token(emu.token, "emulator"), hooks=GameHooks(on_move=thinks.on_move),
                      handle_signals=False)
    run = asyncio.create_task(service.run())
    try:
        await asyncio.wait_for(service.ready.wait(), 60)
        sent = time.monotonic()
        opp = OpponentSpec(policy="scripted", moves=["e7e5"], resign_after=1, think_time_s=0.05)
        cid = await asyncio.to_thread(
            emu.challenge_bot, challenger=f"cold{i}", rated=False, color="black",
            clock_limit_s=180, increment_s=0, opponent=opp)
        status = await asyncio.to_thread(emu.challenges.wait_answered, cid, 60)
        if status != "accepted":
            raise RuntimeError(f"challenge {cid} not accepted: {status}")
        await asyncio.to_thread(emu.wait_game_over, cid, 120)
        await asyncio.sleep(0.2)  # the move hook runs right after the move's POST
        pool = service.pool
        while pool is not None and any(s.hash_mb is None or s.clearing for s in pool.info()):
            await asyncio.sleep(0.05)
        warm = time.monotonic() - t0
        sizes = sorted({s.hash_mb for s in pool.info() if s.hash_mb is not None}
                       ) if pool is not None else []
        accept = _first(emu.traffic.requests(f"* /api/challenge/{cid}/*"), "POST", "accept")
        game = emu.traffic.requests(f"* /api/bot/game/*{cid}*")
        stream = _first(game, "GET", "stream")
        move = _first(game, "POST", "move")
        searched = thinks.ms.get(cid, [])[1:2]
        return {
            "challenge_ms": (accept - sent) * 1000 if accept is not None else None,
            "first_move_ms": (move - stream) * 1000 if move and stream else None,
            "move_after_challenge_ms": (move - sent) * 1000 if move else None,
            "search_think_ms": searched[0] if searched else None,
            "warmup_s": warm, "hash_mb": float(sizes[0]) if sizes else None,
            "slots": float(pool.size) if pool is not None else None,
        }
    finally:
        service.request_stop()  # one request: drain, then free the tables (pool.close)
        await asyncio.wait_for(run, 120)
        emu.stop()


def fmt(v: float | None, unit: str = "") -> str:
    return "-" if v is None else f"{v:.0f}{unit}"


def summary(name: str, values: list[float | None]) -> str:
    vals = [v for v in values if v is not None]
    if not vals:
        return f"  {name:<24} -"
    return f"  {name:<24} p50 {statistics.median(vals):7.0f}   max {max(vals):7.0f}"


async def main_async(args: argparse.Namespace) -> int:
    load0 = os.getloadavg()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        book = write_e4_book(Path(tmp) / "e4.bin")
        for i in range(args.runs):
            r = await one_run(i, book, args)
            rows.append(r)
            print(f"run {i + 1}: challenge {fmt(r['challenge_ms'], ' ms')}, first move "
                  f"{fmt(r['first_move_ms'], ' ms')} ({fmt(r['move_after_challenge_ms'], ' ms')} "
                  f"after the challenge), first search think "
                  f"{fmt(r['search_think_ms'], ' ms')}, warm-up {r['warmup_s']:.1f} s "
                  f"({fmt(r['slots'])} x {fmt(r['hash_mb'])} MiB)", flush=True)
    print(f"\n{args.runs} cold start(s), hash_mb {args.hash_mb}, "
          f"{args.concurrency} slot(s), milliseconds:")
    for key in ("challenge_ms", "first_move_ms", "move_after_challenge_ms", "search_think_ms"):
        print(summary(key, [r[key] for r in rows]))
    load1 = os.getloadavg()
    print(f"load average before {load0[0]:.2f}, after {load1[0]:.2f}; {os.cpu_count()} CPUs")
    return 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=3, help="cold starts")
    p.add_argument("--concurrency", type=int, default=2, help="challenge.concurrency (slots)")
    p.add_argument("--hash-mb", type=lambda v: v if v == "auto" else int(v), default="auto",
                   help="engine.hash_mb (default auto)")
    p.add_argument("--log-level", default="warning")
    args = p.parse_args()
    setup_logging(args.log_level)
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
