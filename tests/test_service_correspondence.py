"""Correspondence games through the real service and emulator: their own slots,
no abort timer, correspondence.move_time, parking while the opponent thinks and
check-ins via /api/account/playing."""

from __future__ import annotations

import io
import re
import time
from pathlib import Path

import chess
import chess.pgn
import pytest
from test_book import write_book
from test_service_helpers import (
    RunningBot,
    bot_and_emulator,
    bot_config,
    fast_emulator_config,
    needs_engine,
    wait_until,
)

from bot.emulator import Emulator, OpponentSpec
from bot.lichess import api_account

pytestmark = needs_engine

TC = ["bullet", "blitz", "rapid", "correspondence"]


def test_correspondence_game_leaves_the_realtime_slot_free_and_is_never_aborted(
        tmp_path: Path) -> None:
    with bot_and_emulator(tmp_path, challenge={"time_controls": TC, "concurrency": 1,
                                               "max_correspondence_games": 1},
                          game={"abort_if_no_first_move_s": 1},
                          correspondence={"move_time": 0.3, "disconnect_time": 600}
                          ) as (emu, _bot):
        slow = OpponentSpec(policy="random", think_time_s=3600, seed=1)
        corr = emu.challenge_bot(challenger="carol", rated=False, clock_limit_s=None, days=3,
                                 color="black", opponent=slow)
        emu.wait_game_started(corr, 10)
        t0 = time.monotonic()
        # move_time 0.3 s (the old fixed 20 s would miss this)
        assert wait_until(lambda: len(emu.game(corr).moves) == 1, 8), "no first move"
        assert time.monotonic() - t0 < 8
        # A real-time challenge is accepted beside it with concurrency 1.
        rt = emu.challenge_bot(challenger="dave", rated=False, clock_limit_s=60, increment_s=0,
                               color="white", opponent=OpponentSpec(policy="random",
                                                                    think_time_s=0.05,
                                                                    resign_after=3, seed=2))
        emu.wait_game_started(rt, 10)
        snap = emu.wait_game_over(rt, 60)
        assert snap.status == "resign", snap.status
        # The opponent has not made its first move for far longer than the abort timeout.
        time.sleep(2)
        assert emu.game(corr).status == "started"
        assert emu.traffic.count("POST /api/bot/game/*/abort") == 0
        # max_correspondence_games 1: a second correspondence game waits its turn.
        other = emu.challenge_bot(challenger="frank", rated=False, clock_limit_s=None, days=3,
                                  color="black", opponent=slow)
        assert emu.challenges.wait_answered(other, 10) == "declined"
        assert emu.challenges.decline_reason(other) == "later"


def test_idle_game_is_parked_and_checked_back_in(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # Lichess is asked at most once a minute; a test cannot wait minutes.
    monkeypatch.setattr(api_account, "PLAYING_MIN_INTERVAL_S", 0.5)
    book = write_book(tmp_path / "one.bin", [(chess.Board(), "d2d4", 1)])
    poly = {"enabled": True, "book": {"standard": [str(book)]}}
    with bot_and_emulator(tmp_path, challenge={"time_controls": TC},
                          engine={"polyglot": poly},
                          correspondence={"move_time": 0.2, "disconnect_time": 1,
                                          "checkin_period": 1}) as (emu, bot):
        opp = OpponentSpec(policy="random", think_time_s=5, seed=3, resign_after=2)
        gid = emu.challenge_bot(challenger="erin", rated=False, clock_limit_s=None, days=2,
                                color="black", opponent=opp)
        emu.wait_game_started(gid, 10)
        assert wait_until(lambda: len(emu.game(gid).moves) == 1, 8)
        svc = bot.service
        assert svc is not None
        # The opponent thinks for 5 s: after 1 s idle the game's stream is closed.
        assert wait_until(lambda: gid in svc.supervisor.parked
                          and gid not in svc.supervisor.games, 4), \
            "idle game not parked"
        assert len(emu.game(gid).moves) == 1
        streams = emu.traffic.count("GET /api/bot/game/stream/*")
        # The opponent moves; a check-in sees isMyTurn and the bot answers.
        assert wait_until(lambda: len(emu.game(gid).moves) >= 3, 20), emu.game(gid).moves
        assert emu.traffic.count("GET /api/bot/game/stream/*") > streams
        # The opponent resigns while the game is parked again: a check-in notices it.
        snap = emu.wait_game_over(gid, 30)
        assert snap.status == "resign"
        assert wait_until(lambda: gid not in svc.supervisor.parked
                          and svc.shared.corr_slots.used() == 0, 10)
        # Recorded although it ended while parked; the book move made before parking
        # is still marked.
        pgn = tmp_path / "games" / f"{gid}.pgn"
        assert wait_until(pgn.exists, 10)
        game = chess.pgn.read_game(io.StringIO(pgn.read_text()))
        # (Termination as Lichess writes it: a resignation ends a game "Normal"ly.)
        assert game is not None and game.headers["Termination"] == "Normal"
        assert [re.sub(r"\[%\w+ [^\]]*\]", "", n.comment).strip()
                for n in game.mainline()][:3] == ["book", "", ""]
        # Check-ins ask Lichess at most once a checkin_period (1 s here; the
        # once-a-minute cache is 0.5 s): consecutive asks at least ~1 s apart.
        asks = [r.t for r in emu.traffic.requests("GET /api/account/playing")]
        assert len(asks) >= 2, asks
        gaps = [b - a for a, b in zip(asks, asks[1:], strict=False)]
        assert min(gaps) >= 0.9, gaps


def test_waiting_game_at_startup_is_parked_without_a_stream(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(api_account, "PLAYING_MIN_INTERVAL_S", 0.5)
    emu = Emulator(fast_emulator_config()).start()
    try:
        # Our move is made; the opponent answers after 4 s.
        gid = emu.start_game_directly(bot_color="white", moves=["e2e4"], clock_limit_s=None,
                                      increment_s=None, days=2,
                                      opponent=OpponentSpec(policy="random", think_time_s=4,
                                                            seed=5, resign_after=1))
        cfg = bot_config(emu.url, tmp_path, challenge={"time_controls": TC},
                         correspondence={"move_time": 0.2, "checkin_period": 1})
        bot = RunningBot(cfg, emu.token).start()
        try:
            svc = bot.service
            assert svc is not None
            assert wait_until(lambda: gid in svc.supervisor.parked, 5)
            assert emu.traffic.count("GET /api/bot/game/stream/*") == 0
            assert wait_until(lambda: len(emu.game(gid).moves) >= 3, 20), emu.game(gid).moves
            assert emu.wait_game_over(gid, 20).status == "resign"
        finally:
            bot.stop()
    finally:
        emu.stop()
