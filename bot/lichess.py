"""The only module that knows Lichess HTTP endpoints and the retry policy.

berserk 0.14 is synchronous, sets no timeouts and drops keep-alive lines, so:
* `_TimeoutSession` puts connect/read timeouts on every request (streams get a
  read timeout of ~2x the keep-alive gap: keep-alive bytes reset the socket
  read timer even though berserk discards the empty lines, so only a really
  dead connection times out);
* every blocking call runs in a worker thread and streams run in their own
  thread, feeding an asyncio.Queue;
* `POLICIES` declares, once, how each endpoint is retried.
"""

from __future__ import annotations

import asyncio
import logging
import random
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal, TypeVar, cast

import berserk
import requests
import requests.adapters
from berserk.clients.base import BaseClient
from berserk.exceptions import ApiError, ResponseError

from bot.config import NetworkConfig
from bot.errors import PibotError
from bot.events import Account, Event, GameInfo, TokenInfo
from bot.streams import StreamThread, _error_payload, _short, _tls
from bot.token import Token

log = logging.getLogger(__name__)
T = TypeVar("T")

USER_AGENT = "pibot/0.1 (Lichess bot for the Raspberry Pi; python-requests via berserk)"
DAILY_BOT_LIMIT_KEY = "bot.vsBot.day"


# --- errors -----------------------------------------------------------------

class LichessError(PibotError):
    def __init__(self, endpoint: str, message: str, status: int | None = None) -> None:
        super().__init__(f"{endpoint}: {message}")
        self.endpoint = endpoint
        self.status = status


class ApiRejected(LichessError):
    """A final 4xx: retrying the same request cannot help."""


class NetworkError(LichessError):
    """Network failure or 5xx that outlived its retries."""


class RateLimited(LichessError):
    """429: the endpoint is paused until `retry_at` (monotonic)."""

    def __init__(self, endpoint: str, message: str, retry_at: float) -> None:
        super().__init__(endpoint, message, 429)
        self.retry_at = retry_at


class DailyLimitReached(RateLimited):
    """429 with ratelimit.key == bot.vsBot.day: no more bot games until it resets."""


# --- retry policy table ------------------------------------------------------

On429 = Literal["pause", "clock", "daily"]


@dataclass(frozen=True)
class EndpointPolicy:
    method: str
    path: str  # documentation and the rate-limit bucket; berserk builds the real URL
    attempts: int  # tries on network errors / 5xx; 0 = until the caller's budget runs out
    on_429: On429 = "pause"


POLICIES: dict[str, EndpointPolicy] = {
    "event_stream": EndpointPolicy("GET", "/api/stream/event", 1),
    "game_stream": EndpointPolicy("GET", "/api/bot/game/stream/{id}", 1),
    "move": EndpointPolicy("POST", "/api/bot/game/{id}/move/{uci}", 0, "clock"),
    "chat": EndpointPolicy("POST", "/api/bot/game/{id}/chat", 2),
    "abort": EndpointPolicy("POST", "/api/bot/game/{id}/abort", 4),
    "resign": EndpointPolicy("POST", "/api/bot/game/{id}/resign", 4),
    "draw": EndpointPolicy("POST", "/api/bot/game/{id}/draw/{yes|no}", 3),
    "takeback": EndpointPolicy("POST", "/api/bot/game/{id}/takeback/{yes|no}", 3),
    "claim_victory": EndpointPolicy("POST", "/api/bot/game/{id}/claim-victory", 4),
    "accept": EndpointPolicy("POST", "/api/challenge/{id}/accept", 3),
    "decline": EndpointPolicy("POST", "/api/challenge/{id}/decline", 3),
    "challenge": EndpointPolicy("POST", "/api/challenge/{user}", 2, "daily"),
    "cancel": EndpointPolicy("POST", "/api/challenge/{id}/cancel", 2),
    "account": EndpointPolicy("GET", "/api/account", 4),
    "playing": EndpointPolicy("GET", "/api/account/playing", 4),
    "online_bots": EndpointPolicy("GET", "/api/bot/online", 2),
    "token_test": EndpointPolicy("POST", "/api/token/test", 3),
    "upgrade": EndpointPolicy("POST", "/api/bot/account/upgrade", 1),
}


def backoff_s(attempt: int, base: float, cap: float) -> float:
    """Exponential backoff with jitter (half to full), so restarts don't stampede."""
    return min(cap, base * (2 ** min(attempt, 20))) * random.uniform(0.5, 1.0)


# --- transport ---------------------------------------------------------------

class _TimeoutSession(requests.Session):
    """requests.Session that never waits forever."""

    def __init__(self, token: Token | None, net: NetworkConfig) -> None:
        super().__init__()
        self._net = net
        # Each game holds a long-lived stream connection besides the event stream and
        # short calls; urllib3's default pool of 10 would churn connections.
        for prefix in ("https://", "http://"):
            self.mount(prefix, requests.adapters.HTTPAdapter(pool_connections=4,
                                                             pool_maxsize=64))
        self.headers["User-Agent"] = USER_AGENT
        if token is not None:
            self.headers["Authorization"] = f"Bearer {token.reveal()}"

    def request(self, method: str | bytes, url: str | bytes,  # type: ignore[override]
                *args: Any, **kwargs: Any) -> requests.Response:
        if kwargs.get("timeout") is None:
            read = self._net.stream_read_timeout_s if kwargs.get("stream") \
                else self._net.request_timeout_s
            kwargs["timeout"] = (self._net.connect_timeout_s, read)
        resp = super().request(method, url, *args, **kwargs)
        on_open = getattr(_tls, "on_open", None)
        if on_open is not None and kwargs.get("stream") and resp.ok:
            # berserk yields nothing until the first non-empty line, so this is the
            # only way to learn that a quiet stream is connected (sd_notify READY).
            on_open()
        return resp

    def __repr__(self) -> str:
        return "<pibot session, authorization redacted>"


class _BotExtras(BaseClient):
    """Bot endpoints berserk 0.14 lacks."""

    def make_move(self, game_id: str, uci: str, offering_draw: bool) -> None:
        # berserk's make_move cannot send ?offeringDraw=true (lila: offer or accept a draw
        # together with the move, app/controllers/PlayApi.scala botMove).
        params = {"offeringDraw": "true"} if offering_draw else None
        self._r.post(f"/api/bot/game/{game_id}/move/{uci}", params=params)

    def handle_draw(self, game_id: str, accept: bool) -> None:
        self._r.post(f"/api/bot/game/{game_id}/draw/{'yes' if accept else 'no'}")

    def handle_takeback(self, game_id: str, accept: bool) -> None:
        self._r.post(f"/api/bot/game/{game_id}/takeback/{'yes' if accept else 'no'}")

    def claim_victory(self, game_id: str) -> None:
        self._r.post(f"/api/bot/game/{game_id}/claim-victory")


class Lichess:
    """Async facade over berserk with the retry policy applied."""

    def __init__(self, url: str, token: Token | None, net: NetworkConfig) -> None:
        self.url = url.rstrip("/")
        self.net = net
        self._session = _TimeoutSession(token, net)
        self._client = berserk.Client(self._session, base_url=self.url)
        self._extras = _BotExtras(self._session, self.url)
        self._paused_until: dict[str, float] = {}
        self._lock = threading.Lock()

    # -- rate-limit bookkeeping (shared by threads and the event loop) --
    def _pause(self, name: str, seconds: float) -> float:
        until = time.monotonic() + seconds
        with self._lock:
            self._paused_until[name] = max(self._paused_until.get(name, 0.0), until)
        log.warning("rate limited on %s: pausing it for %.0f s", POLICIES[name].path, seconds)
        return until

    def paused_for(self, name: str) -> float:
        with self._lock:
            return max(0.0, self._paused_until.get(name, 0.0) - time.monotonic())

    def _on_429(self, name: str, exc: ResponseError) -> RateLimited:
        payload = _error_payload(exc)
        rl = payload.get("ratelimit") or {}
        if POLICIES[name].on_429 == "daily" and rl.get("key") == DAILY_BOT_LIMIT_KEY:
            seconds = float(rl.get("seconds") or 3600)
            until = self._pause(name, seconds)
            return DailyLimitReached(name, f"daily bot-vs-bot limit reached; "
                                     f"resets in {seconds:.0f} s", until)
        until = self._pause(name, max(self.net.rate_limit_pause_s, float(rl.get("seconds") or 0)))
        return RateLimited(name, "HTTP 429 Too Many Requests", until)

    async def _call(self, name: str, fn: Callable[..., T], *args: Any,
                    budget_ms: Callable[[], float] | None = None,
                    landed: Callable[[], bool] | None = None) -> T:
        """Run one blocking berserk call under the endpoint's policy."""
        pol = POLICIES[name]
        attempt = 0
        while True:
            wait = self.paused_for(name)
            if wait > 0:
                if pol.on_429 != "pause" or budget_ms is not None:
                    raise RateLimited(name, f"paused for {wait:.0f} s more",
                                      time.monotonic() + wait)
                await asyncio.sleep(wait)
            try:
                return await asyncio.to_thread(fn, *args)
            except ResponseError as exc:
                status = exc.status_code
                if status == 429 and pol.on_429 != "clock":
                    raise self._on_429(name, exc) from None
                if status < 500 and status != 429:
                    raise ApiRejected(name, _short(exc), status) from None
                err: LichessError = NetworkError(name, _short(exc), status)
            except ApiError as exc:
                err = NetworkError(name, _short(exc))
            except requests.RequestException as exc:
                err = NetworkError(name, _short(exc))
            if landed is not None and landed():
                return cast(T, None)  # the game stream already shows the request took effect
            if budget_ms is not None:
                # A move: retry quickly while the clock can afford it.
                delay = min(1.0, 0.05 * (2 ** attempt))
                if budget_ms() - delay * 1000 < 300:
                    raise err
            else:
                if pol.attempts and attempt + 1 >= pol.attempts:
                    raise err
                delay = backoff_s(attempt, self.net.backoff_base_s, self.net.backoff_max_s)
            log.info("%s failed (%s); retry %d in %.2f s", name, err, attempt + 1, delay)
            attempt += 1
            await asyncio.sleep(delay)

    # -- account / setup --
    async def account(self) -> Account:
        return cast(Account, await self._call("account", self._client.account.get))

    async def playing(self) -> list[GameInfo]:
        games = await self._call("playing", self._client.games.get_ongoing, 50)
        return cast(list[GameInfo], games)

    async def token_test(self, token: Token) -> TokenInfo | None:
        res = await self._call("token_test", self._client.oauth.test_tokens, token.reveal())
        info = res.get(token.reveal()) if isinstance(res, dict) else None
        return cast(TokenInfo, info) if info else None

    async def upgrade_to_bot(self) -> None:
        await self._call("upgrade", self._client.account.upgrade_to_bot)

    # -- challenges --
    async def accept(self, challenge_id: str) -> None:
        await self._call("accept", self._client.bots.accept_challenge, challenge_id)

    async def decline(self, challenge_id: str, reason: str) -> None:
        await self._call("decline", self._client.bots.decline_challenge, challenge_id, reason)

    async def create_challenge(self, username: str, rated: bool, limit_s: int,
                               increment_s: int) -> dict[str, Any]:
        return await self._call("challenge", self._client.challenges.create, username,
                                rated, limit_s, increment_s)

    async def cancel_challenge(self, challenge_id: str) -> None:
        await self._call("cancel", self._client.challenges.cancel, challenge_id)

    async def online_bots(self, limit: int = 100) -> list[dict[str, Any]]:
        return await self._call("online_bots",
                                lambda: list(self._client.bots.get_online_bots(limit)))

    # -- in-game --
    async def move(self, game_id: str, uci: str, budget_ms: Callable[[], float],
                   offering_draw: bool = False,
                   landed: Callable[[], bool] | None = None) -> None:
        """Post a move (with a draw offer if asked); `landed()` says the game stream
        already shows it, so a failed attempt is not retried."""
        await self._call("move", self._extras.make_move, game_id, uci, offering_draw,
                         budget_ms=budget_ms, landed=landed)

    async def chat(self, game_id: str, text: str, room: str = "player") -> None:
        await self._call("chat", self._client.bots.post_message, game_id, text,
                         room == "spectator")

    async def abort(self, game_id: str) -> None:
        await self._call("abort", self._client.bots.abort_game, game_id)

    async def resign(self, game_id: str) -> None:
        await self._call("resign", self._client.bots.resign_game, game_id)

    async def draw(self, game_id: str, accept: bool) -> None:
        await self._call("draw", self._extras.handle_draw, game_id, accept)

    async def takeback(self, game_id: str, accept: bool) -> None:
        await self._call("takeback", self._extras.handle_takeback, game_id, accept)

    async def claim_victory(self, game_id: str) -> None:
        await self._call("claim_victory", self._extras.claim_victory, game_id)

    # -- streams --
    def _open(self, name: str, *args: str) -> Iterator[Event]:
        if name == "event_stream":
            return cast(Iterator[Event], self._client.bots.stream_incoming_events())
        return self._client.bots.stream_game_state(args[0])

    def start_stream(self, name: str, queue: asyncio.Queue[Any], *args: str) -> StreamThread:
        st = StreamThread(self, name, args, queue, asyncio.get_running_loop())
        st.start()
        return st
