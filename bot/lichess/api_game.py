"""`api.game`: what the bot does in a game: moves, chat, and the game actions.

Moves have their own loop (not Transport.call): they are never paused, each
attempt's timeout follows the clock, and a retry must tell a move that landed
from one that did not.  They go through a session of their own, so they never
queue behind other calls.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

import requests
import urllib3

from bot.lichess.endpoints import POLICIES
from bot.lichess.errors import ApiRejected, LichessError, NetworkError
from bot.lichess.streams import error_payload, short_error
from bot.lichess.transport import Transport

log = logging.getLogger(__name__)

MOVE_MIN_ATTEMPT_S = 0.5  # a move attempt's timeout: a quarter of the budget, at least this


def _never_sent(exc: requests.RequestException) -> bool:
    """True if the request cannot have reached the server (no connection made)."""
    if isinstance(exc, requests.ConnectTimeout):
        return True
    reason = getattr(exc.args[0], "reason", None) if exc.args else None
    return isinstance(reason, urllib3.exceptions.NewConnectionError)


class GameApi:
    """The in-game endpoints: moves (their own session) and the rate-classed actions."""

    def __init__(self, http: Transport) -> None:
        self._http = http
        self._move_session = http.session(pool=8)  # moves never queue behind other calls

    def _post_move(self, url: str, params: dict[str, str], timeout: float,
                   fresh: bool) -> requests.Response:
        timeout_pair = (min(self._http.net.connect_timeout_s, timeout), timeout)
        if not fresh:
            return self._move_session.post(url, params=params, timeout=timeout_pair)
        # A retry never reuses a pooled keep-alive connection: the one that just
        # stalled may be half-dead, and any idle one may be too.
        with self._http.session(pool=1) as once:
            return once.post(url, params=params, timeout=timeout_pair)

    async def move(self, game_id: str, uci: str, budget_ms: Callable[[], float],
                   offering_draw: bool = False,
                   landed: Callable[[], bool] | None = None) -> None:
        """Play a move; never hangs longer than the clock allows.

        Each attempt's timeout is a quarter of the remaining budget, between
        MOVE_MIN_ATTEMPT_S and the policy's timeout_s. A timed-out attempt may
        still have been played, so before a retry `landed()` (the game stream
        already shows the move) is asked, and a retry answered 400 "Not your
        turn" after such an attempt means the first one counted.
        """
        pol = POLICIES["move"]
        url = self._http.endpoint_url("move", id=game_id, uci=uci)
        params = {"offeringDraw": "true"} if offering_draw else {}
        maybe_played = False  # an earlier attempt's outcome is unknown
        attempt = 0
        while True:
            if maybe_played and landed is not None and landed():
                log.info("game %s: move %s landed although its POST got no answer",
                         game_id, uci)
                return
            timeout = max(MOVE_MIN_ATTEMPT_S, min(pol.timeout_s or 3.0, budget_ms() / 4000.0))
            delay = 0.0 if attempt == 0 else min(1.0, 0.1 * (2 ** (attempt - 1)))
            try:
                resp = await asyncio.to_thread(self._post_move, url, params, timeout,
                                               attempt > 0)
            except requests.RequestException as exc:
                # No connection: not played. Anything later (read timeout, reset after
                # sending) may have been.
                maybe_played = maybe_played or not _never_sent(exc)
                err: LichessError = NetworkError("move", short_error(exc))
            else:
                if resp.ok:
                    return
                payload = error_payload(resp)
                text = str(payload.get("error", resp.reason))
                if resp.status_code == 429:
                    err = self._http.on_429("move", payload)
                    delay = max(delay, pol.retry_429_s)
                elif resp.status_code >= 500:
                    maybe_played = maybe_played or resp.status_code in (502, 504)
                    err = NetworkError("move", f"HTTP {resp.status_code} {text}",
                                       resp.status_code)
                elif maybe_played and (resp.status_code == 400 and "not your turn" in
                                       text.lower() or landed is not None and landed()):
                    log.info("game %s: move %s was already played by an earlier attempt "
                             "(retry answered: %s)", game_id, uci, text)
                    return
                else:
                    raise ApiRejected("move", f"HTTP {resp.status_code} {text}",
                                      resp.status_code, payload)
            if budget_ms() - delay * 1000 < 300:
                raise err
            log.info("game %s: move %s failed (%s); retry %d in %.2f s", game_id, uci, err,
                     attempt + 1, delay)
            attempt += 1
            if delay:
                await asyncio.sleep(delay)

    async def chat(self, game_id: str, text: str, room: str = "player") -> None:
        """One short attempt; any failure (a 429 included) raises at once: chat can wait
        forever, a game cannot."""
        await self._http.call("chat", path={"id": game_id}, data={"room": room, "text": text})

    async def abort(self, game_id: str, wanted: Callable[[], bool] | None = None) -> None:
        await self._http.call("abort", path={"id": game_id}, wanted=wanted)

    async def resign(self, game_id: str) -> None:
        await self._http.call("resign", path={"id": game_id})

    async def draw(self, game_id: str, accept: bool,
                   wanted: Callable[[], bool] | None = None) -> None:
        await self._http.call("draw", path={"id": game_id, "answer": "yes" if accept else "no"},
                              wanted=wanted)

    async def takeback(self, game_id: str, accept: bool,
                       wanted: Callable[[], bool] | None = None) -> None:
        await self._http.call("takeback",
                              path={"id": game_id, "answer": "yes" if accept else "no"},
                              wanted=wanted)

    async def claim_victory(self, game_id: str, wanted: Callable[[], bool] | None = None) -> None:
        await self._http.call("claim_victory", path={"id": game_id}, wanted=wanted)

    async def claim_draw(self, game_id: str, wanted: Callable[[], bool] | None = None) -> None:
        """The opponent left a game we cannot win on material: lila gives us no win
        (claim-victory would end it drawn and answer 400), so ask for the draw."""
        await self._http.call("claim_draw", path={"id": game_id}, wanted=wanted)
