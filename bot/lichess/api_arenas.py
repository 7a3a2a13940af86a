"""`api.arenas`: an arena's state, joining it and withdrawing from it."""

from __future__ import annotations

from bot.lichess.errors import ApiRejected
from bot.lichess.events import Tournament
from bot.lichess.transport import Transport, parsed


class ArenasApi:
    """The arena endpoints (lila's Tournament controller)."""

    def __init__(self, http: Transport) -> None:
        self._http = http

    async def get(self, tournament_id: str) -> Tournament | None:
        """The arena, or None once lila no longer has it (404: deleted or unknown)."""
        try:
            body = await self._http.call_json("tournament", path={"id": tournament_id})
        except ApiRejected as exc:
            if exc.status == 404:
                return None
            raise
        return parsed("tournament", body, Tournament.parse)

    async def join(self, tournament_id: str, team: str | None = None,
                   password: str | None = None) -> None:
        """The entry code travels in the form body only (never a URL, never a log)."""
        data = {k: v for k, v in (("team", team), ("password", password)) if v}
        await self._http.call("tournament_join", path={"id": tournament_id}, data=data)

    async def withdraw(self, tournament_id: str) -> None:
        await self._http.call("tournament_withdraw", path={"id": tournament_id})
