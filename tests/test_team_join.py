"""`pibot team join ID` (issue 48 item 4) as a subprocess against the emulator's
`POST /team/{id}/join` (modelled on lila's Team controller, bot/emulator/teams.py):
joined, or one line per refusal that says what to do; the entry code read from a
file, never from argv, and never echoed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from bot.emulator import AccountSpec, Emulator, EmulatorConfig
from bot.emulator.config import ALL_BOT_SCOPES
from bot.errors import EXIT_USAGE

CODE = "s3cret-entry-Code"
WHY = "Hello! I am a Raspberry Pi chess bot and would like to play your team arenas."


def _pibot(cfg: Path, token: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, LICHESS_BOT_TOKEN=token)
    return subprocess.run([sys.executable, "-m", "bot.cli", "team", "join", *args, "--config",
                           str(cfg)], env=env, capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)


def _refused(r: subprocess.CompletedProcess[str], *words: str) -> None:
    assert r.returncode == EXIT_USAGE, r.stdout + r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr, r.stderr
    assert all(w in r.stderr for w in words), r.stderr
    assert CODE not in r.stdout + r.stderr


@pytest.fixture
def emu() -> Emulator:
    scopes = (*ALL_BOT_SCOPES, "team:write")
    with Emulator(EmulatorConfig(accounts=[AccountSpec(scopes=scopes),
                                           AccountSpec(token="lip_noteamscope", username="other")]
                                 )) as emu:
        emu.teams.create("open-team")
        emu.teams.create("coded-team", password=CODE)
        emu.teams.create("reviewed-team", open=False)
        emu.teams.create("strict-team", blocked=("pibot",))
        yield emu


def test_joining_teams_and_each_refusal_is_one_line(emu: Emulator, tmp_path: Path) -> None:
    cfg = tmp_path / "c.yml"
    cfg.write_text(yaml.safe_dump({"url": emu.url}))
    r = _pibot(cfg, emu.token, "open-team")
    assert r.returncode == 0 and r.stdout.strip() == "team open-team: joined", r.stderr
    assert emu.teams.members("open-team") == {"pibot"}
    # A token without team:write: which scope to add, and where.
    _refused(_pibot(cfg, "lip_noteamscope", "open-team"), "team:write",
             "lichess.org/account/oauth/token/create")
    _refused(_pibot(cfg, emu.token, "no-such-team"), "no team 'no-such-team'")
    _refused(_pibot(cfg, emu.token, "bad/id"), "not a team id")
    # An entry code: asked for, wrong, right; read from a file only.
    _refused(_pibot(cfg, emu.token, "coded-team"), "entry code", "--password-file")
    wrong, right = tmp_path / "wrong", tmp_path / "right"
    wrong.write_text("not-the-code\n")
    right.write_text(CODE + "\n")
    _refused(_pibot(cfg, emu.token, "coded-team", "--password-file", str(wrong)),
             "the one given is wrong")
    r = _pibot(cfg, emu.token, "coded-team", "--password-file", str(right))
    assert r.returncode == 0 and CODE not in r.stdout + r.stderr, r.stderr
    assert emu.teams.members("coded-team") == {"pibot"}
    _refused(_pibot(cfg, emu.token, "coded-team", "--ask-password"), "needs a terminal")
    # A team whose leaders review requests: a message of 30 to 2000 characters.
    _refused(_pibot(cfg, emu.token, "reviewed-team"), "review join requests", "--message")
    _refused(_pibot(cfg, emu.token, "reviewed-team", "--message", "hi"), "30 to 2000")
    r = _pibot(cfg, emu.token, "reviewed-team", "--message", WHY)
    assert r.returncode == 0 and "asked to join" in r.stdout, r.stderr
    assert emu.teams.requests("reviewed-team") == {"pibot": WHY}
    assert emu.teams.members("reviewed-team") == set()
    _refused(_pibot(cfg, emu.token, "strict-team"), "does not let this account join")
    emu.teams.joined_elsewhere("pibot", 51)
    emu.teams.create("late-team")
    _refused(_pibot(cfg, emu.token, "late-team"), "too many teams", "leave one")
    # The code went in the form body: never in a path the emulator saw.
    assert all(CODE not in r.path for r in emu.traffic.requests())


def test_the_spec_answers_are_read_too() -> None:
    """lichess-org/api's spec says 403 for a wrong code or a missing message, lila's
    code 400 with a form error; an older lila answered a missing scope with 401."""
    from bot.commands.team import refusal
    from bot.lichess.client import ApiRejected

    def rejected(status: int, error: object) -> ApiRejected:
        return ApiRejected("team_join", f"HTTP {status}", status, {"error": error})

    assert "entry code" in refusal(rejected(403, "Wrong password"), "t", password=False)
    assert "review join requests" in refusal(
        rejected(403, "This team requires confirmation."), "t", password=False)
    assert "team:write" in refusal(rejected(401, "Missing scope"), "t", password=False)
    assert "team:write" in refusal(rejected(403, "Missing scope"), "t", password=False)
    assert "does not accept the token" in refusal(rejected(401, "No such token"), "t", False)
    assert "30 to 2000" in refusal(rejected(400, {"message": ["Minimum length is 30"]}), "t",
                                   password=False)
