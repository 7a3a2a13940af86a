"""The network layer against what lichess.org really does (project issue 9):
stalled move POSTs, 429s, the daily bot-vs-bot limit, one
event stream per account, quiet streams, a non-BOT account, a network outage
at start-up, UltraBullet and valid matchmaking clocks.

Everything runs the real Service / Lichess client against the emulator over
loopback HTTP; no mocks."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import requests
from conftest import closed_port
from test_service_helpers import (
    RunningBot,
    bot_and_emulator,
    bot_config,
    fast_emulator_config,
    needs_engine,
    wait_until,
)

from bot.challenges.matchmaking import valid_clock
from bot.config import NetworkConfig, parse_config
from bot.emulator import AccountSpec, Emulator, OpponentSpec, UserSpec
from bot.lichess.client import Lichess
from bot.lichess.events import GameEvent
from bot.lichess.streams import Item
from bot.lichess.token import Token

MOVE = "POST /api/bot/game/*/move/*"
EVENT = "GET /api/stream/event"
GAME_STREAM = "GET /api/bot/game/stream/*"
CHALLENGES = "POST /api/challenge/*"


# ---------------------------------------------------------------- A. moves

@needs_engine
@pytest.mark.parametrize("apply", [True, False], ids=["landed", "lost"])
def test_stalled_move_post_is_retried_at_once_and_counted_once(
        tmp_path: Path, apply: bool, caplog: pytest.LogCaptureFixture) -> None:
    """A move POST whose answer never comes: a fresh attempt within seconds, and a
    first attempt that did land is taken as played (not as a rejected move)."""
    caplog.set_level(logging.INFO)
    # The default request timeout (15 s): a move must not wait for it.
    with bot_and_emulator(tmp_path, network={"request_timeout_s": 15}) as (emu, _):
        # The opponent thinks longer than one move attempt may take (3 s at most), so
        # the retry happens before the game stream moves on.
        opp = OpponentSpec(policy="random", think_time_s=4.0, resign_after=3, seed=2)
        cid = emu.challenge_bot(challenger="staller", rated=False, clock_limit_s=60,
                                increment_s=0, color="black", opponent=opp)
        emu.wait_game_started(cid, 10)
        assert wait_until(lambda: len(emu.game(cid).moves) >= 2, 15)
        emu.faults.inject("stall", MOVE, duration_s=None, apply=apply)
        stalled_at = time.monotonic()
        snap = emu.wait_game_over(cid, 60)
        assert snap.status == "resign" and snap.winner == snap.bot_color, snap
        posts = [r for r in emu.traffic.requests(MOVE) if r.t >= stalled_at]
        assert len(posts) >= 2
        if not apply:
            # the stalled one, then the retry: seconds apart, not a 15-s request timeout
            # (an applied move shows in the game stream, so the game passes landed()
            # and no retry is needed at all)
            assert posts[1].t - posts[0].t < 5.0, [(r.t, r.status) for r in posts]
        assert "rejected" not in caplog.text and "resync" not in caplog.text
        if apply:
            assert "already played by an earlier attempt" in caplog.text or \
                "landed although" in caplog.text


def test_move_can_offer_a_draw() -> None:
    """`offering_draw=True` goes with the move as ?offeringDraw=true."""
    with Emulator(fast_emulator_config()) as emu:
        gid = emu.start_game_directly(bot_color="white", moves=[], clock_limit_s=60,
                                      opponent=OpponentSpec(think_time_s=30,
                                                            accept_draw=True))
        api = Lichess(emu.url, Token(emu.token, "test"), bot_config(emu.url).network)
        asyncio.run(api.game.move(gid, "e2e4", lambda: 60_000.0, offering_draw=True))
        snap = emu.wait_game_over(gid, 10)  # the opponent accepts the offer
        assert snap.moves == ["e2e4"] and snap.status == "draw", snap


# ---------------------------------------------------------------- B. 429

# The per-class pauses: tests/test_rate_limit_classes.py


def test_daily_bot_limit_declines_bots_but_not_humans(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    users = [UserSpec("sparbot", rating=1500, on_challenge="decline", response_delay_s=0.05)]
    emu_cfg = fast_emulator_config(users=users, bot_vs_bot_daily_limit=0)
    mm = {"allow_matchmaking": True, "challenge_timeout_s": 1, "challenge_expiry_s": 5,
          "challenge_initial_time": [60], "challenge_increment": [1]}
    with bot_and_emulator(tmp_path, emu_cfg, matchmaking=mm,
                          game={"abort_if_no_first_move_s": 60}) as (emu, _):
        pattern = "POST /api/challenge/sparbot"
        assert wait_until(lambda: any(r.status == 429 for r in emu.traffic.requests(pattern)), 20)
        assert wait_until(lambda: "daily bot-vs-bot limit reached" in caplog.text, 5)
        bot_ch = emu.challenge_bot(challenger="otherbot", challenger_title="BOT",
                                   rated=False, clock_limit_s=180, increment_s=0)
        assert emu.challenges.wait_answered(bot_ch, 10) == "declined"
        assert emu.challenges.decline_reason(bot_ch) == "later"
        human = emu.challenge_bot(challenger="human", rated=False, clock_limit_s=180,
                                  increment_s=0, opponent=OpponentSpec(think_time_s=30))
        assert emu.challenges.wait_answered(human, 10) == "accepted"


# ---------------------------------------------------------------- C. one event stream

def test_rival_event_stream_is_detected_and_backed_off(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    with bot_and_emulator(tmp_path, network={"stream_conflict_backoff_s": 60}) as (emu, _):
        before = emu.traffic.count(EVENT)
        with emu.rival_event_stream(reconnect_s=0.5) as rival:
            assert wait_until(lambda: "another program is using this token's event stream"
                              in caplog.text, 15)
            time.sleep(4)  # now in the long back-off: we must not open again
            ours = emu.traffic.count(EVENT) - before - rival.opens
        assert ours <= 5, ours
        assert caplog.text.count("another program is using this token's event stream") == 1


SECOND = "lip_second_program_token"


@needs_engine
def test_a_program_on_another_token_shows_only_as_moves_we_did_not_play(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """lila closes an event stream only for the same token (EventStream.scala,
    `eventStreamForBearer`): a second program on another token of the account
    leaves ours open (no rival warning, no re-open), gets the same events, and
    plays the same games. What pibot can see of it is a move of ours it did not
    play: one warning naming the cause."""
    caplog.set_level(logging.INFO)
    emu_cfg = fast_emulator_config(accounts=[AccountSpec(other_tokens=(SECOND,))])
    with bot_and_emulator(tmp_path, emu_cfg) as (emu, _bot):
        assert wait_until(lambda: emu.traffic.open_streams()["event"] == 1, 10)
        opened = emu.traffic.count(EVENT)
        with emu.rival_event_stream(reconnect_s=0.2, token=SECOND) as rival:
            assert wait_until(lambda: rival.opens == 1, 5)
            # A long clock: our first move may think 3 s, time for the other program.
            opp = OpponentSpec(policy="random", think_time_s=0.2, resign_after=4, seed=3)
            cid = emu.challenge_bot(challenger="twice", rated=False, clock_limit_s=600,
                                    increment_s=0, color="white", opponent=opp)  # bot: black
            emu.wait_game_started(cid, 10)
            assert emu.wait_until(lambda: len(emu.game(cid).moves) == 1, 10)
            # The other program (the second token) moves for us first.
            foreign = requests.post(f"{emu.url}/api/bot/game/{cid}/move/e7e5",
                                    headers={"Authorization": f"Bearer {SECOND}"}, timeout=5)
            assert foreign.status_code == 200, foreign.text
            snap = emu.wait_game_over(cid, 60)
            assert rival.opens == 1  # neither stream closed the other
        assert snap.status == "resign" and snap.winner == "black", snap
        assert snap.moves[1] == "e7e5"
        assert emu.traffic.count(EVENT) - rival.opens == opened  # ours was never re-opened
        assert "another program is using this token's event stream" not in caplog.text
        warnings = [r.getMessage() for r in caplog.records
                    if "which pibot did not play" in r.getMessage()]
        assert len(warnings) == 1 and "e7e5 as our move at ply 2" in warnings[0], warnings


# ---------------------------------------------------------------- D. quiet streams

@needs_engine
def test_quiet_game_polls_nothing(tmp_path: Path) -> None:
    """~20 s of a game where the opponent thinks: keep-alives only. Nothing is
    re-opened and no endpoint is asked more than once."""
    emu_cfg = fast_emulator_config(event_keepalive_s=2.0, game_keepalive_s=2.0)
    network = {"stream_read_timeout_s": 5.0}
    with bot_and_emulator(tmp_path, emu_cfg, network=network) as (emu, bot):
        emu.traffic.reset()
        cid = emu.challenge_bot(challenger="thinker", rated=False, clock_limit_s=300,
                                increment_s=0, color="black",
                                opponent=OpponentSpec(think_time_s=20))
        emu.wait_game_started(cid, 10)
        assert wait_until(lambda: len(emu.game(cid).moves) >= 1, 10)
        t0 = time.monotonic()
        time.sleep(20)
        counts = emu.traffic.counters()
        assert counts.get("GET /api/account/playing", 0) <= 1, counts
        assert counts.get("GET /api/bot/game/stream/{id}", 0) == 1, counts
        assert counts.get(EVENT, 0) == 0, counts  # opened before the reset, never again
        assert bot.service is not None
        runner = bot.service.supervisor.runners.get(cid)
        stream = getattr(runner, "stream", None)
        if stream is not None:  # the runner's GameStream: liveness from keep-alives
            assert stream.last_seen > t0 + 15


def test_a_keepalive_late_by_a_wifi_stall_does_not_reopen_the_stream(tmp_path: Path) -> None:
    """lila's keep-alive gap is 7 s (EventStream.scala `scheduleOnce(7.second…)`); a
    Pi on Wi-Fi can see one 3 s late (a retransmission, a scan). A 10-s silence
    must not end a healthy stream: the default read timeout (12 s) has 5 s of
    margin over the gap; the old 9 s (6 s + 3) re-opened it."""
    emu = Emulator(fast_emulator_config(event_keepalive_s=7.0, game_keepalive_s=7.0)).start()
    try:
        # Silent for 10 s from the moment our stream opens, then keep-alives again.
        emu.faults.inject("silent_stream", "event", duration_s=10.0)
        network = {"stream_read_timeout_s": NetworkConfig().stream_read_timeout_s}
        bot = RunningBot(bot_config(emu.url, tmp_path, network=network), emu.token).start()
        try:
            opened = time.monotonic()
            time.sleep(13.0)
            assert emu.traffic.count(EVENT) == 1, \
                [round(r.t - opened, 1) for r in emu.traffic.requests(EVENT)]
        finally:
            bot.stop()
    finally:
        emu.stop()


@needs_engine
def test_dead_game_stream_on_a_low_clock_is_reopened_before_the_read_timeout(
        tmp_path: Path) -> None:
    """The stream dies (no FIN, no keep-alives) while the opponent thinks, so
    their move is lost with it and our clock runs unseen.  With under 30 s left
    the bot re-opens after a quarter of that, not after the read timeout (15 s
    here so the two cannot be confused; this was a soak time loss at 9 s)."""
    emu_cfg = fast_emulator_config(event_keepalive_s=6.0, game_keepalive_s=7.0)
    network = {"stream_read_timeout_s": 15.0, "move_echo_timeout_s": 3.0}
    with bot_and_emulator(tmp_path, emu_cfg, network=network) as (emu, _bot):
        opp = OpponentSpec(policy="random", think_time_s=1.5, resign_after=16, seed=5)
        cid = emu.challenge_bot(challenger="roamer", rated=False, clock_limit_s=30,
                                increment_s=0, color="black", opponent=opp)
        emu.wait_game_started(cid, 10)
        # The challenger takes Black, so the bot is White. The clocks run from
        # ply 2; wait for the opponent to be thinking.
        assert wait_until(lambda: len(emu.game(cid).moves) >= 4
                          and len(emu.game(cid).moves) % 2 == 1, 20)
        time.sleep(0.5)  # our move's echo is out: the next thing the stream carries is theirs
        opens = emu.traffic.count(GAME_STREAM)
        t0 = time.monotonic()
        emu.faults.inject("silent_stream", f"game:{cid}", duration_s=None)
        assert wait_until(lambda: emu.traffic.count(GAME_STREAM) > opens, 20)
        reopened = next(r.t for r in emu.traffic.requests(GAME_STREAM)[opens:])
        # 1.5 s of thinking plus at most a quarter of < 30 s; the read timeout
        # alone would take 15 s after the last byte.
        assert reopened - t0 < 11, reopened - t0
        snap = emu.wait_game_over(cid, 90)
        assert snap.winner == snap.bot_color and snap.status != "outoftime", snap


@needs_engine
def test_a_slow_opponent_costs_at_most_two_quiet_reopens_per_move(tmp_path: Path) -> None:
    """Low clock, healthy stream, an opponent who thinks 12 s: the bot probes
    the quiet stream (a tenth of 30 s is under the read timeout) but stops
    after two re-opens that show the opponent is just thinking."""
    emu_cfg = fast_emulator_config(event_keepalive_s=6.0, game_keepalive_s=7.0)
    network = {"stream_read_timeout_s": 9.0, "move_echo_timeout_s": 3.0}
    with bot_and_emulator(tmp_path, emu_cfg, network=network) as (emu, _bot):
        opp = OpponentSpec(policy="random", think_time_s=12.0, seed=6)
        cid = emu.challenge_bot(challenger="ponderer", rated=False, clock_limit_s=30,
                                increment_s=0, color="black", opponent=opp)
        emu.wait_game_started(cid, 10)
        # The bot is White. From ply 2 the clocks run: Black's second move (ply 3)
        # is a 12-s think on the clock.
        assert wait_until(lambda: len(emu.game(cid).moves) >= 3, 30)
        opens = emu.traffic.count(GAME_STREAM)
        assert wait_until(lambda: len(emu.game(cid).moves) >= 4, 20)
        probes = emu.traffic.count(GAME_STREAM) - opens
        assert 1 <= probes <= 2, probes


# ---------------------------------------------------------------- E. non-BOT account

def test_non_bot_account_refuses_to_start(tmp_path: Path) -> None:
    acct = AccountSpec(token="lip_human_token_123", username="human", title=None)
    with Emulator(fast_emulator_config(accounts=[acct])) as emu:
        cfg = tmp_path / "config.yml"
        cfg.write_text(f"url: {emu.url}\npgn_directory: null\nlog_level: debug\n")
        env = {k: v for k, v in os.environ.items() if k != "CREDENTIALS_DIRECTORY"}
        env["LICHESS_BOT_TOKEN"] = acct.token
        proc = subprocess.run([sys.executable, "-m", "bot.cli", "run", "--config", str(cfg)],
                              capture_output=True, text=True, timeout=60, env=env,
                              cwd=tmp_path)  # its records database (pibot.db) there
    assert proc.returncode != 0
    assert "pibot upgrade" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert len([ln for ln in proc.stderr.splitlines() if "error" in ln.lower()]) == 1, \
        proc.stderr
    # The refusal comes before the engines' tables are made: the old order first
    # filled the auto-sized table (8 GiB on a 24-GB machine) and waited for it on exit.
    assert "table cleared" not in proc.stderr, proc.stderr


# ---------------------------------------------------------------- F. outage at start

@needs_engine
def test_network_outage_at_start_is_waited_out(tmp_path: Path,
                                               notify: socket.socket) -> None:
    port = closed_port()  # the emulator starts on it later
    url = f"http://127.0.0.1:{port}"
    bot = RunningBot(bot_config(url, tmp_path), "lip_emulator_demo_token")
    bot.thread.start()
    got: list[str] = []
    end = time.monotonic() + 3.0
    while time.monotonic() < end:
        try:
            got.append(notify.recv(4096).decode())
        except TimeoutError:
            pass
    assert bot.thread.is_alive() and bot.error is None, bot.error
    assert any("WATCHDOG=1" in m for m in got), got
    assert any(m.startswith("STATUS=waiting for") for m in got), got
    # READY while waiting: systemd must not fail the start after TimeoutStartSec.
    assert any("READY=1" in m for m in got), got
    emu = Emulator(fast_emulator_config(port=port)).start()
    try:
        assert wait_until(lambda: bot.service is not None and bot.service.ready.is_set(), 20)
        cid = emu.challenge_bot(challenger="late", rated=False, clock_limit_s=60,
                                increment_s=0, color="black",
                                opponent=OpponentSpec(think_time_s=0.1))
        emu.wait_game_started(cid, 10)
        assert wait_until(lambda: len(emu.game(cid).moves) >= 1, 10)
    finally:
        try:
            bot.stop()
        finally:
            emu.stop()
            notify.close()


# ---------------------------------------------------------------- G. clocks and limits

def test_ultrabullet_challenge_is_declined(tmp_path: Path) -> None:
    emu_cfg = fast_emulator_config(refuse_bot_ultrabullet=True)
    with bot_and_emulator(tmp_path, emu_cfg,
                          challenge={"time_controls": ["bullet", "blitz"]}) as (emu, _):
        cid = emu.challenge_bot(challenger="quick", challenger_title="BOT", rated=False,
                                clock_limit_s=15, increment_s=0, force=True)
        assert emu.challenges.wait_answered(cid, 10) == "declined"
        assert emu.challenges.decline_reason(cid) == "timeControl"


def test_matchmaking_clocks_are_what_lichess_accepts() -> None:
    assert valid_clock(60, 0) and valid_clock(15, 1) and valid_clock(10800, 60)
    assert not valid_clock(20, 0)  # UltraBullet
    assert not valid_clock(100, 0)  # not 0/15/30/45/60/90 or a multiple of 60
    assert not valid_clock(60, 61) and not valid_clock(10860, 0)
    with pytest.raises(Exception, match="challenge_increment"):
        parse_config({"matchmaking": {"challenge_increment": [120]}})


def test_matchmaking_sends_only_valid_clocks(tmp_path: Path) -> None:
    users = [UserSpec("sparbot", rating=1500, on_challenge="decline", response_delay_s=0.05)]
    emu_cfg = fast_emulator_config(users=users, refuse_bot_ultrabullet=True)
    mm = {"allow_matchmaking": True, "challenge_timeout_s": 1, "challenge_expiry_s": 5,
          "challenge_initial_time": [30, 60], "challenge_increment": [0]}
    with bot_and_emulator(tmp_path, emu_cfg, matchmaking=mm) as (emu, _):
        pattern = "POST /api/challenge/sparbot"
        assert wait_until(lambda: emu.traffic.count(pattern) >= 3, 30)
        assert all(r.status == 200 for r in emu.traffic.requests(pattern)), \
            emu.traffic.requests(pattern)


def test_opponent_at_daily_limit_is_skipped(tmp_path: Path) -> None:
    users = [UserSpec("tiredbot", rating=1500, at_daily_limit=True)]
    mm = {"allow_matchmaking": True, "challenge_timeout_s": 1, "challenge_expiry_s": 5,
          "challenge_initial_time": [60], "challenge_increment": [1]}
    with bot_and_emulator(tmp_path, fast_emulator_config(users=users),
                          matchmaking=mm) as (emu, _):
        pattern = "POST /api/challenge/tiredbot"
        assert wait_until(lambda: emu.traffic.count(pattern) >= 1, 20)
        assert [r.status for r in emu.traffic.requests(pattern)] == [400]
        time.sleep(5)  # several matchmaking rounds
        assert emu.traffic.count(pattern) == 1


def test_outgoing_challenge_holds_a_slot(tmp_path: Path) -> None:
    users = [UserSpec("sparbot", rating=1500, response_delay_s=3.0,
                      opponent=OpponentSpec(think_time_s=30))]
    mm = {"allow_matchmaking": True, "challenge_timeout_s": 1, "challenge_expiry_s": 10,
          "challenge_initial_time": [60], "challenge_increment": [1]}
    with bot_and_emulator(tmp_path, fast_emulator_config(users=users), matchmaking=mm,
                          challenge={"concurrency": 1},
                          game={"abort_if_no_first_move_s": 60}) as (emu, bot):
        assert wait_until(lambda: emu.traffic.count("POST /api/challenge/sparbot") >= 1, 20)
        cid = emu.challenge_bot(challenger="alice", rated=False, clock_limit_s=180,
                                increment_s=0)
        assert emu.challenges.wait_answered(cid, 10) == "declined"
        assert emu.challenges.decline_reason(cid) == "later"
        assert bot.service is not None
        assert wait_until(lambda: len(bot.service.supervisor.games) == 1, 10)
        time.sleep(1)
        assert len(bot.service.supervisor.games) == 1



@needs_engine
def test_finished_game_is_not_resumed_from_a_cached_playing_list(tmp_path: Path) -> None:
    """playing() answers from a cache for a minute: a game that ended since must
    not be "resumed" (a second goodbye, PGN and end hook) on a reconnect."""
    from bot.play.game import GameHooks

    ends: list[str] = []
    emu = Emulator(fast_emulator_config()).start()
    gid = emu.start_game_directly(bot_color="white", moves=["e2e4", "e7e5"], clock_limit_s=120,
                                  opponent=OpponentSpec(think_time_s=0.1, resign_after=1))
    bot = RunningBot(bot_config(emu.url, tmp_path), emu.token,
                     GameHooks(on_end=lambda g, *_: ends.append(g)))
    try:
        bot.start()  # resumes the game from /api/account/playing (now cached)
        emu.wait_game_over(gid, 20)
        assert wait_until(lambda: ends == [gid], 10)
        assert bot.service is not None
        assert wait_until(lambda: gid not in bot.service.supervisor.games, 5)
        opens = emu.traffic.count("GET /api/stream/event")
        emu.faults.inject("drop_stream", "event")
        assert wait_until(lambda: emu.traffic.count("GET /api/stream/event") > opens, 10)
        time.sleep(2)
        assert ends == [gid] and gid not in bot.service.supervisor.games
    finally:
        try:
            bot.stop()
        finally:
            emu.stop()


def test_move_429_is_retried_soon_but_not_at_once() -> None:
    with Emulator(fast_emulator_config()) as emu:
        gid = emu.start_game_directly(bot_color="white", moves=[], clock_limit_s=60,
                                      opponent=OpponentSpec(think_time_s=30))
        api = Lichess(emu.url, Token(emu.token, "test"), bot_config(emu.url).network)
        emu.faults.inject("http_error", MOVE, status=429)
        asyncio.run(api.game.move(gid, "e2e4", lambda: 60_000.0))
        posts = emu.traffic.requests(MOVE)
        assert [r.status for r in posts] == [429, 200]
        assert 0.45 <= posts[1].t - posts[0].t < 2.0, posts
        assert emu.game(gid).moves == ["e2e4"]
        # A move 429 pauses nothing (lila counts moves apart from everything else).
        assert api.paused_for("move") == 0 and api.paused_for("chat") == 0


def test_chat_never_waits_for_a_rate_limit() -> None:
    from bot.lichess.client import RateLimited

    with Emulator(fast_emulator_config()) as emu:
        gid = emu.start_game_directly(bot_color="white", moves=[], clock_limit_s=60,
                                      opponent=OpponentSpec(think_time_s=30))
        net = parse_config({"network": {"rate_limit_pause_s": 30}}).network
        api = Lichess(emu.url, Token(emu.token, "test"), net)
        emu.faults.inject("http_error", "POST /api/bot/game/*/chat", status=429)

        async def two_chats() -> list[float]:
            took = []
            for _ in range(2):
                t = time.monotonic()
                with pytest.raises(RateLimited):
                    await api.game.chat(gid, "hello")
                took.append(time.monotonic() - t)
            return took

        took = asyncio.run(two_chats())
        assert max(took) < 1.0, took
        assert emu.traffic.count("POST /api/bot/game/*/chat") == 1  # the second was not even sent


@pytest.mark.parametrize("status,error", [
    (429, "You played 100 games against other bots today, please wait before challenging "
          "another bot."),
    (400, "Otherbot played 100 games against other bots today, please wait until "
          "2099-01-01T00:00:00Z to challenge them."),
], ids=["ours", "theirs"])
def test_daily_limit_on_accept(tmp_path: Path, status: int, error: str) -> None:
    """lila Challenge.apiAccept checks BotLimit.acceptLimitError: 429 when we are at
    our limit (then all bots get `later`, humans are still welcome), 400 when the
    challenger is at its own. Either way the challenge is declined `later`."""
    with bot_and_emulator(tmp_path, game={"abort_if_no_first_move_s": 60},
                          challenge={"concurrency": 3}) as (emu, _):
        emu.faults.inject("http_error", "POST /api/challenge/*/accept", status=status, error=error)
        first = emu.challenge_bot(challenger="otherbot", challenger_title="BOT", rated=False,
                                  clock_limit_s=180, increment_s=0)
        assert emu.challenges.wait_answered(first, 10) == "declined"
        assert emu.challenges.decline_reason(first) == "later"
        again = emu.challenge_bot(challenger="thirdbot", challenger_title="BOT", rated=False,
                                  clock_limit_s=180, increment_s=0,
                                  opponent=OpponentSpec(think_time_s=30))
        human = emu.challenge_bot(challenger="human", rated=False, clock_limit_s=180,
                                  increment_s=0, opponent=OpponentSpec(think_time_s=30))
        assert emu.challenges.wait_answered(human, 10) == "accepted"
        expected = "declined" if status == 429 else "accepted"
        assert emu.challenges.wait_answered(again, 10) == expected


class _LateClosingServer:
    """A bare HTTP/1.1 server that ends a finished stream as the emulator does (the
    terminating chunk, then the connection is closed) but closes it a moment late,
    and answers every request that is not the stream with 200 {"ok":true}.  A
    request sent on the stream's connection in that moment is never answered."""

    def __init__(self, close_after_s: float) -> None:
        self.close_after_s = close_after_s
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.answered: list[str] = []
        self.unanswered: list[str] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    @staticmethod
    def _request(f: Any) -> str | None:
        line = f.readline().decode()
        if not line:
            return None
        length = 0
        while (h := f.readline().decode().strip()):
            if h.lower().startswith("content-length:"):
                length = int(h.split(":", 1)[1])
        f.read(length)
        return " ".join(line.split()[:2])

    def _serve(self, conn: socket.socket) -> None:
        f = conn.makefile("rb")
        try:
            while (req := self._request(f)) is not None:
                if req.startswith("GET /api/bot/game/stream/"):
                    line = b'{"type":"gameState","moves":"","status":"mate"}\n'
                    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\n"
                                 b"Transfer-Encoding: chunked\r\n\r\n"
                                 b"%x\r\n%s\r\n0\r\n\r\n" % (len(line), line))
                    time.sleep(self.close_after_s)
                    # Whatever arrived on this connection meanwhile is never answered.
                    conn.setblocking(False)
                    try:
                        if conn.recv(65536):
                            self.unanswered.append("a request on a finished stream")
                    except BlockingIOError:
                        pass
                    return
                self.answered.append(req)
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                             b"Content-Length: 11\r\n\r\n{\"ok\":true}")
        finally:
            conn.close()

    def close(self) -> None:
        self.sock.close()


def test_a_post_right_after_a_finished_stream_is_not_lost() -> None:
    """The goodbye chat line goes out the moment the game stream ends; it must not be
    sent on the stream's connection, which the server is about to close (a lost
    'Good game!' under load, seen in CI)."""
    server = _LateClosingServer(close_after_s=0.5)
    try:
        api = Lichess(server.url, Token("lip_x", "test"), bot_config(server.url).network)

        async def stream_then_chat() -> list[Item[GameEvent]]:
            q: asyncio.Queue[Item[GameEvent]] = asyncio.Queue()
            api.start_game_stream("g1", q)
            got = [await asyncio.wait_for(q.get(), 5) for _ in range(3)]
            await api.game.chat("g1", "Good game!")
            return got

        got = asyncio.run(stream_then_chat())
        assert [type(x).__name__ for x in got] == ["StreamOpened", "GameState", "StreamClosed"]
        assert server.answered == ["POST /api/bot/game/g1/chat"]
        assert server.unanswered == []
    finally:
        server.close()
