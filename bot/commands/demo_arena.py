"""`pibot demo --arena`: a short arena tournament on the emulator, the real bot
service joining it from its config (`tournaments:`) and playing the games the
emulator's arena pairs it into against several built-in opponents; each result
and the final standing are printed."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from bot.config import parse_config
from bot.errors import UserError
from bot.lichess.token import Token

OPPONENTS = (("ann", 1450), ("bob", 1500), ("cid", 1550), ("dee", 1600))
# lila pairs a small arena every 15 s; the demo's is faster so that 3 minutes
# hold several games.
PAIRING_EVERY_S = 2.0


async def arena_demo(base: int, inc: int, moves_only: bool, minutes: float,
                     interrupted: asyncio.Event, on_interrupt: Any) -> int:
    from bot.emulator import Emulator, EmulatorConfig, OpponentSpec
    from bot.service import Service

    emu = Emulator(EmulatorConfig(event_keepalive_s=2.0, game_keepalive_s=2.0,
                                  arena_pairing_interval_s=PAIRING_EVERY_S,
                                  arena_virtual_game_s=20.0)).start()
    try:
        # Greedy opponents that resign after 8 to 20 moves: several games in a few minutes.
        opponents = [(name, rating, OpponentSpec(policy="greedy", think_time_s=0.3,
                                                 resign_after=8 + 4 * i, seed=i))
                     for i, (name, rating) in enumerate(OPPONENTS)]
        aid = emu.arenas.create(minutes=minutes, clock_limit_s=base, increment_s=inc,
                                starts_in_s=3.0, name="Demo", opponents=opponents)
        cfg = parse_config({
            "url": emu.url, "pgn_directory": None,
            "log_level": "warning" if moves_only else "info",
            "engine": {"hash_mb": 16, "move_overhead_ms": 50},
            "network": {"stream_read_timeout_s": 5.0, "tournament_poll_s": 2.0},
            "tournaments": [{"id": aid}]})
        service = Service(cfg, Token(emu.token, "emulator demo token"), handle_signals=False)
        run = asyncio.create_task(service.run())
        print(f"arena {aid}: {minutes:.0f} minutes of {base}+{inc} against "
              f"{', '.join(n for n, _ in OPPONENTS)} on {emu.url}", flush=True)
        seen: set[str] = set()
        deadline = time.monotonic() + minutes * 60 + 3 + base * 2 + 60
        while time.monotonic() < deadline:
            if interrupted.is_set():
                return int(await on_interrupt(service, run))
            for g in emu.games():
                if g.over and g.id not in seen:
                    seen.add(g.id)
                    wins = f"{g.winner} wins" if g.winner else "draw"
                    print(f"game {len(seen)}: {g.white} - {g.black}: {g.status}, {wins} "
                          f"({len(g.moves)} plies)", flush=True)
            standing = emu.arenas.json(aid, "pibot")
            if standing.get("isFinished") and all(g.over for g in emu.games()):
                break
            await asyncio.sleep(0.5)
        else:
            raise UserError("the demo arena did not end in time; see the log above")
        print("Final standing:")
        for p in standing["standing"]["players"]:
            print(f"  {p['rank']}. {p['name']:8} {p['score']:3} points  "
                  f"{p['sheet']['scores'][::-1]}")
        service.request_stop()
        await asyncio.wait_for(run, 30)
        return 0 if seen else 1
    finally:
        emu.stop()
