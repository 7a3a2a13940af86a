"""`pibot history` and `pibot export` (issue 35): read-only views of the records
database; a missing database or a bad date is one line, never a traceback."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path

import chess.pgn
import pytest
from test_robustness_cli import _pibot
from test_store import OPENING, play

from bot.store.writer import RecordWriter

DAY = 86400.0


@pytest.fixture
def records(tmp_path: Path) -> Path:
    """Three weeks of games: 12 in all, two speeds, three opponents, one aborted."""
    now = time.time()
    w = RecordWriter(tmp_path / "pibot.db")
    w.start()
    for i in range(12):
        play(w, f"game{i:04d}", OPENING, winner=("white", "black", None)[i % 3],
             status=("mate", "resign", "draw")[i % 3], at=now - (i * 2 + 0.5) * DAY,
             opponent=("alpha", "beta", "gamma")[i % 3 if i < 9 else 0],
             speed=("blitz", "bullet")[i % 2], after=1500 + 10 * (12 - i))
    play(w, "aborted1", OPENING[:1], winner=None, status="aborted", at=now - DAY)
    assert w.flush(20)
    w.close()
    return tmp_path / "pibot.db"


def test_history_json_counts_speeds_opponents_and_rating(records: Path) -> None:
    r = _pibot("history", "--db", str(records), "--json", "--period", "day")
    assert r.returncode == 0, r.stderr
    h = json.loads(r.stdout)
    assert h["total"] == {"games": 12, "wins": 4, "draws": 4, "losses": 4, "score": 0.5}
    assert h["by_speed"]["blitz"]["games"] == h["by_speed"]["bullet"]["games"] == 6
    assert h["by_opponent"]["alpha"]["games"] == 6 and h["by_opponent"]["gamma"]["draws"] == 3
    assert sum(t["games"] for t in h["by_period"].values()) == 12
    blitz = [p["rating"] for p in h["rating"]["blitz"]]
    assert blitz == sorted(blitz) and blitz[-1] == 1620  # oldest first, rising
    assert h["database"] == str(records)


def test_history_text_and_period_filters(records: Path) -> None:
    r = _pibot("history", "--db", str(records))
    assert r.returncode == 0, r.stderr
    assert "12 game(s), +4 =4 -4 (50.0%)" in r.stdout
    assert "by speed:" in r.stdout and "by week:" in r.stdout and "alpha" in r.stdout
    assert "rating (rated games):" in r.stdout
    today = time.strftime("%Y-%m-%d", time.gmtime())
    last_week = time.strftime("%Y-%m-%d", time.gmtime(time.time() - 7 * DAY))
    r = _pibot("history", "--db", str(records), "--json", "--since", last_week, "--until", today)
    assert r.returncode == 0, r.stderr
    assert 3 <= json.loads(r.stdout)["total"]["games"] <= 4


def test_export_writes_one_pgn_with_eval_and_clock_on_every_move(records: Path,
                                                                 tmp_path: Path) -> None:
    out = tmp_path / "out.pgn"
    since = time.strftime("%Y-%m-%d", time.gmtime(time.time() - 9 * DAY))  # 9 to 10 days
    r = _pibot("export", "--db", str(records), "--since", since, "--out", str(out))
    assert r.returncode == 0, r.stderr
    stream = io.StringIO(out.read_text())
    games = []
    while (g := chess.pgn.read_game(stream)) is not None:
        games.append(g)
    # Games that started since then: the aborted one too (its PGN says Abandoned).
    assert len(games) == 6 and f"{len(games)} game(s) exported" in r.stderr
    assert [g.headers["Site"].rsplit("/", 1)[1] for g in games][0] == "game0004"
    for g in games:
        nodes = list(g.mainline())
        assert nodes and all(n.eval() is not None and n.clock() is not None for n in nodes)
    assert games[-2].headers["Termination"] == "Abandoned"
    r = _pibot("export", "--db", str(records), "--since", since)
    assert r.stdout.count("[Event ") == 6


@pytest.mark.parametrize(("args", "wanted"), [
    (["history", "--since", "yesterday"], "--since 'yesterday' is not a date"),
    (["export", "--since", "2026-02-30"], "--since '2026-02-30' is not a date"),
    (["history", "--since", "2026-05-01", "--until", "2026-04-01"], "swap them"),
])
def test_bad_dates_are_one_line(records: Path, args: list[str], wanted: str) -> None:
    r = _pibot(*args, "--db", str(records))
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.strip().count("\n") == 0 and wanted in r.stderr


def test_a_missing_or_broken_database_is_one_line(tmp_path: Path) -> None:
    r = _pibot("history", "--db", str(tmp_path / "nothing.db"))
    assert r.returncode == 2 and "does not exist" in r.stderr and "Traceback" not in r.stderr
    broken = tmp_path / "broken.db"
    broken.write_bytes(b"garbage" * 1000)
    r = _pibot("export", "--since", "2026-01-01", "--db", str(broken))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "cannot read" in r.stderr
    # No --db: the config's records.db, looked for in the current directory (and
    # the state directories, which this machine lacks).
    cfg = tmp_path / "c.yml"
    cfg.write_text("records:\n  db: other.db\n")
    r = _pibot("history", "--config", str(cfg), cwd=tmp_path)
    assert r.returncode == 2 and "no records database found" in r.stderr
    assert str(tmp_path / "other.db") in r.stderr
    cfg.write_text("records:\n  db: null\n")
    r = _pibot("history", "--config", str(cfg), cwd=tmp_path)
    assert r.returncode == 2 and "records are off" in r.stderr


def test_history_reads_the_configured_database_without_writing_it(records: Path) -> None:
    cfg = records.parent / "config.yml"
    cfg.write_text("records:\n  db: pibot.db\n")
    before = {p.name: p.stat().st_mtime_ns for p in records.parent.iterdir()}
    r = _pibot("history", "--json", cwd=records.parent)  # ./config.yml, ./pibot.db
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["total"]["games"] == 12
    assert {p.name: p.stat().st_mtime_ns for p in records.parent.iterdir()} == before


def test_check_reports_the_records_database_and_alerts(records: Path) -> None:
    cfg = records.parent / "c.yml"
    cfg.write_text("url: http://127.0.0.1:9\nrecords:\n  db: pibot.db\n"
                   "alerts:\n  url: https://owner:pw123456@ntfy.sh/topic?auth=abcdefgh\n")
    r = _pibot("check", "--config", str(cfg), "--json", cwd=records.parent, timeout=120)
    texts = {f["text"]: f["level"] for f in json.loads(r.stdout)["findings"]}
    assert texts[f"records database {records} is readable and writable"] == "ok"
    assert texts["alerts go to https://ntfy.sh/topic"] == "ok"
    assert "pw123456" not in r.stdout and "abcdefgh" not in r.stdout
    records.write_bytes(b"damaged" * 1000)
    r = _pibot("check", "--config", str(cfg), "--json", cwd=records.parent, timeout=120)
    bad = [f["text"] for f in json.loads(r.stdout)["findings"] if f["level"] == "problem"]
    assert any(t.startswith(f"records database {records} cannot be read") and
               "move it aside" in t for t in bad), bad


def test_history_sums_up_the_levels_and_export_tags_them(tmp_path: Path) -> None:
    """Issue 47: results per level, so the owner sees how humans score against
    `match`; every exported PGN says the level (BotStrength)."""
    import dataclasses

    from test_store import start

    from bot.store.model import GameEnd

    now = time.time()
    w = RecordWriter(tmp_path / "pibot.db")
    w.start()
    games = [("h1", None, "1400", "match", "black"), ("h2", None, "1600", "match", "white"),
             ("h3", None, "1500", "match", None), ("h4", None, "1500", "fallback", "white"),
             ("b1", "BOT", "full", "full", "white")]
    for i, (gid, title, level, rule, winner) in enumerate(games):
        at = now - DAY + i * 600
        w.put(dataclasses.replace(start(gid, title=title, at=at, opponent=f"p{i}"),
                                  strength=level, strength_rule=rule))
        w.put(GameEnd(gid, "resign" if winner else "draw", winner, ended_at=at + 100))
    play(w, "old1", OPENING, at=now - DAY / 2)  # before levels were recorded: no row
    assert w.flush(20)
    w.close()
    db = tmp_path / "pibot.db"
    r = _pibot("history", "--db", str(db), "--json")
    assert r.returncode == 0, r.stderr
    levels = json.loads(r.stdout)["by_level"]
    # We play white: the humans won h1, lost h2 and drew h3 against match.
    assert levels["humans: match"] == {"games": 3, "wins": 1, "draws": 1, "losses": 1,
                                       "score": 0.5, "lowest": 1400, "highest": 1600}
    assert levels["humans: fallback"]["games"] == 1
    assert levels["bots: full"] == {"games": 1, "wins": 1, "draws": 0, "losses": 0,
                                    "score": 1.0, "lowest": None, "highest": None}
    r = _pibot("history", "--db", str(db))
    assert "humans: match" in r.stdout and "level 1400..1600; they score 50.0%" in r.stdout
    out = tmp_path / "out.pgn"
    since = time.strftime("%Y-%m-%d", time.gmtime(now - 2 * DAY))
    r = _pibot("export", "--db", str(db), "--since", since, "--out", str(out))
    assert r.returncode == 0, r.stderr
    tags = [line for line in out.read_text().splitlines() if line.startswith("[BotStrength")]
    assert tags == ['[BotStrength "1400"]', '[BotStrength "1600"]', '[BotStrength "1500"]',
                    '[BotStrength "1500"]', '[BotStrength "full"]']
