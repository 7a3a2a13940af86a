"""Bots that declined our challenges, and until when matchmaking leaves them be
(matchmaking.challenge_filter).

As lichess-bot's filter (lib/matchmaking.py `declined_challenge`): with `fine`,
the decline reason names the aspect of our challenge the other bot objects to
(its speed, rated or casual, the variant) and only challenges with that aspect
are held back; `coarse`, or a reason of no aspect (generic, later, noBot,
onlyBot), holds back the whole bot.  How long: `later` (busy now) for
matchmaking.decline_later_hours, any other reason, which follows from the
other bot's config and so changes seldom, for matchmaking.decline_hours.

lichess-bot forgets its declines at a restart unless a file is named for them
(`challenge_decliner_file_name`, #1226); here `keep` writes each one to the
records database (bot/store, table `declines`) and the service hands the book
the ones still running when it starts, so a restart asks no decliner again.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable

from bot.config import MatchmakingConfig
from bot.lichess.events import Challenge

log = logging.getLogger(__name__)

# bot (lowercase), aspect ("" = the whole bot), reason key, until (Unix time)
Keep = Callable[[str, str, str, float], None]

# declineReasonKey (lowercased) -> the aspect of our challenge it objects to; others
# object to the challenge as such (lila modules/challenge/src/main/Challenge.scala
# DeclineReason; lichess-bot lib/matchmaking.py declined_challenge).
_ASPECT = {"toofast": "speed", "tooslow": "speed", "timecontrol": "speed",
           "rated": "mode", "casual": "mode", "standard": "variant", "variant": "variant"}
LATER = "later"


def aspects(speed: str, rated: bool, variant: str) -> tuple[str, ...]:
    """A challenge's aspects, as a decline stores them."""
    return speed, "rated" if rated else "casual", variant


class Declines:
    """(bot, aspect) -> until when it is not challenged (Unix time)."""

    def __init__(self, remembered: Iterable[tuple[str, str, float]] = (),
                 keep: Keep | None = None) -> None:
        self.until: dict[tuple[str, str], float] = {}
        for bot, aspect, until in remembered:
            self.until[(bot, aspect)] = max(until, self.until.get((bot, aspect), 0.0))
        self._keep = keep

    def declined(self, ch: Challenge, mm: MatchmakingConfig) -> None:
        """Our challenge `ch` was declined: hold that bot (or that aspect) back."""
        bot = ch.dest_user.login.lower() if ch.dest_user is not None else ""
        if mm.challenge_filter == "none" or not bot:
            return
        key = (ch.decline_reason_key or "generic").lower()
        aspect = _ASPECT.get(key, "") if mm.challenge_filter == "fine" else ""
        speed, mode, variant = aspects(ch.speed, ch.rated, ch.variant)
        value = {"speed": speed, "mode": mode, "variant": variant}.get(aspect, "")
        hours = mm.decline_later_hours if key == LATER else mm.decline_hours
        until = time.time() + hours * 3600
        self.until[(bot, value)] = until
        if self._keep is not None:
            self._keep(bot, value, key, until)
        log.info("matchmaking: %s declined (%s); not challenging it to %s for %s", bot, key,
                 f"another {value} game" if value else "anything", _hours(hours))

    def holds(self, bot: str, of: tuple[str, ...]) -> bool:
        """Whether a challenge with these aspects may not go to `bot` now."""
        now = time.time()
        return any(self.until.get((bot, a), 0.0) > now for a in ("", *of))

    def __len__(self) -> int:
        now = time.time()
        return sum(1 for until in self.until.values() if until > now)


def _hours(hours: float) -> str:
    if hours >= 48:
        return f"{hours / 24:g} days"
    return f"{hours:g} h" if hours >= 1 else f"{hours * 3600:.0f} s"
