"""`pibot check` and `pibot upgrade` as subprocesses against the emulator."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

from bot.emulator import AccountSpec, Emulator, EmulatorConfig


def _pibot(cfg: Path, token: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, LICHESS_BOT_TOKEN=token)
    return subprocess.run([sys.executable, "-m", "bot.cli", *args, "--config", str(cfg)],
                          env=env, capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)


def test_check_and_upgrade(tmp_path: Path) -> None:
    with Emulator(EmulatorConfig(accounts=[AccountSpec(title=None)])) as emu:
        cfg = tmp_path / "c.yml"
        cfg.write_text(yaml.safe_dump({"url": emu.url, "engine": {"hash_mb": 16}}))
        r = _pibot(cfg, emu.token, "check")
        assert r.returncode == 1
        assert "token valid for pibot with bot:play" in r.stdout
        assert "not a BOT account: run `pibot upgrade`" in r.stdout
        assert "engine build:" in r.stdout and "fits in memory" in r.stdout
        r = _pibot(cfg, emu.token, "upgrade")
        assert r.returncode == 2 and "pass --yes" in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1
        r = _pibot(cfg, emu.token, "upgrade", "--yes")
        assert r.returncode == 0 and "is now a BOT account" in r.stdout
        r = _pibot(cfg, emu.token, "check")
        assert r.returncode == 0, r.stdout
        r = _pibot(cfg, "lip_notavalidtoken", "check")
        assert r.returncode == 1 and "does not accept the token" in r.stdout
        assert "lip_notavalidtoken" not in r.stdout + r.stderr
        assert emu.token not in r.stdout + r.stderr


def test_demo_plays_a_game() -> None:
    r = subprocess.run([sys.executable, "-m", "bot.cli", "demo", "--moves-only", "--tc", "30+0"],
                       capture_output=True, text=True, timeout=120,
                       env={k: v for k, v in os.environ.items() if k != "LICHESS_BOT_TOKEN"})
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert lines[0].startswith("1. ") and lines[-1].startswith("Result: ")
    assert "Traceback" not in r.stderr


def test_ctrl_c_ends_the_demo() -> None:
    # Old code: Ctrl-C asked the service to drain, i.e. to finish the 10-minute
    # game first, while the demo kept printing it.
    import signal

    proc = subprocess.Popen([sys.executable, "-m", "bot.cli", "demo", "--moves-only", "--tc",
                             "600+0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={k: v for k, v in os.environ.items()
                                            if k != "LICHESS_BOT_TOKEN"})
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()  # the first move: the game is on
        assert first.startswith("1. "), first
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130 and "demo interrupted" in out, (out, err)
    assert "Traceback" not in err and "Result:" not in out


def test_demo_bad_tc_is_one_line() -> None:
    r = subprocess.run([sys.executable, "-m", "bot.cli", "demo", "--tc", "fast"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "write it like 60+1" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    for tc, fragment in (("15+0", "UltraBullet"), ("20000+0", "at most 10800+180")):
        r = subprocess.run([sys.executable, "-m", "bot.cli", "demo", "--tc", tc],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 2 and fragment in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1
