"""Emulator options that make it behave like lichess.org in finer respects
(project issue 9): stalled requests, UltraBullet refusal, the opponent's daily
bot limit, spectator chat, network latency, rival event streams, keep-alive
gaps, challenge expiry, control-input validation and a UCI engine opponent.
Raw requests / berserk against Emulator(...) over loopback HTTP; no mocks."""

from __future__ import annotations

import queue
import socket
import subprocess
import sys
import time
from typing import Any

import berserk
import pytest
import requests

from bot.emulator import (
    AccountSpec,
    Emulator,
    EmulatorConfig,
    EmulatorUsageError,
    OpponentSpec,
    UserSpec,
)
from bot.emulator import __main__ as emulator_main
from bot.emulator.config import DEFAULT_TOKEN
from tests.test_emulator import auth, client, open_events, open_game

MOVE = "POST /api/bot/game/{id}/move/{move}"


def eventually(predicate: Any, timeout: float = 5.0) -> bool:
    """Poll a condition that no emulator state change announces (client-side facts)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return bool(predicate())


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
    emu.faults.inject("stall", "POST /api/bot/game/*/move/*", duration_s=None, apply=apply)
    t0 = time.monotonic()
    with pytest.raises(requests.exceptions.ReadTimeout):
        requests.post(f"{emu.url}/api/bot/game/{gid}/move/g1f3", headers=auth(), timeout=1.0)
    assert time.monotonic() - t0 >= 0.9  # no answer, not even an error
    moves = emu.game(gid).moves
    assert (moves[2:3] == ["g1f3"]) is apply
    recs = emu.traffic.requests(MOVE)
    assert len(recs) == 1 and recs[0].status == 0
    # A timed stall ends by closing the connection, still without an answer.
    emu.faults.inject("stall", "GET /api/account", duration_s=0.3)
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
    # A stall held open forever does not keep stop() waiting.
    emu.faults.inject("stall", "GET /api/account")
    held = socket.create_connection(("127.0.0.1", emu.port), timeout=5)
    held.sendall(b"GET /api/account HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                 + DEFAULT_TOKEN.encode() + b"\r\n\r\n")
    assert eventually(lambda: emu.traffic.count("GET /api/account") == 4)
    t0 = time.monotonic()
    emu.stop()
    assert time.monotonic() - t0 < 2.0
    assert held.recv(100) == b""  # closed without an answer
    held.close()


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
    assert emu.challenges.status(cid) == "created"
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
    emu.chat.spectator_say(gid, "hello bot", username="watcher")
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


# ---------------------------------------------------------------------- 5. latency


def test_round_trip_time_costs_the_bot_clock(emu_factory: Any) -> None:
    emu = emu_factory(rtt_ms=(200, 200), seed=3)
    gid = _running_game(emu)
    game = open_game(emu, gid)
    before = emu.game(gid).wtime_ms
    t0 = time.monotonic()
    r = requests.post(f"{emu.url}/api/bot/game/{gid}/move/g1f3", headers=auth(), timeout=5)
    elapsed = time.monotonic() - t0
    assert r.ok and elapsed >= 0.2  # a full round trip
    snap = emu.game(gid)
    assert snap.moves[2] == "g1f3"
    # No lag compensation: the 100 ms the request spent on the way count on the clock.
    assert before - snap.wtime_ms >= 99
    # Stream lines arrive one one-way latency (100 ms) after they are produced.
    t1 = time.monotonic()
    emu.chat.spectator_say(gid, "lag")
    game.next_of("chatLine", username="spectator1")
    assert time.monotonic() - t1 >= 0.1
    # Off by default: the same move costs next to nothing.
    plain = emu_factory()
    gid2 = _running_game(plain)
    before = plain.game(gid2).wtime_ms
    requests.post(f"{plain.url}/api/bot/game/{gid2}/move/g1f3", headers=auth(), timeout=5)
    assert before - plain.game(gid2).wtime_ms < 99
    with pytest.raises(EmulatorUsageError, match="rtt_ms"):
        EmulatorConfig(rtt_ms=(300, 100))


# ---------------------------------------------------------------------- 6. rival stream


def test_rival_event_stream_takes_the_stream_over(emu_factory: Any) -> None:
    emu = emu_factory()
    mine = open_events(emu)
    with emu.rival_event_stream(reconnect_s=0.3) as rival:
        # lila: the new stream kills the old one, whose response ends cleanly.
        assert mine.ended.wait(5) and mine.error is None
        assert eventually(lambda: rival.opens == 1)
        # We take it back; the rival loses it, and 0.3 s later takes it again.
        again = open_events(emu)
        assert eventually(lambda: rival.opens >= 2)
        assert again.ended.wait(5) and again.error is None
        # Only one stream per account stays live.
        assert eventually(lambda: emu.traffic.open_streams()["event"] == 1)
    assert eventually(lambda: emu.traffic.open_streams()["event"] == 0)
    opens = rival.opens
    time.sleep(0.5)
    assert rival.opens == opens  # stopped: no more reconnects


SECOND = "lip_second_program_token"


def test_event_streams_are_closed_per_token(emu_factory: Any) -> None:
    """lila EventStream.scala: a stream is killed on `eventStreamForBearer:<token>`,
    so only the same token's next stream ends it; a second token of the account
    keeps its own stream, and both hear every event (subscribed by user id)."""
    emu = emu_factory(accounts=[AccountSpec(other_tokens=(SECOND,))])
    mine = open_events(emu)
    other = open_events(emu, client(emu, SECOND))
    cid = emu.challenge_bot(challenger="alice", clock_limit_s=60, increment_s=0)
    for reader in (mine, other):
        ev = reader.get()
        assert ev["type"] == "challenge" and ev["challenge"]["id"] == cid, ev
    assert not mine.ended.is_set() and not other.ended.is_set()
    assert emu.traffic.open_streams()["event"] == 2
    with emu.rival_event_stream(reconnect_s=0.3, token=SECOND) as rival:
        # The rival on the second token ends the other stream of that token only.
        assert other.ended.wait(5) and other.error is None
        assert eventually(lambda: rival.opens == 1)
        assert not mine.ended.is_set()
        # Our own token's next stream ends ours, not the rival's.
        again = open_events(emu)
        assert mine.ended.wait(5) and mine.error is None
        time.sleep(0.5)
        assert rival.opens == 1 and not again.ended.is_set()
        assert again.get()["type"] == "challenge"  # the replay on opening
        assert emu.traffic.open_streams()["event"] == 2
    with pytest.raises(EmulatorUsageError, match="other_tokens"):
        emu.rival_event_stream(token="lip_nobody")
    with pytest.raises(EmulatorUsageError, match="share a token"):
        EmulatorConfig(accounts=[AccountSpec(other_tokens=(DEFAULT_TOKEN,))])


# ---------------------------------------------------------------------- 7. keep-alive gaps


def test_keepalive_defaults_are_lilas() -> None:
    # lila: 7 s on the event stream (modules/api/src/main/EventStream.scala since
    # 20cd2f84; api spec 5e55ca1) and on game streams (GameStateStream.scala).
    config = EmulatorConfig()
    assert (config.event_keepalive_s, config.game_keepalive_s) == (7.0, 7.0)
    args = emulator_main.parse_args([])
    assert (args.event_keepalive, args.game_keepalive) == (7.0, 7.0)


def test_first_move_times_are_lilas(emu_factory: Any) -> None:
    # lila RoundGame.timeForFirstMove / expirable (modules/round/src/main/RoundGame.scala):
    # lobby games by speed (x5/4 in Chess960), none for a challenge's game.
    emu = emu_factory()
    assert EmulatorConfig().first_move_timeout_s is None
    assert emulator_main.parse_args([]).first_move_timeout is None
    expected = {(60, 0, "standard"): 20.0, (180, 2, "standard"): 25.0,
                (600, 5, "standard"): 30.0, (1800, 0, "standard"): 35.0,
                (180, 0, "chess960"): 31.25}
    for (base, inc, variant), wait in expected.items():
        before = time.monotonic()
        gid = emu.start_game_directly(bot_color="white", clock_limit_s=base, increment_s=inc,
                                      variant=variant, source="lobby")
        deadline = emu._core.games[gid].first_move_deadline  # noqa: SLF001 - no API for it
        assert deadline is not None and abs(deadline - before - wait) < 1.0, (base, inc)
    friend = emu.start_game_directly(bot_color="white", clock_limit_s=60, increment_s=0)
    assert emu._core.games[friend].first_move_deadline is None  # noqa: SLF001


def test_keepalive_gaps_follow_the_config(emu_factory: Any) -> None:
    emu = emu_factory(event_keepalive_s=0.2, game_keepalive_s=0.6)
    gid = emu.start_game_directly(bot_color="white", clock_limit_s=600)
    gaps: dict[str, list[float]] = {}
    for name, path in (("event", "/api/stream/event"), ("game", f"/api/bot/game/stream/{gid}")):
        with requests.get(emu.url + path, headers=auth(), stream=True, timeout=5) as r:
            lines = r.iter_lines()
            next(lines)  # gameStart / gameFull
            stamps = []
            for _ in range(3):
                assert next(lines) == b""
                stamps.append(time.monotonic())
            gaps[name] = [b - a for a, b in zip(stamps, stamps[1:], strict=False)]
    assert all(0.1 < g < 0.45 for g in gaps["event"]), gaps
    assert all(0.45 < g < 1.2 for g in gaps["game"]), gaps


# ---------------------------------------------------------------------- 8. challenge expiry


def test_unseen_challenge_goes_offline_like_lila(emu_factory: Any) -> None:
    assert EmulatorConfig().challenge_expiry_s == 20.0  # lila: realTimeUnseenSince(now - 20 s)
    emu = emu_factory(challenge_expiry_s=0.4, challenge_expiry_mode="offline")
    events = open_events(emu)
    cid = emu.challenge_bot(clock_limit_s=60, increment_s=0, color="white")
    assert events.next_of("challenge")["challenge"]["id"] == cid
    assert emu.wait_until(lambda: emu.challenges.status(cid) == "offline", 3)
    with pytest.raises(queue.Empty):  # no event: lila only flips the status
        events.next_of("challengeCanceled", timeout=0.6)
    c = client(emu)
    assert c.challenges.get_mine()["in"] == []  # no longer listed
    c.bots.accept_challenge(cid)  # ... but still acceptable
    assert events.next_of("gameStart")["game"]["gameId"] == cid
    # The challenger is gone: after the bot's first move it never answers.
    assert emu.game(cid).bot_color == "black"  # the challenger chose white
    time.sleep(0.3)
    assert emu.game(cid).moves == []
    # The default model: dropped with challengeCanceled, a late accept gets 404.
    old = emu_factory(challenge_expiry_s=0.4)
    old_events = open_events(old)
    cid2 = old.challenge_bot()
    assert old_events.next_of("challengeCanceled", timeout=3)["challenge"]["id"] == cid2
    r = requests.post(f"{old.url}/api/challenge/{cid2}/accept", headers=auth(), timeout=5)
    assert r.status_code == 404
    with pytest.raises(EmulatorUsageError, match="challenge_expiry_mode"):
        EmulatorConfig(challenge_expiry_mode="vanish")  # type: ignore[arg-type]


# ---------------------------------------------------------------------- 9. bad control input


@pytest.mark.parametrize(
    ("path", "body", "needle"),
    [
        ("/emu/challenge", {"clock_limit_s": "abc"}, "clock_limit_s"),
        ("/emu/challenge", {"rated": "yes"}, "rated"),
        ("/emu/challenge", {"opponent": {"policy": "telepathy"}}, "policy"),
        ("/emu/challenge", {"opponent": {"think_time_s": "slow"}}, "think_time_s"),
        ("/emu/challenge", {"opponent": "greedy"}, "opponent"),
        ("/emu/game", {"moves": "e2e4"}, "moves"),
        ("/emu/game", {"clock_limit_s": 1.5, "wtime_ms": "1000"}, "clock_limit_s"),
        ("/emu/fault", {"kind": "slow", "duration_s": "x"}, "duration_s"),
        ("/emu/fault", {"kind": "http_error", "count": "two"}, "count"),
        ("/emu/fault", {"kind": "stall", "apply": "no"}, "apply"),
        ("/emu/fault", {"kind": "slow", "duration_s": 1, "after": "yes"}, "after"),
        ("/emu/game/nope/opponent/resign", {}, "nope"),
        ("/emu/game/nope/spectator", {"text": "hi"}, "nope"),
    ],
)
def test_bad_control_input_is_400_not_500(emu_factory: Any, path: str, body: Any,
                                           needle: str) -> None:
    emu = emu_factory()
    r = requests.post(emu.url + path, json=body, timeout=5)
    assert r.status_code == 400, r.text
    assert needle in r.json()["error"]


def test_non_json_control_bodies_are_400(emu_factory: Any) -> None:
    emu = emu_factory()
    for data in (b"clock_limit_s=abc", b"{not json", b"[1, 2]", b"\xff\xfe"):
        r = requests.post(emu.url + "/emu/challenge", data=data, timeout=5)
        assert r.status_code == 400 and "JSON object" in r.json()["error"], data
    gid = emu.start_game_directly()
    r = requests.post(f"{emu.url}/emu/game/{gid}/opponent/chat", json={"text": 5}, timeout=5)
    assert r.status_code == 400 and "text" in r.json()["error"]
    with pytest.raises(EmulatorUsageError, match="policy"):
        OpponentSpec(policy="telepathy")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "argv",
    [["--port", "99999"], ["--port", "abc"], ["--event-keepalive", "-1"], ["--bogus"],
     ["--bot-daily-limit", "-3"], ["--token-file", "/nonexistent/token"]],
)
def test_bad_cli_arguments_are_one_line_and_exit_2(argv: list[str]) -> None:
    proc = subprocess.run([sys.executable, "-m", "bot.emulator", *argv], capture_output=True,
                          text=True, timeout=30)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert "error" in lines[0].lower() or "cannot" in lines[0]
    assert proc.stdout == ""


def test_bad_python_control_arguments_name_the_field(emu_factory: Any) -> None:
    emu = emu_factory()
    with pytest.raises(EmulatorUsageError, match="clock_limit_s"):
        emu.challenge_bot(clock_limit_s="abc")  # type: ignore[arg-type]
    with pytest.raises(EmulatorUsageError, match="moves"):
        emu.start_game_directly(moves="e2e4")  # type: ignore[arg-type]


# ---------------------------------------------------------------------- 10. UCI opponent


def test_uci_engine_opponent(emu_factory: Any) -> None:
    emu = emu_factory()
    strong = OpponentSpec(policy="uci", engine="stockfish", movetime_ms=100, think_time_s=0.0)
    # Fool's mate set up: after the bot's g2g4 the engine must find d8h4 mate
    # (a random mover would pick it 1 time in 30).
    gid = emu.start_game_directly(bot_color="white", moves=["f2f3", "e7e5"], clock_limit_s=60,
                                  opponent=strong)
    assert emu.traffic.engines_running() == 0  # started lazily, on its first move
    r = requests.post(f"{emu.url}/api/bot/game/{gid}/move/g2g4", headers=auth(), timeout=5)
    assert r.ok
    snap = emu.wait_game_over(gid, timeout=20)
    assert snap.moves[-1] == "d8h4" and snap.status == "mate" and snap.winner == "black"
    assert snap.btime_ms <= 60000 - 90  # its thinking was charged to its clock
    assert eventually(lambda: emu.traffic.engines_running() == 0)  # closed when the game ended
    # A game cut short by the emulator stopping: the engine goes with it.
    weak = OpponentSpec(policy="uci", skill_level=5, movetime_ms=50, think_time_s=0.0)
    gid2 = emu.start_game_directly(bot_color="black", clock_limit_s=60, opponent=weak)
    assert eventually(lambda: len(emu.game(gid2).moves) == 1)
    assert emu.traffic.engines_running() == 1
    emu.stop()
    assert emu.traffic.engines_running() == 0
    with pytest.raises(EmulatorUsageError, match="no-such-engine"):
        OpponentSpec(policy="uci", engine="no-such-engine")
    with pytest.raises(EmulatorUsageError, match="skill_level"):
        OpponentSpec(policy="uci", skill_level=42)
