"""What matchmaking challenges in: one type of game drawn per challenge.

The owner's `matchmaking.types` (BotLi's `types`: a time control or days per
move, a variant, rated/casual, a weight) are drawn by weight
(`random.choices`, as BotLi's weighted_random).  Without them, the default is
today's: standard chess, a clock drawn from challenge_initial_time x
challenge_increment (every playable pairing equally likely) and
challenge_mode, as lichess-bot draws them (lib/matchmaking.py).
"""

from __future__ import annotations

import random

from bot.config import MatchmakingConfig, MatchmakingType
from bot.lichess_limits import API_CLOCK_LIMITS_S, ULTRABULLET_BELOW_S

MAX_INCREMENT_S = 60  # lichess-org/api challengeCreate: clock.increment 0..60


def valid_clock(base_s: int, inc_s: int) -> bool:
    """A clock the challenge API accepts and a BOT may play.

    clock.limit must be 0, 15, 30, 45, 60, 90 or a multiple of 60 up to 10800
    (lichess-org/api doc/specs/tags/challenges/api-challenge-username.yaml), and
    UltraBullet is not bot-compatible (lila isBotCompatible: speed >= Bullet).
    """
    return base_s in API_CLOCK_LIMITS_S and 0 <= inc_s <= MAX_INCREMENT_S \
        and base_s + 40 * inc_s >= ULTRABULLET_BELOW_S


def types_of(mm: MatchmakingConfig) -> list[MatchmakingType]:
    """The types a challenge is drawn from (weight above 0); [] when none can be played."""
    if mm.types:
        return [t for t in mm.types if t.weight > 0]
    return [MatchmakingType(tc=f"{base / 60:g}+{inc}", mode=mm.challenge_mode)
            for base in mm.challenge_initial_time for inc in mm.challenge_increment
            if valid_clock(base, inc)]


def draw(types: list[MatchmakingType]) -> MatchmakingType | None:
    """One type, by weight; None from an empty list."""
    if not types:
        return None
    return random.choices(types, weights=[t.weight for t in types])[0]


def rated(t: MatchmakingType) -> bool:
    """Whether this challenge is rated: the type's mode, `random` a coin toss."""
    return t.mode == "rated" or (t.mode == "random" and random.random() < 0.5)
