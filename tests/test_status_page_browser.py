"""The status page in a real browser: headless Chromium against a real Service
playing the emulator on a (fixture) Pi whose CPU warms up and throttles.

Chromium's --dump-dom gives the page as the browser parsed it (the test checks
the board, the plots, the opponent, the clocks and the results in it) and
--screenshot a picture; PIBOT_UPDATE_SCREENSHOT=1 copies that picture to
docs/status-page.png.  Skipped only where no Chromium binary is installed
(scripts/test.sh installs Debian's `chromium`).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from conftest import ROOT
from test_service_helpers import bot_and_emulator, needs_engine, wait_until

from bot.emulator import OpponentSpec
from bot.store.model import GameEnd, GameStart, HeatSample, MoveRecord
from bot.store.writer import RecordWriter

FIXTURES = Path(__file__).parent / "data" / "machine"
THROTTLE = "sys/bus/platform/drivers/raspberrypi-firmware/firmware/get_throttled"
BROWSERS = ("chromium", "chromium-browser", "chromium-headless-shell", "google-chrome")


def browser() -> str | None:
    return next((b for b in map(shutil.which, BROWSERS) if b), None)


pytestmark = [needs_engine, pytest.mark.skipif(
    browser() is None, reason=f"no Chromium binary ({', '.join(BROWSERS)}) on PATH; "
                              "install Debian's chromium package")]


def chromium(*args: str) -> str:
    exe = browser()
    assert exe is not None
    proc = subprocess.run([exe, "--headless", "--disable-gpu", "--no-sandbox",
                           "--hide-scrollbars", "--window-size=1000,1260", *args],
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "HOME": os.environ.get("HOME", "/tmp")})
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def warm_up(root: Path, stop: threading.Event) -> None:
    """The fixture Pi's CPU: 55 C rising by 1 C a tick, the soft limit hit at 68 C."""
    temp = 55.0
    while not stop.wait(0.3):
        temp = min(temp + 1.0, 74.0)
        (root / "sys/class/thermal/thermal_zone0/temp").write_text(f"{int(temp * 1000)}\n")
        (root / THROTTLE).write_text(("80008" if temp >= 68 else "0") + "\n")


def utc_day() -> str:
    return time.strftime("%Y-%m-%d", time.gmtime())


def seed_records(db: Path, now: float) -> None:
    """Ten weeks of earlier rated games (two speeds) and a week of CPU temperature
    (one sample per 10 minutes, throttled one afternoon) in the records database, as
    the service would have written them: the page's history plots them."""
    w = RecordWriter(db)
    w.start()
    for n in range(7 * 144 - 1, 0, -1):
        hot = 144 * 3 < n < 144 * 3 + 18
        w.put(HeatSample(58.0 + 8 * abs((n % 144) - 72) / 72 + (12 if hot else 0), hot,
                         at=now - n * 600))
    rating = {"bullet": 1500, "blitz": 1600}
    for week in range(10, 0, -1):
        for n, speed in enumerate(("bullet", "blitz", "bullet")):
            gid = f"old{week:02d}{n}"
            t = now - week * 7 * 86400 + n * 3600
            ini = 60_000 if speed == "bullet" else 180_000
            w.put(GameStart(gid, "pibot", "white", f"rival{(week + n) % 4}", "BOT",
                            rating[speed], 1550, speed, "standard", True,
                            "http://127.0.0.1", t, clock_initial_ms=ini,
                            clock_increment_ms=0))
            for ply, (uci, depth) in enumerate((("e2e4", 12), ("e7e5", None),
                                                ("g1f3", 14))):
                w.put(MoveRecord(gid, ply, "white" if ply % 2 == 0 else "black", uci,
                                 depth=depth, nodes=depth and depth * 40_000,
                                 think_ms=depth and 500, source=depth and "engine"))
            winner = "white" if (week + n) % 3 else "black"
            rating[speed] += 12 if winner == "white" else -9
            w.put(GameEnd(gid, "resign", winner, ended_at=t + 300,
                          my_rating_after=rating[speed]))
    assert w.flush(20)
    w.close()


def test_status_page_in_headless_chromium(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    seed_records(tmp_path / "pibot.db", time.time())
    root = tmp_path / "pi"
    shutil.copytree(FIXTURES / "pi5-8gb", root)
    monkeypatch.setenv("PIBOT_MACHINE_ROOT", str(root))
    stop = threading.Event()
    heater = threading.Thread(target=warm_up, args=(root, stop), daemon=True)
    heater.start()
    try:
        with bot_and_emulator(tmp_path, status_page={"listen": "127.0.0.1:0"},
                              challenge={"concurrency": 2}) as (emu, bot):
            assert bot.service is not None and bot.service.page is not None
            host, port = bot.service.page.address
            url = f"http://{host}:{port}/"
            day_before = utc_day()
            # A finished game (the opponent resigns) for the results and recent games...
            first = emu.challenge_bot(challenger="bob", rated=False, clock_limit_s=60,
                                      increment_s=0, color="white",
                                      opponent=OpponentSpec(policy="random", think_time_s=0.05,
                                                            resign_after=3, seed=2))
            emu.wait_game_started(first, 10)
            over = emu.wait_game_over(first, 60)
            assert over.winner == over.bot_color, over.status
            # ...and one in progress: the opponent plays a quiet set-up (pibot can mate a
            # random one within 8 moves) and stops after 8 moves, so the page holds still
            # (its clock runs down 60 s) while the browser looks.
            setup = ["e2e3", "g1f3", "f1e2", "e1g1", "d2d4", "b1d2", "c2c3", "h2h3"]
            gid = emu.challenge_bot(challenger="carol", rated=False, clock_limit_s=60,
                                    increment_s=0, color="white",
                                    opponent=OpponentSpec(policy="scripted", moves=setup,
                                                          think_time_s=0.2, stall_after=8,
                                                          seed=4))
            emu.wait_game_started(gid, 10)

            def page_data() -> dict:  # type: ignore[type-arg]
                with urllib.request.urlopen(url + "status.json", timeout=5) as r:
                    return json.load(r)  # type: ignore[no-any-return]

            def ready() -> bool:
                d = page_data()
                games = {g["id"]: g for g in d["games"]}
                return gid in games and len(games[gid]["evals"]) >= 8 \
                    and len(d["recent"]) == 1 and len(d["heat"]) >= 12 \
                    and gid in d["boards"] and d["records"] is not None \
                    and first in [g["id"] for g in d["records"]["games"]]

            assert wait_until(ready, 40, step=0.3), page_data()
            dom = chromium("--dump-dom", url)
            shot = tmp_path / "status-page.png"
            chromium(f"--screenshot={shot}", url)
            long_shot = tmp_path / "status-page-history.png"
            chromium(f"--screenshot={long_shot}", "--window-size=1000,2400", url)
            data = page_data()
            day_after = utc_day()
    finally:
        stop.set()
        heater.join()
    # The DOM as Chromium parsed it: a board, the plots, the game's data.
    card = dom[dom.index(f'id="game-{gid}"'):dom.index("<h2>Machine</h2>")]
    assert '<div class="board"><svg' in card and card.count('class="square') >= 64
    assert "carol" in card and "bob" in dom[dom.index("Recent games"):]
    (eval_line,) = re.findall(r'class="eval-line" points="([^"]+)"', card)
    assert len(eval_line.split()) >= 8
    assert re.search(r'class="latency-line" points="[^"]+ [^"]+"', card)
    clocks = re.findall(r'<span class="clock">(\d+:\d\d)</span>', card)
    assert len(clocks) == 2 and all(c <= "1:00" for c in clocks), clocks
    assert re.search(r'class="heat-line" points="[^"]+ [^"]+ [^"]+"', dom)
    assert 'class="throttled"' in dom and "soft temperature limit" in dom
    rows = {name: (day, counts) for name, day, counts in re.findall(
        r'<tr class="(today|week)"><th>(?:today \((\S+) UTC\))?[^<]*</th>'
        r'(<td>\d+</td><td>\d+</td><td>\d+</td>)', dom)}
    won, none = "<td>1</td><td>0</td><td>0</td>", "<td>0</td><td>0</td><td>0</td>"
    # Today's and this week's tallies roll over at midnight UTC (the week's on a
    # Monday): the win counts in both unless the page was drawn on a later day than
    # the game began, when it may have ended on either side of midnight.
    day = rows["today"][0]
    assert day in (day_before, day_after), (day, day_before, day_after)
    for name in ("today", "week"):
        assert rows[name][1] == won or (day != day_before and rows[name][1] == none), rows
    game = next(g for g in data["service"]["games"] if g["id"] == gid)
    assert game["opponent"] == "carol" and game["depth"] is not None
    # Each eval sits at the ply after one of our moves (odd plies for white).
    plies = [p for p, _ in next(g for g in data["games"] if g["id"] == gid)["evals"]]
    assert plies == sorted(set(plies))
    assert {p % 2 for p in plies} == {1 if game["color"] == "white" else 0}, plies
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20_000  # a picture, not blank
    # The history from the records database: earlier weeks' ratings, results, the
    # game just played (bob) with its mean depth and nodes per second.
    hist = dom[dom.index("<h2>History"):]
    lines = re.findall(r'class="rating-line" data-speed="(\w+)"[^>]*points="([^"]+)"', hist)
    assert {s for s, _ in lines} == {"bullet", "blitz"}
    assert all(len(pts.split()) >= 10 for _, pts in lines), lines
    assert "rival0" in hist[hist.index('id="per-opponent"'):]
    assert "60+0" in hist[hist.index('id="per-time-control"'):]  # bob's 60+0 game, and...
    assert "180+0" in hist[hist.index('id="per-time-control"'):]  # ...the seeded blitz
    row = hist[hist.index(f"<th>{first}</th>"):]
    row = row[:row.index("</tr>")]
    assert "bob" in row and "win" in row
    depth, nps = re.findall(r"<td>([\d.]+|-)</td>", row)[-2:]
    assert float(depth) > 0 and int(nps) > 0, row
    assert data["records"]["per_week"], data["records"]
    # The week of temperature, above the results per week, its throttled afternoon red.
    week = hist[hist.index('class="plot heat-week-plot"'):hist.index('id="per-week"')]
    assert re.search(r'class="heat-line heat-week-line" points="[^"]+ [^"]+ [^"]+"', week)
    assert week.count('class="throttled"') == 1, week
    if os.environ.get("PIBOT_UPDATE_SCREENSHOT") == "1":
        shutil.copyfile(shot, ROOT / "docs" / "status-page.png")
        shutil.copyfile(long_shot, ROOT / "docs" / "status-page-history.png")
