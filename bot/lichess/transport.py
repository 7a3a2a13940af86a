"""The client's transport core: sessions, one request under its policy, the 429 book.

HTTP goes straight through `requests` (berserk 0.14 sets no timeouts, hides
keep-alive lines and cannot send `offeringDraw` with a move):
* every request has connect/read timeouts (`POLICIES` may shorten them);
* every blocking call runs in a worker thread and streams run in their own
  thread (bot.lichess.streams), feeding an asyncio.Queue;
* `Transport.call` applies an endpoint's row of bot.lichess.endpoints `POLICIES`
  (retries, and what a 429 does); the pause book (`on_429`, `paused_for`,
  `wait_unpaused`) is kept per rate class, shared by threads and the event loop.

The endpoints themselves are the areas' (bot.lichess.api_*), which call through
one Transport; bot.lichess.client builds them together.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import requests
import requests.adapters

from bot import __version__
from bot.config import NetworkConfig
from bot.lichess.endpoints import POLICIES
from bot.lichess.errors import (
    ApiRejected,
    DailyLimitReached,
    LichessError,
    NetworkError,
    OpponentAtDailyLimit,
    RateLimited,
    daily_limit_reset,
)
from bot.lichess.events import (
    AccountEvent,
    ErrorPayload,
    GameEvent,
    Malformed,
    parse_account_event,
    parse_game_event,
)
from bot.lichess.streams import E, Item, Parser, StreamThread, error_payload, short_error
from bot.lichess.token import Token

log = logging.getLogger(__name__)

USER_AGENT = f"pibot/{__version__} (Lichess bot for the Raspberry Pi; python-requests)"


def backoff_s(attempt: int, base: float, cap: float) -> float:
    """Exponential backoff with jitter (half to full), so restarts don't stampede."""
    return min(cap, base * (2.0 ** min(attempt, 20))) * random.uniform(0.5, 1.0)


def new_session(token: Token | None, pool: int = 64) -> requests.Session:
    s = requests.Session()
    # Each game holds a long-lived stream connection besides the event stream and
    # short calls; urllib3's default pool of 10 would churn connections.
    adapter = requests.adapters.HTTPAdapter(pool_connections=4, pool_maxsize=pool)
    s.mount("https://", adapter)
    s.mount("http://", adapter)
    s.headers["User-Agent"] = USER_AGENT
    if token is not None:
        s.headers["Authorization"] = f"Bearer {token.reveal()}"
    return s


# (kind, detail, until): see Transport.report.
Observer = Callable[[str, str, "float | None"], None]


_T = TypeVar("_T")


def parsed(name: str, body: Any, parse: Callable[[dict[str, Any]], _T]) -> _T:
    """An endpoint's JSON object parsed at the edge; anything else is a NetworkError."""
    try:
        if not isinstance(body, dict):
            raise Malformed(f"the answer is {type(body).__name__}, not an object")
        return parse(body)
    except Malformed as exc:
        raise NetworkError(name, f"malformed answer: {exc}") from None


class Transport:
    """Requests to Lichess under the endpoints' policies, and the streams' threads."""

    def __init__(self, url: str, token: Token | None, net: NetworkConfig,
                 observer: Observer | None = None) -> None:
        self.url = url.rstrip("/")
        # Told of 429 pauses, the daily limit and a rejected token (the service's
        # records and alerts); called from any thread, must not block.
        self._observer = observer
        self.net = net
        self._token = token
        self._session = new_session(token)
        self._paused_until: dict[str, float] = {}  # rate class -> end of its 429 pause
        self.bot_limit_until = 0.0  # our bot-vs-bot daily limit (time.time())
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.url}, authorization redacted>"

    def session(self, pool: int) -> requests.Session:
        """A session of its own (with the token), for who must not share the pool."""
        return new_session(self._token, pool)

    def report(self, kind: str, detail: str, until: float | None = None) -> None:
        """Tell the observer: `rate_limit`, `daily_limit` or `token` (401)."""
        if self._observer is not None:
            try:
                self._observer(kind, detail, until)
            except Exception:  # noqa: BLE001 - bookkeeping must never fail a request
                log.exception("observer of %s failed", kind)

    # -- rate-limit bookkeeping (shared by threads and the event loop) --
    def paused_for(self, name: str) -> float:
        """Seconds the 429 pause of endpoint `name`'s class still lasts."""
        cls = POLICIES[name].rate_class
        with self._lock:
            return max(0.0, self._paused_until.get(cls, 0.0) - time.monotonic())

    def on_429(self, name: str, payload: ErrorPayload) -> RateLimited:
        """Book a 429: the bot-vs-bot daily limit, or a pause of the endpoint's class."""
        reset = daily_limit_reset(payload)
        pol = POLICIES[name]
        if reset is not None:
            with self._lock:
                self.bot_limit_until = max(self.bot_limit_until, reset)
            seconds = reset - time.time()
            log.warning("daily bot-vs-bot limit reached (%s): no bot games for %.0f s",
                        pol.path, seconds)
            self.report("daily_limit", pol.path, reset)
            return DailyLimitReached(name, f"daily bot-vs-bot limit reached; resets in "
                                     f"{seconds:.0f} s", time.monotonic() + seconds)
        if pol.on_429 == "through":
            # Never paused: the caller retries within its clock (lila counts moves
            # apart from everything else).
            log.info("rate limited (HTTP 429 on %s): retrying in %.1f s", pol.path,
                     pol.retry_429_s)
            return RateLimited(name, "HTTP 429 Too Many Requests",
                               time.monotonic() + pol.retry_429_s)
        rl = payload.get("ratelimit") or {}
        seconds = max(self.net.rate_limit_pause_s, float(rl.get("seconds") or 0))
        now = time.monotonic()
        until = now + seconds
        with self._lock:
            was_paused = self._paused_until.get(pol.rate_class, 0.0) > now
            self._paused_until[pol.rate_class] = max(self._paused_until.get(pol.rate_class, 0.0),
                                                     until)
        # Once per pause: a request already in flight when it began may add a 429.
        (log.info if was_paused else log.warning)(
            "rate limited (HTTP 429 on %s): no %s requests for the next %.0f s", pol.path,
            pol.rate_class.replace("_", " "), seconds)
        if not was_paused:
            self.report("rate_limit", pol.path, time.time() + seconds)
        return RateLimited(name, "HTTP 429 Too Many Requests", until)

    async def wait_unpaused(self, name: str, wanted: Callable[[], bool] | None = None) -> bool:
        """Sleep out the pause of `name`'s class; False once `wanted()` says it is moot."""
        while (wait := self.paused_for(name)) > 0:
            if wanted is not None and not wanted():
                return False
            # Wakes now and then to ask `wanted` (a challenge withdrawn meanwhile).
            await asyncio.sleep(min(wait, 1.0))
        return True

    # -- one request --
    def endpoint_url(self, name: str, **path: str) -> str:
        return self.url + POLICIES[name].path.format(**path)

    def _timeout(self, name: str) -> tuple[float, float]:
        read = POLICIES[name].timeout_s or self.net.request_timeout_s
        return (min(self.net.connect_timeout_s, read), read)

    def _raise_for(self, name: str, resp: requests.Response) -> None:
        if resp.status_code < 400:
            return
        payload = error_payload(resp)
        msg = f"HTTP {resp.status_code} {payload.get('error', resp.reason)}"
        if resp.status_code == 429:
            raise self.on_429(name, payload)
        if resp.status_code >= 500:
            raise NetworkError(name, msg, resp.status_code)
        if resp.status_code == 401:
            self.report("token", POLICIES[name].path)
        reset = daily_limit_reset(payload)
        if reset is not None:
            raise OpponentAtDailyLimit(name, msg, reset)
        raise ApiRejected(name, msg, resp.status_code, payload)

    async def call(self, name: str, *, path: dict[str, str] | None = None,
                   params: dict[str, Any] | None = None, data: Any = None,
                   wanted: Callable[[], bool] | None = None) -> requests.Response:
        """One request under the endpoint's policy (not for moves: see GameApi.move).

        A "wait" request held by its class's pause goes out when the pause ends
        (a 429 answer starts a pause and is retried after it); `wanted` lets the
        caller drop it meanwhile, when it has become moot (the challenge was
        withdrawn, the game ended).
        """
        pol = POLICIES[name]
        url = self.endpoint_url(name, **(path or {}))
        attempt = 0
        while True:
            wait = self.paused_for(name)
            if wait > 0 and pol.on_429 == "drop":
                raise RateLimited(name, f"{pol.rate_class.replace('_', ' ')} requests are "
                                  f"rate-limited for {wait:.0f} s more; dropped",
                                  time.monotonic() + wait)
            if wait > 0 and pol.on_429 == "wait":
                await self.wait_unpaused(name, wanted)
            if wanted is not None and not wanted():
                raise ApiRejected(name, "no longer wanted; dropped")
            try:
                resp = await asyncio.to_thread(self._session.request, pol.method, url,
                                               params=params, data=data,
                                               timeout=self._timeout(name))
                self._raise_for(name, resp)
                return resp
            except DailyLimitReached:
                raise
            except RateLimited:
                if pol.on_429 != "wait":
                    raise
                continue  # booked: the top of the loop waits the pause out
            except ApiRejected:
                raise
            except NetworkError as exc:
                err: LichessError = exc
            except requests.RequestException as exc:
                err = NetworkError(name, short_error(exc))
            if attempt + 1 >= pol.attempts:
                raise err
            delay = backoff_s(attempt, self.net.backoff_base_s, self.net.backoff_max_s)
            log.info("%s failed (%s); retry %d in %.2f s", name, err, attempt + 1, delay)
            attempt += 1
            await asyncio.sleep(delay)

    async def call_json(self, name: str, **kw: Any) -> Any:
        resp = await self.call(name, **kw)
        try:
            return resp.json()
        except ValueError:
            raise NetworkError(name, "answer is not JSON") from None

    # -- streams --
    @contextlib.contextmanager
    def open_stream(self, name: str, *args: str) -> Iterator[requests.Response]:
        """Blocking: open an NDJSON stream (called from its StreamThread).

        Each stream has a connection of its own, closed with it: a server may close
        a finished stream's connection just after its last chunk (the emulator
        does), and back in the pool it would take down the next request sent on it
        (the goodbye chat line, in the moment the game ends).
        """
        url = self.endpoint_url(name, id=args[0]) if args else self.endpoint_url(name)
        with self.session(pool=1) as session:
            resp = session.get(url, stream=True, timeout=(self.net.connect_timeout_s,
                                                          self.net.stream_read_timeout_s))
            try:
                yield resp
            finally:
                resp.close()

    def start_event_stream(self, queue: asyncio.Queue[Item[AccountEvent]]
                           ) -> StreamThread[AccountEvent]:
        """The account's event stream, read into `queue` by a thread of its own."""
        return self._start_stream("event_stream", parse_account_event, queue)

    def start_game_stream(self, game_id: str, queue: asyncio.Queue[Item[GameEvent]]
                          ) -> StreamThread[GameEvent]:
        """Game `game_id`'s stream, read into `queue` by a thread of its own."""
        return self._start_stream("game_stream", parse_game_event, queue, game_id)

    def _start_stream(self, name: str, parse: Parser[E], queue: asyncio.Queue[Item[E]],
                      *args: str) -> StreamThread[E]:
        st = StreamThread(name, args, lambda: self.open_stream(name, *args),
                          lambda payload: self.on_429(name, payload).retry_at,
                          parse, queue, asyncio.get_running_loop())
        st.start()
        return st
