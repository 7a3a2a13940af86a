"""A game's side channel: every request that is not the move POST.

Chat replies, greetings, draw/takeback answers, abort and claim-victory go
through the outbox, so none of them can ever delay a move (the move is posted
straight from the game task).  Each action (abort, draw answer, ...) runs in a
task of its own, so one held by a rate-limit pause delays neither chat nor the
others; one that Lichess still waits for (abort, claim victory) is retried
until it lands or `until()` says it is moot, never cut off after a fixed time.
Chat lines go through one queue per game consumed by one task: rate-limited
per room, bounded, and dropped rather than queued when they are stale or the
chat endpoint is rate-limited: a late "!eval" answer is worthless, a lost
game is not.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable

from bot.lichess.client import Lichess, LichessError, NetworkError, RateLimited, backoff_s
from bot.play import chat

log = logging.getLogger(__name__)

CHAT_GAP_S = 3.0  # between two lines in the same room (Lichess's chat flood guard)
CHAT_MAX_PENDING = 3  # lines waiting per room; more are dropped
CHAT_STALE_S = 15.0  # a line not sent by then is dropped
CHAT_TIMEOUT_S = 5.0  # stop waiting for one chat POST (its thread finishes on its own)
ACTION_RETRY_MAX_S = 10.0  # longest gap between two tries of an action that must land


class Outbox:
    def __init__(self, game_id: str, api: Lichess) -> None:
        self.game_id = game_id
        self.api = api
        self._acting: set[asyncio.Task[None]] = set()
        self._lines: dict[str, deque[tuple[str, float]]] = {}
        self._last_sent: dict[str, float] = {}
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._busy = False
        self.dropped = 0

    # -- producers (never block) ------------------------------------------
    def do(self, name: str, action: Callable[[], Awaitable[None]],
           until: Callable[[], bool] | None = None) -> None:
        """Send a one-off request (abort, draw answer, claim victory, ...) in a task of
        its own. With `until`, a try that fails on the network or a rate limit is
        retried, with backoff, for as long as `until()` is true."""
        task = asyncio.create_task(self._act(name, action, until),
                                   name=f"outbox-{self.game_id}-{name}")
        self._acting.add(task)
        task.add_done_callback(self._acting.discard)

    async def _act(self, name: str, action: Callable[[], Awaitable[None]],
                   until: Callable[[], bool] | None) -> None:
        attempt = 0
        while True:
            try:
                await action()
                return
            except (NetworkError, RateLimited) as exc:
                if until is None or not until():
                    log.info("game %s: %s failed: %s", self.game_id, name, exc)
                    return
                net = self.api.net
                delay = backoff_s(attempt, net.backoff_base_s, min(ACTION_RETRY_MAX_S,
                                                                   net.backoff_max_s))
                log.info("game %s: %s failed (%s); trying again in %.1f s", self.game_id,
                         name, exc, delay)
            except LichessError as exc:  # rejected, or no longer wanted
                log.info("game %s: %s failed: %s", self.game_id, name, exc)
                return
            except Exception:  # noqa: BLE001 - the outbox must outlive any one request
                log.exception("game %s: %s crashed", self.game_id, name)
                return
            attempt += 1
            await asyncio.sleep(delay)

    def say(self, room: str, text: str) -> None:
        """Queue a chat line; dropped if the room already has enough waiting."""
        if self.api.paused_for("chat") > 0:
            self._drop(room, "chat is rate-limited")
            return
        lines = self._lines.setdefault(room, deque())
        if len(lines) >= CHAT_MAX_PENDING:
            self._drop(room, "too many lines waiting")
            return
        lines.append((chat.clip(text), time.monotonic()))
        self._kick()

    def _drop(self, room: str, why: str) -> None:
        self.dropped += 1
        log.info("game %s: chat line for %s dropped: %s", self.game_id, room, why)

    def _kick(self) -> None:
        if self._task is None or self._task.done():
            # Supervision: (re)start the consumer; a crashed one is logged by _run's guard.
            self._task = asyncio.create_task(self._run(), name=f"outbox-{self.game_id}")
        self._wake.set()

    # -- consumer ---------------------------------------------------------------
    def _next_line(self, now: float) -> tuple[str, str] | float | None:
        """A (room, text) ready to send, else seconds until one is, else None."""
        wait: float | None = None
        for room, lines in self._lines.items():
            while lines and now - lines[0][1] > CHAT_STALE_S:
                lines.popleft()
                self._drop(room, "stale")
            if not lines:
                continue
            ready_in = self._last_sent.get(room, -1e9) + CHAT_GAP_S - now
            if ready_in <= 0:
                return room, lines.popleft()[0]
            wait = ready_in if wait is None else min(wait, ready_in)
        return wait

    async def _run(self) -> None:
        while True:
            self._wake.clear()
            nxt = self._next_line(time.monotonic())
            if isinstance(nxt, tuple):
                room, text = nxt
                if self.api.paused_for("chat") > 0:
                    self._drop(room, "chat is rate-limited")
                    continue
                self._last_sent[room] = time.monotonic()
                await self._guard("chat", self.api.game.chat(self.game_id, text, room),
                                  CHAT_TIMEOUT_S)
                continue
            try:
                await asyncio.wait_for(self._wake.wait(), nxt)
            except TimeoutError:
                pass

    async def _guard(self, name: str, aw: Awaitable[None], timeout: float) -> None:
        self._busy = True
        try:
            await asyncio.wait_for(aw, timeout)
        except TimeoutError:
            log.info("game %s: %s took over %.0f s; moving on", self.game_id, name, timeout)
        except LichessError as exc:
            log.info("game %s: %s failed: %s", self.game_id, name, exc)
        except Exception:  # noqa: BLE001 - the outbox must outlive any one request
            log.exception("game %s: %s crashed", self.game_id, name)
        finally:
            self._busy = False

    def idle(self) -> bool:
        return not self._acting and not any(self._lines.values()) and not self._busy

    async def close(self, flush_s: float = 0.0) -> None:
        """Give queued requests up to `flush_s` to go out, then stop."""
        deadline = time.monotonic() + flush_s
        try:
            while not self.idle() and time.monotonic() < deadline and (
                    self._acting or self._task is not None and not self._task.done()):
                await asyncio.sleep(0.05)
        finally:
            # Even when the game task itself is cancelled (shutdown): no orphan task,
            # and one that has taken its cancellation (a chat POST in flight lets go
            # at once; its thread finishes on its own).
            left = [t for t in [self._task, *self._acting] if t is not None and not t.done()]
            for t in left:
                t.cancel()
            if left:
                await asyncio.wait(left, timeout=1.0)
