"""Challenges: to the bot (from the control API), from the bot (its
matchmaking), accept/decline/cancel, expiry bookkeeping, the daily bot limit.
"""

from __future__ import annotations

import logging
import time
from dataclasses import replace
from typing import Any

from bot.emulator.challenge import Challenge
from bot.emulator.config import AccountSpec, OpponentSpec, UserSpec
from bot.emulator.errors import ApiError, EmulatorUsageError, bad_request, not_found
from bot.emulator.game import Player
from bot.emulator.payloads import DECLINE_REASONS, VARIANTS, speed_of
from bot.emulator.people import bot_player
from bot.emulator.specs import ChallengeSpec
from bot.emulator.state import (
    COMPAT,
    CoreState,
    as_bool,
    as_int,
    check_fen,
    check_variant,
)

log = logging.getLogger(__name__)

# lila modules/challenge/src/main/ChallengeGranter.scala (Reason.BotUltraBullet):
# a challenge at UltraBullet speed to a BOT is refused with this text.
BOT_ULTRABULLET = "Bots cannot play UltraBullet. Choose a slower time control."
# lila modules/challenge/src/main/ChallengeApi.scala (accept): a BOT accepting a
# game its clock is not compatible with (UltraBullet).
BOT_INCOMPATIBLE = "Game incompatible with a BOT account"
BOT_DAY_KEY = "bot.vsBot.day"  # lila BotLimit's rate-limit key (100 bot games a day)


class ChallengeOps(CoreState):
    def challenge_bot(self, spec: ChallengeSpec) -> str:
        variant = self._checked_variant(spec)
        limit_s, color, challenger = spec.clock_limit_s, spec.color, spec.challenger
        opponent = spec.opponent or OpponentSpec()
        with self.lock:
            bot = self.people.target(spec.bot_username)
            ultra = speed_of(limit_s, spec.increment_s, spec.days) == "ultraBullet"
            if ultra and bot.title == "BOT" and self.config.refuse_bot_ultrabullet \
                    and not spec.force:
                raise EmulatorUsageError(
                    f"{BOT_ULTRABULLET} (lila refuses UltraBullet challenges to a BOT; "
                    "pass force=True to deliver it anyway, e.g. to test the bot declines it)"
                )
            name_key = challenger.lower()
            if name_key not in self.people.users:
                self.people.users[name_key] = UserSpec(
                    challenger, title=spec.challenger_title, rating=spec.challenger_rating,
                    opponent=opponent,
                )
            final = color if color != "random" else self.rng.choice(("white", "black"))
            ch = Challenge(
                id=self._new_id(),
                challenger=Player(challenger, spec.challenger_title, spec.challenger_rating),
                dest=bot_player(bot),
                variant=variant,
                rated=spec.rated,
                limit_s=limit_s,
                increment_s=spec.increment_s if limit_s is not None else None,
                days=spec.days if limit_s is None else None,
                color=color,
                final_color=final,
                initial_fen=spec.initial_fen,
                expires_at=time.monotonic() + self.config.challenge_expiry_s,
                direction="in",
                site=self.site,
                opponent=opponent,
                kept_alive=spec.keep_alive,
            )
            self.challenges.open[ch.id] = ch
            self.streams.publish_event(
                bot.username, {"type": "challenge", "challenge": ch.json(), "compat": COMPAT}
            )
            self._touch()
            log.info("challenge %s from %s to %s", ch.id, challenger, bot.username)
            return ch.id

    @staticmethod
    def _checked_variant(spec: ChallengeSpec) -> str:
        """The challenge's variant, once its FEN, color and clock are known good."""
        variant = check_variant(spec.variant)
        if spec.initial_fen is not None:
            if variant == "standard":
                variant = "fromPosition"
            check_fen(variant, spec.initial_fen)
        if spec.color not in ("white", "black", "random"):
            raise EmulatorUsageError(
                f"color {spec.color!r} is invalid; use white, black or random")
        limit_s = spec.clock_limit_s
        if limit_s is not None and (limit_s < 0 or (spec.increment_s or 0) < 0):
            raise EmulatorUsageError("clock_limit_s and increment_s must be >= 0")
        return variant

    def _own_challenge(self, account: AccountSpec, cid: str, direction: str) -> Challenge:
        ch = self.challenges.open.get(cid)
        me = account.username.lower()
        if ch is None or ch.status not in ("created", "offline"):
            raise not_found("Challenge not found")
        if direction == "in" and (ch.direction != "in" or ch.dest.id != me):
            raise not_found("Challenge not found")
        if direction == "out" and (ch.direction != "out" or ch.challenger.id != me):
            raise not_found("Challenge not found")
        return ch

    def accept_challenge(self, account: AccountSpec, cid: str) -> None:
        with self.lock:
            ch = self._own_challenge(account, cid, "in")
            if (
                self.config.refuse_bot_ultrabullet
                and account.title == "BOT"
                and ch.speed == "ultraBullet"
            ):
                raise bad_request(BOT_INCOMPATIBLE)
            if ch.status == "offline":
                # The challenger left (that is why it went offline): it never moves.
                ch.opponent = replace(ch.opponent, stall_after=0)
            ch.status = "accepted"
            del self.challenges.open[cid]
            self._start_game_from_challenge(ch, bot_is_challenger=False)

    def decline_challenge(self, account: AccountSpec, cid: str, reason: str | None) -> None:
        key = reason or "generic"
        if key not in DECLINE_REASONS:
            raise bad_request(f"Invalid decline reason {key!r}")
        with self.lock:
            ch = self._own_challenge(account, cid, "in")
            ch.status = "declined"
            ch.decline_key = key
            del self.challenges.open[cid]
            self.challenges.declined[cid] = ch
            self._touch()

    def cancel_challenge(self, account: AccountSpec, cid: str) -> None:
        with self.lock:
            self._cancel(self._own_challenge(account, cid, "out"))

    def cancel_incoming(self, cid: str) -> None:
        """The challenger withdraws: challengeCanceled on the bot's event stream."""
        with self.lock:
            ch = self.challenges.open.get(cid)
            if ch is None or ch.direction != "in":
                raise EmulatorUsageError(f"no open incoming challenge {cid!r}")
            self._cancel(ch)

    def challenge_status(self, cid: str) -> str | None:
        with self.lock:
            if cid in self.challenges.open:
                return self.challenges.open[cid].status
            if cid in self.challenges.declined:
                return "declined"
            if cid in self.games:
                return "accepted"
            if cid in self.challenges.expired:
                return "canceled"
            return None

    def list_challenges(self, account: AccountSpec) -> dict[str, list[dict[str, Any]]]:
        me = account.username.lower()
        with self.lock:
            listed = [c for c in self.challenges.open.values() if c.status == "created"]
            inc = [dict(c.json()) for c in listed if c.dest.id == me]
            out = [dict(c.json()) for c in listed if c.challenger.id == me]
        return {"in": inc, "out": out}

    def create_outgoing(self, account: AccountSpec, username: str,
                        params: dict[str, Any]) -> dict[str, Any]:
        """POST /api/challenge/{username}: the bot challenges someone."""
        with self.lock:
            if username.lower() == account.username.lower():
                raise bad_request("You cannot challenge yourself")
            target = self.people.users.get(username.lower())
            if target is None:
                raise not_found("User not found")
            rated = as_bool(params.get("rated"), False)
            limit = as_int(params.get("clock.limit"), "clock.limit")
            inc = as_int(params.get("clock.increment"), "clock.increment")
            days = as_int(params.get("days"), "days")
            if limit is not None and not 0 <= limit <= 10800:
                raise bad_request("clock.limit must be between 0 and 10800 seconds")
            if inc is not None and not 0 <= inc <= 180:
                raise bad_request("clock.increment must be between 0 and 180 seconds")
            if limit is not None and inc is None:
                inc = 0
            color = str(params.get("color") or "random")
            if color not in ("white", "black", "random"):
                raise bad_request(f"Invalid color {color!r}")
            variant = str(params.get("variant") or "standard")
            if variant not in VARIANTS:
                raise bad_request(f"Invalid variant {variant!r}")
            fen = params.get("fen") or None
            if variant not in ("standard", "fromPosition", "chess960"):
                # lila ignores it (ChallengeJoiner.gameSetup reads a FEN only for
                # From Position and Chess960): the variant's own start.
                fen = None
            if fen is not None:
                variant = "fromPosition" if variant == "standard" else variant
                try:
                    check_fen(variant, str(fen))
                except EmulatorUsageError as exc:
                    raise bad_request(str(exc)) from None
            both_bots = target.title == "BOT" and account.title == "BOT"
            if both_bots and self.config.bot_vs_bot_daily_limit is not None:
                self._check_bot_daily(account)
            if both_bots and target.at_daily_limit:
                raise self._opponent_at_daily_limit(target)
            # After the bot limits, as in lila's controllers/Challenge.scala apiCreate.
            ultra = speed_of(limit, inc, days) == "ultraBullet"
            if self.config.refuse_bot_ultrabullet and target.title == "BOT" and ultra:
                raise bad_request(BOT_ULTRABULLET)
            now = time.monotonic()
            final = color if color != "random" else self.rng.choice(("white", "black"))
            ch = Challenge(
                id=self._new_id(),
                challenger=bot_player(account),
                dest=Player(target.username, target.title, target.rating),
                variant=variant,
                rated=rated,
                limit_s=limit,
                increment_s=inc,
                days=days if limit is None else None,
                color=color,
                final_color=final,
                initial_fen=str(fen) if fen else None,
                expires_at=now + self.config.challenge_expiry_s,
                direction="out",
                site=self.site,
                opponent=target.opponent,
                respond_at=(now + target.response_delay_s) if target.online else None,
                response=target.on_challenge if target.online else "ignore",
            )
            if ch.response == "decline":
                ch.decline_key = target.decline_reason
            self.challenges.open[ch.id] = ch
            # Lichess echoes the bot's own challenge on its event stream too:
            # a bot must recognise challenges it sent (challenger == itself).
            self.streams.publish_event(
                account.username, {"type": "challenge", "challenge": ch.json(), "compat": COMPAT}
            )
            self._touch()
            return dict(ch.json())

    def _check_bot_daily(self, account: AccountSpec) -> None:
        limit = self.config.bot_vs_bot_daily_limit
        assert limit is not None
        now = time.time()
        day_start = now - (now % 86400)
        times = [t for t in self.challenges.bot_vs_bot.get(account.username, []) if t >= day_start]
        if len(times) >= limit:
            seconds = int(day_start + 86400 - now) + 1
            # lila modules/bot/src/main/BotLimit.scala: JsonLimited -> 429 with this text.
            raise ApiError(
                429,
                f"You played {limit} games against other bots today, "
                "please wait before challenging another bot.",
                ratelimit={"key": BOT_DAY_KEY, "seconds": seconds},
            )
        times.append(now)
        self.challenges.bot_vs_bot[account.username] = times

    def _opponent_at_daily_limit(self, target: UserSpec) -> ApiError:
        """lila BotLimit.challengeLimitError -> OpponentLimit, which
        controllers/Challenge.scala answers as 400 with BotLimit's JSON writer."""
        now = time.time()
        seconds = int(86400 - now % 86400) + 1  # lila: a rolling day; here: next UTC midnight
        until = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now + seconds))
        return ApiError(
            400,
            f"{target.username} played 100 games against other bots today, "
            f"please wait until {until} to challenge them.",
            ratelimit={"key": BOT_DAY_KEY, "seconds": seconds},
        )
