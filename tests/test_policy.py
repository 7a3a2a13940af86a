"""Challenge policy: every config key accepts and declines with the right reason."""

from __future__ import annotations

import time
from typing import Any

import pytest

from bot.challenges.policy import Standing, decide
from bot.challenges.slots import RESERVATION_TTL_S, Slots
from bot.config import ChallengeConfig, parse_config
from bot.lichess.events import Challenge


def ch(**kw: Any) -> Challenge:
    base: dict[str, Any] = {
        "id": "c1", "challenger": {"id": "alice", "name": "Alice", "rating": 1500},
        "variant": {"key": "standard"}, "rated": False, "speed": "blitz",
        "timeControl": {"type": "clock", "limit": 180, "increment": 2},
    }
    base.update(kw)
    return Challenge.parse(base)


def cc(**kw: Any) -> ChallengeConfig:
    return parse_config({"challenge": kw}).challenge


BOT = {"id": "otherbot", "name": "OtherBot", "title": "BOT", "rating": 2000}
CASES = [
    ({}, {}, None),
    ({"block_list": ["Alice"]}, {}, "generic"),
    ({"allow_list": ["bob"]}, {}, "generic"),
    ({"allow_list": ["ALICE"]}, {}, None),
    ({"accept_bot": False}, {"challenger": BOT}, "noBot"),
    ({"accept_bot": True}, {"challenger": BOT}, None),
    ({"only_bot": True}, {}, "onlyBot"),
    ({"only_bot": True}, {"challenger": BOT}, None),
    ({"variants": ["standard"]}, {"variant": {"key": "chess960"}}, "standard"),
    ({"variants": ["chess960"]}, {"variant": {"key": "fromPosition"}}, "variant"),
    ({"variants": ["standard", "chess960"]}, {"variant": {"key": "chess960"}}, None),
    ({"modes": ["casual"]}, {"rated": True}, "casual"),
    ({"modes": ["rated"]}, {"rated": False}, "rated"),
    ({"time_controls": ["blitz", "rapid"]}, {"speed": "bullet"}, "tooFast"),
    ({"time_controls": ["bullet", "blitz"]}, {"speed": "rapid"}, "tooSlow"),
    ({"time_controls": ["bullet", "rapid"]}, {"speed": "blitz"}, "timeControl"),
    ({"min_base": 300}, {}, "tooFast"),
    ({"max_base": 120}, {}, "tooSlow"),
    ({"min_increment": 3}, {}, "tooFast"),
    ({"max_increment": 1}, {}, "tooSlow"),
    ({"time_controls": ["correspondence"], "min_days": 3},
     {"speed": "correspondence", "timeControl": {"type": "correspondence", "daysPerTurn": 2}},
     "tooFast"),
    ({"time_controls": ["correspondence"], "max_days": 3},
     {"speed": "correspondence", "timeControl": {"type": "correspondence", "daysPerTurn": 7}},
     "tooSlow"),
    ({"time_controls": ["correspondence"]},
     {"speed": "correspondence", "timeControl": {"type": "correspondence", "daysPerTurn": 2}},
     None),
    ({}, {"speed": "correspondence", "timeControl": {"type": "unlimited"}}, "tooSlow"),
    # Correspondence is not in the default time_controls: declined unless listed.
    ({}, {"speed": "correspondence",
          "timeControl": {"type": "correspondence", "daysPerTurn": 2}}, "tooSlow"),
    ({"min_rating": 1600}, {}, "generic"),
    ({"max_rating": 1400}, {}, "generic"),
]


@pytest.mark.parametrize("cfg_kw, ch_kw, reason", CASES)
def test_policy_keys(cfg_kw: dict[str, Any], ch_kw: dict[str, Any], reason: str | None) -> None:
    d = decide(ch(**ch_kw), cc(**cfg_kw))
    if reason is None:
        assert d.accept, d
    else:
        assert not d.accept and d.reason == reason, d


def test_per_user_limit_and_slots_and_shutdown() -> None:
    cfg = cc(max_simultaneous_games_per_user=1, concurrency=2)
    assert decide(ch(), cfg, Standing(games_with_user=1)).reason == "later"
    assert decide(ch(), cfg, Standing(slots_free=0)).reason == "later"
    assert decide(ch(), cfg, Standing(shutting_down=True)).reason == "later"


def test_slots_burst_never_overshoots() -> None:
    cfg = cc(concurrency=2, max_simultaneous_games_per_user=5)
    slots = Slots()
    accepted = []
    for i in range(10):  # ten challenges in one burst, before any game starts
        c = ch(id=f"c{i}")
        d = decide(c, cfg, Standing(games_with_user=slots.with_user("alice"),
                                    slots_free=slots.free(cfg.concurrency)))
        if d.accept:
            slots.reserve(f"c{i}", "alice")
            accepted.append(i)
    assert accepted == [0, 1]
    slots.start("c0", "alice")  # game id == challenge id
    assert slots.used() == 2
    slots.finish("c0")
    slots.release("c1")
    assert slots.used() == 0 and slots.free(2) == 2


def test_a_reservation_whose_accept_is_held_does_not_lapse() -> None:
    # Soak seed 4805 (6f4882f): a 429 held an accept for the 60-s pause, its
    # reservation lapsed at 30 s, the slot was given again (three times), and five
    # accepts went out together when the pause ended, for two slots.
    slots = Slots()
    t0 = time.monotonic()
    slots.reserve("held", "alice", ttl_s=0.0, asking=True)
    slots.reserve("plain", "bob", ttl_s=0.0)
    assert slots.used(t0 + 3600) == 1  # the held one stays, the plain one lapses
    slots.answered("held")  # accepted: the TTL runs from now
    assert slots.used(time.monotonic()) == 1
    assert slots.used(time.monotonic() + RESERVATION_TTL_S + 1) == 0
    slots.reserve("gone", "carol", asking=True)
    slots.release("gone")  # a failed accept releases it; answered is then a no-op
    slots.answered("gone")
    assert slots.used() == 0 and not slots.asking
