"""The owner's memory wired into the service (issue 35), over real HTTP against
the emulator: games and moves in the records database, kept over a restart and
a kill -9; PGNs with %eval and %clk; a full database costs one log line; alerts
reach a receiver and a dead alert URL delays nothing."""

from __future__ import annotations

import http.server
import io
import json
import logging
import os
import random
import signal
import socket
import sqlite3
import string
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess.pgn
import pytest
import yaml
from test_arena import ARENA_FAST
from test_robustness_cli import _pibot
from test_service_helpers import (
    FAST_NETWORK,
    RunningBot,
    bot_and_emulator,
    bot_config,
    fast_emulator_config,
    needs_engine,
    wait_until,
)

from bot.emulator import Emulator, OpponentSpec
from bot.store.model import ServiceEvent
from bot.store.writer import RecordWriter

pytestmark = needs_engine


def _play(emu: Emulator, who: str, seed: int, resign_after: int = 6,
          bot: RunningBot | None = None) -> str:
    if bot is not None and bot.service is not None:  # the last game's slot is free
        sup = bot.service.supervisor
        assert wait_until(lambda: sup is not None and not sup.games, 10)
    opp = OpponentSpec(policy="random", think_time_s=0.05, resign_after=resign_after, seed=seed)
    cid = emu.challenge_bot(challenger=who, rated=False, clock_limit_s=60, increment_s=0,
                            color="black", opponent=opp)  # the bot is white
    emu.wait_game_started(cid, 10)
    snap = emu.wait_game_over(cid, 60)
    assert snap.status in ("resign", "mate"), snap.status
    return cid


def _rows(db: Path, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


def test_games_survive_a_restart_in_history_and_memory(tmp_path: Path) -> None:
    db = tmp_path / "pibot.db"
    with bot_and_emulator(tmp_path) as (emu, bot):
        g1 = _play(emu, "alice", 3)
        g2 = _play(emu, "alice", 4, bot=bot)
        pgn_path = tmp_path / "games" / f"{g2}.pgn"
        assert wait_until(pgn_path.exists, 5)
    # Stopped: the database holds both games, every move, and the service's events.
    r = _pibot("history", "--db", str(db), "--json", "--period", "day")
    assert r.returncode == 0, r.stderr
    h = json.loads(r.stdout)
    assert h["total"]["games"] == 2 and h["by_opponent"]["alice"]["games"] == 2
    assert h["today"]["wins"] == 2 and h["today"]["losses"] == 0
    for gid in (g1, g2):
        n = _rows(db, "SELECT COUNT(*), COUNT(san), COUNT(clock_after_ms) FROM moves "
                      "WHERE game_id = ?", gid)[0]
        assert n[0] > 0 and n[0] == n[1] == n[2], n
    ours = _rows(db, "SELECT source, depth, nodes, think_ms FROM moves WHERE game_id = ? "
                     "AND color = 'white'", g1)
    assert all(s in ("engine", "book") for s, *_ in ours)
    assert any(d and n for s, d, n, _ in ours if s == "engine")
    kinds = [k for (k,) in _rows(db, "SELECT kind FROM events ORDER BY id")]
    assert kinds == ["start", "stop"]

    # The PGN as Lichess writes it: %eval and %clk on every move, full headers.
    game = chess.pgn.read_game(io.StringIO(pgn_path.read_text()))
    assert game is not None
    nodes = list(game.mainline())
    assert nodes and all(n.eval() is not None and n.clock() is not None for n in nodes), \
        [n.comment for n in nodes]
    h_ = game.headers
    assert h_["Event"] == "Casual Bullet game" and h_["TimeControl"] == "60+0"
    assert h_["Site"].endswith("/" + g2) and h_["Variant"] == "Standard"
    assert h_["Termination"] == "Normal" and h_["Result"] == "1-0"

    # Started again: today's results and the farming memory come back from the file.
    with bot_and_emulator(tmp_path) as (_emu, bot2):
        svc = bot2.service
        assert svc is not None
        today = svc.shared.tally.snapshot()
        assert (today["wins"], today["losses"]) == (2, 0)
        lines = svc.shared.recent_games.lines("alice")
        assert len(lines) == 2 and all(len(line) >= 2 for line in lines)
    kinds = [k for (k,) in _rows(db, "SELECT kind FROM events ORDER BY id")]
    assert kinds == ["start", "stop", "start", "stop"]


def _run_config(path: Path, url: str, tmp: Path) -> None:
    data = {"url": url, "pgn_directory": str(tmp / "games"), "log_level": "info",
            "network": FAST_NETWORK, "engine": {"hash_mb": 8, "threads": 1},
            "challenge": {"time_controls": ["bullet", "blitz"]},
            "records": {"db": str(tmp / "pibot.db")}}
    path.write_text(yaml.safe_dump(data))


def test_kill_9_mid_game_keeps_every_move_played(tmp_path: Path) -> None:
    cfg, log, db = tmp_path / "c.yml", tmp_path / "log", tmp_path / "pibot.db"
    with Emulator(fast_emulator_config()) as emu:
        _run_config(cfg, emu.url, tmp_path)
        env = dict(os.environ, LICHESS_BOT_TOKEN=emu.token)
        env.pop("JOURNAL_STREAM", None)
        proc = subprocess.Popen([sys.executable, "-m", "bot.cli", "run", "--config", str(cfg)],
                                env=env, stdout=subprocess.DEVNULL, stderr=log.open("wb"),
                                cwd=tmp_path)
        try:
            assert wait_until(lambda: "ready" in log.read_text(errors="replace"), 20), \
                log.read_text()
            opp = OpponentSpec(policy="random", think_time_s=0.1, resign_after=40, seed=5)
            gid = emu.challenge_bot(challenger="kim", rated=False, clock_limit_s=120,
                                    increment_s=0, color="black", opponent=opp)
            emu.wait_game_started(gid, 10)
            assert wait_until(lambda: len(emu.game(gid).moves) >= 12, 30)
            time.sleep(0.5)  # the records of these moves leave the queue in milliseconds
            played = list(emu.game(gid).moves)
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)
        finally:
            if proc.poll() is None:
                proc.kill()
        # The file opens (WAL recovered) and holds every move played before the kill.
        kept = [u for (u,) in _rows(db, "SELECT uci FROM moves WHERE game_id = ? ORDER BY ply",
                                    gid)]
        assert kept[:len(played)] == played, (kept, played)
        # Started again (resuming the game): it ends, and the game row says so.
        bot = RunningBot(bot_config(emu.url, tmp_path), emu.token).start()
        try:
            snap = emu.wait_game_over(gid, 90)
            # (The bot sees the end a moment after the emulator.)
            assert wait_until(lambda: _rows(db, "SELECT status FROM games WHERE id = ?",
                                            gid) == [(snap.status,)], 15)
        finally:
            bot.stop()
    moves = [u for (u,) in _rows(db, "SELECT uci FROM moves WHERE game_id = ? ORDER BY ply",
                                 gid)]
    assert moves == list(snap.moves)
    assert _rows(db, "SELECT status FROM games WHERE id = ?", gid) == [(snap.status,)]
    assert "Traceback" not in log.read_text()


def test_a_full_database_is_one_log_line_and_the_game_goes_on(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    db = tmp_path / "pibot.db"
    w = RecordWriter(db)
    w.start()
    w.put(ServiceEvent("start"))
    assert w.flush(10)
    w.close()
    # Fill the file to its 1 MiB cap (records.max_mb) from outside the writer, with
    # small rows at random keys until none fits anywhere: every page of every table is
    # full, so the service's first record needs a page the cap does not allow.
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA synchronous=OFF")
    page = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {1024 * 1024 // page}")
    rnd = random.Random(1)

    def key() -> str:
        return "".join(rnd.choices(string.ascii_letters + string.digits, k=8))

    for sql, args in (
            ("INSERT INTO moves (game_id, ply, color, uci) VALUES (?, 0, 'white', 'e2e4')",
             lambda: (key(),)),
            ("INSERT INTO games (id, account, color, opponent, speed, variant, rated, site, "
             "started_at) VALUES (?, 'x', 'white', ?, 'bullet', 'standard', 0, 'x', 0)",
             lambda: (key(), key())),
            ("INSERT INTO events (at, kind, detail) VALUES (0, 'start', '')", lambda: ())):
        misses = 0
        while misses < 200:
            try:
                conn.execute(sql, args())
                misses = 0
            except sqlite3.OperationalError:  # database or disk is full
                misses += 1
            except sqlite3.IntegrityError:
                pass
    assert conn.execute("PRAGMA freelist_count").fetchone()[0] == 0
    conn.close()
    caplog.set_level(logging.INFO)
    with bot_and_emulator(tmp_path, records={"db": str(db), "max_mb": 1}) as (emu, _bot):
        gid = _play(emu, "lee", 6)
        assert wait_until((tmp_path / "games" / f"{gid}.pgn").exists, 5)
        assert wait_until(lambda: "records database in trouble"
                          in (_bot.service.watchdog.summary if _bot.service else ""), 5)
        # The owner sees it: `pibot status` (the status file) and `pibot check`.
        st = _pibot("status")
        assert "is full" in st.stdout and "games go on" in st.stdout, st.stdout + st.stderr
        cfg = tmp_path / "c.yml"
        cfg.write_text(yaml.safe_dump({"url": emu.url, "engine": {"hash_mb": 8},
                                       "records": {"db": str(db), "max_mb": 1}}))
        ck = _pibot("check", "--config", str(cfg), "--json", token=emu.token, timeout=120)
        found = [f["text"] for f in json.loads(ck.stdout)["findings"]
                 if f["level"] == "problem"]
        assert any("cannot write its records database" in t for t in found), ck.stdout
    full = [r for r in caplog.records
            if r.name == "bot.store.writer" and r.levelno >= logging.ERROR]
    assert len(full) == 1, [r.getMessage() for r in full]
    assert "the games go on" in full[0].getMessage()
    text = (tmp_path / "games" / f"{gid}.pgn").read_text()
    assert "[%clk" in text and '[Result "1-0"]' in text


class _Receiver(http.server.BaseHTTPRequestHandler):
    got: list[dict[str, Any]] = []

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        type(self).got.append(json.loads(body))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def receiver() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    got: list[dict[str, Any]] = []
    handler = type("Receiver", (_Receiver,), {"got": got})
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}/hook", got
    finally:
        srv.shutdown()
        srv.server_close()


def test_an_alert_reaches_a_local_receiver(tmp_path: Path,
                                           receiver: tuple[str, list[dict[str, Any]]]) -> None:
    url, got = receiver
    # failing_restarts 1: this very start is worth an alert.
    alerts = {"url": url, "format": "json", "failing_restarts": 1}
    with bot_and_emulator(tmp_path, alerts=alerts) as (emu, _bot):
        assert wait_until(lambda: bool(got), 10)
        assert got[0]["kind"] == "failing" and "restart" in got[0]["title"]
        assert emu.token not in json.dumps(got)


def test_a_dead_alert_url_delays_no_move_and_no_challenge_answer(tmp_path: Path) -> None:
    # A server that accepts connections and never answers: each POST waits its timeout.
    dead = socket.socket()
    dead.bind(("127.0.0.1", 0))
    dead.listen(16)
    alerts = {"url": f"http://127.0.0.1:{dead.getsockname()[1]}/hook", "format": "json",
              "failing_restarts": 1}
    try:
        with bot_and_emulator(tmp_path, alerts=alerts) as (emu, bot):
            svc = bot.service
            assert svc is not None and svc.memory.alerts.enabled
            svc.memory.trouble("token", "test", None)  # a second alert behind the first
            opp = OpponentSpec(policy="random", think_time_s=0.05, resign_after=4, seed=2)
            t0 = time.monotonic()
            cid = emu.challenge_bot(challenger="max", rated=False, clock_limit_s=60,
                                    increment_s=0, color="black", opponent=opp)
            assert emu.challenges.wait_answered(cid, 5) == "accepted"
            answered = time.monotonic() - t0
            emu.wait_game_started(cid, 10)
            assert wait_until(lambda: len(emu.game(cid).moves) >= 1, 5)
            first_move = time.monotonic() - t0
            snap = emu.wait_game_over(cid, 60)
            assert snap.winner == snap.bot_color
        assert answered < 3.0 and first_move < 5.0, (answered, first_move)
    finally:
        dead.close()


def test_429_and_a_rejected_token_are_events_and_the_token_an_alert(
        tmp_path: Path, receiver: tuple[str, list[dict[str, Any]]]) -> None:
    url, got = receiver
    db = tmp_path / "pibot.db"
    emu = Emulator(fast_emulator_config()).start()
    bot = RunningBot(bot_config(emu.url, tmp_path, alerts={"url": url, "format": "json"}),
                     emu.token)
    try:
        bot.start()
        emu.faults.inject("http_error", "POST /api/challenge/*/accept", status=429)
        emu.challenge_bot(challenger="ned", rated=False, clock_limit_s=60, increment_s=0)
        assert wait_until(lambda: ("rate_limit",) in _rows(db, "SELECT kind FROM events"), 10)
        # The token is revoked: the event stream answers 401 when it re-opens.
        emu.faults.inject("http_error", "GET /api/stream/event", status=401, count=None)
        emu.faults.inject("drop_stream", "event")
        assert wait_until(lambda: not bot.thread.is_alive(), 20), "the bot did not stop"
        assert bot.error is not None and "401" in str(bot.error)
    finally:
        if bot.thread.is_alive():
            bot.stop()
        emu.stop()
    kinds = [k for (k,) in _rows(db, "SELECT kind FROM events ORDER BY id")]
    assert kinds[0] == "start" and "rate_limit" in kinds
    assert kinds[-3:] == ["token", "failure", "stop"], kinds
    assert wait_until(lambda: any(a["kind"] == "token" for a in got), 10), got
    assert all(emu.token not in json.dumps(a) for a in got)


def test_a_rated_games_record_has_the_ratings_lichess_reports_after(tmp_path: Path) -> None:
    """gameFinish's ratingDiff (ours) and opponent.ratingDiff: the records keep the
    ratings after, the game's PGN file its RatingDiff tags, and `pibot history`
    draws its trend from them."""
    db = tmp_path / "pibot.db"
    with bot_and_emulator(tmp_path) as (emu, _bot):
        opp = OpponentSpec(policy="random", think_time_s=0.05, resign_after=6, seed=7)
        gid = emu.challenge_bot(challenger="rita", rated=True, clock_limit_s=60,
                                increment_s=0, color="black", opponent=opp)
        emu.wait_game_started(gid, 10)
        snap = emu.wait_game_over(gid, 60)
        assert snap.status in ("resign", "mate"), snap.status
        assert wait_until(lambda: _rows(db, "SELECT my_rating_after FROM games WHERE id = ?",
                                        gid)[0][0] is not None, 10)
        assert wait_until((tmp_path / "games" / f"{gid}.pgn").exists, 10)
    (before, after, opp_before, opp_after, rated), = _rows(
        db, "SELECT my_rating, my_rating_after, opponent_rating, opponent_rating_after, rated "
            "FROM games WHERE id = ?", gid)
    assert rated and before is not None and opp_before is not None
    # The emulator's diffs: Elo, K = 20, the bot (white) won.
    diff = round(20 * (1 - 1 / (1 + 10 ** ((opp_before - before) / 400))))
    assert diff > 0 and after == before + diff and opp_after == opp_before - diff
    # The game's PGN file has them too, as Lichess's export does.
    game = chess.pgn.read_game(io.StringIO((tmp_path / "games" / f"{gid}.pgn").read_text()))
    assert game is not None
    assert (game.headers.get("WhiteRatingDiff"), game.headers.get("BlackRatingDiff")) == \
        (f"+{diff}", f"-{diff}"), game.headers
    r = _pibot("history", "--db", str(db), "--json", "--period", "day")
    assert r.returncode == 0, r.stderr
    trend = json.loads(r.stdout)["rating"]["bullet"]
    assert [p["rating"] for p in trend] == [after]


def test_an_arena_games_pgn_event_is_the_arenas_name(tmp_path: Path) -> None:
    """Lichess exports an arena game with the arena's name as its Event (the room's
    GET /api/tournament/{id} fullName), not "Rated Bullet tournament <url>"."""
    emu = Emulator(fast_emulator_config(**ARENA_FAST)).start()
    bot: RunningBot | None = None
    try:
        quick = [("ann", 1500, OpponentSpec(think_time_s=0.05, resign_after=1, seed=1))]
        aid = emu.arenas.create(minutes=5, clock_limit_s=60, starts_in_s=0.5, opponents=quick,
                                name="Pi Evening")
        cfg = bot_config(emu.url, tmp_path, tournaments=[{"id": aid}],
                         network={"tournament_poll_s": 0.3},
                         game={"abort_if_no_first_move_s": 1})
        bot = RunningBot(cfg, emu.token).start()
        games = tmp_path / "games"
        # "[!.]": not the saver's temporary .tmp-*.pgn, renamed away a moment later.
        assert wait_until(lambda: games.exists() and any(games.glob("[!.]*.pgn")), 60)
        pgn_path = next(games.glob("[!.]*.pgn"))
        emu.arenas.finish(aid)
    finally:
        if bot is not None:
            bot.stop()
        emu.stop()
    game = chess.pgn.read_game(io.StringIO(pgn_path.read_text()))
    assert game is not None and game.headers["Event"] == "Pi Evening Arena", game.headers
    (name, tid), = _rows(tmp_path / "pibot.db", "SELECT tournament_name, tournament_id "
                                                "FROM games WHERE id = ?", pgn_path.stem)
    assert (name, tid) == ("Pi Evening Arena", aid)


def test_temperature_is_sampled_once_per_ten_minutes_hottest_and_throttled(
        tmp_path: Path) -> None:
    from bot.service.memory import HEAT_SAMPLE_S, OwnerMemory

    mem = OwnerMemory(bot_config("http://127.0.0.1:9", tmp_path), None)
    assert mem.writer is not None
    mem.writer.start()
    t = 1000.0
    for n in range(int(2 * HEAT_SAMPLE_S / 5) + 1):  # a tick every 5 s for 20 minutes
        hot = 40 <= n < 44                           # throttled for 20 s in the first period
        mem._sample_heat(60.0 + (10 if hot else n % 7), hot, t + 5 * n)
    mem._sample_heat(None, False, t + 2 * HEAT_SAMPLE_S + 60)  # no new period yet
    assert mem.writer.flush(10)
    mem.writer.close()
    rows = _rows(tmp_path / "pibot.db", "SELECT temp_c, throttled FROM heat ORDER BY at")
    assert rows == [(70.0, 1), (66.0, 0)]
