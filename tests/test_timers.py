"""The claim against an opponent who left (bot/play/timers.py), driven directly
over real HTTP to the emulator: lila's `opponentGone` countdown keeps coming
until the game's end reaches the game stream, so an event that arrives after
the claim went out must not send a second one (the fresh-clone CI once saw
claim-draw answered 200, then 400 for the finished game)."""

from __future__ import annotations

import asyncio
import time

from test_service_helpers import bot_config, fast_emulator_config

from bot.emulator import Emulator, OpponentSpec
from bot.lichess.client import Lichess
from bot.lichess.events import OpponentGone
from bot.lichess.token import Token
from bot.play.game_state import GameState
from bot.play.outbox import Outbox
from bot.play.timers import GameTimers

CLAIM_WIN = "POST /api/bot/game/*/claim-victory"
# Black (the bot) keeps a rook: it can win; White's king is bare.
ROOK_UP = "7k/8/8/8/8/8/6r1/K7 w - - 0 1"


def _run_claims(emu: Emulator, gid: str, events_after_claim: list[OpponentGone]) -> None:
    cfg = bot_config(emu.url)
    api = Lichess(emu.url, Token(emu.token, "test"), cfg.network)
    # The game stream is not read here: to the timers the game stays ongoing, as it
    # does to the bot between its claim and the stream's report of the game's end.
    st = GameState(color="black", initial_fen=ROOK_UP, moves=["a1b1", "g2g3"])

    async def go() -> None:
        outbox = Outbox(gid, api)
        timers = GameTimers(gid, cfg.game, api, outbox, st)
        timers.opponent_gone(OpponentGone(True, 0))
        deadline = time.monotonic() + 10
        while emu.traffic.count(CLAIM_WIN) == 0 and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        for ev in events_after_claim:
            timers.opponent_gone(ev)
            await asyncio.sleep(0.2)
        await outbox.close(5.0)
        timers.cancel()

    asyncio.run(go())


def _gone_game(emu: Emulator) -> str:
    gid = emu.start_game_directly(bot_color="black", initial_fen=ROOK_UP,
                                  moves=["a1b1", "g2g3"], clock_limit_s=300, increment_s=0,
                                  opponent=OpponentSpec(think_time_s=0.05, leave_after=0))
    # Long gone: the countdown (1 s here) has run out.
    assert emu.wait_until(lambda: emu.game(gid).opponent_gone, 10)
    time.sleep(1.3)
    return gid


def test_a_countdown_event_after_the_claim_sends_no_second_claim() -> None:
    with Emulator(fast_emulator_config()) as emu:
        gid = _gone_game(emu)
        _run_claims(emu, gid, [OpponentGone(True, 0), OpponentGone(True, 0)])
        assert [r.status for r in emu.traffic.requests(CLAIM_WIN)] == [200]
        snap = emu.game(gid)
        assert (snap.status, snap.winner) == ("timeout", "black"), snap


def test_an_opponent_who_came_back_and_left_again_is_claimed_again() -> None:
    """After `gone: false` a new leave is a new claim: the first one landed, so the
    game is over and the second is answered 400, but it is sent."""
    with Emulator(fast_emulator_config()) as emu:
        gid = _gone_game(emu)
        _run_claims(emu, gid, [OpponentGone(False), OpponentGone(True, 0)])
        assert [r.status for r in emu.traffic.requests(CLAIM_WIN)] == [200, 400]
