"""`api.challenges`: answering challenges, and sending and withdrawing our own."""

from __future__ import annotations

from collections.abc import Callable

from bot.lichess.events import Challenge
from bot.lichess.transport import Transport, parsed


class ChallengesApi:
    """Challenge answers (their own rate class) and creation (another one)."""

    def __init__(self, http: Transport) -> None:
        self._http = http

    async def accept(self, challenge_id: str,
                     wanted: Callable[[], bool] | None = None) -> None:
        await self._http.call("accept", path={"id": challenge_id}, wanted=wanted)

    async def decline(self, challenge_id: str, reason: str,
                      wanted: Callable[[], bool] | None = None) -> None:
        await self._http.call("decline", path={"id": challenge_id}, data={"reason": reason},
                              wanted=wanted)

    async def create(self, username: str, rated: bool, limit_s: int, increment_s: int,
                     color: str = "random", variant: str = "standard") -> Challenge:
        body = await self._http.call_json(
            "challenge", path={"user": username},
            data={"rated": str(rated).lower(), "clock.limit": limit_s,
                  "clock.increment": increment_s, "color": color, "variant": variant})
        # lila answers {"challenge": {...}}, or the challenge itself.
        return parsed("challenge", body, lambda b: Challenge.parse(
            b["challenge"] if isinstance(b.get("challenge"), dict) else b))

    async def create_correspondence(self, username: str, rated: bool, days: int,
                                    color: str = "random",
                                    variant: str = "standard") -> Challenge:
        """A correspondence challenge: `days` per move (lila takes 1, 2, 3, 5, 7, 10, 14)."""
        body = await self._http.call_json(
            "challenge", path={"user": username},
            data={"rated": str(rated).lower(), "days": days, "color": color,
                  "variant": variant})
        return parsed("challenge", body, lambda b: Challenge.parse(
            b["challenge"] if isinstance(b.get("challenge"), dict) else b))

    async def cancel(self, challenge_id: str) -> None:
        await self._http.call("cancel", path={"id": challenge_id})
