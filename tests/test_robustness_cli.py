"""CLI robustness (issue 9): `pibot check` stops at a bad config, agrees with
`run` on the hash that fits, measures the round trip, warns about a readable
token file; `run` and SIGHUP reload report a non-UTF-8 config in one line."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from test_service_helpers import FAST_NETWORK, fast_emulator_config, needs_engine, wait_until

from bot.emulator import AccountSpec, Emulator, EmulatorConfig
from bot.errors import EXIT_CONFIG
from bot.host import platform_info
from bot.lichess.token import ENV_VAR

TOKEN = "lip_AbCdEf0123456789xy"


def _pibot(*args: str, token: str | None = None, timeout: float = 60,
           cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in (ENV_VAR, "CREDENTIALS_DIRECTORY")}
    if token is not None:
        env[ENV_VAR] = token
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], capture_output=True,
                          text=True, env=env, timeout=timeout, stdin=subprocess.DEVNULL, cwd=cwd)


def test_check_stops_at_an_invalid_config(tmp_path: Path) -> None:
    # Old code: reported the error, then carried on with the built-in defaults,
    # i.e. sent the token to https://lichess.org instead of the configured url.
    cfg = tmp_path / "c.yml"
    cfg.write_text("url: http://127.0.0.1:9\nengine:\n  hash_mbb: 16\n")
    r = _pibot("check", "--config", str(cfg), token=TOKEN)
    assert r.returncode == 1
    lines = r.stdout.strip().splitlines()
    assert lines[0].startswith("PROBLEM") and "did you mean 'engine.hash_mb'" in lines[0]
    assert lines[1:] == ["1 problem(s) found"]
    assert "lichess.org" not in r.stdout and "token" not in r.stdout


def test_check_and_run_agree_on_the_hash_per_game(tmp_path: Path) -> None:
    mem = platform_info.meminfo_kb()
    total = mem["MemTotal"] // 1024
    avail = mem.get("MemAvailable", mem["MemTotal"]) // 1024
    budget = platform_info.hash_budget_mb(total, avail, platform_info.cgroup_memory_max_mb())
    games = 64
    if budget < 2 * games:
        pytest.skip(f"only {budget} MiB for hash tables here: no per-game size to compare")
    hash_mb = max(budget // games * 4, 4)  # fits alone, 4x too big for 64 games
    cfg = tmp_path / "c.yml"
    cfg.write_text(yaml.safe_dump({"engine": {"hash_mb": hash_mb},
                                   "challenge": {"concurrency": games}}))
    check = _pibot("check", "--config", str(cfg), cwd=tmp_path)  # no token: no network
    run = _pibot("run", "--config", str(cfg), token=TOKEN, cwd=tmp_path)
    assert run.returncode == EXIT_CONFIG and "Traceback" not in run.stderr
    pattern = re.compile(r"set engine\.hash_mb to (\d+) or less")
    run_fit = int(pattern.search(run.stderr).group(1))  # type: ignore[union-attr]
    check_fit = int(pattern.search(check.stdout).group(1))  # type: ignore[union-attr]
    # Old check suggested the size for one game (~64x larger than run's).
    assert abs(check_fit - run_fit) <= 64
    assert check_fit * games <= budget + 64 * games


def test_check_measures_round_trip_and_flags_a_readable_token_file(tmp_path: Path) -> None:
    with Emulator(fast_emulator_config()) as emu:
        tok = tmp_path / "token"
        tok.write_text(emu.token + "\n")
        tok.chmod(0o644)
        cfg = tmp_path / "c.yml"
        cfg.write_text(yaml.safe_dump({"url": emu.url, "token_file": str(tok),
                                       "engine": {"hash_mb": 16, "move_overhead_ms": 150}}))
        r = _pibot("check", "--config", str(cfg))
        assert r.returncode == 0, r.stdout
        rtt = [ln for ln in r.stdout.splitlines() if "round trip to" in ln]
        assert len(rtt) == 1 and rtt[0].startswith("ok"), r.stdout
        assert re.search(r"median \d+ ms, max \d+ ms over 5 requests", rtt[0])
        assert "engine.move_overhead_ms (150 ms)" in rtt[0]
        warn = [ln for ln in r.stdout.splitlines() if "chmod 600" in ln]
        assert len(warn) == 1 and warn[0].startswith("warning") and "readable by everyone" \
            in warn[0]
        tok.chmod(0o600)
        r = _pibot("check", "--config", str(cfg))
        assert r.returncode == 0 and "chmod" not in r.stdout
        assert emu.token not in r.stdout + r.stderr


def test_token_pasted_as_token_file_is_not_printed(tmp_path: Path) -> None:
    cfg = tmp_path / "c.yml"
    cfg.write_text(f"token_file: {TOKEN}\n")
    for cmd in ("run", "check", "upgrade"):
        r = _pibot(cmd, "--config", str(cfg), cwd=tmp_path)
        assert TOKEN[4:] not in r.stdout + r.stderr, cmd
        assert "looks like you pasted the token itself" in r.stdout + r.stderr, cmd
        assert "Traceback" not in r.stderr


def test_non_utf8_config_is_one_line_in_run_and_check(tmp_path: Path) -> None:
    cfg = tmp_path / "c.yml"
    cfg.write_bytes(b"log_level: info\n# caf\xe9 in Latin-1\n")
    r = _pibot("run", "--config", str(cfg), token=TOKEN)
    assert r.returncode == EXIT_CONFIG and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "not UTF-8" in r.stderr
    r = _pibot("check", "--config", str(cfg), token=TOKEN)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "not UTF-8" in r.stdout.splitlines()[0]


@needs_engine
def test_sighup_with_a_non_utf8_config_keeps_running(tmp_path: Path) -> None:
    # Old code: UnicodeDecodeError escaped Service.reload (it catches PibotError):
    # a traceback in the log and the unit left "reloading".
    cfg, log = tmp_path / "c.yml", tmp_path / "log"
    with Emulator(fast_emulator_config()) as emu:
        cfg.write_text(yaml.safe_dump({"url": emu.url, "pgn_directory": None,
                                       "log_level": "info", "network": FAST_NETWORK,
                                       "engine": {"hash_mb": 8}}))
        env = dict(os.environ, LICHESS_BOT_TOKEN=emu.token)
        env.pop("JOURNAL_STREAM", None)
        proc = subprocess.Popen([sys.executable, "-m", "bot.cli", "run", "--config", str(cfg)],
                                env=env, stdout=subprocess.DEVNULL, stderr=log.open("wb"),
                                cwd=tmp_path)  # its records database (pibot.db) there
        try:
            assert wait_until(lambda: "ready" in log.read_text(errors="replace"), 30)
            cfg.write_bytes(b"log_level: \xff\n")
            proc.send_signal(signal.SIGHUP)
            assert wait_until(lambda: "config reload failed" in log.read_text(errors="replace"),
                              10), log.read_text(errors="replace")
            assert "not UTF-8" in log.read_text(errors="replace")
            assert proc.poll() is None
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(20) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
        text = log.read_text(errors="replace")
        assert "Traceback" not in text and emu.token not in text


def catches_sigint(pid: int) -> bool:
    """Has the process installed a handler for SIGINT (SigCgt in /proc/PID/status)?"""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    mask = next((int(line.split()[1], 16) for line in status.splitlines()
                 if line.startswith("SigCgt:")), 0)
    return bool(mask & (1 << (signal.SIGINT - 1)))


def cpu_s(pid: int) -> float:
    """CPU seconds (user + system) the process has used so far."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.parametrize("args", [["bench", "--depth", "60"], ["perft", "15", "--divide"]])
def test_long_commands_stop_on_ctrl_c(args: list[str]) -> None:
    # Old code: SIGINT waited for the running C search/perft call to return.
    proc = subprocess.Popen([sys.executable, "-m", "bot.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        # Python's SIGINT handler installed and the C code running: a signal before
        # that kills the process outright, as a fixed 3-s sleep did on a loaded
        # machine. Start-up and imports take well under 1.5 s of CPU.
        assert wait_until(lambda: catches_sigint(proc.pid) and cpu_s(proc.pid) >= 1.5, 60)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130
    assert "interrupted" in err and "Traceback" not in err


def test_upgrade_prompt_ctrl_d_is_a_no(tmp_path: Path) -> None:
    # Old code: EOFError traceback from input().
    import pty

    with Emulator(EmulatorConfig(accounts=[AccountSpec(title=None)])) as emu:
        cfg = tmp_path / "c.yml"
        cfg.write_text(yaml.safe_dump({"url": emu.url}))
        master, slave = pty.openpty()
        env = dict(os.environ, LICHESS_BOT_TOKEN=emu.token)
        proc = subprocess.Popen([sys.executable, "-m", "bot.cli", "upgrade", "--config", str(cfg)],
                                stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, env=env)
        os.close(slave)
        try:
            assert proc.stdout is not None
            assert "irreversible" in proc.stdout.readline()
            os.write(master, b"\x04")  # Ctrl-D at the prompt
            out, err = proc.communicate(timeout=30)
        finally:
            os.close(master)
            if proc.poll() is None:
                proc.kill()
        assert proc.returncode == 1, err
        assert "Not confirmed" in out and "Traceback" not in err
        assert emu.traffic.count("POST /api/bot/account/upgrade") == 0
