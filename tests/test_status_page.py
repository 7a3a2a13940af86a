"""The status page (bot/host/status_page.py) and its history (bot/host/status_history.py):
config validation, bounded history, results today/this week, the page over real
HTTP (escaping, read-only, no external assets), a taken port as one error line."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import re
import socket
import types
import urllib.error
import urllib.request

import pytest
from test_status import sample

from bot.config import parse_config
from bot.errors import UserError
from bot.host.status_history import MAX_HEAT_POINTS, RECENT_GAMES, Board, History
from bot.host.status_page import StatusPage, render
from bot.lichess.token import Token
from bot.service import Service

MONDAY = dt.datetime(2026, 9, 21, 12, 0, tzinfo=dt.UTC).timestamp()  # a Monday, noon UTC
START = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"


class Clock:
    def __init__(self, t: float) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def result(cp: int | None, mate: int | None = None) -> types.SimpleNamespace:
    return types.SimpleNamespace(score_cp=cp, mate=mate)


# -- config -------------------------------------------------------------------------

def test_listen_is_off_by_default_and_validated() -> None:
    assert parse_config({}).status_page.listen is None
    assert parse_config({"status_page": {"listen": "127.0.0.1:8080"}}).status_page.listen \
        == "127.0.0.1:8080"
    assert parse_config({"status_page": {"listen": ""}}).status_page.listen == ""  # off
    for bad, words in [("127.0.0.1", "has no port"), ("127.0.0.1:http", "port must be"),
                       ("0.0.0.0:70000", "port must be")]:
        with pytest.raises(UserError) as info:
            parse_config({"status_page": {"listen": bad}})
        msg = str(info.value)
        assert "status_page.listen" in msg and words in msg and "\n" not in msg, msg


def test_a_taken_port_is_one_error_line_before_connecting() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        # Nothing listens on the url: the error comes before any connection attempt.
        cfg = parse_config({"url": "http://127.0.0.1:9", "pgn_directory": None,
                            "engine": {"hash_mb": 8, "threads": 1},
                            "status_page": {"listen": f"127.0.0.1:{port}"}})
        service = Service(cfg, Token("lip_x", "test"), handle_signals=False)
        with pytest.raises(UserError) as info:
            asyncio.run(asyncio.wait_for(service.run(), 10))
    msg = str(info.value)
    assert f"cannot listen on 127.0.0.1:{port}" in msg and "\n" not in msg, msg
    assert "Address already in use" in msg


# -- history ------------------------------------------------------------------------

def test_temperature_history_is_bounded_and_spans_a_day() -> None:
    clock = Clock(MONDAY)
    h = History(now=clock)
    s = sample()
    for i in range(4 * MAX_HEAT_POINTS):  # two days at one sample a minute... and more
        clock.t += 45
        s["heat"] = {"temp_c": 40.0 + i % 30, "throttled": 0x8 if i == 4000 else 0, "flags": []}
        h.tick(s, {})
    heat = h.snapshot()["heat"]
    assert len(heat) <= MAX_HEAT_POINTS
    assert heat[-1]["t"] == clock.t  # the newest sample is kept as is
    assert clock.t - heat[0]["t"] <= 24 * 3600 and clock.t - heat[0]["t"] > 23 * 3600
    assert max(p["temp_c"] for p in heat) == 69.0  # thinning keeps the peaks
    assert any(p["throttled"] for p in heat)  # ...and a throttle flag a merge swallowed


def test_evals_latency_and_results_today_and_this_week() -> None:
    clock = Clock(MONDAY - 86400)  # Sunday: last week
    h = History(now=clock)
    h.finished("g0", "old", "white", "mate", "white")
    clock.t = MONDAY - 3600 * 6  # Monday 06:00
    h.finished("g1", "ann", "black", "resign", "white")
    clock.t = MONDAY + 86400  # Tuesday
    s = sample()
    h.tick(s, {"aBcD1234": Board(fen=START, last_move="e2e4", orientation="white")})
    book = result(30)
    h.moved("aBcD1234", 1, book)
    h.moved("aBcD1234", 3, book)  # a book move after it: no second point
    h.moved("aBcD1234", 7, result(80))
    h.moved("aBcD1234", 5, result(None, mate=3))  # after a takeback: ply 7 is gone
    h.latency("aBcD1234", 41.26)
    h.finished("g2", "bob", "white", "draw", None)
    h.finished("g3", "cat", "white", "aborted", None)  # no result
    snap = h.snapshot()
    (game,) = snap["games"]
    assert game["evals"] == [[1, 30], [5, 10000]] and game["latency_ms"] == [41.3]
    assert game["opponent"] == "maia1" and snap["boards"]["aBcD1234"]["last_move"] == "e2e4"
    assert snap["results"]["today"] == {"wins": 0, "draws": 1, "losses": 0}
    assert snap["results"]["week"] == {"wins": 0, "draws": 1, "losses": 1}
    assert [g["id"] for g in snap["recent"]] == ["g3", "g2", "g1", "g0"]
    for i in range(10):
        h.finished(f"x{i}", "z", "white", "mate", "white")
    assert len(h.snapshot()["recent"]) == RECENT_GAMES


# -- the page over HTTP ---------------------------------------------------------------

def _get(url: str) -> tuple[int, str, dict[str, str]]:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.status, r.read().decode(), dict(r.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode(), dict(exc.headers)


def test_page_and_json_over_http_escaped_read_only_self_contained() -> None:
    h = History()
    s = sample()
    s["games"][0]["opponent"] = '<script>alert("x")</script>'
    s["games"][0]["strength"] = "1450"  # the game's level (issue 47)
    h.tick(s, {"aBcD1234": Board(fen=START, last_move="e2e4", orientation="black")})
    h.moved("aBcD1234", 1, result(-20))
    h.moved("aBcD1234", 3, result(45))
    page = StatusPage("127.0.0.1:0", h)
    page.start()
    try:
        host, port = page.address
        base = f"http://{host}:{port}"
        code, text, headers = _get(base + "/")
        assert code == 200 and headers["Content-Type"].startswith("text/html")
        assert "default-src 'none'" in headers["Content-Security-Policy"]
        assert "<script" not in text and "&lt;script&gt;alert(&quot;x&quot;)" in text
        assert not re.search(r'(src|href)="(https?:)?//', text)  # nothing fetched
        assert 'class="eval-line"' in text and "<svg" in text and "2:31" in text
        assert "<th>level</th><td>1450</td>" in text
        code, body, _ = _get(base + "/status.json")
        data = json.loads(body)
        assert data["service"]["games"][0]["opponent"] == '<script>alert("x")</script>'
        assert data["games"][0]["evals"] == [[1, -20], [3, 45]]
        assert _get(base + "/admin")[0] == 404
        req = urllib.request.Request(base + "/", data=b"x", method="POST")
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(req, timeout=5)
        assert info.value.code == 405
    finally:
        page.stop()


def test_page_before_the_first_tick() -> None:
    assert "starting" in render(History().snapshot())


def test_the_history_from_the_records_database_is_escaped_and_counted(tmp_path) -> None:  # noqa: ANN001
    import time as _time

    from bot.store import db as store_db
    from bot.store.model import GameEnd, GameStart, MoveRecord
    from bot.store.overview import overview
    from bot.store.writer import RecordWriter

    now = _time.time()
    w = RecordWriter(tmp_path / "pibot.db")
    w.start()
    for n, (who, winner) in enumerate((("<b>x</b>", "white"), ("<b>x</b>", None),
                                       ("amy", "black"))):
        gid = f"g{n}"
        w.put(GameStart(gid, "pibot", "white", who, None, 1500, 1500, "blitz", "standard",
                        True, "https://lichess.org", now - 3600 * (3 - n),
                        clock_initial_ms=180_000, clock_increment_ms=2_000))
        w.put(MoveRecord(gid, 0, "white", "e2e4", depth=10, nodes=50_000, think_ms=100,
                         source="engine"))
        w.put(MoveRecord(gid, 1, "black", "e7e5", depth=30, nodes=10**9, think_ms=1))
        w.put(GameEnd(gid, "resign", winner, ended_at=now - 3600 * (3 - n) + 60,
                      my_rating_after=1500 + n))
    assert w.flush(10)
    w.close()
    conn = store_db.connect_readonly(tmp_path / "pibot.db")
    try:
        data = overview(conn, now)
    finally:
        conn.close()
    assert dict(data["per_time_control"])["180+2"] == {"wins": 1, "draws": 1, "losses": 1}
    assert tuple(data["per_opponent"][0]) == ("<b>x</b>", {"wins": 1, "draws": 1, "losses": 0})
    # Only our engine moves count: depth 10, 50k nodes in 100 ms.
    assert {(g["mean_depth"], g["nps"]) for g in data["games"]} == {(10.0, 500_000)}
    assert [p[1] for p in data["rating"]["blitz"]][-1] == 1502
    snap = History().snapshot()
    snap["service"] = sample()
    snap["records"] = json.loads(json.dumps(data))  # as the page's JSON would carry it
    page = render(snap)
    assert "<b>x</b>" not in page and "&lt;b&gt;x&lt;/b&gt;" in page
    assert 'class="rating-line" data-speed="blitz"' in page


def test_a_week_of_temperature_from_the_records_database_with_throttled_stretches(
        tmp_path) -> None:  # noqa: ANN001
    from bot.store import db as store_db
    from bot.store.model import HeatSample
    from bot.store.overview import overview
    from bot.store.writer import RecordWriter

    now = MONDAY
    w = RecordWriter(tmp_path / "pibot.db")
    w.start()
    w.put(HeatSample(99.0, True, at=now - 9 * 86400))  # older than a week: not shown
    throttled = set(range(300, 312)) | {700}  # two stretches: two hours, ten minutes
    down = range(500, 536)                    # six hours with the service stopped
    for n in range(7 * 144):
        if n in down:
            continue
        w.put(HeatSample(60.0 + (n % 144) / 10 + (20 if n in throttled else 0),
                         n in throttled, at=now - 7 * 86400 + (n + 1) * 600 - 3))
    assert w.flush(30) and w.problem is None
    w.close()
    conn = store_db.connect_readonly(tmp_path / "pibot.db")
    try:
        data = overview(conn, now)
    finally:
        conn.close()
    assert len(data["heat"]) == 7 * 144 - len(down)
    hist = History(Clock(now))
    hist.set_records(json.loads(json.dumps(data)))  # plain values, as the service hands them
    snap = hist.snapshot()
    snap["service"] = sample()
    page = render(snap, now)
    week = re.search(r'<svg class="plot heat-week-plot".*?</svg>', page)
    assert week is not None, page
    plot = week.group(0)
    assert "last 7 days" in plot
    bands = re.findall(r'<rect class="throttled" x="([\d.]+)" y="1" width="([\d.]+)"', plot)
    assert len(bands) == 2  # each stretch one band
    (x1, w1), (x2, w2) = ((float(a), float(b)) for a, b in bands)
    assert x1 < x2 and w1 > 4 * w2  # two hours against ten minutes (1.5 px at least)
    # The line breaks where the service was down: two polylines.
    assert plot.count('class="heat-line heat-week-line"') == 2
    # Above the results-per-week table, in the records' section.
    assert page.index("heat-week-plot") < page.index('id="per-week"')
    assert "<script" not in page and "http://" not in plot.replace(
        'xmlns="http://www.w3.org/2000/svg"', "")


def test_the_week_plot_without_samples_says_so() -> None:
    from bot.host.status_page import heat_week_plot

    assert "no temperature recorded yet" in heat_week_plot([], MONDAY)
    one = heat_week_plot([[MONDAY - 600, 55.5, 0]], MONDAY)
    assert "heat-week-line" in one and 'class="throttled"' not in one
