"""Lichess payloads are parsed once, at the edge (bot/lichess/events.py): unknown
fields are ignored, a malformed event is one log line and is skipped, never a
traceback.  The stream test reads a real NDJSON stream over HTTP (a tiny local
server), through the same client and stream thread the bot uses."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from bot.config import parse_config
from bot.lichess import events
from bot.lichess.client import Lichess
from bot.lichess.streams import Item, StreamClosed, StreamOpened

CHALLENGE = {"id": "c1", "status": "created", "url": "https://lichess.org/c1",
             "challenger": {"id": "alice", "name": "Alice", "title": None, "rating": 1500,
                            "provisional": False, "online": True, "flair": "x"},
             "destUser": {"id": "pibot", "name": "pibot", "title": "BOT", "rating": 2000},
             "variant": {"key": "standard", "name": "Standard", "short": "Std"},
             "rated": True, "speed": "blitz",
             "timeControl": {"type": "clock", "limit": 180, "increment": 2, "show": "3+2"},
             "color": "random", "finalColor": "white", "perf": {"icon": "", "name": "Blitz"},
             "someFieldLichessAddsLater": {"nested": [1, 2]}}
GAME = {"fullId": "g1abcdefXYZ1", "gameId": "g1abcdef", "id": "g1abcdef", "fen": "x",
        "color": "white", "lastMove": "", "source": "arena",
        "status": {"id": 20, "name": "started"}, "variant": {"key": "standard"},
        "speed": "blitz", "perf": "blitz", "rated": True, "hasMoved": False,
        "opponent": {"id": "bob", "username": "Bob", "rating": 1800}, "isMyTurn": True,
        "secondsLeft": 180, "compat": {"bot": True}, "tournamentId": "arena42"}


def test_a_challenge_parses_and_unknown_fields_are_ignored() -> None:
    ev = events.parse_account_event({"type": "challenge", "challenge": CHALLENGE, "compat": {}})
    assert isinstance(ev, events.ChallengeEvent)
    ch = ev.challenge
    assert (ch.id, ch.challenger.login, ch.challenger.rating, ch.variant) == \
        ("c1", "alice", 1500, "standard")
    assert ch.dest_user is not None and ch.dest_user.is_bot
    assert ch.time_control == events.TimeControl("clock", 180, 2, None)
    assert not ch.correspondence and ch.rated


def test_game_start_takes_its_id_one_way_and_keeps_the_tournament() -> None:
    ev = events.parse_account_event({"type": "gameStart", "game": GAME})
    assert isinstance(ev, events.GameStart)
    assert (ev.game.id, ev.game.opponent.name, ev.game.tournament_id) == \
        ("g1abcdef", "Bob", "arena42")
    # Only "id" (as /api/account/playing entries may have): the same game.
    only_id = {k: v for k, v in GAME.items() if k != "gameId"}
    assert events.parse_playing({"nowPlaying": [only_id]})[0].id == "g1abcdef"


def test_game_finish_keeps_the_rating_changes_lichess_reports() -> None:
    done = dict(GAME, rated=True, ratingDiff=-7,
                opponent=dict(GAME["opponent"], rating=1620, ratingDiff=6))
    ev = events.parse_account_event({"type": "gameFinish", "game": done})
    assert isinstance(ev, events.GameFinish)
    assert (ev.game.rating_diff, ev.game.opponent_rating_diff) == (-7, 6)
    # Casual, or while playing: no ratingDiff, None (not 0).
    ev = events.parse_account_event({"type": "gameFinish", "game": GAME})
    assert isinstance(ev, events.GameFinish)
    assert (ev.game.rating_diff, ev.game.opponent_rating_diff) == (None, None)


def test_game_full_and_state() -> None:
    full = events.parse_game_event({
        "type": "gameFull", "id": "g1", "rated": False, "variant": {"key": "chess960"},
        "clock": {"initial": 60000, "increment": 1000}, "speed": "bullet", "createdAt": 5,
        "white": {"id": "pibot", "name": "pibot", "title": "BOT"},
        "black": {"id": None, "aiLevel": 3}, "initialFen": "startpos",
        "state": {"type": "gameState", "moves": "e2e4 e7e5", "wtime": 59000,
                  "btime": 60000, "winc": 1000, "binc": 1000, "status": "started",
                  "bdraw": True}}, received_at=7.5)
    assert isinstance(full, events.GameFull)
    assert full.time_control() == "60+1" and full.variant == "chess960"
    assert full.black.display == "AI level 3" and full.white.is_bot
    assert full.state.moves == ("e2e4", "e7e5") and full.state.received_at == 7.5
    assert full.state.draw_offered_by("black") and not full.state.draw_offered_by("white")
    corr = events.parse_game_event({"type": "gameFull", "id": "g2", "daysPerTurn": 3,
                               "speed": "correspondence", "white": {}, "black": {},
                               "state": {}})
    assert isinstance(corr, events.GameFull) and corr.clock is None and corr.correspondence
    assert corr.time_control() == "3d"


@pytest.mark.parametrize("payload", [
    {"type": "challenge", "challenge": {"id": "c2", "challenger": "alice"}},
    {"type": "challenge", "challenge": {"challenger": {"id": "alice"}}},  # no id
    {"type": "challenge", "challenge": []},
    {"type": "challengeDeclined", "challenge": {"id": "c3", "rated": "yes"}},
    {"type": "gameStart", "game": {"id": 12345}},
    {"type": "gameStart"},  # no game at all
    {"type": "gameFull", "id": "g1", "white": {}, "black": {},
     "state": {"moves": "e2e4", "wtime": "lots"}},
    {"type": "gameState", "moves": ["e2e4"]},
    {"type": "chatLine", "username": "x", "text": 42},
    {"type": "opponentGone", "gone": "true"},
])
def test_a_malformed_event_is_one_log_line_and_skipped(
        payload: dict[str, Any], caplog: pytest.LogCaptureFixture) -> None:
    account_kinds = {"challenge", "challengeDeclined", "gameStart"}
    parse = (events.parse_account_event if payload["type"] in account_kinds
             else events.parse_game_event)
    with caplog.at_level(logging.DEBUG, logger="bot.lichess.events"):
        assert parse(payload, where="test-stream") is None
    lines = [r for r in caplog.records if r.name == "bot.lichess.events"]
    assert len(lines) == 1 and lines[0].levelno == logging.WARNING
    assert lines[0].exc_info is None and "malformed" in lines[0].getMessage()


def test_an_unknown_event_type_is_ignored_quietly(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="bot.lichess.events"):
        assert events.parse_account_event({"type": "someNewThing", "x": 1}) is None
        assert events.parse_game_event({"type": "someNewThing", "x": 1}) is None
    assert all(r.levelno < logging.WARNING for r in caplog.records)


def test_each_stream_takes_only_its_own_kinds(caplog: pytest.LogCaptureFixture) -> None:
    """A game's event on the account stream (or the reverse) is one debug line, not an
    event its consumer would have to reject."""
    game_start = {"type": "gameStart", "game": GAME}
    chat = {"type": "chatLine", "username": "x", "text": "hi", "room": "player"}
    with caplog.at_level(logging.DEBUG, logger="bot.lichess.events"):
        assert events.parse_game_event(game_start) is None
        assert events.parse_account_event(chat) is None
    assert isinstance(events.parse_account_event(game_start), events.GameStart)
    assert isinstance(events.parse_game_event(chat), events.ChatLine)
    ignored = [r for r in caplog.records if "ignoring event type" in r.getMessage()]
    assert [r.levelno for r in ignored] == [logging.DEBUG, logging.DEBUG]


class NdjsonServer:
    """Serves one NDJSON body as the event stream, then ends it (real HTTP)."""

    def __init__(self, lines: list[bytes]) -> None:
        body = b"".join(line + b"\n" for line in lines)

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                self.send_response(200)
                self.send_header("Content-Type", "application/x-ndjson")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def stream_server() -> Iterator[NdjsonServer]:
    server = NdjsonServer([
        json.dumps({"type": "challenge", "challenge": {"id": "bad", "challenger": 7}}).encode(),
        b"this is not json",
        b"[1, 2, 3]",
        json.dumps({"type": "someNewThing"}).encode(),
        b"",  # a keep-alive
        json.dumps({"type": "gameStart", "game": GAME}).encode(),
        json.dumps({"type": "challenge", "challenge": CHALLENGE}).encode(),
    ])
    yield server
    server.stop()


def test_the_stream_queues_parsed_events_and_skips_bad_lines(
        stream_server: NdjsonServer, caplog: pytest.LogCaptureFixture) -> None:
    cfg = parse_config({"url": stream_server.url,
                        "network": {"connect_timeout_s": 2, "stream_read_timeout_s": 2}})

    async def read_all() -> list[Item[events.AccountEvent]]:
        api = Lichess(cfg.url, None, cfg.network)
        queue: asyncio.Queue[Item[events.AccountEvent]] = asyncio.Queue()
        stream = api.start_event_stream(queue)
        got: list[Item[events.AccountEvent]] = []
        while not got or not isinstance(got[-1], StreamClosed):
            got.append(await asyncio.wait_for(queue.get(), 10))
        stream.stop()
        return got

    with caplog.at_level(logging.INFO):
        got = asyncio.run(read_all())
    assert isinstance(got[0], StreamOpened) and isinstance(got[-1], StreamClosed)
    middle = got[1:-1]
    assert [type(e) for e in middle] == [events.GameStart, events.ChallengeEvent]
    assert isinstance(middle[0], events.GameStart) and middle[0].game.id == "g1abcdef"
    assert middle[0].game.is_my_turn and middle[0].game.correspondence is False
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    # One line each: the malformed challenge, the line that is not JSON, the array.
    assert len(warnings) == 3, [r.getMessage() for r in warnings]
    assert all(r.exc_info is None for r in caplog.records)
