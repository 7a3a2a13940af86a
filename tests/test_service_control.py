"""The owner's commands to the running service over real HTTP against the emulator:
`pibot challenge USER --games N` plays N games, colours alternating, each after
the previous one ended; Lichess's daily limits end a series; a gauntlet
(matchmaking.opponents) challenges its bots in turn."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from test_service_helpers import bot_and_emulator, fast_emulator_config, needs_engine, wait_until

from bot.cli import main
from bot.config import parse_config
from bot.emulator import OpponentSpec, UserSpec
from bot.errors import UserError

CHALLENGE = "POST /api/challenge/sparbot"


def sparbot(**kw: Any) -> UserSpec:
    opp = OpponentSpec(policy="random", think_time_s=0.05, resign_after=3, seed=5)
    return UserSpec("sparbot", **{"rating": 1500, "response_delay_s": 0.05, "opponent": opp,
                                  **kw})


@needs_engine
def test_pibot_challenge_plays_n_games_with_alternating_colours(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    emu_cfg = fast_emulator_config(users=[sparbot()])
    with bot_and_emulator(tmp_path, emu_cfg,
                          challenge={"time_controls": ["bullet"]}) as (emu, _bot):
        assert main(["challenge", "sparbot", "--tc", "0.5+0", "--color", "white",
                     "--games", "3"]) == 0
        assert "challenging sparbot, 3 game(s) at 0.5+0" in capsys.readouterr().out
        assert wait_until(lambda: sum(g.over for g in emu.games()) == 3, 60)
        games = sorted(emu.games(), key=lambda g: g.finished_at or 0.0)
        assert [g.bot_color for g in games] == ["white", "black", "white"]
        assert all("sparbot" in (g.white, g.black) and g.over for g in games)
        posts = emu.traffic.requests(CHALLENGE)
        assert [r.status for r in posts] == [200, 200, 200]
        # Each next game is challenged once the previous one has ended.
        for post, before in zip(posts[1:], games, strict=False):
            assert before.finished_at is not None and post.t >= before.finished_at


@needs_engine
def test_our_daily_bot_limit_ends_a_series(tmp_path: Path,
                                           caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    emu_cfg = fast_emulator_config(users=[sparbot()], bot_vs_bot_daily_limit=1)
    with bot_and_emulator(tmp_path, emu_cfg,
                          challenge={"time_controls": ["bullet"]}) as (emu, _bot):
        assert main(["challenge", "sparbot", "--tc", "0.5+0", "--games", "3"]) == 0
        assert wait_until(lambda: "1 of 3 game(s) played" in caplog.text, 60), caplog.text
        assert [r.status for r in emu.traffic.requests(CHALLENGE)] == [200, 429]
        assert sum(g.over for g in emu.games()) == 1


def test_the_opponents_daily_limit_ends_a_series(tmp_path: Path,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    emu_cfg = fast_emulator_config(users=[sparbot(at_daily_limit=True)])
    with bot_and_emulator(tmp_path, emu_cfg) as (emu, bot):
        assert main(["challenge", "sparbot", "--games", "2"]) == 0
        assert wait_until(lambda: "0 of 2 game(s) played" in caplog.text, 10), caplog.text
        assert [r.status for r in emu.traffic.requests(CHALLENGE)] == [400]
        assert "reached its daily bot-game limit" in caplog.text
        assert bot.service is not None and bot.service.shared.slots.used() == 0  # the slot let go


def test_a_declined_challenge_ends_the_series_and_frees_its_slot(
        tmp_path: Path, caplog: pytest.LogCaptureFixture,
        capsys: pytest.CaptureFixture[str]) -> None:
    caplog.set_level(logging.INFO)
    emu_cfg = fast_emulator_config(users=[sparbot(on_challenge="decline",
                                                  response_delay_s=1.0)])
    with bot_and_emulator(tmp_path, emu_cfg) as (emu, bot):
        assert main(["challenge", "sparbot", "--games", "4"]) == 0
        # While its challenge waits, the slot is held, and a second series refused.
        assert bot.service is not None
        assert wait_until(lambda: bot.service.shared.slots.used() == 1, 5)
        capsys.readouterr()
        assert main(["challenge", "SparBot"]) == 1
        assert "already running" in capsys.readouterr().err
        assert wait_until(lambda: "0 of 4 game(s) played" in caplog.text, 10), caplog.text
        assert "sparbot declined challenge" in caplog.text
        assert bot.service.shared.slots.used() == 0
        assert len(emu.traffic.requests(CHALLENGE)) == 1


def test_a_decline_that_beats_its_challenges_answer_is_seen(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """sparbot declines at once, and the answer to our POST comes back a second later
    (a slow way back): the series sees the decline when the POST returns, instead of
    waiting to challenge_expiry_s and cancelling a challenge already declined."""
    caplog.set_level(logging.INFO)
    emu_cfg = fast_emulator_config(users=[sparbot(on_challenge="decline")])
    with bot_and_emulator(tmp_path, emu_cfg) as (emu, bot):
        emu.faults.inject("slow", CHALLENGE, duration_s=1.0, after=True)
        assert main(["challenge", "sparbot", "--games", "2"]) == 0
        assert wait_until(lambda: "0 of 2 game(s) played" in caplog.text, 6), caplog.text
        assert "sparbot declined challenge" in caplog.text
        assert "did not answer" not in caplog.text
        assert emu.traffic.count("POST /api/challenge/*/cancel") == 0
        assert bot.service is not None and bot.service.shared.slots.used() == 0


def test_the_service_answers_documented_commands_only(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with bot_and_emulator(tmp_path):
        # The queue is served (empty: challenge.queue_max is 0 by default).
        assert main(["queue"]) == 0
        assert capsys.readouterr().out == "no challenge is waiting\n"
        assert main(["challenge", "sparbot", "--tc", "3+2", "--games", "1",
                     "--variant", "chess960", "--rated"]) == 0
        assert "chess960 rated" in capsys.readouterr().out


def test_a_gauntlet_challenges_its_bots_in_turn(tmp_path: Path) -> None:
    users = [UserSpec(n, on_challenge="decline", response_delay_s=0.05)
             for n in ("gauntlet-a", "gauntlet-b", "elsewhere")]
    mm = {"allow_matchmaking": True, "challenge_timeout_s": 1, "challenge_expiry_s": 5,
          "challenge_initial_time": [60], "challenge_increment": [1],
          "opponents": ["gauntlet-b", "gauntlet-a"]}
    with bot_and_emulator(tmp_path, fast_emulator_config(users=users),
                          matchmaking=mm) as (emu, _):
        posts = lambda: [r.path.rsplit("/", 1)[-1] for r in  # noqa: E731
                         emu.traffic.requests("POST /api/challenge/*") if r.path.count("/") == 3]
        assert wait_until(lambda: len(posts()) >= 3, 30), posts()
        assert posts()[:3] == ["gauntlet-b", "gauntlet-a", "gauntlet-b"]
        assert emu.traffic.count("GET /api/bot/online") == 0  # named bots, not the online list


@pytest.mark.parametrize("names, line", [
    (["ok-bot", "no such"], "not a Lichess username"),
    (["Twice", "twice"], "twice"),
])
def test_gauntlet_names_are_checked(names: list[str], line: str) -> None:
    with pytest.raises(UserError, match=line):
        parse_config({"matchmaking": {"opponents": names}})
    assert parse_config({"matchmaking": {"opponents": ["a-bot", "b_bot"]}}) \
        .matchmaking.opponents == ["a-bot", "b_bot"]
