"""A game's stream, kept open for as long as the game needs it.

A stream thread (bot.lichess.streams) reads the game stream into a queue of
`Item[GameEvent]`: the game's events in order, with the markers of the stream's
opening and end.  `GameStream.run` hands each event to the runner and re-opens
the stream when it ends or goes silent without a final status (gameFull
re-syncs everything), so a dropped connection never loses the game: a stream
that keeps failing backs off, and an answer that re-opening cannot change
(FINAL_STREAM_STATUSES) gives the game up.  The runner closes the stream too
(`close`: our move's post failed, the event stream says the game finished).

An idle correspondence game parks (bot/play/correspondence.py): when nothing has
come for a while and the game may leave, the reader stops and the stream closes
until it is our turn.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from bot.lichess.client import LichessError, backoff_s
from bot.lichess.events import GameEvent
from bot.lichess.streams import Item, StreamClosed, StreamOpened, StreamThread
from bot.play.clock import clock_running, silence_limit_s
from bot.play.context import GameContext
from bot.play.correspondence import should_park
from bot.play.game_state import GameState
from bot.play.moves import Delivery
from bot.play.think_schedule import ThinkSchedule

log = logging.getLogger(__name__)

MAX_STREAM_FAILURES = 30  # consecutive re-open failures before giving a game up
# Floors of the low-clock silence limits (see _watch): an echo takes one round
# trip; a healthy stream is quiet for up to a keep-alive gap (7 s).
ECHO_FLOOR_S = 1.0
QUIET_FLOOR_S = 1.5
# Re-opens of a merely quiet stream per opponent move: each one that brings a
# healthy gameFull shows the opponent is just thinking, and after these the
# read timeout takes over, so a slow opponent costs a few requests, not dozens.
QUIET_REOPENS_PER_MOVE = 2
# Game-stream answers that re-opening cannot change, with what they mean.
FINAL_STREAM_STATUSES = {
    400: "not a BOT account, or a game the Bot API cannot play",
    403: "the token lacks the bot:play scope",
    404: "no such game, or not ours",
}

Handler = Callable[[GameEvent], Awaitable[None]]


class GameStream:
    def __init__(self, ctx: GameContext, st: GameState, track: Delivery,
                 thinking: ThinkSchedule) -> None:
        self.game_id, self.api, self.cfg = ctx.game_id, ctx.api, ctx.cfg
        self.st, self.track, self.thinking = st, track, thinking
        self.queue: asyncio.Queue[Item[GameEvent]] = asyncio.Queue()
        self._thread: StreamThread[GameEvent] | None = None  # the stream open now, or last
        self._closed: StreamClosed | None = None  # why the last stream ended
        self._quiet_reopens: tuple[int, int] = (-1, 0)  # (ply, low-clock quiet re-opens)
        self.parked = False  # left an idle correspondence game; the supervisor checks back in

    @property
    def last_seen(self) -> float:
        """When the stream last sent anything, keep-alives included (monotonic)."""
        return self._thread.last_seen if self._thread is not None else 0.0

    def close(self, reason: str) -> None:
        """End the stream being read: it is re-opened unless the game is over."""
        self.queue.put_nowait(StreamClosed(reason))

    async def run(self, handle: Handler) -> None:
        """Feed `handle` the game's events until the game is over, parks or is given up."""
        failures = 0
        while not self.st.over and not self.parked:
            stream = self._thread = self.api.start_game_stream(self.game_id, self.queue)
            watch = asyncio.create_task(self._watch(stream))
            try:
                got_data = await self._consume(handle)
            finally:
                stream.stop()
                watch.cancel()
            if self.st.over or self.parked:
                break
            status = self._closed.status if self._closed is not None else None
            if status is not None and status in FINAL_STREAM_STATUSES:
                # lila (app/controllers/PlayApi.scala, WithPovAsBot / Scoped(Bot.Play)):
                # re-opening cannot help; free the slot now.
                log.warning("game %s: the game stream answers HTTP %d (%s); leaving it",
                            self.game_id, status, FINAL_STREAM_STATUSES[status])
                break
            failures = 0 if got_data else failures + 1
            if failures >= MAX_STREAM_FAILURES:
                log.error("game %s: stream failed %d times in a row; giving the game up",
                          self.game_id, failures)
                break
            if failures:
                # Only a stream that keeps failing backs off: one that delivered
                # and then dropped is re-opened at once, as our clock may be running.
                await asyncio.sleep(backoff_s(failures - 1, self.cfg.network.backoff_base_s,
                                              min(10.0, self.cfg.network.backoff_max_s)))

    async def _consume(self, handle: Handler) -> bool:
        """Read one stream to its end; True when it delivered an event."""
        got = False
        while True:
            item = await self._next()
            match item:
                case None:
                    self.parked = True
                    log.info("game %s: correspondence game idle for %.0f s; closing its "
                             "stream until it is our turn", self.game_id,
                             self.cfg.correspondence.disconnect_time)
                    return got
                case StreamOpened():
                    continue
                case StreamClosed():
                    self._closed = item
                    if not self.st.over:
                        # Even a 429 on this stream pauses nothing (moves and their game
                        # streams are never paused): the run loop's backoff paces the
                        # re-opens.
                        log.info("game %s: stream closed (%s); re-opening", self.game_id,
                                 item.reason)
                    return got
                case _:
                    got = True
                    self.track.activity = time.monotonic()
                    try:
                        await handle(item)
                    except LichessError as exc:
                        log.warning("game %s: %s", self.game_id, exc)
                    if self.st.over:
                        return got

    async def _next(self) -> Item[GameEvent] | None:
        """The stream's next item; None when an idle correspondence game may park.

        A correspondence game hands the stream (and engine) back while the opponent
        takes hours or days; the service's check-ins bring the game back."""
        if not self.st.correspondence:
            return await self.queue.get()
        period = self.cfg.correspondence.disconnect_time
        while True:
            try:
                async with asyncio.timeout(min(1.0, period / 4)):
                    return await self.queue.get()
            except TimeoutError:
                if self._may_park():
                    return None

    def _may_park(self) -> bool:
        track, st = self.track, self.st
        busy = self.thinking.running or track.pending is not None \
            or track.posted_at is not None
        return should_park(st.correspondence, st.over, busy, st.to_move() == st.color,
                           track.activity, self.cfg.correspondence.disconnect_time,
                           time.monotonic())

    async def _watch(self, stream: StreamThread[GameEvent]) -> None:
        """Catch a silent game stream sooner than the read timeout would.

        Our own move not echoed within `move_echo_timeout_s` means the stream is
        dead.  While the opponent thinks a quiet stream is normal and is left to
        the read timeout, unless our clock is low: then it is re-opened after a
        silence of a tenth of our time (`silence_limit_s`; at most
        QUIET_REOPENS_PER_MOVE times per opponent move), as a move lost in a
        dead stream would run our clock unseen.  No /api/account/playing
        polling: that is one request per game every few seconds.
        """
        net = self.cfg.network
        while True:
            await asyncio.sleep(min(0.5, net.move_echo_timeout_s / 2))
            now = time.monotonic()
            st, clock = self.st, self.st.clock
            my_ms = clock.time_of(st.color) if clock is not None and clock.has_clock \
                and clock_running(len(st.moves)) else None
            posted_at = self.track.posted_at
            if posted_at is not None:
                limit = net.move_echo_timeout_s if my_ms is None else \
                    silence_limit_s(my_ms, net.move_echo_timeout_s, ECHO_FLOOR_S)
                if now - posted_at > limit:
                    self.track.posted_at = None
                    self.close("our move was not echoed")
                    return
            elif my_ms is not None and st.to_move() != st.color and not st.over:
                limit = silence_limit_s(my_ms, net.stream_read_timeout_s, QUIET_FLOOR_S)
                quiet = now - stream.last_seen
                ply, done = self._quiet_reopens
                done = done if ply == len(st.moves) else 0
                if limit < net.stream_read_timeout_s and quiet > limit \
                        and done < QUIET_REOPENS_PER_MOVE:
                    self._quiet_reopens = (len(st.moves), done + 1)
                    self.close(f"stream quiet for {quiet:.1f} s "
                               f"with {my_ms / 1000:.1f} s on our clock")
                    return
