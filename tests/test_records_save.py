"""Game records (issue 23): an unwritable `pgn_directory` is found by `check` and
refused by `run`; a save that fails at run time is kept, retried and reported by
`pibot status` until it lands."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from test_robustness_cli import TOKEN, _pibot
from test_service_helpers import bot_and_emulator, needs_engine, wait_until

from bot.emulator import OpponentSpec
from bot.play.records import file_name
from bot.store import pgn


def _pgn_lines(out: str) -> list[str]:
    return [ln for ln in out.splitlines() if "pgn_directory" in ln]


@pytest.mark.parametrize("shape", ["file", "under_a_file"])
def test_check_and_run_refuse_a_pgn_directory_that_cannot_be_written(
        tmp_path: Path, shape: str) -> None:
    blocker = tmp_path / "games"
    blocker.write_text("not a directory")
    target = blocker if shape == "file" else blocker / "pgn"
    cfg = tmp_path / "c.yml"
    cfg.write_text(f"url: http://127.0.0.1:9\npgn_directory: {target}\n")
    check = _pibot("check", "--config", str(cfg), cwd=tmp_path)  # no token: no network
    (line,) = _pgn_lines(check.stdout)
    assert check.returncode == 1 and line.startswith("PROBLEM") and "not a directory" in \
        line.lower(), check.stdout
    run = _pibot("run", "--config", str(cfg), token=TOKEN, cwd=tmp_path)
    assert run.returncode == 6 and "Traceback" not in run.stderr  # EXIT_CONFIG
    assert len(run.stderr.strip().splitlines()) == 1 and "pgn_directory" in run.stderr
    assert blocker.read_text() == "not a directory"


def test_check_passes_a_writable_pgn_directory_without_creating_it(tmp_path: Path) -> None:
    cfg = tmp_path / "c.yml"
    cfg.write_text(f"url: http://127.0.0.1:9\npgn_directory: {tmp_path / 'new' / 'games'}\n")
    check = _pibot("check", "--config", str(cfg), cwd=tmp_path)
    (line,) = _pgn_lines(check.stdout)
    assert line.startswith("ok") and not (tmp_path / "new").exists()
    assert not list(tmp_path.glob(".pibot-probe-*"))  # the probe file is removed


@needs_engine
def test_a_failed_save_is_kept_retried_and_reported(tmp_path: Path) -> None:
    games = tmp_path / "games"
    # Root writes through chmod: a file where the directory should be blocks everyone.
    games.write_text("in the way")
    with bot_and_emulator(tmp_path) as (emu, bot):
        opp = OpponentSpec(policy="random", think_time_s=0.05, resign_after=2, seed=5)
        cid = emu.challenge_bot(challenger="dave", rated=False, clock_limit_s=60,
                                increment_s=0, color="white", opponent=opp)
        emu.wait_game_started(cid, 10)
        emu.wait_game_over(cid, 60)
        svc = bot.service
        assert svc is not None
        assert wait_until(lambda: svc.shared.saver.pending == 1, 10)
        status_path = svc.watchdog.status_writer.path if svc.watchdog.status_writer else None
        assert status_path is not None

        def reported() -> bool:
            try:
                data = json.loads(status_path.read_text())
            except (OSError, ValueError):
                return False
            return data.get("unsaved_pgns") == 1

        assert wait_until(reported, 10)
        status = _pibot("status", "--file", str(status_path))
        assert "1 finished game(s) not saved yet" in status.stdout, status.stdout
        games.unlink()
        games.mkdir()
        pgn = games / file_name(cid)
        assert wait_until(pgn.exists, 10), "the kept record never landed"
        assert '[White "' in pgn.read_text()
        assert wait_until(lambda: svc.shared.saver.pending == 0, 5)
    shutil.rmtree(games)


def test_game_id_is_sanitised_before_it_becomes_a_file_name() -> None:
    assert file_name("aBcD1234") == "aBcD1234.pgn"
    assert "/" not in file_name("../../etc/passwd") and ".." not in file_name("../x")
    assert file_name("") == "game.pgn"


@pytest.mark.parametrize(("status", "winner", "result"), [
    ("mate", "white", "1-0"), ("resign", "black", "0-1"), ("outoftime", "black", "0-1"),
    ("draw", None, "1/2-1/2"), ("stalemate", None, "1/2-1/2"),
    ("outoftime", None, "1/2-1/2"),  # the flag fell against a bare king
    ("insufficientMaterialClaim", None, "1/2-1/2"),  # lila's status 39: a draw
    ("variantEnd", None, "1/2-1/2"), ("variantEnd", "white", "1-0"),
    ("aborted", None, "*"), ("noStart", None, "*"), ("started", None, "*"),
    ("unknownFinish", None, "*"),
])
def test_every_finished_status_has_its_pgn_result(status: str, winner: str | None,
                                                   result: str) -> None:
    assert pgn.result(winner, status) == result
