"""`pibot run` as a real subprocess: SIGTERM drains, a second SIGTERM exits now,
SIGHUP reloads the config (and keeps the old one when the new one is bad)."""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import yaml
from test_service_helpers import FAST_NETWORK, fast_emulator_config, needs_engine, wait_until

from bot.emulator import Emulator, OpponentSpec
from bot.errors import EXIT_CONFIG


def _write_config(path: Path, url: str, **extra: object) -> None:
    data = {"url": url, "pgn_directory": None, "log_level": "info",
            "network": FAST_NETWORK, "engine": {"hash_mb": 8},
            "challenge": {"time_controls": ["bullet"]},
            "records": {"db": str(path.parent / "pibot.db")}, **extra}
    path.write_text(yaml.safe_dump(data))


def _start(cfg: Path, token: str, log: Path) -> subprocess.Popen[bytes]:
    env = dict(os.environ, LICHESS_BOT_TOKEN=token)
    env.pop("JOURNAL_STREAM", None)
    return subprocess.Popen([sys.executable, "-m", "bot.cli", "run", "--config", str(cfg)],
                            env=env, stdout=subprocess.DEVNULL, stderr=log.open("wb"))


def _ready(emu: Emulator, log: Path, timeout: float = 15) -> bool:
    return wait_until(lambda: "ready" in log.read_text(errors="replace"), timeout)


def test_sighup_reload(tmp_path: Path) -> None:
    cfg, log = tmp_path / "c.yml", tmp_path / "log"
    with Emulator(fast_emulator_config()) as emu:
        _write_config(cfg, emu.url, challenge={"variants": ["standard"], "modes": ["casual"]})
        proc = _start(cfg, emu.token, log)
        try:
            assert _ready(emu, log), log.read_text()
            _write_config(cfg, emu.url, challenge={"variants": ["chess960"]})
            proc.send_signal(signal.SIGHUP)
            assert wait_until(lambda: "config reloaded" in log.read_text(), 5), log.read_text()
            cid = emu.challenge_bot(rated=False, clock_limit_s=60, increment_s=0)
            assert emu.challenges.wait_answered(cid, 5) == "declined"
            assert emu.challenges.decline_reason(cid) == "variant"
            cfg.write_text("engine:\n  hash_mb: lots\n")
            proc.send_signal(signal.SIGHUP)
            assert wait_until(lambda: "config reload failed" in log.read_text(), 5)
            assert "engine.hash_mb" in log.read_text()
            assert proc.poll() is None  # still running on the old config
            cid = emu.challenge_bot(rated=False, clock_limit_s=60, increment_s=0)
            assert emu.challenges.decline_reason(cid) \
                or emu.challenges.wait_answered(cid, 5) == "declined"
            assert emu.challenges.decline_reason(cid) == "variant"
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(15) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
        assert emu.token not in log.read_text()
        assert "Traceback" not in log.read_text()
    # The records database (issue 35) holds the reload between the start and the stop.
    conn = sqlite3.connect(tmp_path / "pibot.db")
    kinds = [k for (k,) in conn.execute("SELECT kind FROM events ORDER BY id")]
    conn.close()
    assert kinds == ["start", "reload", "stop"], kinds


@needs_engine
def test_sigterm_finishes_game_then_exits(tmp_path: Path) -> None:
    cfg, log = tmp_path / "c.yml", tmp_path / "log"
    with Emulator(fast_emulator_config()) as emu:
        _write_config(cfg, emu.url, challenge={"concurrency": 2,
                                               "time_controls": ["bullet"]})
        proc = _start(cfg, emu.token, log)
        try:
            assert _ready(emu, log), log.read_text()
            opp = OpponentSpec(policy="random", think_time_s=0.3, resign_after=10, seed=8)
            gid = emu.challenge_bot(challenger="ann", rated=False, clock_limit_s=30,
                                    increment_s=0, opponent=opp)
            emu.wait_game_started(gid, 10)
            assert wait_until(lambda: len(emu.game(gid).moves) >= 2, 10)
            proc.send_signal(signal.SIGTERM)
            assert wait_until(lambda: "stop requested" in log.read_text(), 5)
            late = emu.challenge_bot(challenger="bea", rated=False, clock_limit_s=60,
                                     increment_s=0)
            assert emu.challenges.wait_answered(late, 5) == "declined"
            assert emu.challenges.decline_reason(late) == "later"
            snap = emu.wait_game_over(gid, 60)
            assert snap.status in ("resign", "mate") and snap.winner == snap.bot_color
            assert proc.wait(20) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
        assert "Traceback" not in log.read_text()


@needs_engine
def test_second_sigterm_exits_at_once(tmp_path: Path) -> None:
    cfg, log = tmp_path / "c.yml", tmp_path / "log"
    with Emulator(fast_emulator_config()) as emu:
        _write_config(cfg, emu.url, challenge={"time_controls": ["blitz"]})
        proc = _start(cfg, emu.token, log)
        try:
            assert _ready(emu, log), log.read_text()
            gid = emu.challenge_bot(rated=False, clock_limit_s=300, increment_s=0,
                                    opponent=OpponentSpec(think_time_s=2.0))
            emu.wait_game_started(gid, 10)
            assert wait_until(lambda: "I play" in log.read_text(), 10)
            proc.send_signal(signal.SIGTERM)
            time.sleep(0.5)
            assert proc.poll() is None  # draining: the game goes on
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(10) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
        text = log.read_text()
        assert f"unfinished (not resigned): {gid}" in text, text
        assert not emu.game(gid).over  # nothing resigned or aborted silently


def _notify_socket(tmp_path: Path) -> tuple[socket.socket, str]:
    """A NOTIFY_SOCKET for a `pibot run` under test (systemd's side of sd_notify)."""
    path = str(tmp_path / "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(10)
    return sock, path


def test_sd_notify_and_bad_token(tmp_path: Path) -> None:
    cfg, log = tmp_path / "c.yml", tmp_path / "log"
    sock, sock_path = _notify_socket(tmp_path)
    with Emulator(fast_emulator_config()) as emu:
        _write_config(cfg, emu.url)
        env = dict(os.environ, LICHESS_BOT_TOKEN=emu.token, NOTIFY_SOCKET=sock_path,
                   WATCHDOG_USEC="400000")
        proc = subprocess.Popen([sys.executable, "-m", "bot.cli", "run", "--config", str(cfg)],
                                env=env, stdout=subprocess.DEVNULL, stderr=log.open("wb"))
        got: list[str] = []
        try:
            while "READY=1" not in got or got.count("WATCHDOG=1") < 3:
                got += sock.recv(4096).decode().splitlines()
            proc.send_signal(signal.SIGHUP)
            while "RELOADING=1" not in got:
                got += sock.recv(4096).decode().splitlines()
            proc.send_signal(signal.SIGTERM)
            while "STOPPING=1" not in got:
                got += sock.recv(4096).decode().splitlines()
            assert proc.wait(15) == 0
        finally:
            sock.close()
            if proc.poll() is None:
                proc.kill()
        r = subprocess.run([sys.executable, "-m", "bot.cli", "run", "--config", str(cfg)],
                           env=dict(os.environ, LICHESS_BOT_TOKEN="lip_revokedtoken1"),
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == EXIT_CONFIG and "Traceback" not in r.stderr
        assert "rejected the token (HTTP 401)" in r.stderr
        assert "lip_revokedtoken1" not in r.stderr


def test_sighup_with_a_bad_yaml_config_still_sends_ready_and_names_restart_keys(
        tmp_path: Path) -> None:
    # Old code: a recursive anchor raised RecursionError out of the SIGHUP handler
    # (a traceback, and no READY=1 after RELOADING=1: systemd's reload hung).
    cfg, log = tmp_path / "c.yml", tmp_path / "log"
    sock, sock_path = _notify_socket(tmp_path)
    with Emulator(fast_emulator_config()) as emu:
        _write_config(cfg, emu.url)
        env = dict(os.environ, LICHESS_BOT_TOKEN=emu.token, NOTIFY_SOCKET=sock_path)
        env.pop("JOURNAL_STREAM", None)
        proc = subprocess.Popen([sys.executable, "-m", "bot.cli", "run", "--config", str(cfg)],
                                env=env, stdout=subprocess.DEVNULL, stderr=log.open("wb"))
        got: list[str] = []

        def until(message: str) -> None:
            while message not in got:
                got.extend(sock.recv(4096).decode().splitlines())

        try:
            until("READY=1")
            for bad in ("url: &a [*a]\n", "url: https://a.test\nurl: https://b.test\n"):
                got.clear()
                cfg.write_text(bad)
                proc.send_signal(signal.SIGHUP)
                until("RELOADING=1")
                until("READY=1")  # sent after RELOADING=1, though the reload failed
            failures = [ln for ln in log.read_text().splitlines() if "reload failed" in ln]
            assert len(failures) == 2, log.read_text()
            assert "recursive anchor" in failures[0] and "appears twice" in failures[1]
            _write_config(cfg, "http://127.0.0.1:9")
            proc.send_signal(signal.SIGHUP)
            assert wait_until(lambda: "url changed but take effect only after a restart"
                              in log.read_text(), 5), log.read_text()
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(15) == 0
        finally:
            sock.close()
            if proc.poll() is None:
                proc.kill()
        assert "Traceback" not in log.read_text()
