"""One game, as one asyncio task: stream -> state -> think -> move.

The game stream is consumed through a queue fed by a stream thread; when the
stream ends or goes silent without a final status it is re-opened (gameFull
re-syncs everything), so a dropped connection never loses the game.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

from bot import chat, records
from bot.clock import CORRESPONDENCE_THINK_MS, Clock
from bot.config import Config
from bot.game_rules import DrawResign
from bot.game_state import GameHooks, GameState
from bot.lichess import (
    ApiRejected,
    Lichess,
    LichessError,
    backoff_s,
)
from bot.streams import StreamClosed, StreamOpened
from bot.thinker import Thinker

log = logging.getLogger(__name__)

ONGOING = ("created", "started")
MAX_STREAM_FAILURES = 30  # consecutive re-open failures before giving a game up


class GameRunner:
    def __init__(self, game_id: str, api: Lichess, cfg: Config, me: str,
                 hooks: GameHooks | None = None) -> None:
        self.game_id = game_id
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
        self._last_item = time.monotonic()
        self._posted_at: float | None = None  # when our last move was accepted, until echoed
        self.over = False

    # -- lifecycle --------------------------------------------------------
    async def run(self) -> None:
        failures = 0
        try:
            while not self.over:
                stream = self.api.start_stream("game_stream", self.queue, self.game_id)
                watch = asyncio.create_task(self._watch_stream())
                try:
                    got_data = await self._consume()
                finally:
                    stream.stop()
                    watch.cancel()
                if self.over:
                    break
                failures = 0 if got_data else failures + 1
                if failures >= MAX_STREAM_FAILURES:
                    log.error("game %s: stream failed %d times in a row; giving the game up",
                              self.game_id, failures)
                    break
                delay = backoff_s(failures, self.cfg.network.backoff_base_s,
                                  min(10.0, self.cfg.network.backoff_max_s))
                await asyncio.sleep(delay)
        finally:
            await self._cleanup()

    async def _consume(self) -> bool:
        got = False
        while True:
            item = await self.queue.get()
            self._last_item = time.monotonic()
            if isinstance(item, StreamOpened):
                continue
            if isinstance(item, StreamClosed):
                if not self.over:
                    log.info("game %s: stream closed (%s); re-opening", self.game_id, item.reason)
                    if item.retry_at:
                        await asyncio.sleep(max(0.0, item.retry_at - time.monotonic()))
                return got
            got = True
            try:
                await self._handle(item)
            except LichessError as exc:
                log.warning("game %s: %s", self.game_id, exc)
            if self.over:
                return got

    async def _watch_stream(self) -> None:
        """Catch a silent game stream sooner than the read timeout would.

        berserk hides keep-alives, so silence is ambiguous; two signals are not:
        our own move never echoed, or Lichess saying it is our turn.
        """
        net = self.cfg.network
        while True:
            await asyncio.sleep(min(0.5, net.move_echo_timeout_s / 2))
            now = time.monotonic()
            if self._posted_at is not None and now - self._posted_at > net.move_echo_timeout_s:
                self._posted_at = None
                self.queue.put_nowait(StreamClosed("our move was not echoed"))
                return
            my_turn = self.st.to_move() == self.st.color
            if net.game_stale_check_s and not my_turn and \
                    now - self._last_item > net.game_stale_check_s:
                self._last_item = now
                if await self._server_says_my_turn():
                    self.queue.put_nowait(StreamClosed("stream silent but it is our turn"))
                    return

    async def _server_says_my_turn(self) -> bool:
        try:
            playing = await self.api.playing()
        except LichessError:
            return False
        for g in playing:
            if (g.get("gameId") or g.get("id")) == self.game_id:
                return bool(g.get("isMyTurn"))
        return True  # no longer playing: the game ended and we missed it

    def poke(self) -> None:
        """The event stream said the game finished: re-sync from a fresh stream."""
        self.queue.put_nowait(StreamClosed("gameFinish event"))

    async def _cleanup(self) -> None:
        for t in list(self._timers.values()) + [self._think_task]:
            if t is not None and not t.done():
                t.cancel()
        if self.thinker is not None:
            await self.thinker.close()
        if self.over:
            await self._finish()

    # -- events -----------------------------------------------------------
    async def _handle(self, ev: dict[str, Any]) -> None:
        kind = ev.get("type")
        if kind == "gameFull":
            await self._on_full(ev)
        elif kind == "gameState":
            await self._on_state(ev, ev.get("_received_at"))
        elif kind == "chatLine":
            await self._on_chat(ev)
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
        if self.thinker is None:
            self.thinker = Thinker(self.game_id, self.cfg.engine, st.initial_fen, st.chess960)
            await self.thinker.open()
        state = dict(ev.get("state") or {})
        log.info("game %s: %s vs %s, I play %s, %d moves so far", self.game_id, white.get("name"),
                 black.get("name"), st.color, len(str(state.get("moves", "")).split()))
        if not self._greeted:
            self._greeted = True
            if len(str(state.get("moves", "")).split()) < 2:
                # In the background: two chat posts must not delay the first move.
                self._timers["hello"] = asyncio.create_task(self._say_all(goodbye=False))
        await self._on_state(state, ev.get("_received_at"))
        if not self.over and not st.opponent_has_moved() and "abort" not in self._timers:
            self._timers["abort"] = asyncio.create_task(self._abort_if_no_move())

    async def _on_state(self, state: dict[str, Any], received_at: float | None = None) -> None:
        st = self.st
        now = received_at or time.monotonic()
        moves = str(state.get("moves") or "").split()
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
        await self._answer_offers(state)
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

    async def _answer_offers(self, state: dict[str, Any]) -> None:
        opp = "b" if self.st.color == "white" else "w"
        ply = len(self.st.moves)
        if state.get(f"{opp}draw") and ("draw", ply) not in self._answered:
            self._answered.add(("draw", ply))
            accept = self.rules.draw_acceptable(self.st.pieces())
            log.info("game %s: opponent offers a draw; %s", self.game_id,
                     "accepting" if accept else "declining")
            await self.api.draw(self.game_id, accept)
        if state.get(f"{opp}takeback") and ("takeback", ply) not in self._answered:
            self._answered.add(("takeback", ply))
            accept = self.cfg.game.accept_takebacks
            log.info("game %s: opponent asks for a takeback; %s", self.game_id,
                     "accepting" if accept else "declining")
            await self.api.takeback(self.game_id, accept)

    async def _on_chat(self, ev: dict[str, Any]) -> None:
        user = str(ev.get("username", ""))
        text = str(ev.get("text", ""))
        if user.lower() in (self.me.lower(), "lichess") or not self.cfg.game.chat_commands:
            return
        reply = chat.answer(text, self.me, self.cfg.game.bot_name, self._eval_text)
        if reply:
            await self._say(reply, str(ev.get("room", "player")))

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
            try:
                await self.api.claim_victory(self.game_id)
                log.info("game %s: victory claimed", self.game_id)
            except LichessError as exc:
                log.warning("game %s: claim victory failed: %s", self.game_id, exc)

    async def _abort_if_no_move(self) -> None:
        await asyncio.sleep(self.cfg.game.abort_if_no_first_move_s)
        if not self.over and not self.st.opponent_has_moved():
            log.info("game %s: opponent made no first move in %.0f s; aborting",
                     self.game_id, self.cfg.game.abort_if_no_first_move_s)
            try:
                await self.api.abort(self.game_id)
            except LichessError as exc:
                log.warning("game %s: abort failed: %s", self.game_id, exc)

    # -- thinking -----------------------------------------------------------
    def _limits(self, clock: Clock, now: float, ponder: bool = False) -> Any:
        from bot.engine import SearchLimits

        if not clock.has_clock:
            return SearchLimits(movetime=CORRESPONDENCE_THINK_MS, ponder=ponder)
        w, b, wi, bi = clock.search_times(self.st.color, now)
        return SearchLimits(wtime=w, btime=b, winc=wi, binc=bi, ponder=ponder)

    async def _think(self, moves: list[str], clock: Clock) -> None:
        assert self.thinker is not None
        t0 = time.monotonic()
        res = await self.thinker.take_ponder(moves) if self.cfg.engine.ponder else None
        t_search = time.monotonic()
        pondered = res is not None
        if res is None:
            try:
                res = await self.thinker.search(moves, self._limits(clock, t_search))
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - never lose on time over an engine bug
                log.error("game %s: engine failed (%s); playing a fallback move",
                          self.game_id, exc)
                res = None
        think_ms = (time.monotonic() - t0) * 1000.0  # includes a ponderhit's remainder
        if self.over or self.st.moves != moves:
            return
        if res is None:
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
        try:
            await self.api.move(self.game_id, move, budget_ms=lambda: clock.move_budget_ms(
                self.st.color, time.monotonic(), 0))
        except ApiRejected as exc:
            # Our view of the game is stale (e.g. a missed takeback): re-read gameFull.
            log.warning("game %s: move %s rejected (%s); resyncing", self.game_id, move, exc)
            self.queue.put_nowait(StreamClosed("resync after rejected move"))
            return
        except LichessError as exc:
            log.error("game %s: could not post move %s: %s", self.game_id, move, exc)
            self.queue.put_nowait(StreamClosed("resync after failed move post"))
            return
        # Overhead: position received -> move accepted by the server, minus thinking.
        overhead = (time.monotonic() - clock.received_at) * 1000.0 - think_ms
        self._moved_ply = len(moves)
        if len(self.st.moves) == len(moves):
            self._posted_at = time.monotonic()  # echo not seen yet
        log.debug("game %s: played %s (think %.0f ms, overhead %.1f ms%s)", self.game_id, move,
                  think_ms, overhead, ", ponderhit" if pondered else "")
        if self.hooks.on_move:
            self.hooks.on_move(self.game_id, overhead, think_ms)
        if res is not None:
            pieces = self.st.pieces(moves + [move])
            if self.rules.should_offer(pieces):
                log.info("game %s: offering a draw", self.game_id)
                with contextlib.suppress(LichessError):
                    await self.api.draw(self.game_id, True)
            if self.cfg.engine.ponder and res.ponder:
                after = clock.after_our_move(self.st.color, time.monotonic())
                await self.thinker.start_ponder(moves + [move, res.ponder],
                                                self._limits(after, time.monotonic(), True))

    # -- chat and records -------------------------------------------------------
    def _eval_text(self) -> str:
        res = self.thinker.last if self.thinker else None
        if res is None:
            return "No evaluation yet."
        return chat.format_eval(res.score_cp, res.mate, res.depth, list(res.pv))

    async def _say(self, text: str, room: str) -> None:
        try:
            await self.api.chat(self.game_id, chat.clip(text), room)
        except LichessError as exc:
            log.info("game %s: chat failed: %s", self.game_id, exc)

    async def _say_all(self, goodbye: bool) -> None:
        for room, text in chat.greetings(self.cfg.greeting, self.st.opponent, self.me, goodbye):
            await self._say(text, room)

    async def _finish(self) -> None:
        st = self.st
        log.info("game %s: finished: %s%s", self.game_id, st.status,
                 f", {st.winner} wins" if st.winner else "")
        if st.status != "aborted":
            await self._say_all(goodbye=True)
        if self.hooks.on_end:
            self.hooks.on_end(self.game_id, st.status, st.winner, st.color)
        if self.cfg.pgn_directory and st.full:
            try:
                rec = self.st.record(self.game_id, self.api.url)
                path = await asyncio.to_thread(records.save, rec, self.cfg.pgn_directory)
                log.info("game %s: saved %s", self.game_id, path)
            except OSError as exc:
                log.error("game %s: could not save PGN: %s", self.game_id, exc)

