"""bot.host.status_file and `pibot status`: round trip, absent/stale/dead, rendering."""

from __future__ import annotations

import datetime as dt
import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.cli import main
from bot.host import status_file as sf

pytestmark = pytest.mark.arm64  # scripts/arm64-check.sh runs these on arm64

NOW = 1_790_000_000.0


def sample(pid: int | None = None, updated: float = NOW) -> sf.ServiceStatus:
    return sf.ServiceStatus(
        schema=sf.SCHEMA, pid=os.getpid() if pid is None else pid, account="pibot",
        url="https://lichess.org", state="accepting", started_at=updated - 3 * 3600 - 125,
        updated_at=updated, period_s=30.0, concurrency=2, free_slots=1,
        games=[sf.GameStatus(id="aBcD1234", opponent="maia1", color="white",
                             time_control="180+2", plies=23, my_clock_ms=151_200,
                             opponent_clock_ms=98_700, eval_cp=84, mate=None, depth=14,
                             latency_ms=41.6)],
        engine=sf.EngineStatus(hash_mb=1024, threads=2, threads_now=2, slots=[
            sf.SlotStatus(slot=0, busy=True, clearing=False, hash_mb=1024, hashfull=123),
            sf.SlotStatus(slot=1, busy=False, clearing=False, hash_mb=1024, hashfull=0)]),
        heat=sf.HeatStatus(temp_c=61.2, throttled=0, flags=[]),
        today=sf.TodayStatus(date="2026-09-21", wins=5, draws=1, losses=2, bot_games=7,
                             bot_limit=100))


def test_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "run" / sf.FILENAME
    s = sample(updated=NOW)
    sf.write(path, s)
    reading = sf.read([path], now=NOW + 10)
    assert reading.problem is None and reading.path == path
    assert reading.status == s
    assert not list(path.parent.glob(".status-*"))  # no temp file left behind


def test_file_is_world_readable_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o077)  # the service's UMask=0077
    try:
        sf.write(tmp_path / sf.FILENAME, sample())
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / sf.FILENAME).stat().st_mode) == 0o644


def test_rewrite_replaces_atomically(tmp_path: Path) -> None:
    path = tmp_path / sf.FILENAME
    sf.write(path, sample(updated=NOW))
    inode = path.stat().st_ino
    sf.write(path, sample(updated=NOW + 30))
    assert path.stat().st_ino != inode  # a new file renamed over the old one
    assert sf.read([path], now=NOW + 31).status["updated_at"] == NOW + 30  # type: ignore[index]


def test_absent_file_means_not_running(tmp_path: Path) -> None:
    reading = sf.read([tmp_path / "a.json", tmp_path / "b.json"])
    assert reading.status is None
    assert reading.problem is not None and reading.problem.startswith("pibot is not running")
    assert "a.json" in reading.problem and "b.json" in reading.problem


def test_stale_file_means_not_responding(tmp_path: Path) -> None:
    path = tmp_path / sf.FILENAME
    sf.write(path, sample(updated=NOW))
    assert sf.read([path], now=NOW + 90).problem is None  # 3 periods of 30 s + slack
    reading = sf.read([path], now=NOW + 600)
    assert reading.problem is not None and "not responding" in reading.problem
    assert "10 min ago" in reading.problem and "every 30 s" in reading.problem
    assert reading.status is not None  # the last known state is still shown


def test_dead_pid_means_not_running(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    dead = int(proc.stdout)
    path = tmp_path / sf.FILENAME
    sf.write(path, sample(pid=dead, updated=NOW))
    reading = sf.read([path], now=NOW + 1)
    assert reading.problem is not None and f"process {dead}" in reading.problem
    assert "is gone" in reading.problem


def test_garbage_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / sf.FILENAME
    path.write_text("{not json")
    reading = sf.read([path])
    assert reading.problem is not None and "is not a pibot status file" in reading.problem


def test_newest_of_several_files_wins(tmp_path: Path) -> None:
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    sf.write(old, sample(updated=NOW - 1000))
    sf.write(new, sample(updated=NOW))
    assert sf.read([old, new], now=NOW).path == new


def test_where_the_file_lives() -> None:
    assert sf.write_dir({"RUNTIME_DIRECTORY": "/run/pibot"}) == Path("/run/pibot")
    assert sf.write_dir({"RUNTIME_DIRECTORY": "/run/a:/run/b"}) == Path("/run/a")
    assert sf.write_dir({"XDG_RUNTIME_DIR": "/run/user/1000"}) == Path("/run/user/1000/pibot")
    assert sf.write_dir({}).name == f"pibot-{os.getuid()}"
    assert sf.candidate_paths(env={})[-1] == Path("/run/pibot/status.json")
    assert sf.candidate_paths("alice", env={}) == [Path("/run/pibot-alice/status.json")]


SAMPLE_RENDERING = """\
pibot accepting as pibot on https://lichess.org (pid {pid}, up 3 h 2 min)
games: 1 of 2, 1 slot(s) free
  aBcD1234  vs maia1 (white, 180+2, ply 23)  clocks 2:31 / 1:38  eval +0.84 depth 14  latency 42 ms
engine: 2 thread(s) per game, table 1024 MiB per slot
  slot 0: in a game, 1024 MiB, 12.3% full
  slot 1: ready, 1024 MiB, 0.0% full
cpu: 61.2 C, not throttled
today (2026-09-21 UTC): 5 won, 1 drawn, 2 lost; 7 of 100 game(s) against bots
updated 4 s ago"""


def test_sample_rendering() -> None:
    s = sample()
    assert "\n".join(sf.render(s, now=NOW + 4)) == SAMPLE_RENDERING.format(pid=os.getpid())


def test_summary_is_one_line() -> None:
    s = sample()
    assert sf.summary(s) == ("accepting, 1 game(s) (vs maia1); 1 free slot(s); "
                             "2 thread(s), 1024 MiB, 12% full; 61.2 C, not throttled; "
                             "today +5 =1 -2")
    s["engine"]["threads_now"] = 1
    s["heat"] = sf.HeatStatus(temp_c=86.0, throttled=0xE000E,
                              flags=["ARM frequency capped", "throttled"])
    line = sf.summary(s)
    assert "1/2 thread(s)" in line and "86.0 C, ARM frequency capped, throttled" in line
    assert "\n" not in line


def test_daily_tally_rolls_over_at_utc_midnight() -> None:
    clock = [dt.datetime(2026, 9, 21, 23, 59, tzinfo=dt.UTC)]
    tally = sf.DailyTally(bot_limit=100, _now=lambda: clock[0])
    tally.game_over("white", "white", opponent_is_bot=True)
    tally.game_over(None, "black", opponent_is_bot=False)
    tally.game_over("white", "black", opponent_is_bot=True)
    assert tally.snapshot() == sf.TodayStatus(date="2026-09-21", wins=1, draws=1, losses=1,
                                              bot_games=2, bot_limit=100)
    clock[0] += dt.timedelta(minutes=2)
    assert tally.snapshot()["date"] == "2026-09-22" and tally.snapshot()["wins"] == 0


def test_cli_status_running_and_not(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / sf.FILENAME
    assert main(["status", "--file", str(path)]) == 3
    err = capsys.readouterr().err
    assert err.startswith("pibot is not running: no status file") and "Traceback" not in err
    sf.write(path, sample(updated=time.time()))
    assert main(["status", "--file", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("pibot accepting as pibot") and "vs maia1" in out
    assert main(["status", "--file", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["games"][0]["id"] == "aBcD1234"
    sf.write(path, sample(updated=time.time() - 3600))
    assert main(["status", "--file", str(path)]) == 3
    err = capsys.readouterr().err
    assert "not responding" in err and "last known state:" in err


def test_status_is_a_registered_command() -> None:
    proc = subprocess.run([sys.executable, "-m", "bot.cli", "--help"], capture_output=True,
                          text=True, check=True)
    assert "status" in proc.stdout


def publish(w: sf.Writer) -> str:
    s = sample()
    return w.publish(sf.Essentials(account=s["account"], url=s["url"], state=s["state"],
                                   concurrency=s["concurrency"], free_slots=s["free_slots"],
                                   games=s["games"], engine=s["engine"], heat=s["heat"],
                                   today=s["today"]))


def test_writer_publishes_and_removes(tmp_path: Path) -> None:
    w = sf.Writer(period_s=30.0, path=tmp_path / "run" / sf.FILENAME)
    line = publish(w)
    assert line.startswith("accepting, 1 game(s) (vs maia1)")
    reading = sf.read([w.path])
    assert reading.problem is None and reading.status is not None
    assert reading.status["pid"] == os.getpid() and reading.status["period_s"] == 30.0
    assert "token" not in json.dumps(reading.status).lower()
    w.close()
    assert not w.path.exists()
    w.close()  # twice is fine
    # A tick still running in a worker thread when the service stopped writes nothing.
    assert publish(w).startswith("accepting")
    assert not w.path.exists()


def test_writer_survives_an_unwritable_directory(tmp_path: Path,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    w = sf.Writer(period_s=5.0, path=blocker / "sub" / sf.FILENAME)  # parent is a file
    assert publish(w).startswith("accepting")
    publish(w)
    warnings = [r for r in caplog.records if "cannot write the status file" in r.message]
    assert len(warnings) == 1  # logged once, not every tick


# -- issue 23: corrupt, foreign and partial files; one instance per file -----------

def _edited(**changes: object) -> str:
    data: dict[str, object] = json.loads(json.dumps(sample(updated=time.time())))
    for key, value in changes.items():
        if value is ...:
            del data[key]
        else:
            data[key] = value
    return json.dumps(data)


@pytest.mark.parametrize("content", [
    b"[]", b"null", b"{}", b"\xff\xfe{}",
    _edited(engine=...).encode(),                      # partial: rendering hit KeyError
    _edited(games=[{"id": "x"}]).encode(),
    _edited(heat={"temp_c": "hot", "throttled": None, "flags": []}).encode(),
    _edited(pid=-1).encode(),                          # would signal a process group
    _edited(pid=10 ** 30).encode(),                    # OverflowError in os.kill
    _edited(updated_at=float("nan")).encode(),
    _edited(started_at=1e300).encode(),
    _edited(schema=99).encode(),                       # a newer (foreign) format
    b"[" * 100_000 + b"]" * 100_000,                   # RecursionError in json
], ids=["list", "null", "empty", "not-utf8", "partial", "game", "heat", "pid-neg",
        "pid-huge", "nan", "huge-time", "schema", "deep"])
def test_a_bad_status_file_is_named_never_a_traceback(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes) -> None:
    path = tmp_path / sf.FILENAME
    path.write_bytes(content)
    assert main(["status", "--file", str(path)]) == 3
    err = capsys.readouterr().err
    assert "is not a pibot status file" in err and "last known state" not in err, err
    assert main(["status", "--file", str(path), "--json"]) == 3


def test_a_directory_or_fifo_as_status_file_is_named(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "dir").mkdir()
    os.mkfifo(tmp_path / "fifo")
    for name in ("dir", "fifo"):
        assert main(["status", "--file", str(tmp_path / name)]) == 3
        assert "is not a pibot status file" in capsys.readouterr().err


def test_one_instance_exit_keeps_another_instance_file(tmp_path: Path) -> None:
    # Old code: close() removed whatever file was there, i.e. the other
    # instance's, and `pibot status` said it was not running.
    path = tmp_path / "run" / sf.FILENAME
    w = sf.Writer(period_s=30.0, path=path)
    publish(w)
    other = sample(pid=os.getppid(), updated=time.time())
    sf.write(path, other)  # a second instance sharing the directory took over
    w.close()
    assert path.exists() and sf.read([path]).status == other


@pytest.mark.parametrize("shape", ["world-writable", "symlink"])
def test_writer_refuses_a_directory_others_control(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, shape: str) -> None:
    d = tmp_path / "run"
    if shape == "world-writable":
        d.mkdir()
        d.chmod(0o777)
    else:
        (tmp_path / "elsewhere").mkdir()
        d.symlink_to(tmp_path / "elsewhere")
    w = sf.Writer(period_s=5.0, path=d / sf.FILENAME)
    publish(w)
    assert not (d / sf.FILENAME).exists()
    assert any("cannot write the status file" in r.message for r in caplog.records)
