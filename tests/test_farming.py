"""Pure parts of issue 24 item 3: the opening variation against lila's
FarmBoostDetection, matchmaking's choice of opponents, the decline memory of
challenge_filter, unknown ratings in the challenge policy, and the new keys'
validation."""

from __future__ import annotations

import random
from typing import Any, cast

import chess
import pytest

from bot.challenges.matchmaking import Matchmaker
from bot.challenges.policy import RecentChallenges, Standing, decide
from bot.config import Config, LiveConfig, parse_config
from bot.errors import UserError
from bot.host.heat import HeatMonitor
from bot.lichess.client import Lichess
from bot.lichess.events import Challenge, Profile
from bot.lichess.streams import StreamStatus
from bot.play.farming import BLACK_REPLIES, SAME_PLIES, WHITE_FIRST, RecentGames, avoided, vary
from bot.service.shared import Shared

LINE = ("e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6")


def test_first_moves_are_legal_after_any_first_move() -> None:
    for m in WHITE_FIRST:
        assert chess.Move.from_uci(m) in chess.Board().legal_moves
    for first in chess.Board().legal_moves:
        b = chess.Board()
        b.push(first)
        assert all(chess.Move.from_uci(r) in b.legal_moves for r in BLACK_REPLIES)


def test_vary_leaves_a_remembered_line_at_our_first_move() -> None:
    rng = random.Random(1)
    for _ in range(20):
        assert vary([LINE], [], rng) in set(WHITE_FIRST) - {"e2e4"}  # white: off 1.e4
        assert vary([LINE], ["e2e4"], rng) in set(BLACK_REPLIES)  # black: not 1...e5
    assert vary([LINE], ["d2d4"]) is None  # the opponent already left the line
    assert vary([LINE], ["e2e4", "e7e6", "g1f3"]) is None  # past our first move
    assert vary([], []) is None
    assert avoided([LINE], list(LINE[:4])) == {"f1b5"}
    assert avoided([LINE * 4], list((LINE * 4)[:SAME_PLIES])) == set()  # lila compares 20


def test_recent_games_keep_two_per_opponent() -> None:
    recent = RecentGames()
    recent.record("Spar", ["a2a3"])  # under two plies: nothing to compare
    assert "spar" not in recent
    for first in ("e2e4", "d2d4", "c2c4"):
        recent.record("Spar", [first, "e7e5", *["g1f3"] * 30])
    lines = recent.lines("SPAR")
    assert [line[0] for line in lines] == ["d2d4", "c2c4"]  # lila: the last 2 games
    assert all(len(line) == SAME_PLIES for line in lines)


def _matchmaker(recent: RecentGames, **mm: Any) -> Matchmaker:
    cfg = parse_config({"matchmaking": mm})
    return Matchmaker(cast(Lichess, None), "pibot", LiveConfig(cfg),
                      Shared(HeatMonitor(1), StreamStatus(), recent_games=recent))


def _bot(name: str, rating: int | None = 1500, games: int = 50) -> Profile:
    perfs = {} if rating is None else {"blitz": {"rating": rating, "games": games}}
    return Profile.parse({"id": name.lower(), "username": name, "perfs": perfs})


def test_matchmaking_prefers_opponents_without_a_recent_game() -> None:
    recent = RecentGames()
    recent.record("old", ["e2e4", "e7e5"])
    mm = _matchmaker(recent)
    assert {mm._pick([_bot("old"), _bot("new")], "blitz") for _ in range(30)} == {"new"}
    assert mm._pick([_bot("old")], "blitz") == "old"  # nobody else: pair again (varied)


def test_matchmaking_ratings_unknown_and_difference() -> None:
    mm = _matchmaker(RecentGames(), opponent_rating_difference=100)
    bots = [_bot("none", None), _bot("unplayed", 1500, games=0), _bot("near", 1580),
            _bot("far", 1700)]
    assert {mm._pick(bots, "blitz", my_rating=1500) for _ in range(30)} == {"near"}
    # Our own rating unknown: only opponent_min/max_rating apply (600..4000).
    assert {mm._pick(bots, "blitz") for _ in range(40)} == {"near", "far"}


@pytest.mark.parametrize(("mode", "key", "blocked", "free"), [
    ("coarse", "tooFast", [("blitz", False)], []),
    ("fine", "tooFast", [("blitz", False)], [("bullet", False)]),
    ("fine", "casual", [("bullet", False)], [("blitz", True)]),
    ("fine", "generic", [("bullet", True)], []),
    ("none", "generic", [], [("blitz", False)]),
])
def test_challenge_filter_remembers_declines(mode: str, key: str,
                                             blocked: list[tuple[str, bool]],
                                             free: list[tuple[str, bool]]) -> None:
    mm = _matchmaker(RecentGames(), challenge_filter=mode)
    mm.declined(Challenge.parse({"id": "c1", "challenger": {"id": "pibot"},
                                 "destUser": {"id": "picky"}, "speed": "blitz",
                                 "rated": False, "variant": {"key": "standard"},
                                 "declineReasonKey": key}))
    bullet = Profile.parse({"id": "picky", "username": "picky",
                            "perfs": {s: {"rating": 1500, "games": 9}
                                      for s in ("bullet", "blitz")}})
    for speed, rated in blocked:
        assert mm._pick([bullet], speed, rated) is None, (speed, rated)
    for speed, rated in free:
        assert mm._pick([bullet], speed, rated) == "picky", (speed, rated)


def _challenge(rating: int | None, title: str | None = None) -> Challenge:
    challenger: dict[str, Any] = {"id": "newbie", "name": "newbie", "title": title}
    if rating is not None:
        challenger["rating"] = rating
    return Challenge.parse({"id": "c1", "challenger": challenger,
                            "variant": {"key": "standard"}, "rated": False, "speed": "blitz",
                            "timeControl": {"type": "clock", "limit": 180, "increment": 2}})


def test_unknown_challenger_rating_is_not_1500() -> None:
    wide = parse_config({}).challenge
    narrow = parse_config({"challenge": {"min_rating": 1400, "max_rating": 1600}}).challenge
    assert decide(_challenge(None), wide).accept  # no range set: nothing to compare
    assert decide(_challenge(1500), narrow).accept
    d = decide(_challenge(None), narrow)
    assert not d.accept and d.reason == "generic" and "unknown" in d.detail


def test_recent_bot_challenges_window() -> None:
    recent = RecentChallenges()
    recent.add("Spar", now=100.0)
    assert recent.count("spar", 60, now=150.0) == 1
    assert recent.count("spar", 60, now=161.0) == 0
    cfg = parse_config({"challenge": {"max_recent_bot_challenges": 1}}).challenge
    assert decide(_challenge(1500, "BOT"), cfg, Standing(recent_from_bot=1)).reason == "later"
    assert decide(_challenge(1500), cfg, Standing(recent_from_bot=1)).accept  # humans: no limit


@pytest.mark.parametrize(("data", "wanted"), [
    ({"challenge": {"online_block_list": ["example.com/list"]}}, "is not a URL"),
    ({"matchmaking": {"online_block_list": "ftp://x"}}, "is not a URL"),
    ({"matchmaking": {"challenge_filter": "strict"}}, "use one of: none, coarse, fine"),
    ({"game": {"max_takebacks_accepted": -1}}, "below the minimum 0"),
    ({"challenge": {"max_recent_bot_challenges": 0}}, "below the minimum 1"),
])
def test_new_keys_reject_bad_values(data: dict[str, Any], wanted: str) -> None:
    with pytest.raises(UserError) as exc:
        parse_config(data)
    assert wanted in str(exc.value) and "\n" not in str(exc.value)


def test_new_keys_default_to_lichess_bot_behaviour() -> None:
    cfg = Config()
    assert not cfg.challenge.bullet_requires_increment
    assert cfg.challenge.max_recent_bot_challenges is None and not cfg.challenge.online_block_list
    assert cfg.matchmaking.challenge_filter == "none"
    assert cfg.matchmaking.opponent_rating_difference is None
    assert cfg.game.max_takebacks_accepted is None
