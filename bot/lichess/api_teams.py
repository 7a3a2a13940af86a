"""`api.teams`: joining a team (`pibot team join`), so its team arenas can be entered."""

from __future__ import annotations

from bot.lichess.transport import Transport


class TeamsApi:
    """The team endpoints (lila's Team controller; scope team:write)."""

    def __init__(self, http: Transport) -> None:
        self._http = http

    async def join(self, team_id: str, message: str | None = None,
                   password: str | None = None) -> None:
        """Join, or ask to (a team whose leaders review requests needs `message`).
        The entry code travels in the form body only (never a URL, never a log)."""
        data = {k: v for k, v in (("message", message), ("password", password)) if v}
        await self._http.call("team_join", path={"id": team_id}, data=data)
