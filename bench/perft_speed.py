"""Perft speed: pibot (PEXT and magic builds) against Stockfish, in the same run.

    python bench/perft_speed.py [--repeat 3] [--stockfish /usr/games/stockfish]

Runs start-position perft 6 and Kiwipete perft 5 for: the installed Python
extension (through cffi), the standalone C driver built with magic bitboards,
the C driver built with PEXT (x86 with fast BMI2 only), and Stockfish's
`go perft N`. Prints nodes/second (best of --repeat) and the ratios.
"""

from __future__ import annotations

import argparse
import functools
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from build_engine import fast_pext_available  # noqa: E402

POSITIONS = [
    ("startpos", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 6, 119060324),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 5,
     193690690),
]


def bench_python(fen: str, depth: int) -> tuple[int, float]:
    from bot.engine import Board

    board = Board(fen)
    t0 = time.perf_counter()
    nodes = board.perft(depth)
    return nodes, time.perf_counter() - t0


def build_driver(variant: str) -> Path:
    subprocess.run(["make", "-s", f"VARIANT={variant}", f"out/{variant}/perft_main"],
                   cwd=ROOT / "engine_c", check=True)
    return ROOT / "engine_c" / "out" / variant / "perft_main"


def bench_driver(exe: Path, fen: str, depth: int) -> tuple[int, float]:
    out = subprocess.run([str(exe), "perft", str(depth), fen], capture_output=True, text=True,
                         check=True).stdout
    nodes = re.search(r"Nodes searched: (\d+)", out)
    secs = re.search(r"Time: ([\d.]+) s", out)
    if not nodes or not secs:
        raise RuntimeError(f"unexpected output from {exe}:\n{out}")
    return int(nodes.group(1)), float(secs.group(1))


def bench_stockfish(exe: str, fen: str, depth: int) -> tuple[int, float]:
    proc = subprocess.Popen([exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdin and proc.stdout
    stdin, stdout = proc.stdin, proc.stdout

    def send(cmd: str) -> None:
        stdin.write(cmd + "\n")
        stdin.flush()

    def wait_for(prefix: str) -> str:
        for line in stdout:
            if line.startswith(prefix):
                return line
        raise RuntimeError(f"stockfish exited before {prefix!r}")

    send("uci")
    wait_for("uciok")
    send("setoption name Threads value 1")
    send(f"position fen {fen}")
    send("isready")
    wait_for("readyok")
    t0 = time.perf_counter()
    send(f"go perft {depth}")
    line = wait_for("Nodes searched")
    elapsed = time.perf_counter() - t0
    send("quit")
    proc.wait(timeout=10)
    return int(line.split(":")[1]), elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--stockfish", default=shutil.which("stockfish") or "/usr/games/stockfish")
    args = parser.parse_args()

    from bot.engine import backend

    runners: dict[str, Callable[[str, int], tuple[int, float]]] = {
        f"pibot python ({backend()})": bench_python,
        "pibot C magic": functools.partial(bench_driver, build_driver("magic"))}
    if fast_pext_available():
        runners["pibot C pext"] = functools.partial(bench_driver, build_driver("pext"))
    if os.path.exists(args.stockfish):
        runners["stockfish"] = functools.partial(bench_stockfish, args.stockfish)
    else:
        print(f"stockfish not found at {args.stockfish}: apt-get install stockfish")

    results: dict[tuple[str, str], float] = {}
    for name, fen, depth, expected in POSITIONS:
        for who, fn in runners.items():
            best = 0.0
            for _ in range(args.repeat):
                nodes, secs = fn(fen, depth)
                if nodes != expected:
                    print(f"ERROR: {who} {name} perft {depth} = {nodes}, expected {expected}")
                    return 1
                best = max(best, nodes / max(secs, 1e-9))
            results[(name, who)] = best
            print(f"{name:9} perft {depth}  {who:24} {best / 1e6:8.1f} Mnps")
    print()
    if any(who == "stockfish" for _, who in results):
        for name, *_ in POSITIONS:
            sf = results[(name, "stockfish")]
            for (pos, who), nps in results.items():
                if pos == name and who != "stockfish":
                    print(f"{name:9} {who:24} / stockfish = {nps / sf:5.2f}x")
    for name, *_ in POSITIONS:
        if (name, "pibot C pext") in results:
            ratio = results[(name, "pibot C magic")] / results[(name, "pibot C pext")]
            print(f"{name:9} magic / pext = {ratio:5.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
