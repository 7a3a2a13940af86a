"""Challenges over real HTTP: policy reasons reach Lichess, bursts respect concurrency."""

from __future__ import annotations

from pathlib import Path

from test_service_helpers import bot_and_emulator, wait_until


def test_decline_reasons_reach_lichess(tmp_path: Path) -> None:
    challenge = {"variants": ["standard"], "modes": ["casual"], "time_controls": ["blitz"],
                 "accept_bot": False, "block_list": ["mallory"]}
    with bot_and_emulator(tmp_path, challenge=challenge) as (emu, _bot):
        cases = [
            (dict(variant="chess960", rated=False, clock_limit_s=180, increment_s=2), "standard"),
            (dict(rated=True, clock_limit_s=180, increment_s=2), "casual"),
            (dict(rated=False, clock_limit_s=30, increment_s=0), "tooFast"),
            (dict(rated=False, clock_limit_s=1800, increment_s=0), "tooSlow"),
            (dict(rated=False, clock_limit_s=180, increment_s=2, challenger="botty",
                  challenger_title="BOT"), "noBot"),
            (dict(rated=False, clock_limit_s=180, increment_s=2, challenger="mallory"),
             "generic"),
        ]
        ids = [(emu.challenge_bot(**kw), reason) for kw, reason in cases]
        for cid, reason in ids:
            assert emu.challenges.wait_answered(cid, 10) == "declined"
            assert emu.challenges.decline_reason(cid) == reason, (cid, reason)


def test_burst_respects_concurrency(tmp_path: Path) -> None:
    with bot_and_emulator(tmp_path, challenge={"concurrency": 2,
                                               "max_simultaneous_games_per_user": 5},
                          game={"abort_if_no_first_move_s": 60}) as (emu, bot):
        from bot.emulator import OpponentSpec

        slow = OpponentSpec(think_time_s=30)  # games stay open during the burst
        ids = [emu.challenge_bot(challenger=f"user{i}", rated=False, clock_limit_s=600,
                                 increment_s=5, color="white", opponent=slow)
               for i in range(6)]
        statuses = [emu.challenges.wait_answered(cid, 10) for cid in ids]
        assert statuses.count("accepted") == 2, statuses
        later = [emu.challenges.decline_reason(c) for c, s in zip(ids, statuses, strict=True)
                 if s == "declined"]
        assert later == ["later"] * 4
        assert bot.service is not None
        assert wait_until(lambda: len(bot.service.supervisor.games) == 2, 5)
