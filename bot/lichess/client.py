"""The only module that knows Lichess HTTP endpoints and the retry policy.

HTTP goes straight through `requests` (berserk 0.14 sets no timeouts, hides
keep-alive lines and cannot send `offeringDraw` with a move):
* every request has connect/read timeouts (`POLICIES` may shorten them);
* every blocking call runs in a worker thread and streams run in their own
  thread (bot.lichess.streams), feeding an asyncio.Queue;
* `POLICIES` declares, once, how each endpoint is retried and what a 429 does.

Rate limits are per endpoint class, as lila counts them (its limiters are
separate keys: chat, challenge creation, BotLimit, ...): a 429 pauses only the
class of the endpoint that answered it, as lichess-bot pauses the path that
answered (lib/lichess.py `rate_limit_timers`). Moves and game streams are never
paused: a game cannot wait a minute.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import json
import logging
import random
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal, TypeVar, cast

import requests
import requests.adapters
import urllib3

from bot import __version__
from bot.config import NetworkConfig
from bot.errors import PibotError
from bot.lichess.events import (
    AccountEvent,
    Challenge,
    ErrorPayload,
    GameEvent,
    GameInfo,
    Malformed,
    Profile,
    TokenInfo,
    Tournament,
    parse_account_event,
    parse_game_event,
    parse_playing,
)
from bot.lichess.streams import E, Item, Parser, StreamThread, error_payload, short_error
from bot.lichess.token import Token

log = logging.getLogger(__name__)

USER_AGENT = f"pibot/{__version__} (Lichess bot for the Raspberry Pi; python-requests)"
# lila modules/bot/src/main/BotLimit.scala: 100 bot-vs-bot games per account per day.
DAILY_BOT_LIMIT_KEY = "bot.vsBot.day"
DAILY_BOT_GAMES = 100
PLAYING_MIN_INTERVAL_S = 60.0  # /api/account/playing: at most once a minute per account
MOVE_MIN_ATTEMPT_S = 0.5  # a move attempt's timeout: a quarter of the budget, at least this


# --- errors -----------------------------------------------------------------

class LichessError(PibotError):
    def __init__(self, endpoint: str, message: str, status: int | None = None) -> None:
        super().__init__(f"{endpoint}: {message}")
        self.endpoint = endpoint
        self.status = status


class ApiRejected(LichessError):
    """A final 4xx: retrying the same request cannot help."""

    def __init__(self, endpoint: str, message: str, status: int | None = None,
                 payload: ErrorPayload | None = None) -> None:
        super().__init__(endpoint, message, status)
        self.payload: ErrorPayload = payload or {}


class OpponentAtDailyLimit(ApiRejected):
    """400: the other BOT played its 100 bot games today (lila OpponentLimit)."""

    def __init__(self, endpoint: str, message: str, until_wall: float) -> None:
        super().__init__(endpoint, message, 400)
        self.until_wall = until_wall  # time.time() when it resets


class NetworkError(LichessError):
    """Network failure or 5xx that outlived its retries."""


class RateLimited(LichessError):
    """429 (or a request dropped because its endpoint class is paused) until `retry_at`."""

    def __init__(self, endpoint: str, message: str, retry_at: float) -> None:
        super().__init__(endpoint, message, 429)
        self.retry_at = retry_at


class DailyLimitReached(RateLimited):
    """429 with ratelimit.key == bot.vsBot.day: no more bot games until it resets."""


# --- retry policy table ------------------------------------------------------

# What a 429 (or the endpoint's class already paused by one) does to a request:
#   wait    hold it until its class's pause ends, then send it (a 429 answer is
#           waited out and retried), unless the caller no longer wants it
#   drop    raise RateLimited at once (chat, matchmaking: try again later or never)
#   through never paused (moves, and the game streams moves depend on): a 429
#           is retried after retry_429_s, within what the clock allows
On429 = Literal["wait", "drop", "through"]


@dataclass(frozen=True)
class EndpointPolicy:
    method: str
    path: str  # template: formatted with the call's arguments
    attempts: int  # tries on network errors / 5xx; 0 = until the move's clock budget runs out
    rate_class: str  # a 429 pauses every endpoint of this class (see POLICIES)
    on_429: On429 = "wait"
    timeout_s: float | None = None  # read timeout; None = network.request_timeout_s
    retry_429_s: float = 0.0  # "through" endpoints: wait this long after a 429, then retry


# Classes follow lila's separate limiters: chat; challenge answers; challenge
# creation (app/controllers/Challenge.scala `limit.challenge*`); in-game actions
# (abort, resign, claim victory, draw/takeback answers); account reads; the
# event stream; moves and game streams (never paused).
POLICIES: dict[str, EndpointPolicy] = {
    "event_stream": EndpointPolicy("GET", "/api/stream/event", 1, "event_stream"),
    "game_stream": EndpointPolicy("GET", "/api/bot/game/stream/{id}", 1, "game_stream",
                                  "through"),
    # per attempt: a quarter of the clock budget, within MOVE_MIN_ATTEMPT_S..timeout_s
    "move": EndpointPolicy("POST", "/api/bot/game/{id}/move/{uci}", 0, "move", "through", 3.0,
                           0.5),
    "chat": EndpointPolicy("POST", "/api/bot/game/{id}/chat", 1, "chat", "drop", 3.0),
    "abort": EndpointPolicy("POST", "/api/bot/game/{id}/abort", 4, "game_action"),
    "resign": EndpointPolicy("POST", "/api/bot/game/{id}/resign", 4, "game_action"),
    "draw": EndpointPolicy("POST", "/api/bot/game/{id}/draw/{answer}", 3, "game_action"),
    "takeback": EndpointPolicy("POST", "/api/bot/game/{id}/takeback/{answer}", 3,
                               "game_action"),
    "claim_victory": EndpointPolicy("POST", "/api/bot/game/{id}/claim-victory", 4,
                                    "game_action"),
    "accept": EndpointPolicy("POST", "/api/challenge/{id}/accept", 3, "challenge_answer"),
    "decline": EndpointPolicy("POST", "/api/challenge/{id}/decline", 3, "challenge_answer"),
    "challenge": EndpointPolicy("POST", "/api/challenge/{user}", 2, "challenge_create", "drop"),
    "cancel": EndpointPolicy("POST", "/api/challenge/{id}/cancel", 2, "challenge_create"),
    "account": EndpointPolicy("GET", "/api/account", 4, "account"),
    "playing": EndpointPolicy("GET", "/api/account/playing", 4, "account"),
    "online_bots": EndpointPolicy("GET", "/api/bot/online", 2, "online_bots", "drop"),
    "token_test": EndpointPolicy("POST", "/api/token/test", 3, "account"),
    "upgrade": EndpointPolicy("POST", "/api/bot/account/upgrade", 1, "account"),
    # Arenas (app/controllers/Tournament.scala; join/withdraw under limit.tourJoinOrResume)
    "tournament": EndpointPolicy("GET", "/api/tournament/{id}", 3, "tournament"),
    "tournament_join": EndpointPolicy("POST", "/api/tournament/{id}/join", 3, "tournament"),
    "tournament_withdraw": EndpointPolicy("POST", "/api/tournament/{id}/withdraw", 3,
                                          "tournament"),
}


def backoff_s(attempt: int, base: float, cap: float) -> float:
    """Exponential backoff with jitter (half to full), so restarts don't stampede."""
    return min(cap, base * (2.0 ** min(attempt, 20))) * random.uniform(0.5, 1.0)


def _next_utc_midnight() -> float:
    now = dt.datetime.now(dt.UTC)
    tomorrow = (now + dt.timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    return tomorrow.timestamp()


def _daily_limit_reset(payload: ErrorPayload) -> float | None:
    """time.time() when a bot.vsBot.day limit named in an error body resets, else None.

    lila answers `{"error", "ratelimit": {"key", "seconds"}}` (429, our limit) or a 400
    whose text says the opponent "played 100 games against other bots today, please
    wait until <ISO date>" (app/controllers/Challenge.scala, eitherBotLimitResponse).
    """
    rl = payload.get("ratelimit") or {}
    text = str(payload.get("error", ""))
    if rl.get("key") != DAILY_BOT_LIMIT_KEY and DAILY_BOT_LIMIT_KEY not in text \
            and "games against other bots today" not in text:
        return None
    if rl.get("seconds"):
        return time.time() + float(rl["seconds"])
    m = re.search(r"until (\d{4}-\d\d-\d\dT[\d:.]+(?:Z|[+-]\d\d:?\d\d)?)", text)
    if m:
        try:
            when = dt.datetime.fromisoformat(m.group(1).replace("Z", "+00:00"))
            if when.tzinfo is None:
                when = when.replace(tzinfo=dt.UTC)
            return when.timestamp()
        except ValueError:
            pass
    return _next_utc_midnight()


def _never_sent(exc: requests.RequestException) -> bool:
    """True if the request cannot have reached the server (no connection made)."""
    if isinstance(exc, requests.ConnectTimeout):
        return True
    reason = getattr(exc.args[0], "reason", None) if exc.args else None
    return isinstance(reason, urllib3.exceptions.NewConnectionError)


# --- transport ---------------------------------------------------------------

def _session(token: Token | None, pool: int = 64) -> requests.Session:
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


# (kind, detail, until): see Lichess.report.
Observer = Callable[[str, str, "float | None"], None]


_T = TypeVar("_T")


def _parsed(name: str, body: Any, parse: Callable[[dict[str, Any]], _T]) -> _T:
    """An endpoint's JSON object parsed at the edge; anything else is a NetworkError."""
    try:
        if not isinstance(body, dict):
            raise Malformed(f"the answer is {type(body).__name__}, not an object")
        return parse(body)
    except Malformed as exc:
        raise NetworkError(name, f"malformed answer: {exc}") from None


class Lichess:
    """Async client for the endpoints pibot uses, with the retry policy applied."""

    def __init__(self, url: str, token: Token | None, net: NetworkConfig,
                 observer: Observer | None = None) -> None:
        self.url = url.rstrip("/")
        # Told of 429 pauses, the daily limit and a rejected token (the service's
        # records and alerts); called from any thread, must not block.
        self._observer = observer
        self.net = net
        self._token = token
        self._session = _session(token)
        self._move_session = _session(token, pool=8)  # moves never queue behind other calls
        self._paused_until: dict[str, float] = {}  # rate class -> end of its 429 pause
        self.bot_limit_until = 0.0  # our bot-vs-bot daily limit (time.time())
        self._lock = threading.Lock()
        self._playing: tuple[float, list[GameInfo]] | None = None
        self._playing_lock: asyncio.Lock | None = None

    def __repr__(self) -> str:
        return f"<Lichess {self.url}, authorization redacted>"

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
        reset = _daily_limit_reset(payload)
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
    def _url(self, name: str, **path: str) -> str:
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
        reset = _daily_limit_reset(payload)
        if reset is not None:
            raise OpponentAtDailyLimit(name, msg, reset)
        raise ApiRejected(name, msg, resp.status_code, payload)

    async def _call(self, name: str, *, path: dict[str, str] | None = None,
                    params: dict[str, Any] | None = None, data: Any = None,
                    wanted: Callable[[], bool] | None = None) -> requests.Response:
        """One request under the endpoint's policy (not for moves: see move()).

        A "wait" request held by its class's pause goes out when the pause ends
        (a 429 answer starts a pause and is retried after it); `wanted` lets the
        caller drop it meanwhile, when it has become moot (the challenge was
        withdrawn, the game ended).
        """
        pol = POLICIES[name]
        url = self._url(name, **(path or {}))
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

    async def _json(self, name: str, **kw: Any) -> Any:
        resp = await self._call(name, **kw)
        try:
            return resp.json()
        except ValueError:
            raise NetworkError(name, "answer is not JSON") from None

    # -- account / setup --
    async def account(self) -> Profile:
        return _parsed("account", await self._json("account"), Profile.parse)

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
            body = await self._json("playing", params={"nb": 50})
            games = parse_playing(body)
            self._playing = (time.monotonic(), games)
            return list(games)

    async def token_test(self, token: Token) -> TokenInfo | None:
        res = await self._json("token_test", data=token.reveal())
        info = res.get(token.reveal()) if isinstance(res, dict) else None
        return cast(TokenInfo, info) if info else None

    async def upgrade_to_bot(self) -> None:
        await self._call("upgrade")

    # -- challenges --
    async def accept(self, challenge_id: str,
                     wanted: Callable[[], bool] | None = None) -> None:
        await self._call("accept", path={"id": challenge_id}, wanted=wanted)

    async def decline(self, challenge_id: str, reason: str,
                      wanted: Callable[[], bool] | None = None) -> None:
        await self._call("decline", path={"id": challenge_id}, data={"reason": reason},
                         wanted=wanted)

    async def create_challenge(self, username: str, rated: bool, limit_s: int,
                               increment_s: int, color: str = "random",
                               variant: str = "standard") -> Challenge:
        body = await self._json("challenge", path={"user": username},
                                data={"rated": str(rated).lower(), "clock.limit": limit_s,
                                      "clock.increment": increment_s, "color": color,
                                      "variant": variant})
        # lila answers {"challenge": {...}}, or the challenge itself.
        return _parsed("challenge", body, lambda b: Challenge.parse(
            b["challenge"] if isinstance(b.get("challenge"), dict) else b))

    async def cancel_challenge(self, challenge_id: str) -> None:
        await self._call("cancel", path={"id": challenge_id})

    async def online_bots(self, limit: int = 100) -> list[Profile]:
        resp = await self._call("online_bots", params={"nb": limit})
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

    # -- arenas --
    async def tournament(self, tournament_id: str) -> Tournament | None:
        """The arena, or None once lila no longer has it (404: deleted or unknown)."""
        try:
            body = await self._json("tournament", path={"id": tournament_id})
        except ApiRejected as exc:
            if exc.status == 404:
                return None
            raise
        return _parsed("tournament", body, Tournament.parse)

    async def join_tournament(self, tournament_id: str, team: str | None = None,
                              password: str | None = None) -> None:
        """The entry code travels in the form body only (never a URL, never a log)."""
        data = {k: v for k, v in (("team", team), ("password", password)) if v}
        await self._call("tournament_join", path={"id": tournament_id}, data=data)

    async def withdraw_tournament(self, tournament_id: str) -> None:
        await self._call("tournament_withdraw", path={"id": tournament_id})

    # -- in-game --
    def _post_move(self, url: str, params: dict[str, str], timeout: float,
                   fresh: bool) -> requests.Response:
        timeout_pair = (min(self.net.connect_timeout_s, timeout), timeout)
        if not fresh:
            return self._move_session.post(url, params=params, timeout=timeout_pair)
        # A retry never reuses a pooled keep-alive connection: the one that just
        # stalled may be half-dead, and any idle one may be too.
        with _session(self._token, pool=1) as once:
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
        url = self._url("move", id=game_id, uci=uci)
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
                    err = self.on_429("move", payload)
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
        await self._call("chat", path={"id": game_id}, data={"room": room, "text": text})

    async def abort(self, game_id: str, wanted: Callable[[], bool] | None = None) -> None:
        await self._call("abort", path={"id": game_id}, wanted=wanted)

    async def resign(self, game_id: str) -> None:
        await self._call("resign", path={"id": game_id})

    async def draw(self, game_id: str, accept: bool,
                   wanted: Callable[[], bool] | None = None) -> None:
        await self._call("draw", path={"id": game_id, "answer": "yes" if accept else "no"},
                         wanted=wanted)

    async def takeback(self, game_id: str, accept: bool,
                       wanted: Callable[[], bool] | None = None) -> None:
        await self._call("takeback", path={"id": game_id, "answer": "yes" if accept else "no"},
                         wanted=wanted)

    async def claim_victory(self, game_id: str, wanted: Callable[[], bool] | None = None) -> None:
        await self._call("claim_victory", path={"id": game_id}, wanted=wanted)

    # -- streams --
    @contextlib.contextmanager
    def open_stream(self, name: str, *args: str) -> Iterator[requests.Response]:
        """Blocking: open an NDJSON stream (called from its StreamThread).

        Each stream has a connection of its own, closed with it: a server may close
        a finished stream's connection just after its last chunk (the emulator
        does), and back in the pool it would take down the next request sent on it
        (the goodbye chat line, in the moment the game ends).
        """
        url = self._url(name, id=args[0]) if args else self._url(name)
        with _session(self._token, pool=1) as session:
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
