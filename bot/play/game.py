"""One game, as one asyncio task: stream -> state -> think -> move.

The runner turns the game's events into its state and starts a think when it is
our turn; its rooms do the rest.  The stream (game_stream.py) reads the game
stream from a typed queue fed by a stream thread, hands each event to `_handle`
(a `match` over GameEvent), re-opens the stream when it ends or goes silent and
parks an idle correspondence game.  The offers (offers.py) answer draws and
takebacks; the think schedule (think_schedule.py) runs one think at a time; the
Mover (moves.py) chooses the move, delivers it and records it in the journal
(journal.py, which also writes the PGN at the end).  The rooms that depend on
whom and what the game is against (the offers, the chat, the draw and resign
rules and the Mover with its Thinker: a `Seat`) are built at the first gameFull,
with the game's terms (terms.py: the engine's level and the strength profile's
settings), and keep them to the end.  Only the move POST is on the game's critical path:
everything else (chat, draw and takeback answers, abort, claim-victory) goes
through the game's Outbox.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from dataclasses import dataclass
from typing import assert_never

from bot import variants
from bot.lichess import events
from bot.lichess.latency import LatencyEstimate
from bot.play.clock import Clock
from bot.play.context import GameContext
from bot.play.game_chat import GameChat
from bot.play.game_rules import DrawResign
from bot.play.game_state import GameHooks, GameState
from bot.play.game_stream import GameStream
from bot.play.journal import GameJournal
from bot.play.move_forms import MoveForms
from bot.play.moves import Delivery, Mover
from bot.play.offers import Offers
from bot.play.outbox import Outbox
from bot.play.terms import GameTerms, terms_for
from bot.play.think_schedule import ThinkSchedule
from bot.play.thinker import StartPosition, Thinker
from bot.play.timers import GameTimers
from bot.sources.chain import MoveSources

__all__ = ["GameHooks", "GameRunner"]  # GameHooks: where the soak and the tests look

log = logging.getLogger(__name__)

GOODBYE_FLUSH_S = 5.0  # at the end, how long queued chat (goodbyes) may take to go out


@dataclass(frozen=True)
class Seat:
    """The rooms built at a game's first gameFull, with its terms."""

    terms: GameTerms
    offers: Offers
    chat: GameChat
    mover: Mover


def _without_book(sources: MoveSources | None) -> MoveSources | None:
    """The move sources a game without book moves asks (a profile's `book: false`)."""
    if sources is None or sources.books is None:
        return sources
    return MoveSources(None, sources.tablebases, sources.online)


class GameRunner:
    def __init__(self, ctx: GameContext) -> None:
        self.ctx, self.game_id = ctx, ctx.game_id
        self.st = GameState(comments=ctx.comments)
        self.track = Delivery(activity=time.monotonic())
        self.outbox = Outbox(ctx.game_id, ctx.api)
        self.timers = GameTimers(ctx.game_id, ctx.cfg.game, ctx.api, self.outbox, self.st)
        self.latency = LatencyEstimate(ctx.cfg.engine.move_overhead_ms)
        self.journal = GameJournal(ctx)
        self.thinking = ThinkSchedule(self._think)
        self.stream = GameStream(ctx, self.st, self.track, self.thinking)
        self.seat: Seat | None = None  # built at the first gameFull
        # Set at the end of a finished game: the goodbye chat going out in the
        # background, so the slot is free at once (the caller owns the task).
        self.farewell: asyncio.Task[None] | None = None

    @property
    def over(self) -> bool:
        return self.st.over

    @property
    def correspondence(self) -> bool:
        return self.st.correspondence

    @property
    def parked(self) -> bool:
        """Left an idle correspondence game; the supervisor checks back in."""
        return self.stream.parked

    @property
    def thinker(self) -> Thinker | None:
        return self.seat.mover.thinker if self.seat is not None else None

    @property
    def terms(self) -> GameTerms | None:
        """The game's level and profile; None before its first gameFull."""
        return self.seat.terms if self.seat is not None else None

    # -- lifecycle --------------------------------------------------------
    async def run(self) -> None:
        try:
            await self.stream.run(self._handle)
        finally:
            await self._cleanup()

    def poke(self) -> None:
        """The event stream said the game finished: re-sync from a fresh stream."""
        self.stream.close("gameFinish event")

    async def _cleanup(self) -> None:
        self.timers.cancel()
        self.thinking.cancel()
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

    async def _finish(self) -> None:
        st, ctx = self.st, self.ctx
        log.info("game %s: finished: %s%s", self.game_id, st.status,
                 f", {st.winner} wins" if st.winner else "")
        log.info("game %s: %s", self.game_id, self.latency.summary())
        if st.status != "aborted" and self.seat is not None:
            self.seat.chat.greet(goodbye=True)
        if ctx.sources is not None:
            ctx.sources.game_over(self.game_id)
        if ctx.hooks.on_end:
            ctx.hooks.on_end(self.game_id, st.status, st.winner, st.color)
        await self.journal.close(st)

    # -- events -----------------------------------------------------------
    async def _handle(self, ev: events.GameEvent) -> None:
        match ev:
            case events.GameFull():
                await self._on_full(ev)
            case events.GameState():
                await self._on_state(ev)
            case events.ChatLine():
                if self.seat is not None:  # (the gameFull comes first on every stream)
                    self.seat.chat.heard(ev, self.thinker)
            case events.OpponentGone():
                self.timers.opponent_gone(ev)
            case _:
                assert_never(ev)

    async def _on_full(self, ev: events.GameFull) -> None:
        st, first = self.st, self.seat is None
        st.seat(ev, self.ctx.me)
        seat = self.seat
        if seat is None:
            seat = self.seat = self._seat(self.ctx.kept_terms.keep(
                lambda: terms_for(self.ctx.cfg, ev, st.color)))
        self.journal.started(ev, st.color, st.initial_fen, st.chess960, seat.terms)
        log.info("game %s: %s vs %s, I play %s, %d moves so far; %s", self.game_id,
                 ev.white.name or None, ev.black.name or None, st.color, len(ev.state.moves),
                 seat.terms.describe())
        if first and len(ev.state.moves) < 2:
            seat.chat.greet(goodbye=False)
        await self._on_state(ev.state)

    def _seat(self, terms: GameTerms) -> Seat:
        st = self.st
        # The rooms read the profile's settings in their config; a game without book
        # moves asks the sources without the books.
        ctx = dataclasses.replace(self.ctx, cfg=terms.config(self.ctx.cfg),
                                  sources=self.ctx.sources if terms.book
                                  else _without_book(self.ctx.sources))
        start = StartPosition(st.initial_fen, st.chess960, variants.get(st.variant).engine)
        # The Thinker takes its engine at the first search: a book move never waits for one.
        thinker = Thinker(self.game_id, ctx.cfg.engine, ctx.cfg.sized, start, ctx.pool,
                          ctx.threads_now, strength=terms.elo)
        rules = DrawResign(ctx.cfg.draw_or_resign)
        mover = Mover(ctx, st, thinker, MoveForms(st.initial_fen, st.chess960, st.variant),
                      rules, self.latency, self.track, self.journal)
        offers = Offers(ctx, st, rules, self.outbox)
        return Seat(terms, offers, GameChat(ctx, st, self.outbox, self.timers, terms,
                                            self.latency, offers), mover)

    async def _on_state(self, state: events.GameState) -> None:
        st = self.st
        now = state.received_at or time.monotonic()
        played = list(state.moves)
        seat = self.seat
        if seat is None:  # never: a game stream starts with its gameFull
            return
        # lila may spell castling e1h1 where the engine plays e1g1: one spelling,
        # so the echo, ponder and resync checks compare moves, not strings.
        played = seat.mover.forms.canonical(played)
        if len(played) < len(st.moves):  # a takeback
            seat.offers.taken_back(len(played))
            self.track.taken_back(len(played))
        st.status, st.winner, st.moves = state.status, state.winner, played
        st.clock = clock = Clock.from_state(state, now, st.has_clock)
        self.track.saw(len(played))
        seat.mover.notice_strangers(played)
        if not st.ongoing():
            self.journal.saw(played, state, st.has_clock)
            st.over = True
            if self.thinker is not None:
                await self.thinker.stop()
            return
        seat.offers.answer(state)  # through the outbox: thinking starts at once
        self.timers.update_abort(now)
        self.thinking.follow(played, clock, st.to_move() == st.color, self.track.moved_ply)
        # Recorded after the search has been started: never on the move's path.
        asyncio.get_running_loop().call_soon(self.journal.saw, played, state, st.has_clock)

    async def _think(self, played: list[str], clock: Clock) -> None:
        seat = self.seat
        assert seat is not None  # thinking follows a game state, after the gameFull
        if not await seat.mover.play(played, clock, seat.offers.accepts_with_move(len(played))):
            self.stream.close("resync after a failed move post")
