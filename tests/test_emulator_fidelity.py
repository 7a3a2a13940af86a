"""Emulator options that make it behave like lichess.org in finer respects
(project issue 9): stalled requests, UltraBullet refusal, the opponent's daily
bot limit, spectator chat, network latency, rival event streams, keep-alive
gaps, challenge expiry, control-input validation and a UCI engine opponent.
Raw requests / berserk against Emulator(...) over loopback HTTP; no mocks."""

from __future__ import annotations

import queue
import time
from collections.abc import Iterator
from typing import Any

import berserk
import pytest
import requests

from bot.emulator import (
    Emulator,
    EmulatorConfig,
    EmulatorUsageError,
    OpponentSpec,
    UserSpec,
)
from tests.test_emulator import FAST, auth, client, open_game

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


# ---------------------------------------------------------------------- 3. daily limit


def test_opponent_at_its_daily_bot_limit(emu_factory: Any) -> None:
    users = [UserSpec("tiredbot", at_daily_limit=True), UserSpec("freshbot"),
             UserSpec("human", title=None, at_daily_limit=True)]
    emu = emu_factory(users=users)
    r = requests.post(emu.url + "/api/challenge/tiredbot", headers=auth(),
                      data={"clock.limit": "60", "clock.increment": "0"}, timeout=5)
    assert r.status_code == 400
    body = r.json()
    assert set(body) == {"error", "ratelimit"}
    assert body["error"].startswith("tiredbot played 100 games against other bots today, "
                                    "please wait until ")
    assert body["error"].endswith(" to challenge them.")
    assert body["ratelimit"]["key"] == "bot.vsBot.day"
    assert 0 < body["ratelimit"]["seconds"] <= 86401
    assert client(emu).challenges.get_mine()["out"] == []
    # berserk raises it as a ResponseError carrying the same body.
    with pytest.raises(berserk.exceptions.ResponseError) as err:
        client(emu).challenges.create("tiredbot", rated=False, clock_limit=60,
                                      clock_increment=0)
    assert err.value.status_code == 400 and "bot.vsBot.day" in str(err.value)
    # Other BOTs, and humans (not part of the bot-vs-bot limit), are unaffected.
    for name in ("freshbot", "human"):
        r = requests.post(f"{emu.url}/api/challenge/{name}", headers=auth(),
                          data={"clock.limit": "60", "clock.increment": "0"}, timeout=5)
        assert r.status_code == 200, name
    # Our own limit is a 429 with lila's own text.
    own = emu_factory(bot_vs_bot_daily_limit=0)
    r = requests.post(own.url + "/api/challenge/sparbot-weak", headers=auth(),
                      data={"clock.limit": "60"}, timeout=5)
    assert r.status_code == 429
    assert r.json()["error"] == ("You played 0 games against other bots today, "
                                 "please wait before challenging another bot.")


# ---------------------------------------------------------------------- 4. spectator chat


def test_spectator_chat_reaches_the_bot_game_stream(emu_factory: Any) -> None:
    emu = emu_factory(spectator_chat=["!help", "!eval", "!name"], spectator_chat_interval_s=0.2)
    gid = emu.start_game_directly(bot_color="white", clock_limit_s=600)
    game = open_game(emu, gid)
    emu.spectator_say(gid, "hello bot", username="watcher")
    assert game.next_of("chatLine", room="spectator", username="watcher") == {
        "type": "chatLine", "room": "spectator", "username": "watcher", "text": "hello bot"}
    r = requests.post(f"{emu.url}/emu/game/{gid}/spectator",
                      json={"text": "over http", "username": "w2"}, timeout=5)
    assert r.status_code == 200
    assert game.next_of("chatLine", username="w2")["text"] == "over http"
    # The configured spectators type their lines in turn, unprompted.
    # (next_of skips non-matching lines, so the first few may have gone by already.)
    cycle = ["!help", "!eval", "!name"]
    seen = [game.next_of("chatLine", timeout=5, room="spectator")["text"] for _ in range(4)]
    first = cycle.index(seen[0])
    assert seen == [cycle[(first + i) % 3] for i in range(4)]
    # Spectator lines are not player chat (GET .../chat lists the player room only).
    r = requests.get(f"{emu.url}/api/bot/game/{gid}/chat", headers=auth(), timeout=5)
    assert r.json() == []
    r = requests.post(f"{emu.url}/emu/game/{gid}/spectator", json={"txt": "typo"}, timeout=5)
    assert r.status_code == 400 and "txt" in r.json()["error"]
    # Off by default: no spectators in a plain emulator.
    plain = emu_factory()
    gid2 = plain.start_game_directly(bot_color="white", clock_limit_s=600)
    plain_game = open_game(plain, gid2)
    with pytest.raises(queue.Empty):
        plain_game.next_of("chatLine", timeout=0.8)
