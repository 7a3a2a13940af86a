"""Matchmaking by variant, time control and correspondence, with weights, and
decliners remembered in the records database across restarts (issue 48 item 4),
over real HTTP against the emulator: the config's one-line mistakes, the weighted
draw, the opponent filter in the type's perf, a correspondence challenge with its
own slot, and a decline that outlives a restart until its hold runs out."""

from __future__ import annotations

import logging
import random
import re
import time
from pathlib import Path

import pytest
from test_service_helpers import (
    RunningBot,
    bot_and_emulator,
    bot_config,
    fast_emulator_config,
    needs_engine,
    wait_until,
)

from bot.challenges import mm_types
from bot.config import MatchmakingConfig, MatchmakingType, parse_config
from bot.emulator import Emulator, OpponentSpec, UserSpec
from bot.errors import UserError
from bot.store import db, queries

MM = {"allow_matchmaking": True, "challenge_timeout_s": 1, "challenge_expiry_s": 5}
QUICK = OpponentSpec(policy="random", think_time_s=0.05, resign_after=1, seed=3)
CHALLENGED = re.compile(r"matchmaking: challenged (\S+) \((.+?), (rated|casual)\)")


def _challenged(caplog: pytest.LogCaptureFixture) -> list[tuple[str, str, str]]:
    return [m.groups() for r in caplog.records
            if (m := CHALLENGED.search(r.getMessage())) is not None]


@pytest.mark.parametrize(("kind", "line"), [
    ({"tc": "3m"}, "'matchmaking.types[0].tc': '3m' is not MINUTES+SECONDS"),
    ({"tc": "3+2", "days": 2}, "'matchmaking.types[0]' needs one of tc"),
    ({"variant": "atomic"}, "'matchmaking.types[0]' needs either tc"),
    ({"days": 4}, "'matchmaking.types[0].days': Lichess offers 1, 2, 3, 5, 7, 10, 14"),
    ({"tc": "1.6+0"}, "'matchmaking.types[0].tc': Lichess does not take 96 s"),
    ({"tc": "0.25+0"}, "UltraBullet, which Lichess refuses for BOT accounts"),
    ({"tc": "1+61"}, "the increment must be 0 to 60 s, not 61"),
    ({"tc": "1+0", "variant": "fromPosition"}, "'matchmaking.types[0].variant'"),
    ({"tc": "1+0", "weight": 0}, "every weight is 0"),
    ({"tc": "1+0", "mode": "sometimes"}, "'matchmaking.types[0].mode'"),
])
def test_a_mistake_in_a_type_is_one_line(kind: dict[str, object], line: str) -> None:
    with pytest.raises(UserError) as exc:
        parse_config({"matchmaking": {"types": [kind]}})
    assert line in str(exc.value) and "\n" not in str(exc.value)


def test_a_type_knows_its_clock_speed_and_perf() -> None:
    cfg = parse_config({"matchmaking": {"types": [
        {"tc": "3+2", "variant": "atomic"}, {"days": 3}, {"tc": "0.5+0", "name": "fast"}]}})
    atomic, corr, fast = cfg.matchmaking.types
    assert (atomic.clock, atomic.speed, atomic.perf, atomic.label) == \
        ((180, 2), "blitz", "atomic", "3+2 atomic")
    assert (corr.clock, corr.speed, corr.perf, corr.label) == \
        (None, "correspondence", "correspondence", "3d standard")
    assert (fast.clock, fast.speed, fast.label) == ((30, 0), "bullet", "fast")


def test_without_types_the_default_is_todays_matchmaking() -> None:
    mm = MatchmakingConfig(challenge_initial_time=[30, 60], challenge_increment=[0, 1],
                           challenge_mode="rated")
    got = [(t.clock, t.variant, t.mode, t.weight) for t in mm_types.types_of(mm)]
    assert got == [((30, 0), "standard", "rated", 1.0), ((30, 1), "standard", "rated", 1.0),
                   ((60, 0), "standard", "rated", 1.0), ((60, 1), "standard", "rated", 1.0)]
    # An unplayable pairing is left out, as before (20 s is UltraBullet for a BOT).
    odd = MatchmakingConfig(challenge_initial_time=[15], challenge_increment=[0, 1])
    assert [t.clock for t in mm_types.types_of(odd)] == [(15, 1)]


def test_types_are_drawn_by_weight() -> None:
    heavy, light = MatchmakingType(tc="1+0", weight=3), MatchmakingType(days=2, weight=1)
    off = MatchmakingType(tc="3+0", weight=0)
    types = mm_types.types_of(MatchmakingConfig(types=[heavy, light, off]))
    assert types == [heavy, light]  # weight 0: never drawn
    random.seed(7)
    draws = [mm_types.draw(types) for _ in range(4000)]
    share = draws.count(heavy) / len(draws)
    assert 0.72 < share < 0.78, share
    assert mm_types.draw([]) is None
    coin = [mm_types.rated(MatchmakingType(tc="1+0", mode="random")) for _ in range(2000)]
    assert 0.45 < sum(coin) / len(coin) < 0.55
    assert mm_types.rated(MatchmakingType(tc="1+0", mode="rated"))
    assert not mm_types.rated(MatchmakingType(tc="1+0", mode="casual"))


@needs_engine
def test_a_variant_type_challenges_only_bots_rated_in_that_variant(tmp_path: Path) -> None:
    users = [UserSpec("atomicbot", rating=1500, perfs={"atomic": 1700}, response_delay_s=0.05,
                      opponent=QUICK),
             UserSpec("plainbot", rating=1700, response_delay_s=0.05, opponent=QUICK)]
    mm = {**MM, "types": [{"tc": "1+1", "variant": "atomic"}],
          "opponent_min_rating": 1600}  # judged in atomic: plainbot has no atomic rating
    with bot_and_emulator(tmp_path, fast_emulator_config(users=users), matchmaking=mm,
                          challenge={"variants": ["standard", "atomic"]}) as (emu, _):
        assert wait_until(lambda: any(g.over for g in emu.games()), 30)
        game = next(g for g in emu.games() if g.over)
        assert game.variant == "atomic" and "atomicbot" in (game.white, game.black)
        assert emu.traffic.count("POST /api/challenge/plainbot") == 0


def test_types_mix_real_time_and_correspondence_and_a_full_correspondence_slot_skips_days(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    users = [UserSpec("decliner", rating=1500, perfs={"chess960": 1500},
                      on_challenge="decline", response_delay_s=0.05)]
    types = [{"tc": "1+1", "weight": 1}, {"days": 2, "variant": "chess960", "weight": 1,
                                           "mode": "rated"}]
    with bot_and_emulator(tmp_path, fast_emulator_config(users=users),
                          matchmaking={**MM, "types": types}) as (emu, _):
        assert wait_until(lambda: {k for _, k, _ in _challenged(caplog)} ==
                          {"1+1 standard", "2d chess960"}, 40), _challenged(caplog)
        assert ("decliner", "2d chess960", "rated") in _challenged(caplog)
        assert all(r.status == 200 for r in emu.traffic.requests("POST /api/challenge/decliner"))
    caplog.clear()
    with bot_and_emulator(tmp_path / "full", fast_emulator_config(users=users),
                          matchmaking={**MM, "types": [{**types[0], "weight": 1},
                                                       {**types[1], "weight": 1000}]},
                          challenge={"max_correspondence_games": 0}) as (emu, _):
        assert wait_until(lambda: len(_challenged(caplog)) >= 3, 30)
        assert {k for _, k, _ in _challenged(caplog)} == {"1+1 standard"}


@needs_engine
def test_a_correspondence_type_plays_a_correspondence_game(tmp_path: Path) -> None:
    users = [UserSpec("postbot", rating=1500, response_delay_s=0.05, opponent=QUICK)]
    with bot_and_emulator(tmp_path, fast_emulator_config(users=users),
                          matchmaking={**MM, "types": [{"days": 3}]},
                          challenge={"time_controls": ["blitz", "correspondence"]},
                          correspondence={"move_time": 0.2}) as (emu, bot):
        assert wait_until(lambda: any(g.over for g in emu.games()), 30)
        game = next(g for g in emu.games() if g.over)
        assert bot.service is not None
        assert wait_until(lambda: bot.service.shared.corr_slots.used() == 0, 10)
        assert bot.service.shared.slots.used() == 0  # a real-time slot was never taken
    conn = db.connect_readonly(tmp_path / "pibot.db")
    try:
        stored = queries.game(conn, game.id)
    finally:
        conn.close()
    assert stored is not None and stored.speed == "correspondence" and stored.days_per_turn == 3


def _count(emu: Emulator, who: str) -> int:
    return emu.traffic.count(f"POST /api/challenge/{who}")


def test_a_decliner_is_remembered_across_a_restart_until_its_hold_ends(
        tmp_path: Path) -> None:
    hold_s = 15.0
    users = [UserSpec("decliner", rating=1500, on_challenge="decline",
                      decline_reason="generic", response_delay_s=0.05)]
    mm = {**MM, "challenge_initial_time": [60], "challenge_increment": [1],
          "challenge_filter": "coarse", "decline_hours": hold_s / 3600}
    emu = Emulator(fast_emulator_config(users=users)).start()
    try:
        cfg = bot_config(emu.url, tmp_path, matchmaking=mm)
        first = RunningBot(cfg, emu.token).start()
        try:
            assert wait_until(lambda: _count(emu, "decliner") == 1, 15)
            svc = first.service
            assert svc is not None
            book = svc.desk.matchmaker.declines if svc.desk is not None else None
            assert book is not None and wait_until(lambda: len(book) == 1, 5)
            until = book.until[("decliner", "")]
        finally:
            first.stop()
        conn = db.connect_readonly(tmp_path / "pibot.db")
        try:
            assert queries.declines(conn, time.time()) == [("decliner", "", until)]
        finally:
            conn.close()
        second = RunningBot(cfg, emu.token).start()
        try:
            # Restarted with the hold still running: the decliner is not asked again...
            assert until - time.time() > 4, "the restart took too long for this test"
            assert not wait_until(lambda: _count(emu, "decliner") > 1, until - time.time() - 1)
            # ... until it has run out.
            assert wait_until(lambda: _count(emu, "decliner") == 2, 15)
        finally:
            second.stop()
    finally:
        emu.stop()


def test_fine_holds_back_only_the_declined_variant(tmp_path: Path) -> None:
    users = [UserSpec("picky", rating=1500, perfs={"atomic": 1500}, on_challenge="decline",
                      decline_reason="variant", response_delay_s=0.05)]
    types = [{"tc": "1+1", "variant": "atomic"}, {"tc": "1+1"}]
    with bot_and_emulator(tmp_path, fast_emulator_config(users=users),
                          matchmaking={**MM, "types": types, "challenge_filter": "fine"}
                          ) as (emu, bot):
        svc = bot.service
        assert svc is not None and svc.desk is not None
        book = svc.desk.matchmaker.declines
        # Each variant is declined once (the reason names the variant), then neither
        # is asked again.
        assert wait_until(lambda: set(book.until) == {("picky", "atomic"),
                                                      ("picky", "standard")}, 40), book.until
        assert _count(emu, "picky") == 2
        assert not wait_until(lambda: _count(emu, "picky") > 2, 4)
    conn = db.connect_readonly(tmp_path / "pibot.db")
    try:
        assert [(b, a) for b, a, _ in queries.declines(conn, time.time())] == \
            [("picky", "atomic"), ("picky", "standard")]
    finally:
        conn.close()


def test_a_decline_holds_by_its_reason() -> None:
    from bot.challenges.declines import Declines
    from bot.lichess.events import Challenge

    def declined(reason: str, **kw: object) -> Challenge:
        return Challenge.parse({"id": "c1", "challenger": {"id": "pibot"},
                                "destUser": {"id": "Other"}, "speed": "blitz",
                                "variant": {"key": "atomic"}, "rated": True,
                                "declineReasonKey": reason, **kw})

    kept: list[tuple[str, str, str, float]] = []
    book = Declines([("old", "", time.time() - 1), ("still", "blitz", time.time() + 60)],
                    lambda *row: kept.append(row))
    assert len(book) == 1  # the one run out does not count
    fine = MatchmakingConfig(challenge_filter="fine", decline_hours=100.0,
                             decline_later_hours=2.0)
    book.declined(declined("later"), fine)  # busy: the whole bot, for 2 h
    book.declined(declined("tooFast"), fine)  # its config: that speed, for 100 h
    book.declined(declined("casual"), fine)  # wants casual: rated held back
    now = time.time()
    assert [(b, a, r) for b, a, r, _ in kept] == [("other", "", "later"),
                                                  ("other", "blitz", "toofast"),
                                                  ("other", "rated", "casual")]
    assert abs(kept[0][3] - (now + 2 * 3600)) < 5 and abs(kept[1][3] - (now + 100 * 3600)) < 5
    assert book.holds("other", ("bullet", "casual", "standard"))  # "" holds everything
    assert book.holds("still", ("blitz", "casual", "standard"))
    assert not book.holds("still", ("rapid", "casual", "standard"))
    assert not book.holds("old", ("blitz", "casual", "standard"))
    book.declined(declined("generic"), MatchmakingConfig(challenge_filter="none"))
    assert len(kept) == 3  # no filter: nothing remembered


def test_remembered_declines_hold_only_while_the_filter_is_on() -> None:
    """A decline read back from the database holds under coarse or fine; an owner who
    turns challenge_filter to none lets every bot be asked again."""
    from typing import cast

    from bot.challenges.declines import Declines
    from bot.challenges.matchmaking import Matchmaker
    from bot.config import LiveConfig
    from bot.host.heat import HeatMonitor
    from bot.lichess.client import Lichess
    from bot.lichess.events import Profile
    from bot.lichess.streams import StreamStatus
    from bot.service.shared import Shared

    atomic = Profile.parse({"id": "pickybot", "username": "PickyBot",
                            "perfs": {"atomic": {"rating": 1500, "games": 9},
                                      "bullet": {"rating": 1500, "games": 9}}})

    def picked(mode: str, variant: str) -> str | None:
        declines = Declines([("pickybot", "atomic", time.time() + 600)])
        mm = Matchmaker(cast(Lichess, None), "pibot",
                        LiveConfig(parse_config({"matchmaking": {"challenge_filter": mode}})),
                        Shared(HeatMonitor(1), StreamStatus()), declines=declines)
        return mm._pick([atomic], "bullet", variant=variant)

    assert picked("fine", "atomic") is None and picked("coarse", "atomic") is None
    assert picked("fine", "standard") == "PickyBot"  # another variant: free
    assert picked("none", "atomic") == "PickyBot"
