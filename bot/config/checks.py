"""Checks that span keys: what each value alone cannot say is wrong.

Ranges whose ends are two keys (min_base <= max_base), the URLs, the clocks
Lichess accepts for a challenge (matchmaking's lists and types), the arena and
opponent lists, the status
page's listen address, a strength profile's takebacks (humans only).  Run on
the built Config (bot/config/build.py), each failure one UserError naming the
keys and the fix.
"""

from __future__ import annotations

import re

from bot.config.redact import show
from bot.config.schema import CORRESPONDENCE_DAYS, Config, MatchmakingConfig, tc_seconds
from bot.errors import UserError
from bot.lichess_limits import API_CLOCK_LIMITS_S, ULTRABULLET_BELOW_S


def cross_checks(cfg: Config) -> None:
    c = cfg.challenge
    pairs = [("challenge.min_base", c.min_base, "challenge.max_base", c.max_base),
             ("challenge.min_increment", c.min_increment, "challenge.max_increment",
              c.max_increment),
             ("challenge.min_rating", c.min_rating, "challenge.max_rating", c.max_rating),
             ("challenge.min_days", c.min_days, "challenge.max_days", c.max_days),
             ("matchmaking.opponent_min_rating", cfg.matchmaking.opponent_min_rating,
              "matchmaking.opponent_max_rating", cfg.matchmaking.opponent_max_rating)]
    for lo_key, lo, hi_key, hi in pairs:
        if lo > hi:
            raise UserError(f"config key '{lo_key}' ({lo}) is greater than '{hi_key}' ({hi}); "
                            f"swap them or widen the range")
    if not cfg.url.startswith(("http://", "https://")):
        raise UserError(f"config key 'url' must start with http:// or https://, "
                        f"got {show(cfg.url)}")
    om = cfg.engine.online_moves
    for key, url in (("explorer_url", om.explorer_url), ("tablebase_url", om.tablebase_url),
                     ("cloud_url", om.cloud_url)):
        if url is not None and not url.startswith(("http://", "https://")):
            raise UserError(f"config key 'engine.online_moves.{key}' must start with http:// "
                            f"or https://, got {show(url)}")
    for key, urls in (("challenge.online_block_list", c.online_block_list),
                      ("matchmaking.online_block_list", cfg.matchmaking.online_block_list)):
        for url in urls:
            if not url.startswith(("http://", "https://")):
                raise UserError(f"config key '{key}': {show(url)} is not a URL; write it "
                                f"with http:// or https://")
    if "ultraBullet" in c.time_controls:
        raise UserError("config key 'challenge.time_controls' lists ultraBullet, but Lichess "
                        "does not let BOT accounts play UltraBullet; remove it")
    _check_matchmaking_clocks(cfg.matchmaking)
    _check_matchmaking_types(cfg.matchmaking)
    ids = [t.id for t in cfg.tournaments]
    for tid in ids:
        if ids.count(tid) > 1:
            raise UserError(f"config key 'tournaments' lists arena {tid} twice; keep one entry")
    _check_matchmaking_opponents(cfg.matchmaking)
    for i, profile in enumerate(cfg.strength.profiles):
        if profile.takebacks is not None and profile.opponent == "bot":
            raise UserError(f"config key 'strength.profiles[{i}].takebacks': takebacks are "
                            f"for games against humans; remove it or set "
                            f"strength.profiles[{i}].opponent to human")
    if cfg.status_page.listen:
        from bot.host.status_page import parse_listen  # the page's modules load only when used

        try:
            parse_listen(cfg.status_page.listen)
        except ValueError as exc:
            raise UserError(f"config key 'status_page.listen': {exc}") from None


MAX_INCREMENT_S = 60  # lichess-org/api challengeCreate: clock.increment 0..60
_USERNAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,29}$")  # lila's username rule


def _check_matchmaking_opponents(mm: MatchmakingConfig) -> None:
    seen: set[str] = set()
    for name in mm.opponents:
        if not _USERNAME.match(name):
            raise UserError(f"config key 'matchmaking.opponents': {name[:40]!r} is not a "
                            f"Lichess username (letters, digits, _ and -, up to 30)")
        if name.lower() in seen:
            raise UserError(f"config key 'matchmaking.opponents' lists {name!r} twice")
        seen.add(name.lower())


def _check_matchmaking_clocks(mm: MatchmakingConfig) -> None:
    if mm.allow_matchmaking and not mm.types and \
            not (mm.challenge_initial_time and mm.challenge_increment):
        raise UserError("matchmaking is on but 'matchmaking.challenge_initial_time' or "
                        "'matchmaking.challenge_increment' is empty; list at least one value")
    for base in mm.challenge_initial_time:
        if base not in API_CLOCK_LIMITS_S:
            raise UserError(f"config key 'matchmaking.challenge_initial_time': Lichess does not "
                            f"accept {base} s as a clock; use 15, 30, 45, 60, 90 or a whole "
                            f"number of minutes in seconds (120, 180, ... 10800)")
    # Each challenge picks one of each list, so every pairing has to be playable.
    for base in mm.challenge_initial_time:
        for inc in mm.challenge_increment:
            if base + 40 * inc < ULTRABULLET_BELOW_S:
                raise UserError(f"config keys 'matchmaking.challenge_initial_time' and "
                                f"'matchmaking.challenge_increment' pair {base} s with "
                                f"+{inc} s, an UltraBullet clock that Lichess refuses for "
                                f"BOT accounts; use at least 30 s (or an increment)")



def _check_matchmaking_types(mm: MatchmakingConfig) -> None:
    """Each type's clock or days as Lichess takes them from a BOT (the same rules as
    challenge_initial_time x challenge_increment); one line per mistake."""
    for i, t in enumerate(mm.types):
        key = f"matchmaking.types[{i}]"
        if (t.tc is None) == (t.days is None):
            raise UserError(f"config key '{key}' needs {'one of' if t.tc else 'either'} tc "
                            f"(a clock, e.g. 3+2) or days (correspondence, e.g. 3)"
                            f"{', not both' if t.tc else ''}")
        if t.days is not None and t.days not in CORRESPONDENCE_DAYS:
            raise UserError(f"config key '{key}.days': Lichess offers "
                            f"{', '.join(map(str, CORRESPONDENCE_DAYS))} days per move, not "
                            f"{t.days}")
        if t.tc is None:
            continue
        clock = tc_seconds(t.tc)
        if clock is None:
            raise UserError(f"config key '{key}.tc': {show(t.tc)} is not MINUTES+SECONDS; "
                            f"write e.g. 3+2 or 0.5+0")
        base, inc = clock
        if base not in API_CLOCK_LIMITS_S:
            raise UserError(f"config key '{key}.tc': Lichess does not take {base} s as a "
                            f"clock; use 0.25, 0.5, 0.75, 1, 1.5 or whole minutes up to 180")
        if inc > MAX_INCREMENT_S:
            raise UserError(f"config key '{key}.tc': the increment must be 0 to "
                            f"{MAX_INCREMENT_S} s, not {inc}")
        if base + 40 * inc < ULTRABULLET_BELOW_S:
            raise UserError(f"config key '{key}.tc': {t.tc} is UltraBullet, which Lichess "
                            f"refuses for BOT accounts; use at least 0.5+0 (or an increment)")
    if mm.types and not any(t.weight > 0 for t in mm.types):
        raise UserError("config key 'matchmaking.types': every weight is 0; give at least "
                        "one type a weight above 0")
