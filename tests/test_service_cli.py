"""`pibot check` and `pibot upgrade` as subprocesses against the emulator."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml

from bot.emulator import AccountSpec, Emulator, EmulatorConfig
from bot.errors import EXIT_CONFIG, EXIT_FAILURE, EXIT_USAGE


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
        assert r.returncode == EXIT_USAGE and "pass --yes" in r.stderr
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


def test_demo_plays_a_variant() -> None:
    r = subprocess.run([sys.executable, "-m", "bot.cli", "demo", "--variant", "atomic", "--tc",
                        "30+0"], capture_output=True, text=True, timeout=120,
                       env={k: v for k, v in os.environ.items() if k != "LICHESS_BOT_TOKEN"})
    assert r.returncode == 0, r.stderr
    assert ", Atomic, 30+0, on http://127.0.0.1:" in r.stdout
    assert "accepting challenge" in r.stderr and "(atomic, bullet 30+0, casual)" in r.stderr
    assert r.stdout.strip().splitlines()[-1].startswith("Result: ")
    assert "engine failed" not in r.stderr and "Traceback" not in r.stderr
    for args, fragment in ((["--variant", "giveaway"], "invalid choice: 'giveaway'"),
                           (["--variant", "horde", "--arena"], "--arena plays standard chess")):
        bad = subprocess.run([sys.executable, "-m", "bot.cli", "demo", *args],
                             capture_output=True, text=True, timeout=60)
        assert bad.returncode == 2 and fragment in bad.stderr, bad.stderr


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


def test_check_json_is_one_document(tmp_path: Path) -> None:
    with Emulator(EmulatorConfig(accounts=[AccountSpec(title=None)])) as emu:
        cfg = tmp_path / "c.yml"
        cfg.write_text(yaml.safe_dump({"url": emu.url, "engine": {"hash_mb": 16}}))
        r = _pibot(cfg, emu.token, "check", "--json")
    assert r.returncode == 1
    doc = json.loads(r.stdout)  # nothing else on stdout
    assert doc["ok"] is False and doc["problems"] == 1
    assert {f["level"] for f in doc["findings"]} <= {"ok", "warning", "problem"}
    (problem,) = [f["text"] for f in doc["findings"] if f["level"] == "problem"]
    assert "not a BOT account" in problem
    assert any("token valid for pibot" in f["text"] for f in doc["findings"])
    assert emu.token not in r.stdout + r.stderr


def test_config_errors_exit_apart_from_usage_errors(tmp_path: Path) -> None:
    # systemd's RestartPreventExitStatus= (systemd/*.service) names EXIT_CONFIG.
    missing = tmp_path / "missing.yml"
    for cmd in ("run", "upgrade"):
        r = _pibot(missing, "lip_abcdefghijklmnop", cmd)
        assert r.returncode == EXIT_CONFIG, (cmd, r.stderr)
        assert "missing.yml does not exist" in r.stderr
    cfg = tmp_path / "c.yml"
    cfg.write_text("url: http://127.0.0.1:9\n")
    r = _pibot(cfg, "not a token", "run")
    assert r.returncode == EXIT_CONFIG and "unexpected characters" in r.stderr
    r = _pibot(cfg, "lip_abcdefghijklmnop", "run", "--no-such-option")
    assert r.returncode == EXIT_USAGE and "unrecognized arguments" in r.stderr
    r = _pibot(cfg, "lip_abcdefghijklmnop", "upgrade", "--yes")  # nothing listens there
    assert r.returncode == EXIT_FAILURE and "cannot reach Lichess" in r.stderr


def test_token_file_option_reads_the_installed_credential(tmp_path: Path) -> None:
    """`--token-file PATH` (the root-only file the service's LoadCredential= names):
    the token is read by path, so it is never on a command line, and the path wins
    over $LICHESS_BOT_TOKEN."""
    with Emulator(EmulatorConfig(accounts=[AccountSpec(title=None)])) as emu:
        cfg = tmp_path / "c.yml"
        cfg.write_text(yaml.safe_dump({"url": emu.url, "engine": {"hash_mb": 16}}))
        cred = tmp_path / "lichess-token"
        cred.write_text(emu.token + "\n")
        cred.chmod(0o600)
        wrong = "lip_notthebotstoken"
        r = _pibot(cfg, wrong, "check", "--token-file", str(cred))
        assert "token found (--token-file" in r.stdout and "token valid for pibot" in r.stdout
        r = _pibot(cfg, wrong, "upgrade", "--check", "--token-file", str(cred))
        assert r.returncode == 3 and "not a BOT account yet" in r.stdout
        assert emu.traffic.count("POST /api/bot/account/upgrade") == 0
        r = _pibot(cfg, wrong, "upgrade", "--yes", "--token-file", str(cred))
        assert r.returncode == 0 and "is now a BOT account" in r.stdout
        r = _pibot(cfg, wrong, "upgrade", "--check", "--token-file", str(cred))
        assert r.returncode == 0 and "pibot is a BOT account" in r.stdout
        r = _pibot(cfg, wrong, "upgrade", "--check", "--token-file", str(tmp_path / "nope"))
        assert r.returncode == EXIT_CONFIG and "--token-file" in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1
        for out in (r.stdout, r.stderr):
            assert emu.token not in out


def test_demo_arena_plays_arena_games() -> None:
    r = subprocess.run([sys.executable, "-m", "bot.cli", "demo", "--arena", "--arena-minutes",
                        "1", "--tc", "30+0", "--moves-only"], capture_output=True, text=True,
                       timeout=240, env={k: v for k, v in os.environ.items()
                                         if k != "LICHESS_BOT_TOKEN"})
    assert r.returncode == 0, r.stdout + r.stderr
    assert "game 1: " in r.stdout and "Final standing:" in r.stdout, r.stdout
    standing = r.stdout.split("Final standing:")[1]
    assert "pibot" in standing
    assert "Traceback" not in r.stderr
