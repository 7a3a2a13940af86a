"""Issue 12 wired into the running service (real Service, real emulator, real
engine): warm tables from the engine pool, the status file and `pibot status`,
the STATUS= line on a real notify socket, heat from a fixture machine."""

from __future__ import annotations

import json
import logging
import os
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
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
from bot.service import Service

pytestmark = needs_engine
FIXTURES = Path(__file__).parent / "data" / "machine"


def _svc(bot: Any) -> Service:
    assert bot.service is not None
    return bot.service


def _slot0_ready(svc: Service) -> bool:
    assert svc.pool is not None
    s = svc.pool.info()[0]
    return s.hash_mb is not None and not s.busy and not s.clearing


def _engine_of(svc: Service, gid: str) -> Any:
    runner = svc.supervisor.runners.get(gid)
    if runner is None or runner.thinker is None:
        return None
    return runner.thinker.engine


def _play_one_move(emu: Any, name: str, **spec: Any) -> str:
    cid = emu.challenge_bot(challenger=name, rated=False, clock_limit_s=180, increment_s=0,
                            color="black", opponent=OpponentSpec(**spec))
    gid = emu.wait_game_started(cid, 15)
    assert wait_until(lambda: len(emu.game(gid).moves) >= 1, 30), "the bot never moved"
    return gid


def test_tables_are_warm_and_reused_between_games(tmp_path: Path) -> None:
    with bot_and_emulator(tmp_path, engine={"hash_mb": 64}) as (emu, bot):
        svc = _svc(bot)
        # Warmed at start-up: the first game does not pay for creating the table either.
        assert wait_until(lambda: _slot0_ready(svc), 30), svc.pool and svc.pool.info()
        g1 = _play_one_move(emu, "first", think_time_s=30)
        first = _engine_of(svc, g1)
        assert first is not None and svc.pool is not None
        assert svc.pool.slot_of(first) == 0
        emu.opponent_action(g1, "resign")
        emu.wait_game_over(g1, 15)
        # Game over: the engine is back and its table is cleared in the background,
        # before any next game exists -- not on that game's clock.
        assert wait_until(lambda: not svc.supervisor.games and _slot0_ready(svc), 30), \
            svc.pool.info()
        assert svc.pool.info()[0].last_clear_s is not None
        g2 = _play_one_move(emu, "second", think_time_s=30)
        assert _engine_of(svc, g2) is first  # the same warm engine, not a new one
        emu.opponent_action(g2, "resign")
        emu.wait_game_over(g2, 15)


def test_two_concurrent_games_never_share_a_table(tmp_path: Path) -> None:
    with bot_and_emulator(tmp_path, challenge={"concurrency": 2}) as (emu, bot):
        svc = _svc(bot)
        gids = [_play_one_move(emu, name, think_time_s=30) for name in ("ann", "bob")]
        engines = [_engine_of(svc, g) for g in gids]
        assert engines[0] is not None and engines[1] is not None
        assert engines[0] is not engines[1]
        assert svc.pool is not None
        assert {svc.pool.slot_of(e) for e in engines} == {0, 1}
        for g in gids:
            emu.opponent_action(g, "resign")


def _pibot_status(*args: str) -> subprocess.CompletedProcess[str]:
    exe = [sys.executable, "-m", "bot.cli", "status", *args]
    return subprocess.run(exe, capture_output=True, text=True, timeout=60, env=dict(os.environ))


def test_pibot_status_shows_the_running_game_then_says_not_running(tmp_path: Path) -> None:
    status_path = Path(os.environ["RUNTIME_DIRECTORY"]) / "status.json"
    with bot_and_emulator(tmp_path) as (emu, bot):
        gid = _play_one_move(emu, "carol", think_time_s=30)

        def shows_game() -> bool:
            try:
                data = json.loads(status_path.read_text())
            except (OSError, ValueError):
                return False
            return any(g["id"] == gid and g["depth"] is not None for g in data["games"])

        assert wait_until(shows_game, 15), status_path
        # The real CLI, finding the file through $RUNTIME_DIRECTORY as on the Pi.
        out = _pibot_status()
        assert out.returncode == 0, out.stderr
        assert f"{gid}  vs carol (white, 180+0" in out.stdout, out.stdout
        assert "slot 0: in a game" in out.stdout, out.stdout
        by_file = _pibot_status("--file", str(status_path), "--json")
        assert by_file.returncode == 0
        assert json.loads(by_file.stdout)["games"][0]["opponent"] == "carol"
        emu.opponent_action(gid, "resign")
        emu.wait_game_over(gid, 15)
        assert wait_until(lambda: '"wins":1' in status_path.read_text(), 15)
    # Stopped: the file is gone, and `pibot status` says so plainly.
    assert not status_path.exists()
    out = _pibot_status()
    assert out.returncode == 3
    assert out.stderr.startswith("pibot is not running"), out.stderr
    assert "Traceback" not in out.stderr


def test_status_summary_reaches_the_notify_socket(tmp_path: Path,
                                                  notify: socket.socket) -> None:
    got: list[str] = []
    done = threading.Event()

    def listen() -> None:  # as systemd does: read every datagram as it comes
        while not done.is_set():
            try:
                got.append(notify.recv(4096).decode())
            except TimeoutError:
                continue

    reader = threading.Thread(target=listen, daemon=True)
    reader.start()
    try:
        with bot_and_emulator(tmp_path) as (emu, _bot):
            _play_one_move(emu, "dave", think_time_s=30)
            assert wait_until(lambda: any("1 game(s) (vs dave)" in m for m in got), 15), got
            lines = [m for m in got if m.startswith("STATUS=accepting")]
            assert any("1 game(s) (vs dave); 0 free slot(s); 1 thread(s), 8 MiB" in m
                       for m in lines), got
    finally:
        done.set()
        reader.join(5)
        notify.close()


def test_hot_machine_logs_throttling_and_searches_with_fewer_threads(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    root = tmp_path / "machine"
    shutil.copytree(FIXTURES / "pi5-8gb-hot", root)  # 82.4 C, soft temperature limit
    monkeypatch.setenv("PIBOT_MACHINE_ROOT", str(root))
    caplog.set_level(logging.INFO)
    with bot_and_emulator(tmp_path, engine={"threads": 2, "thermal_limit_c": 80}) as (emu, bot):
        svc = _svc(bot)
        assert wait_until(lambda: svc.shared.heat.threads_now == 1, 10)
        gid = _play_one_move(emu, "erin", think_time_s=30)
        thinker = svc.supervisor.runners[gid].thinker
        assert thinker is not None
        assert thinker._threads == 1  # what the game's search was given
        assert "searching with 1 thread(s) instead of 2" in caplog.text
        assert "slowed down" in caplog.text
        summary = svc.watchdog.summary
        assert "82.4 C" in summary and "1/2 thread(s)" in summary, summary
        emu.opponent_action(gid, "resign")


def test_sighup_resizes_the_pool_without_touching_the_running_game(tmp_path: Path) -> None:
    with bot_and_emulator(tmp_path) as (emu, bot):
        svc = _svc(bot)
        assert svc.pool is not None and svc.pool.size == 1
        gid = _play_one_move(emu, "fred", think_time_s=30)
        engine = _engine_of(svc, gid)
        conf = tmp_path / "config.yml"
        conf.write_text(json.dumps({  # JSON is YAML
            "url": emu.url, "pgn_directory": None, "network": FAST_NETWORK,
            "engine": {"hash_mb": 16, "threads": 1},
            "challenge": {"concurrency": 2, "time_controls": ["bullet", "blitz", "rapid"]}}))
        svc.config_path = str(conf)
        bot.call(svc.reload)
        pool = svc.pool
        assert wait_until(lambda: pool.size == 2 and pool.info()[1].hash_mb == 16
                          and not pool.info()[1].clearing, 30), pool.info()
        assert pool.info()[0].busy and pool.info()[0].hash_mb == 8  # the game's own table
        assert _engine_of(svc, gid) is engine
        g2 = _play_one_move(emu, "gina", think_time_s=30)  # the second slot takes it
        assert pool.slot_of(_engine_of(svc, g2)) == 1
        emu.opponent_action(gid, "resign")
        assert wait_until(lambda: pool.info()[0].hash_mb == 16 and not pool.info()[0].busy
                          and not pool.info()[0].clearing, 30), pool.info()
        emu.opponent_action(g2, "resign")


def test_games_beyond_the_slots_get_an_engine_of_their_own(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    # Two games resumed after a restart into a config with one slot: both are played.
    emu = Emulator(fast_emulator_config()).start()
    caplog.set_level(logging.INFO)
    try:
        gids = [emu.start_game_directly(bot_color="white", moves=["e2e4", "e7e5"],
                                        clock_limit_s=60, increment_s=0,
                                        opponent=OpponentSpec(think_time_s=0.3, resign_after=4,
                                                              seed=i))
                for i in range(2)]
        bot = RunningBot(bot_config(emu.url, tmp_path), emu.token).start()
        try:
            snaps = [emu.wait_game_over(g, 60) for g in gids]
        finally:
            bot.stop()
        assert all(s.status == "resign" and s.winner == "white" for s in snaps), snaps
        assert "creating an extra engine for this game" in caplog.text
    finally:
        emu.stop()


def test_status_file_is_fresh_under_a_long_systemd_watchdog(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # WatchdogSec=60 (the shipped unit) alone would mean a status every 30 s.
    monkeypatch.setenv("WATCHDOG_USEC", "60000000")
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    status_path = Path(os.environ["RUNTIME_DIRECTORY"]) / "status.json"
    with bot_and_emulator(tmp_path):
        assert wait_until(status_path.exists, 10)
        first = json.loads(status_path.read_text())["updated_at"]
        assert wait_until(lambda: json.loads(status_path.read_text())["updated_at"] > first, 5)


def test_failed_start_leaves_no_status_file(tmp_path: Path) -> None:
    status_path = Path(os.environ["RUNTIME_DIRECTORY"]) / "status.json"
    emu = Emulator(fast_emulator_config()).start()
    try:
        bot = RunningBot(bot_config(emu.url, tmp_path), "lip_revoked_token")
        bot.thread.start()
        bot.thread.join(30)
        assert bot.error is not None and "rejected the token" in str(bot.error)
        assert not status_path.exists()
    finally:
        emu.stop()
