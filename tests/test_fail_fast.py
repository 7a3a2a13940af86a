"""Failing fast where retrying cannot help (issue 23, item 6): a revoked token
on the event stream, a token without bot:play at start-up.  Real Service or
real CLI against the emulator over loopback HTTP."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from test_service_helpers import RunningBot, bot_config, fast_emulator_config, wait_until

from bot.emulator import AccountSpec, Emulator
from bot.errors import UserError

EVENT = "GET /api/stream/event"
NO_BOT_PLAY = AccountSpec(token="lip_noplay_token_123", username="pibot",
                          scopes=("challenge:read", "challenge:write"))


def test_event_stream_401_stops_the_service_with_one_line(tmp_path: Path) -> None:
    emu = Emulator(fast_emulator_config()).start()
    try:
        bot = RunningBot(bot_config(emu.url, tmp_path), emu.token).start()
        # The token is revoked: lila answers 401 "No such token" from now on.
        emu.faults.inject("http_error", EVENT, status=401, error="No such token", count=None)
        emu.faults.inject("drop_stream", "event")
        bot.thread.join(15)
        assert not bot.thread.is_alive(), "the service kept retrying a revoked token"
        err = bot.error
        assert isinstance(err, UserError), err
        assert "HTTP 401" in str(err) and "bot:play" in str(err) and "\n" not in str(err)
        assert emu.token not in str(err)
        # The old code logged and re-opened the stream with backoff, for ever.
        assert len([r for r in emu.traffic.requests(EVENT) if r.status == 401]) == 1
    finally:
        emu.stop()


def _cli(emu: Emulator, tmp_path: Path, token: str, *args: str) -> subprocess.CompletedProcess[str]:
    cfg = tmp_path / "config.yml"
    cfg.write_text(f"url: {emu.url}\npgn_directory: null\nlog_level: debug\n"
                   "engine:\n  hash_mb: 16\n")
    env = {k: v for k, v in os.environ.items() if k != "CREDENTIALS_DIRECTORY"}
    env["LICHESS_BOT_TOKEN"] = token
    return subprocess.run([sys.executable, "-m", "bot.cli", *args, "--config", str(cfg)],
                          capture_output=True, text=True, timeout=60, env=env,
                          stdin=subprocess.DEVNULL, cwd=tmp_path)  # its records db there


def test_run_refuses_a_token_without_bot_play(tmp_path: Path) -> None:
    with Emulator(fast_emulator_config(accounts=[NO_BOT_PLAY])) as emu:
        # The old code started: the event stream opens with challenge:read, and then
        # every game stream answers 403.
        proc = _cli(emu, tmp_path, NO_BOT_PLAY.token, "run")
        assert wait_until(lambda: emu.traffic.count("POST /api/token/test") >= 1, 1)
        assert emu.traffic.count(EVENT) == 0
    assert proc.returncode == 6, proc.stderr  # EXIT_CONFIG: systemd does not restart it
    assert "Traceback" not in proc.stderr, proc.stderr
    errors = [ln for ln in proc.stderr.splitlines() if "bot:play" in ln]
    assert len(errors) == 1 and "lacks the bot:play scope" in errors[0], proc.stderr
    assert "challenge:read, challenge:write" in errors[0]
    assert NO_BOT_PLAY.token not in proc.stderr + proc.stdout


def test_check_names_the_missing_bot_play_scope(tmp_path: Path) -> None:
    with Emulator(fast_emulator_config(accounts=[NO_BOT_PLAY])) as emu:
        proc = _cli(emu, tmp_path, NO_BOT_PLAY.token, "check")
    assert proc.returncode == 1, proc.stdout
    problems = [ln for ln in proc.stdout.splitlines() if ln.startswith("PROBLEM")]
    assert any("lacks the bot:play scope" in ln for ln in problems), proc.stdout
    assert NO_BOT_PLAY.token not in proc.stderr + proc.stdout
