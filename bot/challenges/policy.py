"""Challenge accept/decline: a pure decision plus slot bookkeeping.

Decline reasons are Lichess's keys (lichess-org/api, challengeDeclineReason):
the challenger sees the matching sentence, so the most specific one wins.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from bot.config import ChallengeConfig
from bot.lichess.events import Challenge, User

SPEED_ORDER = ("ultraBullet", "bullet", "blitz", "rapid", "classical", "correspondence")


@dataclass(frozen=True)
class Decision:
    accept: bool
    reason: str = ""  # Lichess decline reason key when not accepted
    detail: str = ""  # human explanation for the log
    busy: bool = False  # declined only for want of a free slot: it may wait for one

    @staticmethod
    def decline(reason: str, detail: str, busy: bool = False) -> Decision:
        return Decision(False, reason, detail, busy)


def _lower(names: list[str]) -> set[str]:
    return {n.lower() for n in names}


def _speed_reason(speed: str, allowed: list[str]) -> str:
    if speed not in SPEED_ORDER or not allowed:
        return "timeControl"
    idx = SPEED_ORDER.index(speed)
    allowed_idx = [SPEED_ORDER.index(s) for s in allowed if s in SPEED_ORDER]
    if allowed_idx and idx < min(allowed_idx):
        return "tooFast"
    if allowed_idx and idx > max(allowed_idx):
        return "tooSlow"
    return "timeControl"


def _time_control(ch: Challenge, cfg: ChallengeConfig, is_bot: bool) -> Decision | None:
    tc = ch.time_control
    speed = ch.speed
    kind = tc.type
    if kind == "unlimited":
        return Decision.decline("tooSlow", "unlimited games are not played")
    if speed == "ultraBullet":
        # lila: a BOT cannot play UltraBullet (lila.core.game.isBotCompatible wants
        # speed >= Bullet); Lichess filters these, but never accept one that slips through.
        return Decision.decline("timeControl", "bots cannot play UltraBullet on Lichess")
    if speed not in cfg.time_controls:
        return Decision.decline(_speed_reason(speed, cfg.time_controls),
                                f"speed {speed} not in {cfg.time_controls}")
    if kind == "correspondence":
        days = tc.days_per_turn or 0
        if days < cfg.min_days:
            return Decision.decline("tooFast", f"{days} days/move < min_days")
        if days > cfg.max_days:
            return Decision.decline("tooSlow", f"{days} days/move > max_days")
        return None
    base, inc = tc.limit or 0, tc.increment or 0
    if base < cfg.min_base:
        return Decision.decline("tooFast", f"base {base}s < min_base {cfg.min_base}s")
    if base > cfg.max_base:
        return Decision.decline("tooSlow", f"base {base}s > max_base {cfg.max_base}s")
    if inc < cfg.min_increment:
        return Decision.decline("tooFast", f"increment {inc}s < min_increment")
    if is_bot and speed == "bullet" and inc == 0 and cfg.bullet_requires_increment:
        # lichess-bot model.py is_supported_time_control: the same rule, same reason key.
        return Decision.decline("timeControl", "bullet from a BOT needs an increment "
                                "(bullet_requires_increment)")
    if inc > cfg.max_increment:
        return Decision.decline("tooSlow", f"increment {inc}s > max_increment")
    minutes = game_minutes(base, inc)
    if cfg.max_game_minutes is not None and minutes > cfg.max_game_minutes:
        return Decision.decline("tooSlow", f"estimated {minutes:.0f} min > max_game_minutes "
                                f"{cfg.max_game_minutes:g}")
    return None


def game_minutes(base_s: int, increment_s: int) -> float:
    """How long a real-time game may last, both clocks: lila estimates one side's
    time as base + 40 x increment (the speed categories: chess.Speed), so a game
    takes up to twice that."""
    return 2 * (base_s + 40 * increment_s) / 60


def _rating(challenger: User, cfg: ChallengeConfig) -> Decision | None:
    """min_rating / max_rating. A challenger without a rating is unknown, not 1500:
    it passes only when the range is left wide open (the defaults)."""
    rating = challenger.rating
    if rating is None:
        if cfg.min_rating > 0 or cfg.max_rating < 5000:
            return Decision.decline("generic", "rating unknown; min_rating / max_rating set")
        return None
    if not cfg.min_rating <= rating <= cfg.max_rating:
        return Decision.decline("generic", f"rating {rating} outside "
                                f"[{cfg.min_rating}, {cfg.max_rating}]")
    return None


def _rating_difference(challenger: User, cfg: ChallengeConfig,
                       mine: int | None) -> Decision | None:
    """rating_difference (lichess-bot #1190): against our own rating in the challenge's
    perf; while ours is unknown (never played it, not read yet) it lets all through."""
    limit, theirs = cfg.rating_difference, challenger.rating
    if limit is None or mine is None:
        return None
    if theirs is None:
        return Decision.decline("generic", "rating unknown; rating_difference set")
    if abs(theirs - mine) > limit:
        return Decision.decline("generic", f"rating {theirs} is {abs(theirs - mine)} from "
                                f"ours ({mine}), over rating_difference {limit}")
    return None


@dataclass(frozen=True)
class Standing:
    """Where the bot stands as a challenge arrives: what decide() weighs besides the
    challenge and the config."""

    games_with_user: int = 0  # running, reserved or queued with this challenger
    slots_free: int = 1
    shutting_down: bool = False
    # Our daily bot-vs-bot limit is used up: a BOT's challenge is declined `later`
    # (humans are still welcome).
    bot_limit_reached: bool = False
    online_blocked: bool = False  # the challenger is on a downloaded online_block_list
    # Challenges accepted from this user within recent_bot_challenge_age_s (checked
    # against max_recent_bot_challenges for BOTs).
    recent_from_bot: int = 0
    bot_slots_free: int | None = None  # free slots a BOT may take (reserved_for_humans)
    my_rating: int | None = None  # ours in the challenge's perf (rating_difference)


def decide(ch: Challenge, cfg: ChallengeConfig, standing: Standing = Standing()) -> Decision:
    """Accept or decline one incoming challenge (no I/O).

    A decline for want of a slot is `busy`: the challenge may wait in the queue.
    """
    games_with_user, slots_free = standing.games_with_user, standing.slots_free
    recent_from_bot, bot_slots_free = standing.recent_from_bot, standing.bot_slots_free
    challenger = ch.challenger
    user = challenger.login.lower()
    is_bot = challenger.is_bot
    if standing.shutting_down:
        return Decision.decline("later", "shutting down")
    if user in _lower(cfg.block_list):
        return Decision.decline("generic", f"{user} is on block_list")
    if standing.online_blocked:
        return Decision.decline("generic", f"{user} is on an online_block_list")
    if cfg.allow_list and user not in _lower(cfg.allow_list):
        return Decision.decline("generic", f"{user} is not on allow_list")
    if is_bot and not cfg.accept_bot:
        return Decision.decline("noBot", "bots not accepted (accept_bot: false)")
    if not is_bot and cfg.only_bot:
        return Decision.decline("onlyBot", "only bots accepted (only_bot: true)")
    variant = ch.variant
    if variant not in cfg.variants:
        reason = "standard" if "standard" in cfg.variants else "variant"
        return Decision.decline(reason, f"variant {variant} not in {cfg.variants}")
    rated = ch.rated
    if rated and "rated" not in cfg.modes:
        return Decision.decline("casual", "rated games not accepted")
    if not rated and "casual" not in cfg.modes:
        return Decision.decline("rated", "casual games not accepted")
    tc = _time_control(ch, cfg, is_bot)
    if tc is not None:
        return tc
    bad_rating = _rating(challenger, cfg) or \
        _rating_difference(challenger, cfg, standing.my_rating)
    if bad_rating is not None:
        return bad_rating
    if is_bot and standing.bot_limit_reached:
        return Decision.decline("later", "daily bot-vs-bot game limit reached")
    limit = cfg.max_recent_bot_challenges
    if is_bot and limit is not None and recent_from_bot >= limit:
        return Decision.decline("later", f"already {recent_from_bot} challenge(s) from "
                                f"{user} in {cfg.recent_bot_challenge_age_s:.0f} s")
    if games_with_user >= cfg.max_simultaneous_games_per_user:
        return Decision.decline("later", f"already {games_with_user} game(s) with {user}")
    if slots_free <= 0:
        return Decision.decline("later", "all game slots busy", busy=True)
    if is_bot and bot_slots_free is not None and bot_slots_free <= 0:
        return Decision.decline("later", "the free slot(s) are reserved for humans "
                                "(reserved_for_humans)", busy=True)
    return Decision(True, "", "accepted")


class RecentChallenges:
    """When we accepted each user's challenges (lichess-bot's recent_bot_challenges)."""

    def __init__(self) -> None:
        self._seen: dict[str, list[float]] = {}

    def count(self, user: str, age_s: float, now: float | None = None) -> int:
        now = time.monotonic() if now is None else now
        user = user.lower()
        kept = [t for t in self._seen.get(user, []) if now - t < age_s]
        if kept:
            self._seen[user] = kept
        else:
            self._seen.pop(user, None)
        return len(kept)

    def add(self, user: str, now: float | None = None) -> None:
        self._seen.setdefault(user.lower(), []).append(time.monotonic() if now is None else now)
