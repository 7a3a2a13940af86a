"""One game, as one asyncio task: stream -> state -> think -> move.

The game stream is consumed through a queue fed by a stream thread; when the
stream ends or goes silent without a final status it is re-opened (gameFull
re-syncs everything), so a dropped connection never loses the game.  Only the
move POST is on the game's critical path: everything else (chat, draw and
takeback answers, abort, claim-victory) goes through the game's Outbox.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from bot import variants
from bot.lichess import events
from bot.lichess.client import LichessError, backoff_s
from bot.lichess.latency import LatencyEstimate
from bot.lichess.streams import StreamClosed, StreamOpened, StreamThread
from bot.play import chat, game_sources, moves
from bot.play.clock import Clock, clock_running, silence_limit_s
from bot.play.context import GameContext
from bot.play.correspondence import PARK, Park, should_park
from bot.play.game_rules import DrawResign
from bot.play.game_state import GameHooks, GameState
from bot.play.journal import GameJournal
from bot.play.move_forms import MoveForms
from bot.play.outbox import Outbox
from bot.play.thinker import Thinker
from bot.play.timers import GameTimers

log = logging.getLogger(__name__)

MAX_STREAM_FAILURES = 30  # consecutive re-open failures before giving a game up
# Floors of the low-clock silence limits (see _watch_stream): an echo takes one
# round trip; a healthy stream is quiet for up to a keep-alive gap (7 s).
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
# How long a rated game's end waits for its gameFinish event, whose rating
# changes its PGN file's RatingDiff tags need (it comes with the final state).
RATINGS_WAIT_S = 2.0
RATINGS_POLL_S = 0.05
GOODBYE_FLUSH_S = 5.0  # at the end, how long queued chat (goodbyes) may take to go out


class GameRunner:
    def __init__(self, ctx: GameContext) -> None:
        self.ctx = ctx
        self.game_id, self.api, self.cfg, self.me = ctx.game_id, ctx.api, ctx.cfg, ctx.me
        self.hooks: GameHooks = ctx.hooks
        self.st = GameState(comments=ctx.comments)
        self.thinker: Thinker | None = None
        self.rules = DrawResign(ctx.cfg.draw_or_resign)
        self.queue: asyncio.Queue[Any] = asyncio.Queue()
        self._think_task: asyncio.Task[None] | None = None
        self._think_ply = -1
        self.track = moves.Delivery(activity=time.monotonic())
        self._answered: set[tuple[str, int]] = set()
        self._greeted = False
        self.takebacks_accepted = 0  # this game's, for game.max_takebacks_accepted
        self._closed: StreamClosed | None = None  # why the last stream ended
        self.outbox = Outbox(ctx.game_id, ctx.api)
        self.timers = GameTimers(ctx.game_id, ctx.cfg.game, ctx.api, self.outbox, self.st,
                                 lambda: self.over)
        self.latency = LatencyEstimate(ctx.cfg.engine.move_overhead_ms)
        self.over = False
        self.correspondence = False  # days per move: no abort timer, parks when idle
        self.parked = False  # left an idle correspondence game; the supervisor checks back in
        self._parking = False  # a PARK sentinel is queued
        self._quiet_reopens: tuple[int, int] = (-1, 0)  # (ply, low-clock quiet re-opens)
        self._draw_with_move = -1  # ply whose move accepts the opponent's draw offer
        # Set at the end of a finished game: the goodbye chat going out in the
        # background, so the slot is free at once (the caller owns the task).
        self.farewell: asyncio.Task[None] | None = None
        self._forms: MoveForms | None = None  # stream moves in the engine's spelling
        self.journal = GameJournal(ctx.game_id, ctx.me, ctx.api.url, ctx.writer,
                                   ctx.moves, ctx.tournament_name)

    # -- lifecycle --------------------------------------------------------
    async def run(self) -> None:
        failures = 0
        park = asyncio.create_task(self._park_watch())
        try:
            while not self.over and not self.parked:
                stream = self.api.start_game_stream(self.game_id, self.queue)
                watch = asyncio.create_task(self._watch_stream(stream))
                try:
                    got_data = await self._consume()
                finally:
                    stream.stop()
                    watch.cancel()
                if self.over or self.parked:
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
        finally:
            park.cancel()
            await self._cleanup()

    async def _consume(self) -> bool:
        got = False
        while True:
            item = await self.queue.get()
            if isinstance(item, StreamOpened):
                continue
            if isinstance(item, Park):
                if not self._may_park():
                    # A move came in after the sentinel was queued: stay.
                    self._parking = False
                    continue
                self.parked = True
                log.info("game %s: correspondence game idle for %.0f s; closing its stream "
                         "until it is our turn", self.game_id,
                         self.cfg.correspondence.disconnect_time)
                return got
            if isinstance(item, StreamClosed):
                self._closed = item
                if not self.over:
                    # Even a 429 on this stream pauses nothing (moves and their game
                    # streams are never paused): the run loop's backoff paces the
                    # re-opens.
                    log.info("game %s: stream closed (%s); re-opening", self.game_id, item.reason)
                return got
            got = True
            self.track.activity = time.monotonic()
            try:
                await self._handle(item)
            except LichessError as exc:
                log.warning("game %s: %s", self.game_id, exc)
            if self.over:
                return got

    async def _watch_stream(self, stream: StreamThread[events.GameEvent]) -> None:
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
                    self.queue.put_nowait(StreamClosed("our move was not echoed"))
                    return
            elif my_ms is not None and st.to_move() != st.color and not self.over:
                limit = silence_limit_s(my_ms, net.stream_read_timeout_s, QUIET_FLOOR_S)
                quiet = now - stream.last_seen
                ply, done = self._quiet_reopens
                done = done if ply == len(st.moves) else 0
                if limit < net.stream_read_timeout_s and quiet > limit \
                        and done < QUIET_REOPENS_PER_MOVE:
                    self._quiet_reopens = (len(st.moves), done + 1)
                    self.queue.put_nowait(StreamClosed(
                        f"stream quiet for {quiet:.1f} s with {my_ms / 1000:.1f} s on our clock"))
                    return

    async def _park_watch(self) -> None:
        """Correspondence: hand the stream (and engine) back while the opponent
        takes hours or days; the service's check-ins bring the game back."""
        period = self.cfg.correspondence.disconnect_time
        while True:
            await asyncio.sleep(min(1.0, period / 4))
            if not self._parking and self._may_park():
                self._parking = True
                self.queue.put_nowait(PARK)

    def _may_park(self) -> bool:
        thinking = self._think_task is not None and not self._think_task.done()
        busy = thinking or self.track.pending is not None or self.track.posted_at is not None
        return should_park(self.correspondence, self.over, busy,
                           self.st.to_move() == self.st.color, self.track.activity,
                           self.cfg.correspondence.disconnect_time, time.monotonic())

    def poke(self) -> None:
        """The event stream said the game finished: re-sync from a fresh stream."""
        self.queue.put_nowait(StreamClosed("gameFinish event"))

    async def _cleanup(self) -> None:
        self.timers.cancel()
        if self._think_task is not None and not self._think_task.done():
            self._think_task.cancel()
        task = asyncio.current_task()
        stopping = task is not None and task.cancelling() > 0
        try:
            if self.thinker is not None:
                await self.thinker.close()
            if self.over:
                await self._finish()
        finally:
            if self.over and not stopping:
                # The goodbye goes out while the slot already takes the next game (a
                # rematch offered at once must not be declined `later`).
                self.farewell = asyncio.create_task(self.outbox.close(GOODBYE_FLUSH_S),
                                                    name=f"farewell-{self.game_id}")
            else:
                await self.outbox.close(0.0)

    # -- events -----------------------------------------------------------
    async def _handle(self, ev: Any) -> None:
        if isinstance(ev, events.GameFull):
            await self._on_full(ev)
        elif isinstance(ev, events.GameState):
            await self._on_state(ev)
        elif isinstance(ev, events.ChatLine):
            self._on_chat(ev)
        elif isinstance(ev, events.OpponentGone):
            self.timers.opponent_gone(ev)
        else:
            log.debug("game %s: ignoring %s", self.game_id, type(ev).__name__)

    async def _on_full(self, ev: events.GameFull) -> None:
        st = self.st
        st.full = ev
        st.color = "white" if ev.white.id.lower() == self.me.lower() else "black"
        st.opponent = (ev.black if st.color == "white" else ev.white).display or "?"
        st.initial_fen = ev.start_fen  # None: the variant's own start (horde's, ...)
        st.chess960 = ev.variant == "chess960"
        st.variant = ev.variant
        st.first_to_move = "black" if st.initial_fen and st.initial_fen.split()[1:2] == ["b"] \
            else "white"
        st.has_clock = ev.clock is not None
        if self._forms is None:
            self._forms = MoveForms(st.initial_fen, st.chess960, st.variant)
        self.correspondence = ev.correspondence
        self.journal.started(ev, st.color, st.initial_fen, st.chess960)
        if self.thinker is None:
            # Takes its engine at the first search: a book move never waits for a table.
            self.thinker = Thinker(self.game_id, self.cfg.engine, self.cfg.sized,
                                   st.initial_fen, st.chess960, self.ctx.pool,
                                   self.ctx.threads_now, variants.get(st.variant).engine)
        log.info("game %s: %s vs %s, I play %s, %d moves so far", self.game_id,
                 ev.white.name or None, ev.black.name or None, st.color, len(ev.state.moves))
        if not self._greeted:
            self._greeted = True
            if len(ev.state.moves) < 2:
                self._greet(goodbye=False)
        await self._on_state(ev.state)

    async def _on_state(self, state: events.GameState) -> None:
        st = self.st
        now = state.received_at or time.monotonic()
        played = list(state.moves)
        if self._forms is not None:
            # lila may spell castling e1h1 where the engine plays e1g1: one spelling,
            # so the echo, ponder and resync checks compare moves, not strings.
            played = self._forms.canonical(played)
        if len(played) < len(st.moves):
            # A takeback: offers made again at these plies are new offers to answer,
            # and a move of ours it undid is one to play again at that ply.
            self._answered = {a for a in self._answered if a[1] < len(played)}
            if self.track.moved_ply >= len(played):
                self.track.moved_ply = -1
        st.status = state.status
        st.winner = state.winner
        st.clock = Clock.from_state(state, now, st.has_clock)
        st.moves = played
        if self.track.posted_at is not None and len(played) != self.track.moved_ply:
            self.track.posted_at = None  # the echo (or anything newer) arrived
        if not st.ongoing():
            self.journal.saw(played, state, st.has_clock)
            self.over = True
            if self.thinker is not None:
                await self.thinker.stop()
            return
        self._answer_offers(state)
        self.timers.update_abort(now, self.correspondence)
        my_turn = st.to_move() == st.color
        running = self._think_task is not None and not self._think_task.done()
        if my_turn and self.track.moved_ply != len(played):
            if not (running and self._think_ply == len(played)):
                if running:
                    assert self._think_task is not None
                    self._think_task.cancel()
                self._think_ply = len(played)
                self._think_task = asyncio.create_task(self._think(list(played), st.clock))
        elif not my_turn and running and len(played) != self._think_ply + 1:
            # A takeback happened while we were thinking: that search is moot.
            # (len == think_ply + 1 is the echo of our own move, often faster than
            # the POST's response: that task must finish, not be cancelled.)
            assert self._think_task is not None
            self._think_task.cancel()
        # Recorded after the search has been started: never on the move's path.
        asyncio.get_running_loop().call_soon(self.journal.saw, played, state, st.has_clock)

    def _answer_offers(self, state: events.GameState) -> None:
        """Answer draw/takeback offers through the outbox: thinking starts at once."""
        opp = "black" if self.st.color == "white" else "white"
        ply = len(self.st.moves)
        if state.draw_offered_by(opp) and ("draw", ply) not in self._answered:
            self._answered.add(("draw", ply))
            draw = self.rules.draw_acceptable(
                self.st.pieces(), game_sources.our_wdl(self.ctx.sources, self.st))
            log.info("game %s: opponent offers a draw; %s", self.game_id,
                     "accepting" if draw else "declining")
            if draw and self.st.to_move() == self.st.color:
                # Accepted with our move (?offeringDraw=true), as lichess-bot does: a
                # separate answer posted after the move would come too late, as lila
                # declines the opponent's offer when we move (round MovePlayer), and
                # BotPlayer accepts an offer that comes with a move before playing it.
                self._draw_with_move = ply
            else:
                self.outbox.do("draw answer", lambda: self.api.draw(
                    self.game_id, draw, wanted=self._ongoing))
        if state.takeback_asked_by(opp) and ("takeback", ply) not in self._answered:
            self._answered.add(("takeback", ply))
            limit = self.cfg.game.max_takebacks_accepted
            back = self.cfg.game.accept_takebacks if limit is None \
                else self.takebacks_accepted < limit
            self.takebacks_accepted += back
            log.info("game %s: opponent asks for a takeback; %s", self.game_id,
                     "accepting" if back else "declining")
            self.outbox.do("takeback answer", lambda: self.api.takeback(
                self.game_id, back, wanted=self._ongoing))

    def _ongoing(self) -> bool:
        return not self.over

    def _on_chat(self, ev: events.ChatLine) -> None:
        if ev.username.lower() in (self.me.lower(), "lichess") or not self.cfg.game.chat_commands:
            return
        reply = chat.answer(ev.text, self.me, self.cfg.game.bot_name, self._eval_text,
                            room=ev.room, playing=not self.over,
                            spectator_eval=self.cfg.game.spectator_eval,
                            wait=self.timers.wait_for_first_move)
        if reply:
            self.outbox.say(ev.room, reply)

    # -- a move: chosen (moves.choose), then delivered (moves.deliver) -------------
    async def _think(self, played: list[str], clock: Clock) -> None:
        assert self.thinker is not None
        choice = await moves.choose(self.ctx, self.st, self.thinker, self.rules, self.latency,
                                    played, clock, self.correspondence,
                                    accept_draw=self._draw_with_move == len(played))
        if self.over or choice is None:
            return
        if isinstance(choice, moves.Resign):
            await self.api.resign(self.game_id)
            return
        if not await moves.deliver(self.ctx, self.api, self.st, self.thinker, self.latency,
                                   self.track, choice, played, clock, self.correspondence,
                                   self._landed):
            self.queue.put_nowait(StreamClosed("resync after a failed move post"))
            return
        recent = self.latency.recent
        self.journal.ours(len(played), self.st.color, choice.move, choice.source, choice.result,
                          choice.think_ms, clock.time_of(self.st.color) if clock.has_clock
                          else None, recent[-1] if recent and clock_running(len(played))
                          else None)
        self.journal.opponent_eval(played, self.st.color, choice.result)

    def _landed(self, ply: int, move: str) -> bool:
        """The game stream already shows our move at `ply` (the POST may still be pending)."""
        played = self.st.moves
        if len(played) <= ply:
            return False
        # (A book, tablebase or online source may spell castling either way.)
        return played[ply] == move or (self._forms is not None
                                       and self._forms.same(played[:ply], played[ply], move))

    # -- chat and records -------------------------------------------------------
    def _eval_text(self) -> str:
        res = self.thinker.last if self.thinker else None
        if res is None:
            return "No evaluation yet."
        return chat.format_eval(res.score_cp, res.mate, res.depth, list(res.pv))

    def _greet(self, goodbye: bool) -> None:
        for room, text in chat.greetings(self.cfg.greeting, self.st.opponent, self.me, goodbye):
            self.outbox.say(room, text)

    async def _finish(self) -> None:
        st = self.st
        log.info("game %s: finished: %s%s", self.game_id, st.status,
                 f", {st.winner} wins" if st.winner else "")
        log.info("game %s: %s", self.game_id, self.latency.summary())
        if st.status != "aborted":
            self._greet(goodbye=True)
        if self.ctx.sources is not None:
            self.ctx.sources.game_over(self.game_id)
        if self.hooks.on_end:
            self.hooks.on_end(self.game_id, st.status, st.winner, st.color)
        ratings = self.ctx.ratings_after()
        if ratings is None and self.journal.rated and st.status != "aborted" \
                and self.cfg.pgn_directory:
            deadline = time.monotonic() + RATINGS_WAIT_S
            while ratings is None and time.monotonic() < deadline:
                await asyncio.sleep(RATINGS_POLL_S)
                ratings = self.ctx.ratings_after()
        end = self.journal.ended(st.status, st.winner, len(st.moves), ratings)
        rec = st.record(self.game_id, self.api.url)
        if rec is not None:
            # As Lichess exports it (%eval, %clk: bot.store.pgn), the move sources after.
            rec.text = self.journal.pgn(end, st.moves, st.comments)
        if self.cfg.pgn_directory and rec is not None:
            # A failed write is kept and retried by the saver (logged there).
            await asyncio.to_thread(self.ctx.saver.save, rec, self.cfg.pgn_directory)
