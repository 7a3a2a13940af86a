"""`pibot demo`: the emulator on loopback, the real bot service against it, and
one game challenged by the emulator's built-in opponent, printed live (or, with
--arena, a short arena tournament: demo_arena.py). No Lichess account or token
needed."""

from __future__ import annotations

import argparse
import asyncio
import logging
import re
import signal
import time
from typing import Any

import chess

from bot import variants
from bot.config import parse_config
from bot.errors import UserError
from bot.host.logsetup import setup_logging
from bot.lichess.token import Token
from bot.lichess_limits import ULTRABULLET_BELOW_S, VARIANTS

DEMO_TIMEOUT_S = 600
INTERRUPTED = 130  # the shell's code for a command ended by Ctrl-C
MAX_BASE_S = 10800  # the challenge API's clock.limit maximum (3 hours)
MAX_INCREMENT_S = 180  # lila HookConfig.validateIncrement
# Every Lichess variant but From Position, which needs a FEN the demo does not take.
DEMO_VARIANTS = tuple(v for v in VARIANTS if v != "fromPosition")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tc", default="60+1", metavar="BASE+INC",
                        help="time control in seconds, e.g. 60+1 (default) or 180+2")
    parser.add_argument("--variant", default="standard", choices=DEMO_VARIANTS,
                        help="the game's variant, as Lichess names it (default standard)")
    parser.add_argument("--moves-only", action="store_true",
                        help="print only the moves and the result (no service log)")
    parser.add_argument("--arena", action="store_true",
                        help="a short arena tournament against several built-in opponents "
                             "(the bot joins it from its config's tournaments:)")
    parser.add_argument("--arena-minutes", type=float, default=3.0, metavar="M",
                        help="the --arena tournament's length (default 3, 1 to 60)")


def parse_tc(text: str) -> tuple[int, int]:
    m = re.fullmatch(r"\s*(\d+)\s*\+\s*(\d+)\s*", text)
    if not m or int(m.group(1)) <= 0:
        raise UserError(f"--tc {text!r} is not BASE+INC in seconds; write it like 60+1")
    base, inc = int(m.group(1)), int(m.group(2))
    if base > MAX_BASE_S or inc > MAX_INCREMENT_S:
        raise UserError(f"--tc {text.strip()} is longer than Lichess allows: at most "
                        f"{MAX_BASE_S}+{MAX_INCREMENT_S}")
    if base + 40 * inc < ULTRABULLET_BELOW_S:
        raise UserError(f"--tc {text.strip()} is UltraBullet, which Lichess does not let bots "
                        f"play; use 30+0 or slower")
    return base, inc


def _san_lines(snap_moves: list[str], start: int, board: chess.Board) -> list[str]:
    out = []
    for i, uci in enumerate(snap_moves[start:], start):
        move = chess.Move.from_uci(uci)
        san = board.san(move) if move in board.legal_moves else uci
        board.push(move)
        out.append(f"{i // 2 + 1}. {san}" if i % 2 == 0 else f"{i // 2 + 1}... {san}")
    return out


async def _demo(base: int, inc: int, moves_only: bool, variant: str = "standard") -> int:
    from bot.emulator import Emulator, EmulatorConfig, OpponentSpec
    from bot.service import Service

    emu = Emulator(EmulatorConfig(event_keepalive_s=2.0, game_keepalive_s=2.0)).start()
    interrupted = asyncio.Event()
    stop = asyncio.ensure_future(interrupted.wait())
    try:
        cfg = parse_config({
            "url": emu.url, "pgn_directory": None, "log_level": "warning" if moves_only else "info",
            "records": {"db": None},  # games against the emulator are not the owner's history
            "engine": {"hash_mb": 16, "move_overhead_ms": 50},
            "challenge": {"time_controls": ["bullet", "blitz", "rapid", "classical"],
                          "max_base": 10800, "variants": [variant]},
            "network": {"stream_read_timeout_s": 5.0}})
        # Ctrl-C ends the demo at once: the service's own handler would drain,
        # i.e. wait for the game, while this loop kept printing it.
        service = Service(cfg, Token(emu.token, "emulator demo token"), handle_signals=False)
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, interrupted.set)
        run = asyncio.create_task(service.run())
        ready = asyncio.ensure_future(service.ready.wait())
        await asyncio.wait({ready, stop}, timeout=20, return_when=asyncio.FIRST_COMPLETED)
        ready.cancel()
        if interrupted.is_set():
            return await _interrupted(service, run)
        cid = await asyncio.to_thread(
            emu.challenge_bot, challenger="demo-human", rated=False, clock_limit_s=base,
            increment_s=inc, variant=variant,
            opponent=OpponentSpec(policy="greedy", think_time_s=0.3))
        try:
            await asyncio.to_thread(emu.wait_game_started, cid, 25)
        except TimeoutError:
            raise UserError(f"the bot did not accept the demo challenge ({variant} "
                            f"{base}+{inc}) within 25 s; see the log above") from None
        snap = emu.game(cid)
        rules = variants.get(variant)
        if not moves_only:
            shown_variant = "" if variant == "standard" else f"{rules.name}, "
            print(f"{snap.white} (white) vs {snap.black} (black), {shown_variant}{base}+{inc}, "
                  f"on {emu.url}")
        board = rules.start_board()
        shown = 0
        deadline = time.monotonic() + DEMO_TIMEOUT_S
        while time.monotonic() < deadline:
            if interrupted.is_set():
                return await _interrupted(service, run)
            snap = emu.game(cid)
            for line in _san_lines(snap.moves, shown, board):
                print(line, flush=True)
            shown = len(snap.moves)
            if snap.over:
                break
            await asyncio.sleep(0.1)
        result = {"white": "1-0", "black": "0-1"}.get(snap.winner or "", "1/2-1/2")
        if snap.status in ("aborted", "noStart"):
            result = "*"
        wins = f", {snap.winner} wins" if snap.winner else ""
        print(f"Result: {result} ({snap.status}{wins})")
        service.request_stop()
        await asyncio.wait_for(run, 30)
        return 0 if snap.over else 1
    finally:
        stop.cancel()
        emu.stop()


async def _interrupted(service: Any, run: asyncio.Task[int]) -> int:
    print("demo interrupted", flush=True)
    service.request_stop()
    service.request_stop()  # the second request: exit without waiting for the game
    await asyncio.wait({run}, timeout=15)
    return INTERRUPTED


async def _arena(base: int, inc: int, moves_only: bool, minutes: float) -> int:
    from bot.commands.demo_arena import arena_demo

    interrupted = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, interrupted.set)
    return await arena_demo(base, inc, moves_only, minutes, interrupted, _interrupted)


def run(args: argparse.Namespace) -> int:
    base, inc = parse_tc(args.tc)
    if args.arena and args.variant != "standard":
        raise UserError("--arena plays standard chess; leave out --variant or --arena")
    setup_logging("warning" if args.moves_only else "info")
    logging.getLogger("bot.emulator").setLevel(logging.WARNING)  # the bot's log is the show
    if args.arena:
        if not 1 <= args.arena_minutes <= 60:
            raise UserError(f"--arena-minutes {args.arena_minutes:g} is out of range; give "
                            f"1 to 60")
        return asyncio.run(_arena(base, inc, args.moves_only, args.arena_minutes))
    return asyncio.run(_demo(base, inc, args.moves_only, args.variant))
