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
from collections.abc import Callable
from typing import Any

from bot.config import Config
from bot.engine.pool import EnginePool
from bot.lichess.client import (
    ApiRejected,
    Lichess,
    LichessError,
    backoff_s,
)
from bot.lichess.latency import LatencyEstimate, overhead_sample_ms
from bot.lichess.streams import StreamClosed, StreamOpened, StreamThread
from bot.play import chat, farming, game_sources, records
from bot.play.clock import Clock, clock_running, first_move_think_ms, silence_limit_s
from bot.play.correspondence import PARK, Park, is_correspondence, should_park
from bot.play.game_rules import DrawResign
from bot.play.game_state import GameHooks, GameState
from bot.play.move_forms import MoveForms
from bot.play.outbox import Outbox
from bot.play.thinker import Thinker
from bot.sources.chain import MoveSources, SourceMove

log = logging.getLogger(__name__)

ONGOING = ("created", "started")
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
GOODBYE_FLUSH_S = 5.0  # at the end, how long queued chat (goodbyes) may take to go out


class GameRunner:
    def __init__(self, game_id: str, api: Lichess, cfg: Config, me: str,
                 hooks: GameHooks | None = None, pool: EnginePool | None = None,
                 threads_now: Callable[[], int] | None = None) -> None:
        self.game_id = game_id
        self.pool, self.threads_now = pool, threads_now  # handed to the Thinker
        self.api, self.cfg, self.me = api, cfg, me
        self.hooks = hooks or GameHooks()
        self.st = GameState()
        self.thinker: Thinker | None = None
        self.rules = DrawResign(cfg.draw_or_resign)
        self.queue: asyncio.Queue[Any] = asyncio.Queue()
        self._think_task: asyncio.Task[None] | None = None
        self._think_ply = -1
        self._moved_ply = -1  # ply at which our move was accepted by the server
        self._timers: dict[str, asyncio.Task[None]] = {}
        self._answered: set[tuple[str, int]] = set()
        self._greeted = False
        self._posted_at: float | None = None  # when our last move was accepted, until echoed
        self._pending: tuple[int, str] | None = None  # (ply, move) being posted
        self._abort_ply = -1  # ply at which the no-first-move timer was started
        self._abort_deadline = 0.0  # when that timer fires (monotonic)
        self.takebacks_accepted = 0  # this game's, for game.max_takebacks_accepted
        # First SAME_PLIES plies of recent games with this opponent (set by the service).
        self.previous_lines: list[tuple[str, ...]] = []
        self._closed: StreamClosed | None = None  # why the last stream ended
        self.outbox = Outbox(game_id, api)
        self.latency = LatencyEstimate(cfg.engine.move_overhead_ms)
        self.over = False
        self.sources: MoveSources | None = None  # book/tablebase/online; set by the service
        self.saver = records.Saver()  # the service hands in its own, which retries
        self.correspondence = False  # days per move: no abort timer, parks when idle
        self.parked = False  # left an idle correspondence game; the service checks back in
        self._activity = time.monotonic()  # last game event or move of ours
        self._parking = False  # a PARK sentinel is queued
        self._quiet_reopens: tuple[int, int] = (-1, 0)  # (ply, low-clock quiet re-opens)
        self._draw_with_move = -1  # ply whose move accepts the opponent's draw offer
        # Set at the end of a finished game: the goodbye chat going out in the
        # background, so the slot is free at once (the caller owns the task).
        self.farewell: asyncio.Task[None] | None = None
        self._forms: MoveForms | None = None  # stream moves in the engine's spelling

    # -- lifecycle --------------------------------------------------------
    async def run(self) -> None:
        failures = 0
        park = asyncio.create_task(self._park_watch())
        try:
            while not self.over and not self.parked:
                stream = self.api.start_stream("game_stream", self.queue, self.game_id)
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
            self._activity = time.monotonic()
            try:
                await self._handle(item)
            except LichessError as exc:
                log.warning("game %s: %s", self.game_id, exc)
            if self.over:
                return got

    async def _watch_stream(self, stream: StreamThread) -> None:
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
            if self._posted_at is not None:
                limit = net.move_echo_timeout_s if my_ms is None else \
                    silence_limit_s(my_ms, net.move_echo_timeout_s, ECHO_FLOOR_S)
                if now - self._posted_at > limit:
                    self._posted_at = None
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
        busy = thinking or self._pending is not None or self._posted_at is not None
        return should_park(self.correspondence, self.over, busy,
                           self.st.to_move() == self.st.color, self._activity,
                           self.cfg.correspondence.disconnect_time, time.monotonic())

    def poke(self) -> None:
        """The event stream said the game finished: re-sync from a fresh stream."""
        self.queue.put_nowait(StreamClosed("gameFinish event"))

    async def _cleanup(self) -> None:
        for t in list(self._timers.values()) + [self._think_task]:
            if t is not None and not t.done():
                t.cancel()
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
    async def _handle(self, ev: dict[str, Any]) -> None:
        kind = ev.get("type")
        if kind == "gameFull":
            await self._on_full(ev)
        elif kind == "gameState":
            await self._on_state(ev, ev.get("_received_at"))
        elif kind == "chatLine":
            self._on_chat(ev)
        elif kind == "opponentGone":
            self._on_gone(ev)
        else:
            log.debug("game %s: ignoring event type %r", self.game_id, kind)

    async def _on_full(self, ev: dict[str, Any]) -> None:
        st = self.st
        st.full = ev
        white, black = ev.get("white") or {}, ev.get("black") or {}
        st.color = "white" if str(white.get("id", "")).lower() == self.me.lower() else "black"
        opp = black if st.color == "white" else white
        st.opponent = opp.get("name") or (f"AI level {opp['aiLevel']}" if opp.get("aiLevel")
                                          else "?")
        fen = ev.get("initialFen") or "startpos"
        st.initial_fen = None if fen == "startpos" else fen
        st.chess960 = (ev.get("variant") or {}).get("key") == "chess960"
        st.first_to_move = "black" if st.initial_fen and st.initial_fen.split()[1:2] == ["b"] \
            else "white"
        st.has_clock = bool(ev.get("clock"))
        if self._forms is None:
            self._forms = MoveForms(st.initial_fen, st.chess960)
        self.correspondence = is_correspondence(ev)
        if self.thinker is None:
            # Takes its engine at the first search: a book move never waits for a table.
            self.thinker = Thinker(self.game_id, self.cfg.engine, st.initial_fen, st.chess960,
                                   self.pool, self.threads_now)
        state = dict(ev.get("state") or {})
        log.info("game %s: %s vs %s, I play %s, %d moves so far", self.game_id, white.get("name"),
                 black.get("name"), st.color, len(str(state.get("moves", "")).split()))
        if not self._greeted:
            self._greeted = True
            if len(str(state.get("moves", "")).split()) < 2:
                self._greet(goodbye=False)
        await self._on_state(state, ev.get("_received_at"))

    async def _on_state(self, state: dict[str, Any], received_at: float | None = None) -> None:
        st = self.st
        now = received_at or time.monotonic()
        moves = str(state.get("moves") or "").split()
        if self._forms is not None:
            # lila may spell castling e1h1 where the engine plays e1g1: one spelling,
            # so the echo, ponder and resync checks compare moves, not strings.
            moves = self._forms.canonical(moves)
        if len(moves) < len(st.moves):
            # A takeback: offers made again at these plies are new offers to answer.
            self._answered = {a for a in self._answered if a[1] < len(moves)}
        st.status = str(state.get("status", "started"))
        st.winner = state.get("winner")
        st.clock = Clock.from_state(state, now, st.has_clock)
        st.moves = moves
        if self._posted_at is not None and len(moves) != self._moved_ply:
            self._posted_at = None  # the echo (or anything newer) arrived
        if st.status not in ONGOING:
            self.over = True
            if self.thinker is not None:
                await self.thinker.stop()
            return
        self._answer_offers(state)
        self._update_abort_timer(now)
        my_turn = st.to_move() == st.color
        running = self._think_task is not None and not self._think_task.done()
        if my_turn and self._moved_ply != len(moves):
            if not (running and self._think_ply == len(moves)):
                if running:
                    assert self._think_task is not None
                    self._think_task.cancel()
                self._think_ply = len(moves)
                self._think_task = asyncio.create_task(self._think(list(moves), st.clock))
        elif not my_turn and running and len(moves) != self._think_ply + 1:
            # A takeback happened while we were thinking: that search is moot.
            # (len == think_ply + 1 is the echo of our own move, often faster than
            # the POST's response: that task must finish, not be cancelled.)
            assert self._think_task is not None
            self._think_task.cancel()

    def _answer_offers(self, state: dict[str, Any]) -> None:
        """Answer draw/takeback offers through the outbox: thinking starts at once."""
        opp = "b" if self.st.color == "white" else "w"
        ply = len(self.st.moves)
        if state.get(f"{opp}draw") and ("draw", ply) not in self._answered:
            self._answered.add(("draw", ply))
            draw = self.rules.draw_acceptable(self.st.pieces())
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
        if state.get(f"{opp}takeback") and ("takeback", ply) not in self._answered:
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

    def _update_abort_timer(self, now: float) -> None:
        """The no-first-move abort counts only the opponent's time to their first
        move: it (re)starts whenever it becomes their turn before they have moved
        and stops while we think.  Lichess never expires games from challenges
        (lila: Source.expirable = Lobby, Arena, Pool, Swiss), so this is ours to do."""
        st = self.st
        # Correspondence: no abort timer (a first move may take days).
        waiting = not self.over and not self.correspondence and not st.opponent_has_moved() \
            and st.to_move() != st.color
        timer = self._timers.get("abort")
        if not waiting:
            if timer is not None:
                timer.cancel()
                del self._timers["abort"]
            self._abort_ply = -1
            return
        ply = len(st.moves)
        if timer is not None and not timer.done() and self._abort_ply == ply:
            return  # the same wait (e.g. a re-synced stream): keep counting
        if timer is not None:
            timer.cancel()
        self._abort_ply = ply
        self._abort_deadline = now + self.cfg.game.abort_if_no_first_move_s
        self._timers["abort"] = asyncio.create_task(self._abort_at(self._abort_deadline, ply))

    def _wait_for_first_move(self) -> bool:
        """!wait: give the opponent WAIT_S more for their first move, if we are waiting."""
        timer = self._timers.get("abort")
        if timer is None or timer.done():
            return False
        timer.cancel()
        self._abort_deadline = max(self._abort_deadline, time.monotonic() + chat.WAIT_S)
        self._timers["abort"] = asyncio.create_task(
            self._abort_at(self._abort_deadline, self._abort_ply))
        log.info("game %s: !wait: waiting %.0f s more for the first move", self.game_id,
                 chat.WAIT_S)
        return True

    def _on_chat(self, ev: dict[str, Any]) -> None:
        user = str(ev.get("username", ""))
        text = str(ev.get("text", ""))
        if user.lower() in (self.me.lower(), "lichess") or not self.cfg.game.chat_commands:
            return
        room = str(ev.get("room", "player"))
        reply = chat.answer(text, self.me, self.cfg.game.bot_name, self._eval_text,
                            room=room, playing=not self.over,
                            spectator_eval=self.cfg.game.spectator_eval,
                            wait=self._wait_for_first_move)
        if reply:
            self.outbox.say(room, reply)

    def _on_gone(self, ev: dict[str, Any]) -> None:
        old = self._timers.pop("claim", None)
        if old is not None:
            old.cancel()
        if ev.get("gone"):
            secs = float(ev.get("claimWinInSeconds") or 0)
            log.info("game %s: opponent gone; claiming victory in %.0f s", self.game_id, secs)
            self._timers["claim"] = asyncio.create_task(self._claim_after(secs))

    # -- timers -----------------------------------------------------------
    async def _claim_after(self, secs: float) -> None:
        await asyncio.sleep(secs)
        if not self.over:
            log.info("game %s: claiming victory", self.game_id)
            # Retried until it lands or the game ends (the opponent came back, or
            # their clock ran out): Lichess waits for it.
            self.outbox.do("claim victory", lambda: self.api.claim_victory(
                self.game_id, wanted=self._ongoing), until=self._ongoing)

    async def _abort_at(self, deadline: float, ply: int) -> None:
        await asyncio.sleep(max(0.0, deadline - time.monotonic()))
        st = self.st
        if not self.over and not st.opponent_has_moved() and len(st.moves) == ply:
            log.info("game %s: opponent made no first move in %.0f s; aborting",
                     self.game_id, self.cfg.game.abort_if_no_first_move_s)

            def still_waiting() -> bool:  # the game still waits for the abort
                return not self.over and not self.st.opponent_has_moved()

            # Retried until it lands or is moot: a game whose opponent never moves
            # must not hold its slot until a restart.
            self.outbox.do("abort", lambda: self.api.abort(self.game_id, wanted=still_waiting),
                           until=still_waiting)

    # -- thinking -----------------------------------------------------------
    def _variation(self, moves: list[str]) -> SourceMove | None:
        """A rated game still on a recent game's opening against this opponent
        leaves it (bot/play/farming.py: lila drops farmed rating results)."""
        full = self.st.full
        if not self.previous_lines or not full.get("rated") \
                or (full.get("variant") or {}).get("key", "standard") != "standard":
            return None
        uci = farming.vary(self.previous_lines, moves)
        if uci is None:
            return None
        log.info("game %s: playing %s, off the opening of a recent game with %s",
                 self.game_id, uci, self.st.opponent)
        return SourceMove(uci, "variation", "varied from a recent game's opening", 0.0)

    def _limits(self, clock: Clock, now: float, ponder: bool = False,
                plies: int | None = None) -> Any:
        from bot.engine import SearchLimits

        if not clock.has_clock:
            # Correspondence: correspondence.move_time per move, whatever the days left.
            return SearchLimits(movetime=max(1, int(self.cfg.correspondence.move_time * 1000)),
                                ponder=ponder)
        if plies is not None and not clock_running(plies) and not ponder:
            # Free for our clock, but the opponent waits (and may abort): keep it short.
            return SearchLimits(movetime=first_move_think_ms(clock.time_of(self.st.color)))
        w, b, wi, bi = clock.search_times(self.st.color, now)
        return SearchLimits(wtime=w, btime=b, winc=wi, binc=bi, ponder=ponder)

    def _ponder_on(self) -> bool:
        return self.cfg.correspondence.ponder if self.correspondence else self.cfg.engine.ponder

    async def _think(self, moves: list[str], clock: Clock) -> None:
        assert self.thinker is not None
        t0 = time.monotonic()
        hit = self._variation(moves)
        if hit is None and self.sources is not None and self.sources.enabled:
            hit = await game_sources.ask(
                self.sources, self.st, self.game_id, moves, clock,
                self.cfg.correspondence.move_time if self.correspondence else None)
            if hit is not None:
                await self.thinker.stop()  # a ponder search on another line is moot
        res = await self.thinker.take_ponder(moves) if self._ponder_on() and hit is None \
            else None
        t_search = time.monotonic()
        pondered = res is not None
        overhead_ms = self.latency.overhead_ms()
        if res is None and hit is None:
            try:
                res = await self.thinker.search(
                    moves, self._limits(clock, t_search, plies=len(moves)), overhead_ms)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - never lose on time over an engine bug
                log.error("game %s: engine failed (%s); playing a fallback move",
                          self.game_id, exc)
                res = None
        think_ms = (time.monotonic() - t0) * 1000.0  # includes a ponderhit's remainder
        if self.over or self.st.moves != moves:
            return
        offer = False
        if hit is not None:
            move = hit.uci
            self.st.comments[len(moves)] = hit.source
        elif res is None:
            move = self.st.fallback_move(moves)
            if move is None:
                return
        else:
            move = res.bestmove
            self.rules.record(res.score_cp, res.mate)
            if self.rules.should_resign():
                log.info("game %s: eval below resign_score for %d moves; resigning",
                         self.game_id, self.cfg.draw_or_resign.resign_moves)
                await self.api.resign(self.game_id)
                return
            # A draw offer travels with the move (?offeringDraw=true): no extra request.
            offer = self.rules.should_offer(self.st.pieces(moves + [move]))
            if offer:
                log.info("game %s: offering a draw with %s", self.game_id, move)
        if self._draw_with_move == len(moves):
            offer = True  # accepts the opponent's pending offer (_answer_offers)
            log.info("game %s: accepting the draw with %s", self.game_id, move)
        ply = len(moves)
        self._pending = (ply, move)
        try:
            await self.api.move(self.game_id, move, budget_ms=lambda: clock.move_budget_ms(
                self.st.color, time.monotonic(), 0), offering_draw=offer,
                landed=lambda: self._landed(ply, move))
        except LichessError as exc:
            if not self._landed(ply, move):
                # Our view of the game is stale (e.g. a missed takeback), or the post
                # failed for good: re-read gameFull.
                if isinstance(exc, ApiRejected):
                    log.warning("game %s: move %s rejected (%s); resyncing", self.game_id,
                                move, exc)
                else:
                    log.error("game %s: could not post move %s (%s); resyncing",
                              self.game_id, move, exc)
                self.queue.put_nowait(StreamClosed("resync after a failed move post"))
                return
            log.info("game %s: move %s shows in the game stream although its post "
                     "failed (%s): played", self.game_id, move, exc)
        finally:
            self._pending = None
        # Overhead: position received -> move accepted by the server, minus thinking.
        acked = time.monotonic()
        overhead = overhead_sample_ms(clock.received_at, acked, think_ms)
        if clock_running(len(moves)):
            # (Moves before the clocks run cost nothing and include the engine's set-up.)
            self.latency.add(overhead)
            if self.hooks.on_latency:
                self.hooks.on_latency(self.game_id, overhead, overhead_ms)
        self._moved_ply = len(moves)
        self._activity = time.monotonic()
        if len(self.st.moves) == len(moves):
            self._posted_at = time.monotonic()  # echo not seen yet
        log.debug("game %s: played %s (think %.0f ms, overhead %.1f ms%s)", self.game_id, move,
                  think_ms, overhead, ", ponderhit" if pondered else "")
        if self.hooks.on_move:
            self.hooks.on_move(self.game_id, overhead, think_ms)
        if res is not None and self._ponder_on() and res.ponder:
            after = clock.after_our_move(self.st.color, time.monotonic())
            await self.thinker.start_ponder(moves + [move, res.ponder],
                                            self._limits(after, time.monotonic(), True),
                                            self.latency.overhead_ms())

    def _landed(self, ply: int, move: str) -> bool:
        """The game stream already shows our move at `ply` (the POST may still be pending)."""
        moves = self.st.moves
        if len(moves) <= ply:
            return False
        # (A book, tablebase or online source may spell castling either way.)
        return moves[ply] == move or (self._forms is not None
                                      and self._forms.same(moves[:ply], moves[ply], move))

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
        if self.sources is not None:
            self.sources.game_over(self.game_id)
        if self.hooks.on_end:
            self.hooks.on_end(self.game_id, st.status, st.winner, st.color)
        if self.cfg.pgn_directory and st.full:
            rec = self.st.record(self.game_id, self.api.url)
            # A failed write is kept and retried by the saver (logged there).
            await asyncio.to_thread(self.saver.save, rec, self.cfg.pgn_directory)

