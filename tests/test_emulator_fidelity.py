"""Emulator options that make it behave like lichess.org in finer respects
(project issue 9): stalled requests, UltraBullet refusal, the opponent's daily
bot limit, spectator chat, network latency, rival event streams, keep-alive
gaps, challenge expiry, control-input validation and a UCI engine opponent.
Raw requests / berserk against Emulator(...) over loopback HTTP; no mocks."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from bot.emulator import (
    Emulator,
    EmulatorConfig,
    EmulatorUsageError,
    OpponentSpec,
)
from tests.test_emulator import FAST, auth

MOVE = "POST /api/bot/game/{id}/move/{move}"


@pytest.fixture
def emu_factory() -> Iterator[Any]:
    started: list[Emulator] = []

    def make(**overrides: Any) -> Emulator:
        emu = Emulator(EmulatorConfig(**{**FAST, **overrides})).start()
        started.append(emu)
        return emu

    yield make
    for emu in started:
        emu.stop()


def _running_game(emu: Emulator) -> str:
    """A game with both first moves made (the clock runs) and the bot (white) to move."""
    return emu.start_game_directly(
        bot_color="white",
        moves=["e2e4", "e7e5"],
        clock_limit_s=60,
        opponent=OpponentSpec(think_time_s=0.05),
    )


# ---------------------------------------------------------------------- 1. stall


@pytest.mark.parametrize("apply", [True, False])
def test_stall_holds_the_move_post_without_an_answer(emu_factory: Any, apply: bool) -> None:
    emu = emu_factory()
    gid = _running_game(emu)
    emu.inject("stall", "POST /api/bot/game/*/move/*", duration_s=None, apply=apply)
    t0 = time.monotonic()
    with pytest.raises(requests.exceptions.ReadTimeout):
        requests.post(f"{emu.url}/api/bot/game/{gid}/move/g1f3", headers=auth(), timeout=1.0)
    assert time.monotonic() - t0 >= 0.9  # no answer, not even an error
    moves = emu.game(gid).moves
    assert (moves[2:3] == ["g1f3"]) is apply
    recs = emu.requests(MOVE)
    assert len(recs) == 1 and recs[0].status == 0
    # A timed stall ends by closing the connection, still without an answer.
    emu.inject("stall", "GET /api/account", duration_s=0.3)
    with pytest.raises(requests.exceptions.ConnectionError):
        requests.get(emu.url + "/api/account", headers=auth(), timeout=5)
    # The same fault over the HTTP control API.
    r = requests.post(
        emu.url + "/emu/fault",
        json={"kind": "stall", "target": "GET /api/account", "duration_s": 0.2, "apply": False},
        timeout=5,
    )
    assert r.status_code == 200 and r.json()["apply"] is False
    with pytest.raises(requests.exceptions.ConnectionError):
        requests.get(emu.url + "/api/account", headers=auth(), timeout=5)
    assert requests.get(emu.url + "/api/account", headers=auth(), timeout=5).ok


# ---------------------------------------------------------------------- 2. UltraBullet


def test_bots_cannot_play_ultrabullet(emu_factory: Any) -> None:
    lila_text = "Bots cannot play UltraBullet. Choose a slower time control."
    emu = emu_factory(refuse_bot_ultrabullet=True)
    with pytest.raises(EmulatorUsageError, match="Bots cannot play UltraBullet"):
        emu.challenge_bot(clock_limit_s=15, increment_s=0)
    r = requests.post(emu.url + "/emu/challenge", json={"clock_limit_s": 29, "increment_s": 0},
                      timeout=5)
    assert r.status_code == 400 and lila_text in r.json()["error"]
    # 20+1 is bullet (estimate 20 + 40 * 1 = 60 s): allowed.
    emu.challenge_bot(clock_limit_s=20, increment_s=1)
    # force=True delivers it (to test the bot's decline); accepting it as a BOT gets 400.
    cid = emu.challenge_bot(clock_limit_s=15, increment_s=0, force=True)
    r = requests.post(f"{emu.url}/api/challenge/{cid}/accept", headers=auth(), timeout=5)
    assert r.status_code == 400 and r.json() == {"error": "Game incompatible with a BOT account"}
    assert emu.challenge_status(cid) == "created"
    # The bot challenging a BOT at UltraBullet gets lila's 400.
    r = requests.post(emu.url + "/api/challenge/sparbot-weak", headers=auth(),
                      data={"clock.limit": "15", "clock.increment": "0"}, timeout=5)
    assert r.status_code == 400 and r.json() == {"error": lila_text}
    r = requests.post(emu.url + "/api/challenge/sparbot-weak", headers=auth(),
                      data={"clock.limit": "60", "clock.increment": "0"}, timeout=5)
    assert r.status_code == 200
    # Off by default: older tests play 20+0 against the bot.
    plain = emu_factory()
    assert plain.challenge_bot(clock_limit_s=20, increment_s=0)
