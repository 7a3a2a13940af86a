"""Resilience: dropped/silent streams, 5xx, 429 (incl. the bot-vs-bot daily limit)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from test_service_helpers import bot_and_emulator, fast_emulator_config, needs_engine, wait_until

from bot.emulator import OpponentSpec, UserSpec

EVENT = "GET /api/stream/event"


def _accepted_quickly(emu, timeout: float = 8.0) -> None:  # noqa: ANN001
    cid = emu.challenge_bot(challenger="zed", rated=False, clock_limit_s=60, increment_s=0,
                            opponent=OpponentSpec(think_time_s=60))
    assert emu.challenges.wait_answered(cid, timeout) == "accepted"


def test_event_stream_drop_and_silence_recovered(tmp_path: Path) -> None:
    with bot_and_emulator(tmp_path, challenge={"concurrency": 4,
                                               "max_simultaneous_games_per_user": 4}) as (emu, _):
        opens = emu.traffic.count(EVENT)
        emu.faults.inject("drop_stream", "event")
        assert wait_until(lambda: emu.traffic.count(EVENT) > opens, 5)
        _accepted_quickly(emu)
        opens = emu.traffic.count(EVENT)
        emu.faults.inject("silent_stream", "event", duration_s=None)  # dead but open connection
        # read timeout 1.5 s in tests -> re-opened well within seconds
        assert wait_until(lambda: emu.traffic.count(EVENT) > opens, 6)
        _accepted_quickly(emu)


def test_event_stream_429_pauses_reconnect(tmp_path: Path) -> None:
    with bot_and_emulator(tmp_path) as (emu, _):
        emu.faults.inject("http_error", EVENT, status=429)
        emu.faults.inject("drop_stream", "event")
        assert wait_until(lambda: any(r.status == 429 for r in emu.traffic.requests(EVENT)), 5)
        t429 = next(r.t for r in emu.traffic.requests(EVENT) if r.status == 429)
        assert wait_until(lambda: any(r.t > t429 and r.status == 200
                                      for r in emu.traffic.requests(EVENT)), 8)
        again = next(r.t for r in emu.traffic.requests(EVENT) if r.t > t429)
        assert again - t429 >= 0.9  # network.rate_limit_pause_s = 1 in tests
        _accepted_quickly(emu)


def test_daily_bot_limit_stops_matchmaking(tmp_path: Path) -> None:
    users = [UserSpec("sparbot", rating=1500, on_challenge="decline", response_delay_s=0.05)]
    emu_cfg = fast_emulator_config(users=users, bot_vs_bot_daily_limit=1)
    mm = {"allow_matchmaking": True, "challenge_timeout_s": 1, "challenge_expiry_s": 5,
          "challenge_initial_time": [60], "challenge_increment": [1]}
    with bot_and_emulator(tmp_path, emu_cfg, matchmaking=mm) as (emu, _):
        pattern = "POST /api/challenge/sparbot"
        assert wait_until(lambda: any(r.status == 429 for r in emu.traffic.requests(pattern)), 20)
        n = emu.traffic.count(pattern)
        # stopped, not retried
        assert wait_until(lambda: emu.traffic.count(pattern) > n, 4) is False
        assert [r.status for r in emu.traffic.requests(pattern)] == [200, 429]


@needs_engine
@pytest.mark.parametrize("faults", [
    [("drop_stream", "game", {}), ("silent_stream", "game", {"duration_s": None})],
    [("http_error", "POST /api/bot/game/*/move/*", {"status": 503, "count": 2})],
    [("http_error", "POST /api/bot/game/*/move/*", {"status": 429, "count": 1})],
    [("http_error", "POST /api/bot/game/*/move/*", {"status": 500, "count": None,
                                                   "probability": 0.3})],
], ids=["game-stream-drop-silent", "move-503", "move-429", "move-500-random"])
def test_game_survives_faults(tmp_path: Path, faults: list, caplog: pytest.LogCaptureFixture
                              ) -> None:
    caplog.set_level(logging.DEBUG)
    with bot_and_emulator(tmp_path) as (emu, _):
        opp = OpponentSpec(policy="random", think_time_s=0.1, resign_after=12, seed=4)
        cid = emu.challenge_bot(challenger="faulty", rated=False, clock_limit_s=30,
                                increment_s=0, color="black", opponent=opp)
        emu.wait_game_started(cid, 10)
        assert wait_until(lambda: len(emu.game(cid).moves) >= 2, 10)
        for kind, target, kw in faults:
            emu.faults.inject(kind, target, **kw)
        snap = emu.wait_game_over(cid, 60)
        assert snap.status in ("resign", "mate") and snap.winner == snap.bot_color, snap
        assert emu.token not in caplog.text  # the token never reaches the log


@needs_engine
def test_matchmaking_plays_when_idle(tmp_path: Path) -> None:
    users = [UserSpec("sparbot", rating=1500, response_delay_s=0.05,
                      opponent=OpponentSpec(policy="random", think_time_s=0.05,
                                            resign_after=3, seed=3))]
    mm = {"allow_matchmaking": True, "challenge_timeout_s": 1, "challenge_expiry_s": 5,
          "challenge_initial_time": [30], "challenge_increment": [0]}
    with bot_and_emulator(tmp_path, fast_emulator_config(users=users), matchmaking=mm,
                          challenge={"time_controls": ["bullet"]}) as (emu, _):
        assert wait_until(lambda: any(g.over for g in emu.games()), 30)
        game = next(g for g in emu.games() if g.over)
        assert "sparbot" in (game.white, game.black)
        assert game.winner == game.bot_color
