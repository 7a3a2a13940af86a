"""CPU the bot service itself needs while it plays, engine search excluded.

    python bench/service_cpu.py                 # one 60+0 game as White
    python bench/service_cpu.py --tc 180+2 --games 2

The emulator runs in a child process (its CPU is not ours); the real service
runs here.  Every 0.25 s the per-thread CPU times of this process are read
from /proc/self/task/*/stat and each thread is put in one of two bins:

- engine: the Thinker's executor thread (named "engine-<game>") that runs the
  C search with the GIL released, and threads that are not Python threads at
  all (the C engine's own Lazy SMP / table-clear helpers);
- service: everything else -- the event loop, berserk's HTTP streams and
  calls, the search poller, logging.

The service figure (CPU seconds / wall seconds, in cores) is what
bot.host.machine.SERVICE_CPU keeps back from auto threads.  Not a unit test.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

from bot.config import parse_config
from bot.host.logsetup import setup_logging
from bot.lichess.token import Token
from bot.service import Service

TICK = os.sysconf("SC_CLK_TCK")
DEMO_TOKEN = "lip_emulator_demo_token"


def thread_cpu() -> dict[int, float]:
    """tid -> CPU seconds (user + system) of each live thread of this process."""
    out: dict[int, float] = {}
    for d in Path("/proc/self/task").iterdir():
        try:
            stat = (d / "stat").read_text()
        except OSError:
            continue  # the thread just ended
        fields = stat.rpartition(")")[2].split()
        # fields[0] is field 3 (state): utime/stime are fields 14/15 -> [11], [12]
        out[int(d.name)] = (int(fields[11]) + int(fields[12])) / TICK
    return out


def process_cpu() -> float:
    fields = Path("/proc/self/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / TICK


class Sampler:
    def __init__(self) -> None:
        self.last: dict[int, float] = {}
        self.kind: dict[int, str] = {}
        self.stop = threading.Event()

    def sample(self) -> None:
        names = {t.native_id: t.name for t in threading.enumerate()}
        for tid, cpu in thread_cpu().items():
            self.last[tid] = cpu
            if tid not in self.kind or self.kind[tid] == "c":
                name = names.get(tid)
                if name is None:
                    self.kind[tid] = "c"  # not a Python thread: the engine's own pthreads
                else:
                    self.kind[tid] = "engine" if name.startswith("engine-") else "service"

    def run(self) -> None:
        while not self.stop.wait(0.25):
            self.sample()

    def totals(self) -> dict[str, float]:
        out = {"service": 0.0, "engine": 0.0, "c": 0.0}
        for tid, cpu in self.last.items():
            out[self.kind.get(tid, "service")] += cpu
        return out


def emu_call(url: str, method: str, path: str, body: object = None,
             timeout: float = 30) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url + path, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        return json.loads(resp.read() or b"null")


async def measure(args: argparse.Namespace) -> int:
    emu = subprocess.Popen([sys.executable, "-m", "bot.emulator", "--port", "0",
                            "--event-keepalive", "3", "--game-keepalive", "3"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert emu.stdout is not None
    url = emu.stdout.readline().strip()
    cfg = parse_config({
        "url": url, "pgn_directory": None, "log_level": args.log_level,
        "engine": {"hash_mb": args.hash_mb, "threads": args.threads},
        "challenge": {"concurrency": 1}})
    service = Service(cfg, Token(DEMO_TOKEN, "emulator"), handle_signals=False)
    sampler = Sampler()
    try:
        run = asyncio.create_task(service.run())
        await asyncio.wait_for(service.ready.wait(), 30)
        await asyncio.sleep(1.0)
        sampler.sample()
        before, proc0, t0 = sampler.totals(), process_cpu(), time.monotonic()
        watcher = threading.Thread(target=sampler.run, daemon=True)
        watcher.start()
        base, inc = (int(x) for x in args.tc.split("+"))
        plies = 0
        for i in range(args.games):
            cid = await asyncio.to_thread(emu_call, url, "POST", "/emu/challenge", {
                "challenger": f"cpu{i}", "rated": False, "color": "black",
                "clock_limit_s": base, "increment_s": inc,
                "opponent": {"policy": "greedy", "think_time_s": args.opponent_think,
                             "seed": i}})
            gid = cid["id"]
            snap = await asyncio.to_thread(emu_call, url, "GET",
                                           f"/emu/game/{gid}/wait?timeout=1800", None, 1900)
            plies += len(snap["moves"])
            print(f"game {gid}: {snap['status']} {snap.get('winner') or ''} "
                  f"after {len(snap['moves'])} plies")
        wall = time.monotonic() - t0
        sampler.stop.set()
        watcher.join()
        sampler.sample()
        after, proc1 = sampler.totals(), process_cpu()
        service.request_stop()
        service.request_stop()
        await asyncio.wait_for(run, 60)
    finally:
        emu.terminate()
        emu.wait(10)
    d = {k: after[k] - before.get(k, 0.0) for k in after}
    proc = proc1 - proc0
    print(f"wall {wall:.1f} s, {plies} plies, threads={args.threads}, hash {args.hash_mb} MiB")
    print(f"process CPU {proc:.2f} s ({proc / wall:.3f} cores)")
    print(f"  engine search threads {d['engine'] + d['c']:.2f} s "
          f"({(d['engine'] + d['c']) / wall:.3f} cores)")
    print(f"  service (everything else) {d['service']:.2f} s ({d['service'] / wall:.3f} cores)")
    unaccounted = proc - sum(d.values())
    print(f"  ended threads, not attributable {unaccounted:.2f} s")
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, "
          f"{os.cpu_count()} CPUs")
    return 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=1)
    p.add_argument("--tc", default="60+0", help="BASE+INC seconds")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--hash-mb", type=int, default=64)
    p.add_argument("--opponent-think", type=float, default=0.3)
    p.add_argument("--log-level", default="warning")
    args = p.parse_args()
    setup_logging(args.log_level)
    return asyncio.run(measure(args))


if __name__ == "__main__":
    sys.exit(main())
