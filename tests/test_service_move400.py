"""A 400 on a move post (Lichess: "Not your turn, or game already over") means
our view of the game is stale: the bot must re-read gameFull from a fresh game
stream and play on, not crash and not lose on time."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from test_service_helpers import bot_and_emulator, needs_engine, wait_until

from bot.emulator import OpponentSpec

MOVE = "POST /api/bot/game/*/move/*"
GAME_STREAM = "GET /api/bot/game/stream/*"
REJECTED = "Not your turn, or game already over"


@needs_engine
@pytest.mark.parametrize("when", ["first-move", "mid-game"])
def test_move_400_resyncs_and_game_finishes(tmp_path: Path, when: str,
                                            caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    with bot_and_emulator(tmp_path) as (emu, bot):
        if when == "first-move":  # armed before the game: the bot's very first post fails
            emu.faults.inject("http_error", MOVE, status=400, error=REJECTED)
        opp = OpponentSpec(policy="random", think_time_s=0.1, resign_after=8, seed=5)
        cid = emu.challenge_bot(challenger="stale", rated=False, clock_limit_s=30,
                                increment_s=0, color="black" if when == "first-move" else "white",
                                opponent=opp)
        emu.wait_game_started(cid, 10)
        if when == "mid-game":
            assert wait_until(lambda: len(emu.game(cid).moves) >= 4, 15)
            emu.faults.inject("http_error", MOVE, status=400, error=REJECTED)

        snap = emu.wait_game_over(cid, 60)
        # Finished normally: the opponent resigned (or was mated), not a timeout.
        assert snap.status in ("resign", "mate") and snap.winner == snap.bot_color, snap
        moves = emu.traffic.requests(MOVE)
        statuses = [r.status for r in moves]
        assert statuses.count(400) == 1 and statuses[-1] == 200, statuses
        t400 = next(r.t for r in moves if r.status == 400)
        # Resynced: a new game stream opened after the 400, and the move was re-posted after it.
        reopened = [r.t for r in emu.traffic.requests(GAME_STREAM) if r.t > t400]
        assert reopened, "the bot did not re-open the game stream after the 400"
        retried = next(r.t for r in moves if r.t > reopened[0] and r.status == 200)
        assert retried - t400 < 3.0  # promptly: a 20 s game has no time to waste
        if when == "first-move":
            assert snap.bot_color == "white" and statuses[0] == 400
        assert "rejected" in caplog.text and "resyncing" in caplog.text
        assert bot.thread.is_alive() and bot.error is None  # no crash
        assert emu.token not in caplog.text
