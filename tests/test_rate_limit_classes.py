"""Months unattended on lichess.org (project issue 23, items 1, 2 and 4): a 429
pauses only the endpoint class that answered it; nothing Lichess still waits
for (a challenge answer, an abort, a claim of victory) is dropped; the slot is
free the moment a game ends; an accepted draw goes with the move.

Everything runs the real Service / Lichess client against the emulator over
loopback HTTP; no mocks."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

import pytest
from test_service_helpers import (
    RunningBot,
    bot_and_emulator,
    bot_config,
    fast_emulator_config,
    needs_engine,
    wait_until,
)

import bot.challenges.slots as slots_module
from bot.emulator import Emulator, OpponentSpec
from bot.lichess.client import Lichess, RateLimited
from bot.lichess.token import Token

MOVE = "POST /api/bot/game/*/move/*"
CHAT = "POST /api/bot/game/*/chat"
ANSWERS = "POST /api/challenge/*/*"
DECLINE = "POST /api/challenge/*/decline"


def wait_for_answer_pause(emu: Emulator, bot: RunningBot) -> None:
    """Until the bot has booked the challenge-answer 429, not just until the emulator
    sent it: a challenge made in between could be answered before the pause exists."""
    assert wait_until(lambda: any(r.status == 429 for r in emu.traffic.requests(ANSWERS)), 5)
    assert wait_until(lambda: bot.service is not None
                      and bot.service.api.paused_for("decline") > 0, 5)

# ---------------------------------------------------------------- 1. per class

def test_a_429_pauses_only_its_endpoint_class(caplog: pytest.LogCaptureFixture) -> None:
    """A chat 429 pauses chat, not challenge answers nor game actions; a move 429
    pauses nothing; the pause is logged once."""
    caplog.set_level(logging.INFO)
    with Emulator(fast_emulator_config()) as emu:
        gid = emu.start_game_directly(bot_color="white", moves=[], clock_limit_s=60,
                                      opponent=OpponentSpec(think_time_s=30))
        cid = emu.challenge_bot(challenger="carl", rated=False, clock_limit_s=180,
                                increment_s=0, opponent=OpponentSpec(think_time_s=30))
        net = bot_config(emu.url, network={"rate_limit_pause_s": 30}).network
        api = Lichess(emu.url, Token(emu.token, "test"), net)
        emu.faults.inject("http_error", CHAT, status=429)
        emu.faults.inject("http_error", MOVE, status=429)

        async def scenario() -> float:
            with pytest.raises(RateLimited):
                await api.game.chat(gid, "hello")
            with pytest.raises(RateLimited):
                await api.game.chat(gid, "again")  # paused: not even sent
            t = time.monotonic()
            await api.challenges.accept(cid)  # another class: goes out at once
            await api.game.move(gid, "e2e4", lambda: 60_000.0)  # 429, then retried
            return time.monotonic() - t

        took = asyncio.run(scenario())
        assert took < 3.0, took
        assert emu.traffic.count(CHAT) == 1
        assert emu.challenges.status(cid) == "accepted"
        assert [r.status for r in emu.traffic.requests(MOVE)] == [429, 200]
        assert api.paused_for("chat") > 25
        for name in ("accept", "decline", "abort", "claim_victory", "challenge", "account",
                     "event_stream", "move", "game_stream"):
            assert api.paused_for(name) == 0, name
        assert caplog.text.count("rate limited (HTTP 429 on /api/bot/game/{id}/chat)") == 1


# Long enough that the bot, which may think seconds a move at 2+0 on a loaded machine,
# surely moves inside it.
PAUSE_S = 8.0


@needs_engine
def test_a_challenge_answer_429_leaves_chat_and_moves_alone(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    with bot_and_emulator(tmp_path, challenge={"concurrency": 3, "variants": ["standard"],
                                               "max_simultaneous_games_per_user": 3},
                          network={"rate_limit_pause_s": PAUSE_S}) as (emu, bot):
        gid = emu.start_game_directly(bot_color="white", moves=[], clock_limit_s=120,
                                      opponent=OpponentSpec(policy="random",
                                                            think_time_s=0.2, seed=5))
        assert wait_until(lambda: len(emu.game(gid).moves) >= 2, 10)
        emu.faults.inject("http_error", DECLINE, status=429)
        first = emu.challenge_bot(challenger="v1", variant="chess960", rated=False,
                                  clock_limit_s=180, increment_s=0)
        wait_for_answer_pause(emu, bot)
        t429 = next(r.t for r in emu.traffic.requests(ANSWERS) if r.status == 429)
        later = emu.challenge_bot(challenger="h1", rated=False, clock_limit_s=180,
                                  increment_s=0, opponent=OpponentSpec(think_time_s=30))
        gone = emu.challenge_bot(challenger="h2", rated=False, clock_limit_s=180,
                                 increment_s=0)
        time.sleep(0.5)
        emu.challenges.cancel(gone)  # withdrawn while our answer waits: never sent
        emu.chat.say(gid, "!help")  # chat is another class: answered during the pause
        assert wait_until(lambda: any(t429 < r.t < t429 + PAUSE_S - 0.5
                                      for r in emu.traffic.requests(CHAT)), 3)
        assert emu.challenges.wait_answered(later, 15) == "accepted"
        assert emu.challenges.wait_answered(first, 5) == "declined"  # retried after the pause
        answers = [r for r in emu.traffic.requests(ANSWERS) if r.t > t429]
        assert min(r.t for r in answers) - t429 >= PAUSE_S - 0.5, answers
        assert not any(gone in r.path for r in emu.traffic.requests(ANSWERS)), \
            "answered a withdrawn"
        assert [r for r in emu.traffic.requests(MOVE) if t429 < r.t < t429 + PAUSE_S - 0.5], \
            "moves must not wait for the pause"


# ---------------------------------------------------------------- 2. nothing dropped

def test_a_held_answer_goes_out_after_a_pause_longer_than_20_s(tmp_path: Path) -> None:
    """lila expires no challenge whose challenger keeps it alive (ChallengeApi.sweep
    only takes an unseen one offline): an answer held by a 21-s pause still goes out."""
    emu_cfg = fast_emulator_config(challenge_expiry_s=120)
    with bot_and_emulator(tmp_path, emu_cfg, network={"rate_limit_pause_s": 21}) as (emu, bot):
        emu.faults.inject("http_error", DECLINE, status=429)
        first = emu.challenge_bot(challenger="v1", variant="chess960", rated=False,
                                  clock_limit_s=180, increment_s=0)
        wait_for_answer_pause(emu, bot)
        late = emu.challenge_bot(challenger="h1", rated=False, clock_limit_s=180,
                                 increment_s=0, opponent=OpponentSpec(think_time_s=30))
        assert emu.challenges.wait_answered(late, 30) == "accepted"
        assert emu.challenges.wait_answered(first, 5) == "declined"


@needs_engine
def test_an_accept_held_by_a_pause_keeps_its_slot(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Soak seed 4805 (6f4882f): an accept held by the 60-s pause outlived its slot's
    30-s reservation, the slot went to the challenges that came meanwhile, and when
    the pause ended five accepts went out together for two slots. Here the
    reservation would lapse after 0.3 s, inside a 3-s pause."""
    monkeypatch.setattr(slots_module, "RESERVATION_TTL_S", 0.3)
    emu_cfg = fast_emulator_config(challenge_expiry_s=120)
    with bot_and_emulator(tmp_path, emu_cfg, challenge={"concurrency": 1},
                          network={"rate_limit_pause_s": 3}) as (emu, bot):
        emu.faults.inject("http_error", "POST /api/challenge/*/accept", status=429)
        slow = OpponentSpec(think_time_s=30)
        first = emu.challenge_bot(challenger="h1", rated=False, clock_limit_s=180,
                                  increment_s=0, opponent=slow)
        assert wait_until(lambda: bot.service is not None
                          and bot.service.api.paused_for("accept") > 0, 5)
        time.sleep(1.0)  # past the reservation's TTL, inside the pause
        second = emu.challenge_bot(challenger="h2", rated=False, clock_limit_s=180,
                                   increment_s=0, opponent=slow)
        assert emu.challenges.wait_answered(first, 10) == "accepted"
        time.sleep(1.0)  # a second accept would have gone out with the first
        assert emu.challenges.status(second) != "accepted"
        assert sum(1 for g in emu.games() if not g.over) == 1


def test_an_answer_is_dropped_once_the_event_stream_no_longer_lists_it(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A challenge lila took offline (its challenger left: no event) is not listed
    by a re-opened event stream: its held answer is dropped, not sent."""
    caplog.set_level(logging.INFO)
    emu_cfg = fast_emulator_config(challenge_expiry_s=1.5, challenge_expiry_mode="offline")
    with bot_and_emulator(tmp_path, emu_cfg, network={"rate_limit_pause_s": 5}) as (emu, bot):
        emu.faults.inject("http_error", DECLINE, status=429)
        emu.challenge_bot(challenger="v1", variant="chess960", rated=False,
                          clock_limit_s=180, increment_s=0)
        wait_for_answer_pause(emu, bot)
        t429 = next(r.t for r in emu.traffic.requests(ANSWERS) if r.status == 429)
        left = emu.challenge_bot(challenger="h1", rated=False, clock_limit_s=180,
                                 increment_s=0)
        assert wait_until(lambda: emu.challenges.status(left) == "offline", 5)
        opens = emu.traffic.count("GET /api/stream/event")
        emu.faults.inject("drop_stream", "event")
        assert wait_until(lambda: emu.traffic.count("GET /api/stream/event") > opens, 5)
        assert wait_until(lambda: f"challenge {left} gone before we answered" in caplog.text,
                          10)
        assert not any(left in r.path for r in emu.traffic.requests(ANSWERS))
        assert time.monotonic() - t429 >= 4.5  # it waited for the pause, then dropped it


@needs_engine
@pytest.mark.parametrize("what", ["abort", "claim-victory"])
def test_abort_and_claim_are_retried_until_they_land(tmp_path: Path, what: str) -> None:
    """The old outbox gave either up after its retries (or cut it at 30 s): the game
    then held its slot until the opponent's clock ran out, or a restart."""
    pattern = f"POST /api/bot/game/*/{what}"
    with bot_and_emulator(tmp_path, game={"abort_if_no_first_move_s": 1},
                          network={"rate_limit_pause_s": 2}) as (emu, bot):
        # A 429 (the class then waits 2 s), then network trouble for longer than one
        # request's retries (4 attempts).
        emu.faults.inject("http_error", pattern, status=429)
        emu.faults.inject("http_error", pattern, status=503, count=6)
        if what == "abort":
            opp = OpponentSpec(think_time_s=60)  # never makes its first move
        else:
            opp = OpponentSpec(policy="random", think_time_s=0.1, leave_after=2, seed=4)
        cid = emu.challenge_bot(challenger="idler", rated=False, clock_limit_s=300,
                                increment_s=0, color="black", opponent=opp)  # bot: white
        emu.wait_game_started(cid, 10)
        snap = emu.wait_game_over(cid, 30)
        assert snap.status == ("aborted" if what == "abort" else "timeout"), snap.status
        # The emulator records a request once it has answered it, just after the
        # game ended: wait for the 200's record.
        assert wait_until(lambda: 200 in [r.status for r in emu.traffic.requests(pattern)], 5)
        statuses = [r.status for r in emu.traffic.requests(pattern)]
        assert statuses[0] == 429 and statuses[-1] == 200, statuses
        assert statuses.count(503) == 6 and statuses.count(429) == 1, statuses
        assert wait_until(lambda: cid not in bot.service.supervisor.games, 5)


# ---------------------------------------------------------------- 4. rematch, draw

@needs_engine
def test_a_rematch_within_a_second_is_not_declined_later(tmp_path: Path) -> None:
    """The slot is free when the game ends, though its goodbye chat is still on its way."""
    with bot_and_emulator(tmp_path, challenge={"concurrency": 1}) as (emu, bot):
        emu.faults.inject("slow", CHAT, count=None, duration_s=3.0)
        opp = OpponentSpec(policy="random", think_time_s=0.1, resign_after=2, seed=3)
        cid = emu.challenge_bot(challenger="rema", rated=False, clock_limit_s=60,
                                increment_s=0, opponent=opp)
        emu.wait_game_started(cid, 10)
        emu.wait_game_over(cid, 30)
        assert bot.service is not None
        runners = bot.service.supervisor.runners
        assert wait_until(lambda: cid not in runners or runners[cid].over, 10)  # bot saw it
        time.sleep(0.5)  # the opponent sees the result and clicks "rematch"
        again = emu.challenge_bot(challenger="rema", rated=False, clock_limit_s=60,
                                  increment_s=0, opponent=OpponentSpec(think_time_s=30))
        assert emu.challenges.wait_answered(again, 3) == "accepted", \
            emu.challenges.decline_reason(again)


@needs_engine
def test_an_accepted_draw_goes_with_the_move(tmp_path: Path) -> None:
    """A separate draw/yes posted after our move comes too late: the move declined
    the offer (round MovePlayer). With ?offeringDraw=true it cannot."""
    # Accepts once 2 moves were evaluated; offers only every 2nd move (not the 3rd).
    rules = {"offer_draw_enabled": True, "offer_draw_score": 10000, "offer_draw_moves": 2,
             "offer_draw_pieces": 32}
    with bot_and_emulator(tmp_path, draw_or_resign=rules) as (emu, _):
        # (An answer posted apart lands after the move: the bot thinks ~1.5 s at 60+0.)
        emu.faults.inject("slow", "POST /api/bot/game/*/draw/*", count=None, duration_s=5.0)
        opp = OpponentSpec(policy="random", think_time_s=0.3, offer_draw_at=2, seed=8)
        cid = emu.challenge_bot(challenger="dina", rated=False, clock_limit_s=60,
                                increment_s=0, color="black", opponent=opp)  # bot: white
        emu.wait_game_started(cid, 10)
        assert wait_until(lambda: emu.game(cid).over, 20)
        snap = emu.game(cid)
        assert snap.status == "draw" and len(snap.moves) == 4, (snap.status, snap.moves)
        assert emu.traffic.count("POST /api/bot/game/*/draw/*") == 0
