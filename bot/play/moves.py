"""A move, in two steps: choosing it, then delivering it (a game's `Mover`).

`choose` asks, in order, the opening variation against a recent opponent
(farming.py), the move sources (book, tablebase, online), a ponder hit, and the
engine, and applies the draw/resign rules; it sends nothing.  `deliver` posts
the chosen move (a draw offer travels with it), measures the round trip into
the latency estimate, and starts pondering on the engine's expected reply.  `play`
does both and records the move in the game's journal.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, replace
from typing import Any

from bot.config import Config
from bot.lichess.client import ApiRejected, LichessError
from bot.lichess.latency import LatencyEstimate, overhead_sample_ms
from bot.play import farming, game_sources
from bot.play.choice import Choice, Resign
from bot.play.clock import Clock, clock_running, first_move_think_ms
from bot.play.context import GameContext
from bot.play.game_rules import DrawResign
from bot.play.game_state import GameState
from bot.play.journal import GameJournal
from bot.play.move_forms import MoveForms
from bot.play.thinker import Thinker
from bot.sources.chain import SourceMove

log = logging.getLogger(__name__)


def search_limits(cfg: Config, color: str, clock: Clock, now: float, ponder: bool = False,
                  plies: int | None = None) -> Any:
    from bot.engine import SearchLimits  # lazy: the engine library loads only to search

    if not clock.has_clock:
        # Correspondence: correspondence.move_time per move, whatever the days left.
        return SearchLimits(movetime=max(1, int(cfg.correspondence.move_time * 1000)),
                            ponder=ponder)
    if plies is not None and not clock_running(plies) and not ponder:
        # Free for our clock, but the opponent waits (and may abort): keep it short,
        # and within lila's first-move deadline where it sends one.
        left = clock.first_move_left_ms(now)
        movetime = first_move_think_ms(clock.time_of(color), left)
        if left is not None:
            log.debug("first move: lila's expiration leaves %.0f ms; thinking %d ms",
                      left, movetime)
        return SearchLimits(movetime=movetime)
    w, b, wi, bi = clock.search_times(color, now)
    return SearchLimits(wtime=w, btime=b, winc=wi, binc=bi, ponder=ponder)


def ponder_on(cfg: Config, correspondence: bool) -> bool:
    return cfg.correspondence.ponder if correspondence else cfg.engine.ponder


def variation(ctx: GameContext, st: GameState, moves: list[str]) -> SourceMove | None:
    """A rated game still on a recent game's opening against this opponent
    leaves it (bot/play/farming.py: lila drops farmed rating results)."""
    full = st.full
    if not ctx.previous_lines or full is None or not full.rated or full.variant != "standard":
        return None
    uci = farming.vary(list(ctx.previous_lines), moves)
    if uci is None:
        return None
    log.info("game %s: playing %s, off the opening of a recent game with %s",
             ctx.game_id, uci, st.opponent)
    return SourceMove(uci, "variation", "varied from a recent game's opening", 0.0)


@dataclass
class Delivery:
    """What the runner learns from a delivery, and what it tracks while one is out."""

    pending: tuple[int, str] | None = None  # (ply, move) being posted
    moved_ply: int = -1  # ply at which our move was accepted by the server
    posted_at: float | None = None  # when our last move was accepted, until echoed
    activity: float = 0.0  # last game event or move of ours (monotonic)
    seen: int = -1  # plies the stream has shown (-1: none yet; what came before is history)
    stranger_ply: int | None = None  # a move of ours pibot did not play (warned once)

    def taken_back(self, plies: int) -> None:
        """A takeback to `plies`: a move of ours it undid is one to play again."""
        if self.moved_ply >= plies:
            self.moved_ply = -1
        self.seen = min(self.seen, plies)

    def saw(self, plies: int) -> None:
        """The stream shows `plies` moves: our move's echo (or anything newer) arrived,
        unless that is our move's own ply still."""
        if self.posted_at is not None and plies != self.moved_ply:
            self.posted_at = None



@dataclass(frozen=True)
class Mover:
    """What a game's moves are made with, fixed at its first gameFull: `play` asks
    `choose`, then `deliver`s the choice and records it in the journal."""

    ctx: GameContext
    st: GameState
    thinker: Thinker
    forms: MoveForms  # the stream's moves in the engine's spelling
    rules: DrawResign
    latency: LatencyEstimate
    track: Delivery
    journal: GameJournal

    async def play(self, moves: list[str], clock: Clock, accept_draw: bool) -> bool:
        """Our move after `moves`; False when its post did not land (re-sync the game)."""
        choice = await self.choose(moves, clock, accept_draw)
        if self.st.over or choice is None:
            return True
        if isinstance(choice, Resign):
            await self.ctx.api.game.resign(self.ctx.game_id)
            return True
        if not await self.deliver(choice, moves, clock):
            return False
        color, recent = self.st.color, self.latency.recent
        self.journal.ours(len(moves), color, choice,
                          clock.time_of(color) if clock.has_clock else None,
                          recent[-1] if recent and clock_running(len(moves)) else None)
        self.journal.opponent_eval(moves, color, choice.result)
        return True

    async def choose(self, moves: list[str], clock: Clock,
                     accept_draw: bool) -> Choice | Resign | None:
        """The move to play after `moves`; None when there is none any more (the game
        moved on or ended while we thought, or the position is unreadable).  Sends
        nothing.  `accept_draw`: the opponent's pending offer is accepted with it."""
        ctx, st, thinker, rules = self.ctx, self.st, self.thinker, self.rules
        cfg, gid, correspondence = ctx.cfg, ctx.game_id, st.correspondence
        t0 = time.monotonic()
        hit = variation(ctx, st, moves)
        if hit is None and ctx.sources is not None and ctx.sources.enabled:
            hit = await game_sources.ask(
                ctx.sources, st, gid, moves, clock,
                cfg.correspondence.move_time if correspondence else None)
            if hit is not None:
                await thinker.stop()  # a ponder search on another line is moot
        pondering = ponder_on(cfg, correspondence)
        res = await thinker.take_ponder(moves) if pondering and hit is None else None
        pondered = res is not None
        overhead_ms = self.latency.overhead_ms()
        if res is None and hit is None:
            try:
                res = await thinker.search(
                    moves, search_limits(cfg, st.color, clock, time.monotonic(), plies=len(moves)),
                    overhead_ms)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - never lose on time over an engine bug
                log.error("game %s: engine failed (%s); playing a fallback move", gid, exc)
                res = None
        think_ms = (time.monotonic() - t0) * 1000.0  # includes a ponderhit's remainder
        if st.moves != moves or not st.ongoing():
            return None
        offer = False
        if hit is not None:
            choice = Choice(hit.uci, source=hit.source)
            if hit.source == "syzygy" and hit.wdl is not None:
                if rules.tablebase_resign(hit.wdl, len(moves)):
                    log.info("game %s: the tablebase says lost; resigning", gid)
                    return Resign()
                # Offered with the tables' move, as any offer (?offeringDraw=true).
                offer = rules.tablebase_offer(hit.wdl, len(moves))
                if offer:
                    log.info("game %s: the tablebase says drawn; offering a draw with %s",
                             gid, hit.uci)
        elif res is None:
            move = st.fallback_move(moves)
            if move is None:
                return None
            choice = Choice(move)
        else:
            rules.record(res.score_cp, res.mate)
            if rules.should_resign():
                log.info("game %s: eval below resign_score for %d moves; resigning",
                         gid, cfg.draw_or_resign.resign_moves)
                return Resign()
            # A draw offer travels with the move (?offeringDraw=true): no extra request.
            offer = rules.should_offer(st.pieces(moves + [res.bestmove]))
            if offer:
                log.info("game %s: offering a draw with %s", gid, res.bestmove)
            choice = Choice(res.bestmove, result=res)
        if accept_draw:
            offer = True  # accepts the opponent's pending offer with this move
            log.info("game %s: accepting the draw with %s", gid, choice.move)
        return replace(choice, offer_draw=offer, think_ms=think_ms, pondered=pondered,
                       overhead_ms=overhead_ms)

    async def deliver(self, choice: Choice, moves: list[str], clock: Clock) -> bool:
        """Post the move; False when it did not land (the caller re-syncs the game).
        Then measure the round trip and ponder on the expected reply."""
        ctx, st, track, latency, landed = self.ctx, self.st, self.track, self.latency, self.landed
        gid, move, ply = ctx.game_id, choice.move, len(moves)
        if choice.source is not None:
            st.comments[ply] = choice.source
        track.pending = (ply, move)
        try:
            await ctx.api.game.move(gid, move, budget_ms=lambda: clock.move_budget_ms(
                st.color, time.monotonic(), 0), offering_draw=choice.offer_draw,
                landed=lambda: landed(ply, move))
        except LichessError as exc:
            if not landed(ply, move):
                # Our view of the game is stale (e.g. a missed takeback), or the post
                # failed for good: re-read gameFull.
                if isinstance(exc, ApiRejected):
                    log.warning("game %s: move %s rejected (%s); resyncing", gid, move, exc)
                else:
                    log.error("game %s: could not post move %s (%s); resyncing", gid, move, exc)
                return False
            log.info("game %s: move %s shows in the game stream although its post "
                     "failed (%s): played", gid, move, exc)
        finally:
            track.pending = None
        # Overhead: position received -> move accepted by the server, minus thinking.
        acked = time.monotonic()
        overhead = overhead_sample_ms(clock.received_at, acked, choice.think_ms)
        if clock_running(ply):
            # (Moves before the clocks run cost nothing and include the engine's set-up.)
            latency.add(overhead)
            if ctx.hooks.on_latency:
                ctx.hooks.on_latency(gid, overhead, choice.overhead_ms)
        track.moved_ply = ply
        track.activity = time.monotonic()
        if len(st.moves) == ply:
            track.posted_at = time.monotonic()  # echo not seen yet
        log.debug("game %s: played %s (think %.0f ms, overhead %.1f ms%s)", gid, move,
                  choice.think_ms, overhead, ", ponderhit" if choice.pondered else "")
        if ctx.hooks.on_move:
            ctx.hooks.on_move(gid, overhead, choice.think_ms)
        res = choice.result
        if res is not None and ponder_on(ctx.cfg, st.correspondence) and res.ponder:
            after = clock.after_our_move(st.color, time.monotonic())
            limits = search_limits(ctx.cfg, st.color, after, time.monotonic(), True)
            await self.thinker.start_ponder(moves + [move, res.ponder], limits,
                                            latency.overhead_ms())
        return True

    def notice_strangers(self, played: list[str]) -> None:
        """Warn once if the stream shows a move of ours that pibot did not play.

        lila closes an event stream only when the same token opens another
        (modules/api/src/main/EventStream.scala, `eventStreamForBearer`), so a second
        program on another token of this account is never seen on the event stream:
        both get every challenge and game, and both play.  Its moves are what shows."""
        track, st = self.track, self.st
        start, track.seen = track.seen, len(played)
        if start < 0 or track.stranger_ply is not None:
            return  # the first view is history; one warning a game is enough
        pending = track.pending
        for ply in range(start, len(played)):
            if (ply % 2 == 0) != (st.first_to_move == st.color) or ply == track.moved_ply \
                    or pending is not None and pending[0] == ply \
                    and self.landed(ply, pending[1]):
                continue
            track.stranger_ply = ply
            log.warning("game %s: the game stream shows %s as our move at ply %d, which pibot "
                        "did not play: another program is playing on this account with "
                        "another token (Lichess gives each token its own event stream); "
                        "stop it or revoke its token", self.ctx.game_id, played[ply], ply + 1)
            return

    def landed(self, ply: int, move: str) -> bool:
        """The game stream already shows our move at `ply` (the POST may still be pending)."""
        played = self.st.moves
        if len(played) <= ply:
            return False
        # (A book, tablebase or online source may spell castling either way.)
        return played[ply] == move or self.forms.same(played[:ply], played[ply], move)
