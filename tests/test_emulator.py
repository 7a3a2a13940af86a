"""The Lichess emulator, driven over real loopback HTTP by real berserk 0.14 and
raw requests (no mocks). Every blocking read has a timeout so nothing hangs."""

from __future__ import annotations

import io
import queue
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import berserk
import chess.pgn
import pytest
import requests

from bot.emulator import (
    AccountSpec,
    Emulator,
    EmulatorConfig,
    EmulatorUsageError,
    OpponentSpec,
    RateLimit,
    UserSpec,
)
from bot.emulator.config import DEFAULT_TOKEN

pytestmark = pytest.mark.arm64  # scripts/arm64-check.sh runs these on arm64

FAST = dict(event_keepalive_s=0.3, game_keepalive_s=0.3)
_END = object()


class Reader:
    """Reads an ndjson iterator in a daemon thread; get() with a timeout."""

    def __init__(self, iterator: Iterator[Any]) -> None:
        self.q: queue.Queue[Any] = queue.Queue()
        self.error: BaseException | None = None
        self.ended = threading.Event()
        threading.Thread(target=self._run, args=(iterator,), daemon=True).start()

    def _run(self, iterator: Iterator[Any]) -> None:
        try:
            for item in iterator:
                self.q.put(item)
        except Exception as exc:  # the test inspects how the stream ended
            self.error = exc
        finally:
            self.ended.set()
            self.q.put(_END)

    def get(self, timeout: float = 5.0) -> Any:
        item = self.q.get(timeout=timeout)
        if item is _END:
            self.q.put(_END)
            raise EOFError(f"stream ended ({self.error!r})")
        return item

    def next_of(self, kind: str, timeout: float = 5.0, **match: Any) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            item = self.get(max(0.01, deadline - time.monotonic()))
            if item.get("type") == kind and all(item.get(k) == v for k, v in match.items()):
                return item


@pytest.fixture
def emu(emu_factory: Any) -> Emulator:
    return emu_factory()


def client(emu: Emulator, token: str = DEFAULT_TOKEN) -> berserk.Client:
    return berserk.Client(berserk.TokenSession(token), base_url=emu.url)


def auth(token: str = DEFAULT_TOKEN) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def post(emu: Emulator, path: str, token: str = DEFAULT_TOKEN, **kw: Any) -> requests.Response:
    return requests.post(emu.url + path, headers=auth(token), timeout=5, **kw)


def open_events(emu: Emulator, c: berserk.Client | None = None) -> Reader:
    before = emu.traffic.count("GET /api/stream/event")
    reader = Reader((c or client(emu)).bots.stream_incoming_events())
    assert emu.wait_until(lambda: emu.traffic.count("GET /api/stream/event") > before, 5)
    return reader


def open_game(emu: Emulator, game_id: str) -> Reader:
    reader = Reader(client(emu).bots.stream_game_state(game_id))
    full = reader.get()
    assert full["type"] == "gameFull"
    return reader


# ---------------------------------------------------------------------- account / auth


def test_account_token_test_and_bad_token(emu: Emulator) -> None:
    c = client(emu)
    acc = c.account.get()
    assert acc["username"] == "pibot" and acc["title"] == "BOT"
    tokens = c.oauth.test_tokens(DEFAULT_TOKEN, "lip_nope")
    assert tokens[DEFAULT_TOKEN]["userId"] == "pibot"
    assert "bot:play" in tokens[DEFAULT_TOKEN]["scopes"].split(",")
    assert tokens["lip_nope"] is None
    r = requests.get(emu.url + "/api/account", headers=auth("lip_wrong"), timeout=5)
    assert r.status_code == 401 and r.json() == {"error": "No such token"}
    with pytest.raises(berserk.exceptions.ResponseError) as err:
        client(emu, "lip_wrong").account.get()
    assert err.value.status_code == 401


def test_upgrade_and_scopes(emu_factory: Any) -> None:
    human = AccountSpec(token="lip_human", username="Human", title=None)
    noscope = AccountSpec(token="lip_read", username="Reader", scopes=("challenge:read",))
    emu = emu_factory(accounts=[AccountSpec(), human, noscope])
    r = post(emu, "/api/bot/game/xxxx/move/e2e4", token="lip_human")
    assert r.status_code == 400 and "Bot account" in r.json()["error"]
    client(emu, "lip_human").account.upgrade_to_bot()
    assert client(emu, "lip_human").account.get()["title"] == "BOT"
    again = post(emu, "/api/bot/account/upgrade", token="lip_human")
    assert again.status_code == 400
    r = post(emu, "/api/bot/game/xxxx/move/e2e4", token="lip_read")
    assert r.status_code == 403 and "bot:play" in r.json()["error"]


def test_users_online_bots_and_playing(emu: Emulator) -> None:
    c = client(emu)
    bots = list(c.bots.get_online_bots())
    assert {b["username"] for b in bots} == {"sparbot-weak", "sparbot-mid", "sparbot-strong"}
    assert all(b["title"] == "BOT" and "blitz" in b["perfs"] for b in bots)
    assert c.users.get_public_data("sparbot-mid")["perfs"]["blitz"]["rating"] == 1800
    r = requests.get(emu.url + "/api/user/nobody", timeout=5)
    assert r.status_code == 404
    gid = emu.start_game_directly(bot_color="black", moves=["e2e4"])
    playing = c.games.get_ongoing()
    assert [g["gameId"] for g in playing] == [gid]
    assert playing[0]["isMyTurn"] is True and playing[0]["color"] == "black"


# ---------------------------------------------------------------------- event stream


def test_event_stream_replays_games_and_challenges(emu: Emulator) -> None:
    gid = emu.start_game_directly(bot_color="white", moves=["e2e4", "e7e5"])
    cid = emu.challenge_bot(challenger="bob", challenger_title="BOT", challenger_rating=2000)
    events = open_events(emu)
    start = events.next_of("gameStart")
    assert start["game"]["gameId"] == gid and start["game"]["isMyTurn"] is True
    assert start["game"]["lastMove"] == "e7e5" and start["game"]["hasMoved"] is True
    ch = events.next_of("challenge")["challenge"]
    assert ch["id"] == cid and ch["status"] == "created"
    assert ch["challenger"] == {
        "id": "bob",
        "name": "bob",
        "title": "BOT",
        "rating": 2000,
        "provisional": False,
        "online": True,
    }
    assert ch["destUser"]["id"] == "pibot"
    assert ch["variant"] == {"key": "standard", "name": "Standard", "short": "Std"}
    assert ch["timeControl"] == {"type": "clock", "limit": 60, "increment": 1, "show": "1+1"}
    assert ch["speed"] == "bullet" and ch["perf"]["name"] == "Bullet" and ch["rated"] is True
    assert ch["finalColor"] in ("white", "black") and ch["color"] == "random"


def test_keepalive_lines_arrive(emu: Emulator) -> None:
    with requests.get(emu.url + "/api/stream/event", headers=auth(), stream=True, timeout=5) as r:
        assert r.status_code == 200
        assert r.headers["Content-Type"] == "application/x-ndjson"
        lines = r.iter_lines(chunk_size=1)
        t0 = time.monotonic()
        got = [next(lines) for _ in range(3)]
        elapsed = time.monotonic() - t0
    assert got == [b"", b"", b""]
    assert 0.5 < elapsed < 3.0  # three 0.3 s keep-alive gaps


def test_new_event_stream_closes_previous(emu: Emulator) -> None:
    first = open_events(emu)
    open_events(emu)
    assert first.ended.wait(3), "the first event stream should have been closed"
    assert first.error is None  # closed cleanly, not cut


def test_challenge_expiry_and_decline(emu_factory: Any) -> None:
    emu = emu_factory(challenge_expiry_s=0.5)
    events = open_events(emu)
    cid = emu.challenge_bot()
    events.next_of("challenge")
    gone = events.next_of("challengeCanceled", timeout=3)
    assert gone["challenge"]["id"] == cid
    r = post(emu, f"/api/challenge/{cid}/accept")
    assert r.status_code == 404
    cid2 = emu.challenge_bot(variant="chess960")
    threading.Timer(0.2, client(emu).bots.decline_challenge, (cid2, "variant")).start()
    assert emu.challenges.wait_answered(cid2, 3) == "declined"
    assert emu.challenges.status(cid2) == "declined" \
        and emu.challenges.decline_reason(cid2) == "variant"
    cid3 = emu.challenge_bot()
    r = post(emu, f"/api/challenge/{cid3}/decline", data={"reason": "tooFast"})
    assert r.status_code == 200 and emu.challenges.decline_reason(cid3) == "tooFast"
    r = post(emu, f"/api/challenge/{emu.challenge_bot()}/decline", json={"reason": "bogus"})
    assert r.status_code == 400


# ---------------------------------------------------------------------- games


def test_scripted_game_to_mate(emu: Emulator) -> None:
    c = client(emu)
    events = open_events(emu, c)
    fools = OpponentSpec(policy="scripted", moves=["e7e5", "d8h4"], think_time_s=0.01)
    cid = emu.challenge_bot(color="black", clock_limit_s=30, increment_s=2, opponent=fools)
    events.next_of("challenge")
    c.bots.accept_challenge(cid)
    start = events.next_of("gameStart")["game"]
    assert start["gameId"] == cid and start["color"] == "white"
    game = Reader(c.bots.stream_game_state(cid))
    full = game.get()
    assert full["type"] == "gameFull" and full["initialFen"] == "startpos"
    assert full["clock"] == {"initial": 30000, "increment": 2000}
    assert full["white"]["title"] == "BOT" and full["black"]["name"] == "alice"
    assert full["state"]["status"] == "started" and full["state"]["moves"] == ""
    c.bots.make_move(cid, "f2f3")
    game.next_of("gameState", moves="f2f3")
    game.next_of("gameState", moves="f2f3 e7e5")
    c.bots.make_move(cid, "g2g4")
    final = game.next_of("gameState", moves="f2f3 e7e5 g2g4 d8h4")
    assert final["status"] == "mate" and final["winner"] == "black"
    assert isinstance(full["state"]["wtime"], int)
    with pytest.raises(EOFError):
        game.get(timeout=3)  # Lichess closes the game stream when the game ends
    finish = events.next_of("gameFinish")["game"]
    assert finish["status"] == {"id": 30, "name": "mate"} and finish["winner"] == "black"
    snap = emu.wait_game_over(cid, 1)
    assert snap.status == "mate" and snap.moves == ["f2f3", "e7e5", "g2g4", "d8h4"]
    pgn = c.games.export(cid, as_pgn=True)
    parsed = chess.pgn.read_game(io.StringIO(pgn))
    assert parsed is not None and parsed.headers["Result"] == "0-1"
    assert parsed.headers["White"] == "pibot" and parsed.headers["TimeControl"] == "30+2"
    assert parsed.headers["Event"] == "Rated Bullet game"
    assert c.games.export(cid)["status"] == "mate"


def test_illegal_move_wrong_turn_and_castling(emu: Emulator) -> None:
    gid = emu.start_game_directly(
        bot_color="white",
        moves=["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"],
        opponent=OpponentSpec(think_time_s=5),
    )
    r = post(emu, f"/api/bot/game/{gid}/move/e2e5")
    assert r.status_code == 400 and "e2e5" in r.json()["error"]
    r = post(emu, f"/api/bot/game/{gid}/move/zzzz")
    assert r.status_code == 400
    r = post(emu, "/api/bot/game/nosuchid/move/e1g1")
    assert r.status_code == 404
    r = post(emu, f"/api/bot/game/{gid}/move/e1h1")  # king-takes-rook accepted in standard
    assert r.status_code == 200 and r.json() == {"ok": True}
    assert emu.game(gid).moves[-1] == "e1g1"  # ...but reported the Lichess way
    r = post(emu, f"/api/bot/game/{gid}/move/d2d4")
    assert r.status_code == 400 and "Not your turn" in r.json()["error"]


def test_chess960_uses_king_takes_rook(emu: Emulator) -> None:
    # Chess960 position 518 is the standard setup; castling is e1h1 there.
    fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    gid = emu.start_game_directly(
        variant="chess960",
        initial_fen=fen,
        moves=["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"],
        opponent=OpponentSpec(think_time_s=5),
    )
    assert post(emu, f"/api/bot/game/{gid}/move/e1g1").status_code == 400
    assert post(emu, f"/api/bot/game/{gid}/move/e1h1").status_code == 200
    assert emu.game(gid).moves[-1] == "e1h1"
    full = next(iter(client(emu).bots.stream_game_state(gid)))
    assert full["variant"]["key"] == "chess960" and full["initialFen"] == fen


def test_from_position_challenge(emu: Emulator) -> None:
    fen = "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1"
    cid = emu.challenge_bot(initial_fen=fen, rated=False, color="white")
    events = open_events(emu)
    ch = events.next_of("challenge")["challenge"]
    assert ch["variant"]["key"] == "fromPosition" and ch["initialFen"] == fen
    client(emu).bots.accept_challenge(cid)
    full = next(iter(client(emu).bots.stream_game_state(cid)))
    assert full["initialFen"] == fen and full["variant"]["key"] == "fromPosition"


def test_correspondence_and_unlimited(emu: Emulator) -> None:
    events = open_events(emu)
    cid = emu.challenge_bot(clock_limit_s=None, days=3, color="black")
    ch = events.next_of("challenge")["challenge"]
    assert ch["timeControl"] == {"type": "correspondence", "daysPerTurn": 3}
    assert ch["speed"] == "correspondence"
    client(emu).bots.accept_challenge(cid)
    start = events.next_of("gameStart")["game"]
    assert "secondsLeft" not in start
    full = next(iter(client(emu).bots.stream_game_state(cid)))
    assert "clock" not in full and full["daysPerTurn"] == 3
    cid2 = emu.challenge_bot(clock_limit_s=None)
    assert events.next_of("challenge")["challenge"]["timeControl"] == {"type": "unlimited"}
    client(emu).bots.accept_challenge(cid2)
    assert emu.game(cid2).wtime_ms == 2147483647


def test_clock_runs_out(emu: Emulator) -> None:
    events = open_events(emu)
    gid = emu.start_game_directly(bot_color="white", moves=["e2e4", "e7e5"], wtime_ms=400)
    t0 = time.monotonic()
    snap = emu.wait_game_over(gid, 3)
    assert snap.status == "outoftime" and snap.winner == "black"
    assert 0.3 < time.monotonic() - t0 < 2.0
    assert snap.wtime_ms == 0
    assert events.next_of("gameFinish")["game"]["status"]["name"] == "outoftime"
    r = post(emu, f"/api/bot/game/{gid}/move/d2d4")
    assert r.status_code == 400
    # The opponent flags too.
    slow = OpponentSpec(think_time_s=10)
    gid2 = emu.start_game_directly(
        bot_color="white", moves=["e2e4", "e7e5"], btime_ms=300, increment_s=1, opponent=slow
    )
    post(emu, f"/api/bot/game/{gid2}/move/d2d4")
    snap2 = emu.wait_game_over(gid2, 3)
    assert snap2.status == "outoftime" and snap2.winner == "white"
    assert snap2.wtime_ms > 60000  # increment applied


def test_first_move_timeout_and_abort(emu_factory: Any) -> None:
    emu = emu_factory(first_move_timeout_s=0.4)
    # lila RoundGame.expirable: a lobby game without a first move is aborted by the
    # server (Finisher.noStart outside tournaments: nobody wins) ...
    gid = emu.start_game_directly(bot_color="white", source="lobby")
    # ... a challenge's game (source friend) never: only a player can abort it.
    friend = emu.start_game_directly(bot_color="white")
    snap = emu.wait_game_over(gid, 3)
    assert snap.status == "aborted" and snap.winner is None
    # The timer restarts with each move: after White's first, Black has its own 0.4 s.
    moved = emu.start_game_directly(bot_color="white", source="lobby",
                                    opponent=OpponentSpec(stall_after=0))
    time.sleep(0.25)
    assert post(emu, f"/api/bot/game/{moved}/move/e2e4").status_code == 200
    time.sleep(0.25)
    assert not emu.game(moved).over
    assert emu.wait_game_over(moved, 3).status == "aborted"
    time.sleep(0.5)
    assert not emu.game(friend).over and emu.game(friend).status == "started"
    assert post(emu, f"/api/bot/game/{friend}/abort").status_code == 200
    gid2 = emu.start_game_directly(bot_color="black", opponent=OpponentSpec(think_time_s=0.01))
    emu.wait_until(lambda: len(emu.game(gid2).moves) == 1, 3)
    assert post(emu, f"/api/bot/game/{gid2}/abort").status_code == 200
    assert emu.game(gid2).status == "aborted"
    gid3 = emu.start_game_directly(bot_color="white", moves=["e2e4", "e7e5"])
    assert post(emu, f"/api/bot/game/{gid3}/abort").status_code == 400


def test_stalling_opponent_lets_the_bot_abort(emu: Emulator) -> None:
    gid = emu.start_game_directly(bot_color="black", opponent=OpponentSpec(stall_after=0))
    time.sleep(0.3)
    assert emu.game(gid).moves == [] and emu.game(gid).opponent_gone is False
    client(emu).bots.abort_game(gid)
    assert emu.game(gid).status == "aborted" and emu.game(gid).winner is None


def test_resign_and_opponent_resigns(emu: Emulator) -> None:
    gid = emu.start_game_directly(bot_color="white")
    client(emu).bots.resign_game(gid)
    assert emu.game(gid).status == "resign" and emu.game(gid).winner == "black"
    gid2 = emu.start_game_directly(
        bot_color="black", opponent=OpponentSpec(resign_after=1, think_time_s=0.01)
    )
    emu.wait_until(lambda: len(emu.game(gid2).moves) == 1, 3)
    post(emu, f"/api/bot/game/{gid2}/move/e7e5")
    snap = emu.wait_game_over(gid2, 3)
    assert snap.status == "resign" and snap.winner == "black"


def test_chat(emu: Emulator) -> None:
    gid = emu.start_game_directly(opponent=OpponentSpec(chat=["hi bot"]))
    game = open_game(emu, gid)
    client(emu).bots.post_message(gid, "Good luck!")
    line = game.next_of("chatLine", username="pibot")
    assert line == {"type": "chatLine", "room": "player", "username": "pibot", "text": "Good luck!"}
    r = post(emu, f"/api/bot/game/{gid}/chat", data={"room": "spectator", "text": "hello all"})
    assert r.status_code == 200
    r = post(emu, f"/api/bot/game/{gid}/chat", data={"room": "player", "text": "x" * 141})
    assert r.status_code == 400 and "140" in r.json()["error"]
    emu.chat.say(gid, "gg")
    assert game.next_of("chatLine", username="alice")["text"] == "gg"
    r = requests.get(emu.url + f"/api/bot/game/{gid}/chat", headers=auth(), timeout=5)
    assert [m["text"] for m in r.json()] == ["hi bot", "Good luck!", "gg"]
    assert [c.text for c in emu.game(gid).chat] == ["hi bot", "Good luck!", "hello all", "gg"]


def test_draw_offers(emu: Emulator) -> None:
    # The opponent offers a draw with its first move; the bot accepts.
    offer = OpponentSpec(offer_draw_at=1, think_time_s=0.01)
    gid = emu.start_game_directly(bot_color="white", opponent=offer)
    game = open_game(emu, gid)
    post(emu, f"/api/bot/game/{gid}/move/e2e4")
    state = game.next_of("gameState", timeout=3, bdraw=True)
    assert len(state["moves"].split()) == 2
    assert post(emu, f"/api/bot/game/{gid}/draw/yes").status_code == 200
    snap = emu.wait_game_over(gid, 2)
    assert snap.status == "draw" and snap.winner is None
    # The bot offers (with its move); an accepting opponent takes it.
    gid2 = emu.start_game_directly(opponent=OpponentSpec(accept_draw=True, think_time_s=2))
    r = post(emu, f"/api/bot/game/{gid2}/move/e2e4", params={"offeringDraw": "true"})
    assert r.status_code == 200 and emu.game(gid2).status == "draw"
    # A declining opponent: the offer shows, then is withdrawn.
    gid3 = emu.start_game_directly(opponent=OpponentSpec(think_time_s=5))
    game3 = open_game(emu, gid3)
    post(emu, f"/api/bot/game/{gid3}/draw/yes")
    assert game3.next_of("gameState", wdraw=True)
    assert "wdraw" not in game3.next_of("gameState")
    assert emu.game(gid3).status == "started"


def test_takebacks(emu: Emulator) -> None:
    tb = OpponentSpec(takeback_at=1, think_time_s=0.01, policy="scripted", moves=["e7e5", "c7c5"])
    gid = emu.start_game_directly(bot_color="white", opponent=tb)
    game = open_game(emu, gid)
    post(emu, f"/api/bot/game/{gid}/move/e2e4")
    game.next_of("gameState", timeout=3, btakeback=True)
    post(emu, f"/api/bot/game/{gid}/takeback/yes")
    state = game.next_of("gameState", moves="e2e4")
    assert "btakeback" not in state
    emu.wait_until(lambda: len(emu.game(gid).moves) == 2, 3)
    assert emu.game(gid).moves == ["e2e4", "e7e5"]  # the script replays its move 1
    # The bot proposes; an accepting opponent undoes the bot's move.
    gid2 = emu.start_game_directly(
        bot_color="white",
        moves=["e2e4", "e7e5"],
        opponent=OpponentSpec(accept_takeback=True, think_time_s=5),
    )
    post(emu, f"/api/bot/game/{gid2}/move/d2d4")
    assert post(emu, f"/api/bot/game/{gid2}/takeback/yes").status_code == 200
    assert emu.game(gid2).moves == ["e2e4", "e7e5"]


def test_opponent_gone_and_claim_victory(emu_factory: Any) -> None:
    emu = emu_factory(opponent_gone_claim_s=1)
    gid = emu.start_game_directly(
        bot_color="white", opponent=OpponentSpec(leave_after=1, think_time_s=0.01)
    )
    game = open_game(emu, gid)
    post(emu, f"/api/bot/game/{gid}/move/e2e4")
    assert emu.wait_until(lambda: len(emu.game(gid).moves) == 2, 3)
    assert post(emu, f"/api/bot/game/{gid}/move/d2d4").status_code == 200
    gone = game.next_of("opponentGone", timeout=3)
    assert gone["gone"] is True and gone["claimWinInSeconds"] == 1
    assert post(emu, f"/api/bot/game/{gid}/claim-victory").status_code == 400
    zero = game.next_of("opponentGone", timeout=3, claimWinInSeconds=0)
    assert zero["gone"] is True
    again = Reader(client(emu).bots.stream_game_state(gid))  # a reconnect hears it too
    assert again.get()["type"] == "gameFull"
    assert again.get() == {"type": "opponentGone", "gone": True, "claimWinInSeconds": 0}
    assert post(emu, f"/api/bot/game/{gid}/claim-victory").status_code == 200
    snap = emu.wait_game_over(gid, 1)
    assert snap.status == "timeout" and snap.winner == "white"


# ---------------------------------------------------------------------- faults and limits


def test_429_injection_and_counters(emu: Emulator) -> None:
    gid = emu.start_game_directly(opponent=OpponentSpec(think_time_s=5))
    emu.faults.inject("http_error", "POST /api/bot/game/*/move/*", status=429)
    r = post(emu, f"/api/bot/game/{gid}/move/e2e4")
    assert r.status_code == 429 and r.json() == {"error": "Too many requests. Try again later."}
    assert "Retry-After" not in r.headers
    assert post(emu, f"/api/bot/game/{gid}/move/e2e4").status_code == 200
    recs = emu.traffic.requests("POST /api/bot/game/{id}/move/{move}")
    assert [r.status for r in recs] == [429, 200]
    assert recs[1].t > recs[0].t  # tests can assert the bot's wait after a 429
    assert emu.traffic.counters()["POST /api/bot/game/{id}/move/{move}"] == 2


def test_5xx_and_slow_injection(emu: Emulator) -> None:
    emu.faults.inject("http_error", "GET /api/account", status=503, count=2)
    codes = [
        requests.get(emu.url + "/api/account", headers=auth(), timeout=5).status_code
        for _ in range(3)
    ]
    assert codes == [503, 503, 200]
    emu.faults.inject("slow", "GET /api/account", duration_s=0.5)
    t0 = time.monotonic()
    assert requests.get(emu.url + "/api/account", headers=auth(), timeout=5).status_code == 200
    assert time.monotonic() - t0 >= 0.45
    with pytest.raises(berserk.exceptions.ResponseError) as err:
        emu.faults.inject("http_error", "GET /api/stream/event", status=500)
        next(iter(client(emu).bots.stream_incoming_events()))
    assert err.value.status_code == 500


def test_a_429_is_never_slow(emu: Emulator) -> None:
    """lila answers a rate-limited request before doing its work: a slow fault that
    fires with a 429 does not delay it (the soak's chat endpoint has both)."""
    emu.faults.inject("slow", "GET /api/account", duration_s=2.0)
    emu.faults.inject("http_error", "GET /api/account", status=429)
    t0 = time.monotonic()
    assert requests.get(emu.url + "/api/account", headers=auth(), timeout=5).status_code == 429
    assert time.monotonic() - t0 < 1.5


def test_4xx_injection_keeps_the_lichess_error_body(emu: Emulator) -> None:
    gid = emu.start_game_directly(opponent=OpponentSpec(think_time_s=5))
    emu.faults.inject("http_error", "POST /api/bot/game/*/move/*", status=400,
                      error="Not your turn, or game already over")
    r = post(emu, f"/api/bot/game/{gid}/move/e2e4")
    assert r.status_code == 400 and r.json() == {"error": "Not your turn, or game already over"}
    assert emu.game(gid).moves == []  # the rejected move was not played
    emu.faults.inject("http_error", "POST /api/bot/game/*/move/*", status=400)
    with pytest.raises(berserk.exceptions.ResponseError) as err:
        client(emu).bots.make_move(gid, "e2e4")
    assert err.value.status_code == 400
    emu.faults.inject("http_error", "GET /api/account", status=404)
    r = requests.get(emu.url + "/api/account", headers=auth(), timeout=5)
    assert r.status_code == 404 and r.json() == {"error": "Not found"}
    emu.faults.inject("http_error", "GET /api/account", status=418)  # any 4xx; text from its name
    r = requests.get(emu.url + "/api/account", headers=auth(), timeout=5)
    assert r.status_code == 418 and r.json() == {"error": "I'm a Teapot"}
    assert post(emu, f"/api/bot/game/{gid}/move/e2e4").status_code == 200
    for bad in (302, 504, 600, "400"):
        with pytest.raises(EmulatorUsageError, match="use a 4xx"):
            emu.faults.inject("http_error", "*", status=bad)  # type: ignore[arg-type]
    r = requests.post(emu.url + "/emu/fault", json={"kind": "http_error", "target":
                      "GET /api/account", "status": 404, "error": "No such account"}, timeout=5)
    assert r.status_code == 200 and r.json()["error"] == "No such account"
    r = requests.get(emu.url + "/api/account", headers=auth(), timeout=5)
    assert r.status_code == 404 and r.json() == {"error": "No such account"}


def test_random_faults_fire_with_probability(emu_factory: Any) -> None:
    emu = emu_factory(seed=7)
    emu.faults.inject("http_error", "GET /api/user/*", status=502, count=None, probability=0.5)
    codes = [requests.get(emu.url + "/api/user/alice", timeout=5).status_code for _ in range(40)]
    assert 5 < codes.count(502) < 35 and codes.count(200) > 5


def test_configured_rate_limit(emu_factory: Any) -> None:
    emu = emu_factory(rate_limits=[RateLimit("GET /api/account", max_requests=2, per_s=60)])
    codes = [
        requests.get(emu.url + "/api/account", headers=auth(), timeout=5).status_code
        for _ in range(3)
    ]
    assert codes == [200, 200, 429]


def test_dropped_event_and_game_streams(emu: Emulator) -> None:
    events = open_events(emu)
    emu.faults.inject("drop_stream", "event")
    assert events.ended.wait(3)
    assert events.error is not None  # cut mid-stream, not a clean end
    gid = emu.start_game_directly()
    game = open_game(emu, gid)
    emu.faults.inject("drop_stream", f"game:{gid}")
    assert game.ended.wait(3) and game.error is not None
    # A re-opened stream starts again with gameFull.
    assert open_game(emu, gid) is not None


def test_silent_stream(emu: Emulator) -> None:
    emu.faults.inject("silent_stream", "event", duration_s=1.2)
    with requests.get(emu.url + "/api/stream/event", headers=auth(), stream=True, timeout=5) as r:
        lines = r.iter_lines(chunk_size=1)
        t0 = time.monotonic()
        assert next(lines) == b""
        assert time.monotonic() - t0 >= 1.1  # nothing, not even keep-alives, for 1.2 s
        t1 = time.monotonic()
        assert next(lines) == b""
        assert time.monotonic() - t1 < 1.0  # keep-alives resume
    # Silent forever, injected into an open stream: the client's read timeout saves it.
    with requests.get(
        emu.url + "/api/stream/event", headers=auth(), stream=True, timeout=(2, 0.8)
    ) as r:
        lines = r.iter_lines(chunk_size=1)
        assert next(lines) == b""
        emu.faults.inject("silent_stream", "event", duration_s=None)
        with pytest.raises(requests.exceptions.ConnectionError):
            next(lines)


def test_silent_forever_game_stream_is_cut_when_game_ends(emu: Emulator) -> None:
    gid = emu.start_game_directly(opponent=OpponentSpec(think_time_s=5))
    emu.faults.inject("silent_stream", f"game:{gid}", duration_s=None)
    reader = Reader(client(emu).bots.stream_game_state(gid))
    assert emu.wait_until(lambda: emu.traffic.open_streams()["game"] == 1, 3)
    with pytest.raises(queue.Empty):
        reader.q.get(timeout=0.5)  # silent: not even gameFull
    emu.opponent_action(gid, "resign")
    assert reader.ended.wait(3) and reader.error is not None
    assert emu.wait_until(lambda: emu.traffic.open_streams()["game"] == 0, 3)


def test_outgoing_challenges_and_daily_bot_limit(emu_factory: Any) -> None:
    users = [
        UserSpec("acceptor", response_delay_s=0.05, opponent=OpponentSpec(think_time_s=0.01)),
        UserSpec(
            "decliner", on_challenge="decline", decline_reason="tooFast", response_delay_s=0.05
        ),
        UserSpec("human", title=None),
    ]
    emu = emu_factory(users=users, bot_vs_bot_daily_limit=2)
    c = client(emu)
    events = open_events(emu, c)
    ch = c.challenges.create(
        "acceptor", rated=True, clock_limit=60, clock_increment=0, color="white"
    )
    assert ch["status"] == "created" and ch["challenger"]["id"] == "pibot"
    echo = events.next_of("challenge")["challenge"]  # Lichess echoes our own challenge
    assert echo["id"] == ch["id"] and echo["challenger"]["id"] == "pibot"
    start = events.next_of("gameStart")["game"]
    assert start["gameId"] == ch["id"] and start["color"] == "white"
    declined = c.challenges.create("decliner", rated=False, clock_limit=60, clock_increment=0)
    ev = events.next_of("challengeDeclined")["challenge"]
    assert ev["id"] == declined["id"] and ev["declineReasonKey"] == "tooFast"
    assert ev["declineReason"].startswith("This time control is too fast")
    r = post(
        emu,
        "/api/challenge/acceptor",
        data={"rated": "false", "clock.limit": "60", "clock.increment": "0"},
    )
    assert r.status_code == 429
    assert r.json()["ratelimit"]["key"] == "bot.vsBot.day"
    assert r.json()["ratelimit"]["seconds"] > 0
    # Humans are not part of the bot-vs-bot limit.
    assert post(emu, "/api/challenge/human", json={"clock.limit": 60}).status_code == 200
    assert post(emu, "/api/challenge/pibot", json={}).status_code == 400
    assert post(emu, "/api/challenge/nobody", json={}).status_code == 404


# ---------------------------------------------------------------------- control API, lifecycle


def test_control_api_over_http(emu: Emulator) -> None:
    base = emu.url + "/emu"
    r = requests.post(
        base + "/challenge",
        json={
            "challenger": "carol",
            "clock_limit_s": 180,
            "increment_s": 2,
            "color": "white",
            "opponent": {"policy": "greedy", "think_time_s": 0.01},
        },
        timeout=5,
    )
    cid = r.json()["id"]
    assert requests.get(f"{base}/challenge/{cid}", timeout=5).json()["status"] == "created"
    client(emu).bots.accept_challenge(cid)
    snap = requests.get(f"{base}/game/{cid}", timeout=5).json()
    assert snap["bot_color"] == "black" and snap["status"] == "started"
    r = requests.post(
        base + "/fault",
        json={"kind": "http_error", "target": "GET /api/account", "status": 502},
        timeout=5,
    )
    assert r.json()["kind"] == "http_error"
    assert requests.get(emu.url + "/api/account", headers=auth(), timeout=5).status_code == 502
    r = requests.post(base + "/fault", json={"kind": "explode"}, timeout=5)
    assert r.status_code == 400 and "unknown fault kind" in r.json()["error"]
    r = requests.post(base + "/challenge", json={"challengr": "typo"}, timeout=5)
    assert r.status_code == 400 and "challengr" in r.json()["error"]
    requests.post(f"{base}/game/{cid}/opponent/resign", timeout=5)
    done = requests.get(f"{base}/game/{cid}/wait", params={"timeout": 2}, timeout=5).json()
    assert done["status"] == "resign" and done["winner"] == "black"
    counters = requests.get(base + "/counters", timeout=5).json()
    assert counters["POST /api/challenge/{id}/accept"] == 1


def test_bad_control_arguments_are_clear(emu: Emulator) -> None:
    with pytest.raises(EmulatorUsageError, match="unknown variant"):
        emu.challenge_bot(variant="chess961")
    with pytest.raises(EmulatorUsageError, match="invalid FEN"):
        emu.challenge_bot(initial_fen="not a fen")
    with pytest.raises(EmulatorUsageError, match="unknown fault kind"):
        emu.faults.inject("boom")
    with pytest.raises(EmulatorUsageError, match="start moves"):
        emu.start_game_directly(moves=["e2e5"])
    with pytest.raises(EmulatorUsageError, match="game_keepalive_s"):
        EmulatorConfig(game_keepalive_s=-1)
    r = requests.post(emu.url + "/emu/game", json={"bot_color": "purple"}, timeout=5)
    assert r.status_code == 400 and "bot_color" in r.json()["error"]


def test_stop_is_fast_with_open_streams(emu_factory: Any) -> None:
    emu = emu_factory()
    events = open_events(emu)
    gid = emu.start_game_directly()
    game = open_game(emu, gid)
    idle = socket.create_connection(("127.0.0.1", emu.port), timeout=5)  # idle keep-alive conn
    before = threading.active_count()
    t0 = time.monotonic()
    emu.stop()
    assert time.monotonic() - t0 < 2.0
    with pytest.raises(EmulatorUsageError, match="create a new Emulator"):
        emu.start()
    assert events.ended.wait(2) and game.ended.wait(2)
    idle.close()
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline and threading.active_count() >= before:
        time.sleep(0.05)
    names = [t.name for t in threading.enumerate()]
    assert not any(n.startswith("emu-") for n in names)
