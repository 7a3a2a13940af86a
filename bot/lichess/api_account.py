"""`api.account`: who the bot is, its games in progress, its token, the bots online."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import cast

from bot.lichess.events import GameInfo, Malformed, Profile, TokenInfo, parse_playing
from bot.lichess.token import Token
from bot.lichess.transport import Transport, parsed

log = logging.getLogger(__name__)

PLAYING_MIN_INTERVAL_S = 60.0  # /api/account/playing: at most once a minute per account
# /api/bot/online?nb=: lila sends at most 200 bots whatever nb asks (modules/user/src/
# main/package.scala `onlineBotVisible = Max(200)`; "as intended", lila#20308), though
# the api spec allows 512 (api 4b980c5). 200 is the whole list: matchmaking picks one
# bot in its rating range at random, so every bot listed is a candidate, and 200
# profiles parse in a moment on a Pi. The spec's default (100) would halve the choice.
ONLINE_BOTS_NB = 200


class AccountApi:
    """The account's endpoints (setup, the safety net for games, matchmaking's list)."""

    def __init__(self, http: Transport) -> None:
        self._http = http
        self._playing: tuple[float, list[GameInfo]] | None = None
        self._playing_lock: asyncio.Lock | None = None

    async def profile(self) -> Profile:
        return parsed("account", await self._http.call_json("account"), Profile.parse)

    async def playing(self) -> list[GameInfo]:
        """Games in progress. Fetched at most once a minute per account; within the
        minute the previous answer is returned (the event stream's gameStart events
        are what start games; this is only a safety net)."""
        if self._playing_lock is None:
            self._playing_lock = asyncio.Lock()
        async with self._playing_lock:
            now = time.monotonic()
            if self._playing is not None and now - self._playing[0] < PLAYING_MIN_INTERVAL_S:
                return list(self._playing[1])
            body = await self._http.call_json("playing", params={"nb": 50})
            games = parse_playing(body)
            self._playing = (time.monotonic(), games)
            return list(games)

    async def token_test(self, token: Token) -> TokenInfo | None:
        res = await self._http.call_json("token_test", data=token.reveal())
        info = res.get(token.reveal()) if isinstance(res, dict) else None
        return cast(TokenInfo, info) if info else None

    async def upgrade(self) -> None:
        """Make the account a BOT account (once, before it has played a game)."""
        await self._http.call("upgrade")

    async def online_bots(self, limit: int = ONLINE_BOTS_NB) -> list[Profile]:
        resp = await self._http.call("online_bots", params={"nb": limit})
        out = []
        for line in resp.text.splitlines():
            if line.strip():
                try:
                    item = json.loads(line)
                    if not isinstance(item, dict):
                        raise Malformed(f"a line is {type(item).__name__}, not an object")
                    out.append(Profile.parse(item))
                except (ValueError, Malformed) as exc:
                    log.info("online_bots: skipping a malformed line (%s)", exc)
        return out
