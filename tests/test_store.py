"""The records database (issue 35): schema migrations, the queued writer (a
full, unwritable or corrupt file is one log line and never an exception; a
kill -9 loses nothing already written), and the queries the service's memory
and `pibot history` read."""

from __future__ import annotations

import logging
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.play.farming import RecentGames
from bot.store import db, queries, schema
from bot.store.model import (
    Declined,
    GameEnd,
    GameStart,
    HeatSample,
    MoveRecord,
    ServiceEvent,
)
from bot.store.writer import RecordWriter

ROOT = Path(__file__).resolve().parent.parent
NOW = 1_790_000_000.0  # a fixed Unix time (2026-09-21, 14:13 UTC)


def start(gid: str, opponent: str = "rival", at: float = NOW, speed: str = "blitz",
          title: str | None = "BOT", rated: bool = True, color: str = "white",
          rating: int | None = 1500) -> GameStart:
    return GameStart(game_id=gid, account="pibot", color=color, opponent=opponent,
                     opponent_title=title, my_rating=rating, opponent_rating=1600,
                     speed=speed, variant="standard", rated=rated, site="https://lichess.org",
                     started_at=at, clock_initial_ms=180_000, clock_increment_ms=2_000)


def line(gid: str, ucis: list[str], at: float = NOW) -> list[MoveRecord]:
    return [MoveRecord(game_id=gid, ply=i, color="white" if i % 2 == 0 else "black", uci=u,
                       clock_after_ms=180_000 - 1000 * i, score_cp=10 * i, depth=12,
                       source="engine", at=at + i) for i, u in enumerate(ucis)]


def play(w: RecordWriter, gid: str, ucis: list[str], winner: str | None = "white",
         at: float = NOW, status: str = "mate", after: int | None = None, **kw: object) -> None:
    w.put(start(gid, at=at, **kw))  # type: ignore[arg-type]
    for m in line(gid, ucis, at):
        w.put(m)
    w.put(GameEnd(gid, status, winner, ended_at=at + 100, my_rating_after=after))


@pytest.fixture
def writer(tmp_path: Path) -> Iterator[RecordWriter]:
    w = RecordWriter(tmp_path / "pibot.db")
    w.start()
    yield w
    w.close()


OPENING = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"]


def test_an_old_database_is_migrated_with_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path, isolation_level=None)
    assert schema.migrate(conn, target=1) == 0
    conn.execute("INSERT INTO games (id, account, color, opponent, speed, variant, rated, "
                 "site, started_at, ended_at, status, winner, result) VALUES "
                 "('old1', 'pibot', 'white', 'rival', 'blitz', 'standard', 1, "
                 "'https://lichess.org', ?, ?, 'mate', 'white', 'win')", (NOW, NOW + 60))
    conn.execute("INSERT INTO moves (game_id, ply, color, uci) VALUES ('old1', 0, 'white', "
                 "'e2e4')")
    conn.close()
    assert schema.version(sqlite3.connect(path)) == 1
    with pytest.raises(sqlite3.DatabaseError, match="start the service once"):
        db.connect_readonly(path)  # the CLI never migrates

    conn = db.connect(path)  # what the writer does
    assert schema.version(conn) == schema.VERSION == 5
    conn.execute("INSERT INTO events (at, kind) VALUES (?, 'start')", (NOW,))
    assert queries.today(conn, NOW)["wins"] == 1
    assert queries.moves_of(conn, "old1")[0].uci == "e2e4"
    assert queries.starts_since(conn, NOW - 1) == 1
    old = queries.game(conn, "old1")
    assert old is not None and old.strength is None and old.strength_rule is None
    conn.close()
    assert schema.migrate(sqlite3.connect(path, isolation_level=None)) == 5  # nothing to do


def test_a_version_2_database_gains_the_heat_table_and_keeps_its_events(
        tmp_path: Path) -> None:
    path = tmp_path / "v2.db"
    conn = sqlite3.connect(path, isolation_level=None)
    assert schema.migrate(conn, target=2) == 0
    conn.execute("INSERT INTO events (at, kind, detail) VALUES (?, 'throttled', "
                 "'throttling started')", (NOW,))
    conn.close()
    w = RecordWriter(path)
    w.start()
    assert w.put(HeatSample(71.5, True, at=NOW + 600))
    assert w.put(HeatSample(None, False, at=NOW + 1200))
    assert w.flush(10) and w.problem is None
    w.close()
    conn = db.connect_readonly(path)
    try:
        assert schema.version(conn) == schema.VERSION == 5
        assert conn.execute("SELECT at, kind FROM events").fetchall() == [(NOW, "throttled")]
        assert conn.execute("SELECT at, temp_c, throttled FROM heat ORDER BY at").fetchall() \
            == [(NOW + 600, 71.5, 1), (NOW + 1200, None, 0)]
    finally:
        conn.close()


def test_a_version_4_database_gains_the_declines_and_the_memory_reads_them(
        tmp_path: Path) -> None:
    """Issue 48: the bots that declined matchmaking survive a restart until their hold
    ends; a later decline of the same bot and aspect replaces the row."""
    path = tmp_path / "v4.db"
    conn = sqlite3.connect(path, isolation_level=None)
    assert schema.migrate(conn, target=4) == 0
    conn.close()
    w = RecordWriter(path)
    w.start()
    assert w.put(Declined("slowbot", "", "generic", until=NOW + 600, at=NOW))
    assert w.put(Declined("slowbot", "", "later", until=NOW + 300, at=NOW + 1))  # replaces
    assert w.put(Declined("pickybot", "atomic", "variant", until=NOW + 900, at=NOW + 2))
    assert w.put(Declined("gonebot", "", "generic", until=NOW + 2, at=NOW + 2))
    assert w.put(Declined("lastbot", "rated", "casual", until=NOW + 50, at=NOW + 3))
    assert w.flush(10) and w.problem is None
    w.close()
    conn = db.connect_readonly(path)
    try:
        assert schema.version(conn) == schema.VERSION == 5
        # gonebot's hold ran out before the last write: deleted then
        assert conn.execute("SELECT bot, reason FROM declines ORDER BY bot").fetchall() == \
            [("lastbot", "casual"), ("pickybot", "variant"), ("slowbot", "later")]
        assert queries.declines(conn, NOW + 100) == [("pickybot", "atomic", NOW + 900),
                                                     ("slowbot", "", NOW + 300)]
    finally:
        conn.close()
    assert queries.load_memory(path, NOW + 400).declines == [("pickybot", "atomic", NOW + 900)]
    assert queries.load_memory(tmp_path / "none.db", NOW).declines == []


def test_the_overview_has_the_last_week_of_heat_samples(tmp_path: Path) -> None:
    from bot.store.overview import overview

    w = RecordWriter(tmp_path / "pibot.db")
    w.start()
    for n in range(10):  # 8 and 9 days ago, then the last hours
        at = NOW - 9 * 86400 + n * 86400 if n < 2 else NOW - (10 - n) * 600
        w.put(HeatSample(50.0 + n, n in (5, 6), at=at))
    assert w.flush(10) and w.problem is None
    w.close()
    conn = db.connect_readonly(tmp_path / "pibot.db")
    try:
        heat = overview(conn, NOW)["heat"]
    finally:
        conn.close()
    assert [p[1] for p in heat] == [52.0 + n for n in range(8)]
    assert [p[2] for p in heat] == [0, 0, 0, 1, 1, 0, 0, 0]
    assert heat[0][0] == NOW - 8 * 600 and heat == sorted(heat)


def test_heat_samples_older_than_a_month_are_deleted_as_new_ones_come(tmp_path: Path) -> None:
    from bot.store.writer import HEAT_KEEP_S

    path = tmp_path / "pibot.db"
    w = RecordWriter(path)
    w.start()
    for at in (NOW - HEAT_KEEP_S - 600, NOW - HEAT_KEEP_S + 600, NOW - 86400, NOW):
        w.put(HeatSample(60.0, False, at=at))
    assert w.flush(10) and w.problem is None
    w.close()
    left = [at for (at,) in sqlite3.connect(path).execute("SELECT at FROM heat ORDER BY at")]
    assert left == [NOW - HEAT_KEEP_S + 600, NOW - 86400, NOW]


def test_the_service_s_start_up_read_upgrades_an_old_file_too(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path, isolation_level=None)
    schema.migrate(conn, target=1)
    conn.close()
    # The writer thread and load_memory may both find the old version at start.
    w = RecordWriter(path)
    w.start()
    w.put(ServiceEvent("start", at=NOW))
    memory = queries.load_memory(path, NOW)
    assert w.flush(10) and w.problem is None
    w.close()
    assert memory.problem is None and memory.farming == []
    assert schema.version(sqlite3.connect(path)) == schema.VERSION
    assert queries.load_memory(path, NOW + 1).starts_last_hour == 1


def test_a_database_from_a_newer_pibot_is_left_alone(tmp_path: Path,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "new.db"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    with pytest.raises(schema.SchemaTooNew):
        db.connect_readonly(path)
    w = RecordWriter(path)
    w.start()
    assert w.put(start("g1"))
    assert w.flush(5)
    w.close()
    assert w.problem is not None and "newer pibot" in w.problem
    assert schema.version(sqlite3.connect(path)) == 99


def test_games_moves_and_events_are_read_back(writer: RecordWriter) -> None:
    play(writer, "g1", OPENING, winner="white", at=NOW - 3000, after=1508)
    play(writer, "g2", OPENING[:4], winner=None, status="draw", at=NOW - 2000, speed="bullet")
    play(writer, "g3", OPENING[:2], winner="black", at=NOW - 1000, title=None,
         opponent="human", status="resign")
    play(writer, "g4", OPENING[:1], winner=None, status="aborted", at=NOW - 500)
    writer.put(ServiceEvent("daily_limit", "bot.vsBot.day", until=NOW + 3600, at=NOW))
    writer.put(ServiceEvent("start", at=NOW - 10))
    assert writer.flush(10) and writer.problem is None and writer.written == 4 * 2 + 13 + 2

    conn = db.connect_readonly(writer.path)
    day = queries.today(conn, NOW)
    assert day == {"date": "2026-09-21", "wins": 1, "draws": 1, "losses": 1, "bot_games": 2}
    assert queries.today(conn, NOW + 86400)["wins"] == 0  # counted per UTC day
    assert queries.daily_limit_until(conn, NOW) == NOW + 3600
    assert queries.daily_limit_until(conn, NOW + 7200) is None
    assert queries.starts_since(conn, NOW - 60) == 1
    g1 = queries.game(conn, "g1")
    assert g1 is not None and g1.result == "win" and g1.my_rating_after == 1508
    assert queries.game(conn, "g4").result is None  # type: ignore[union-attr]
    moves = queries.moves_of(conn, "g1")
    assert [m.uci for m in moves] == OPENING and moves[3].score_cp == 30

    h = queries.history(conn, NOW - 86400, NOW + 1, period="day")
    assert h["total"] == {"games": 3, "wins": 1, "draws": 1, "losses": 1, "score": 0.5}
    assert h["by_speed"]["bullet"]["draws"] == 1 and h["by_speed"]["blitz"]["games"] == 2
    assert set(h["by_opponent"]) == {"rival", "human"}
    assert h["by_period"] == {"2026-09-21": h["total"]}
    # Rated games only; "after" where Lichess gave it.
    assert [p["rating"] for p in h["rating"]["blitz"]] == [1508, 1500]
    assert [g.game_id for g in queries.games_between(conn, NOW - 2500)] == ["g2", "g3", "g4"]


def test_the_farming_memory_survives_a_restart(writer: RecordWriter) -> None:
    """Replaying the stored lines rebuilds bot.play.farming.RecentGames exactly."""
    live = RecentGames()
    games = [("alpha", OPENING), ("beta", OPENING[:4]), ("Alpha", OPENING[:2] + ["d2d4"]),
             ("alpha", ["d2d4", "d7d5"] + OPENING), ("beta", ["c2c4", "e7e5"])]
    for i, (opp, moves) in enumerate(games):
        play(writer, f"f{i}", moves, at=NOW + i * 1000, opponent=opp)
        live.record(opp, moves)
    play(writer, "aborted", ["h2h3", "h7h6"], status="aborted", winner=None,
         at=NOW + 9000, opponent="alpha")
    assert writer.flush(10)

    memory = queries.load_memory(writer.path, NOW + 10_000)
    assert memory.problem is None
    restored = RecentGames()
    for opp, moves in memory.farming:
        restored.record(opp, moves)
    for opp in ("alpha", "beta", "ALPHA"):
        assert restored.lines(opp) == live.lines(opp) != []
    assert len(restored.lines("alpha")) == 2  # lila's PREV_GAMES
    conn = db.connect_readonly(writer.path)
    assert [o for o, _ in queries.farming_lines(conn, opponents=1)] == ["beta", "beta"]


def test_load_memory_never_raises(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    assert queries.load_memory(tmp_path / "none.db", NOW) == queries.Memory()
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"not a database at all" * 200)
    with caplog.at_level(logging.ERROR):
        memory = queries.load_memory(bad, NOW)
    assert memory.problem and memory.farming == [] and len(caplog.records) == 1


def test_a_later_record_fills_in_a_move_and_a_takeback_replaces_it(
        writer: RecordWriter) -> None:
    writer.put(start("t1"))
    writer.put(MoveRecord("t1", 0, "white", "e2e4", san="e4", clock_after_ms=179_000,
                          source="opponent"))
    # Our search for the reply evaluated the position after it: the eval arrives later.
    writer.put(MoveRecord("t1", 0, "white", "e2e4", score_cp=25, depth=14))
    writer.put(MoveRecord("t1", 1, "black", "e7e5", score_cp=-20, source="book"))
    writer.put(MoveRecord("t1", 2, "white", "g1f3", score_cp=30))
    # A takeback: ply 1 is played again differently; the old row's fields go with it.
    writer.put(MoveRecord("t1", 1, "black", "c7c5", clock_after_ms=170_000))
    writer.put(GameEnd("t1", "resign", "white", plies=2))
    assert writer.flush(10)
    moves = queries.moves_of(db.connect_readonly(writer.path), "t1")
    assert [(m.uci, m.san, m.score_cp, m.depth, m.source, m.clock_after_ms) for m in moves] == [
        ("e2e4", "e4", 25, 14, "opponent", 179_000),
        ("c7c5", None, None, None, None, 170_000)]


def test_put_never_blocks_and_a_full_queue_drops_with_one_line(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    w = RecordWriter(tmp_path / "q.db", queue_size=3)  # not started: nothing drains it
    with caplog.at_level(logging.ERROR):
        t0 = time.monotonic()
        results = [w.put(MoveRecord("q", i, "white", "e2e4")) for i in range(50)]
        took = time.monotonic() - t0
    assert results.count(True) == 3 and w.dropped == 47 and took < 0.5
    assert len([r for r in caplog.records if "dropping" in r.message]) == 1
    w.start()
    assert w.flush(10) and w.written == 3
    w.close()
    assert not w.put(MoveRecord("q", 99, "white", "e2e4")) and w.dropped == 48


def test_a_full_database_is_one_log_line_and_the_game_goes_on(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    w = RecordWriter(tmp_path / "full.db", max_bytes=56 * 1024)  # 14 pages: schema + a bit
    w.start()
    w.put(start("big"))
    with caplog.at_level(logging.ERROR, logger="bot.store.writer"):
        for i in range(2000):
            assert w.put(MoveRecord("big", i, "white", "e2e4", san="x" * 200))
        assert w.flush(60)
    w.close()
    assert w.problem is not None and "full" in w.problem
    assert 0 < w.written < 2000 and w.dropped == 2001 - w.written
    assert len(caplog.records) == 1, [r.message for r in caplog.records]
    # Everything written before the disk filled is there and readable.
    conn = db.connect_readonly(w.path)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert len(queries.moves_of(conn, "big")) == w.written - 1


def test_an_unwritable_then_fixed_location_recovers(tmp_path: Path,
                                                    caplog: pytest.LogCaptureFixture) -> None:
    blocker = tmp_path / "state"
    blocker.write_text("a file where the directory should be")
    w = RecordWriter(blocker / "pibot.db", retry_s=0.0)
    w.start()
    with caplog.at_level(logging.INFO, logger="bot.store.writer"):
        for i in range(5):
            w.put(ServiceEvent("failure", f"#{i}"))
        assert w.flush(10)
        assert w.problem is not None and w.dropped == 5
        blocker.unlink()  # the owner fixes it
        w.put(ServiceEvent("start"))
        assert w.flush(10)
    w.close()
    assert w.problem is None and w.written == 1
    assert [r.levelname for r in caplog.records] == ["ERROR", "INFO"]
    assert "writable again" in caplog.records[1].message


def test_a_corrupt_database_is_reported_not_raised(tmp_path: Path,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "pibot.db"
    path.write_bytes(b"\x00garbage" * 4096)
    w = RecordWriter(path)
    w.start()
    with caplog.at_level(logging.ERROR, logger="bot.store.writer"):
        for i in range(10):
            assert w.put(MoveRecord("c", i, "white", "e2e4"))
        assert w.flush(10)
    w.close()
    assert w.problem is not None and "damaged" in w.problem and "move it aside" in w.problem
    assert w.status()["dropped"] == 10 and len(caplog.records) == 1
    assert path.read_bytes() == b"\x00garbage" * 4096  # never overwritten


_KILLED_WRITER = """
import sys, time
from bot.store.model import GameStart, MoveRecord
from bot.store.writer import RecordWriter
w = RecordWriter(sys.argv[1])
w.start()
w.put(GameStart(game_id="k", account="pibot", color="white", opponent="rival",
                opponent_title=None, my_rating=None, opponent_rating=None, speed="bullet",
                variant="standard", rated=False, site="https://lichess.org",
                started_at=time.time()))
for ply in range(100000):
    w.put(MoveRecord("k", ply, "white" if ply % 2 == 0 else "black", "e2e4",
                     clock_after_ms=60000 - ply, score_cp=ply))
    print(ply, flush=True)
    time.sleep(0.01)
"""


def test_kill_9_mid_game_keeps_every_move_handed_over(tmp_path: Path) -> None:
    path = tmp_path / "pibot.db"
    proc = subprocess.Popen([sys.executable, "-c", _KILLED_WRITER, str(path)], cwd=ROOT,
                            stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.stdout is not None
    try:
        for text in proc.stdout:
            if int(text) == 40:
                break
        # Moves 0..40 were handed over at least this long before the kill; the
        # process goes on handing over more until the SIGKILL lands mid-stream.
        time.sleep(0.3)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(10)
    assert proc.returncode == -signal.SIGKILL
    conn = db.connect_readonly(path)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    plies = [m.ply for m in queries.moves_of(conn, "k")]
    assert len(plies) > 40 and plies == list(range(len(plies)))  # a whole prefix, no hole
    conn.close()
    # And the service's next start writes on where it stopped.
    w = RecordWriter(path)
    w.start()
    w.put(MoveRecord("k", len(plies), "white", "d2d4"))
    assert w.flush(10) and w.problem is None
    w.close()


def test_a_record_that_breaks_the_writer_is_skipped_not_fatal(
        writer: RecordWriter, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="bot.store.writer"):
        writer.put("not a record")  # type: ignore[arg-type]
        writer.put(MoveRecord("x", 0, "white", object()))  # type: ignore[arg-type]
        writer.put(start("after"))
        assert writer.flush(10)
    assert writer.written == 1 and writer.dropped == 2 and writer.problem is None
    assert queries.game(db.connect_readonly(writer.path), "after") is not None


def _open_together(path: Path, count: int) -> list[str]:
    """db.connect(path) from `count` threads released at the same instant."""
    gate = threading.Barrier(count)
    errors: list[str] = []

    def open_it() -> None:
        gate.wait()
        try:
            db.connect(path).close()
        except sqlite3.Error as exc:
            errors.append(str(exc))

    threads = [threading.Thread(target=open_it) for _ in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def test_connections_opening_an_old_file_at_once_all_get_it(tmp_path: Path) -> None:
    # Switching a rollback-journal file to WAL while another connection does the
    # same can answer "database is locked" at once, without SQLite's busy wait.
    for n in range(30):
        path = tmp_path / f"old{n}.db"
        conn = sqlite3.connect(path, isolation_level=None)
        schema.migrate(conn, target=1)
        conn.close()
        assert _open_together(path, 4) == [], f"file {n}"
        assert schema.version(sqlite3.connect(path)) == schema.VERSION
