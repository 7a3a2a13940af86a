"""The opponent's offers in one game: draws and takebacks, each answered once per ply.

A draw offer is judged by the draw rules (game_rules.py, with the tables' verdict
when they know the position).  When it is our turn an accepted offer is accepted
with our move (?offeringDraw=true, as lichess-bot does; `accepts_with_move`): a
separate answer posted after the move would come too late, as lila declines the
opponent's offer when we move (round MovePlayer), and BotPlayer accepts an offer
that comes with a move before playing it.  A takeback is accepted per
`game.accept_takebacks`, or up to `game.max_takebacks_accepted` of them.  Every
other answer goes through the game's Outbox, so thinking starts at once.
"""

from __future__ import annotations

import logging

from bot.lichess import events
from bot.play import game_sources
from bot.play.context import GameContext
from bot.play.game_rules import DrawResign
from bot.play.game_state import GameState
from bot.play.outbox import Outbox

log = logging.getLogger(__name__)


class Offers:
    def __init__(self, ctx: GameContext, st: GameState, rules: DrawResign,
                 outbox: Outbox) -> None:
        self.ctx, self.st, self.rules, self.outbox = ctx, st, rules, outbox
        self._answered: set[tuple[str, int]] = set()  # (kind, ply) of the offers answered
        self.takebacks_accepted = 0  # this game's, for game.max_takebacks_accepted
        self._draw_with_move = -1  # ply whose move accepts the opponent's draw offer

    def taken_back(self, plies: int) -> None:
        """A takeback to `plies`: offers made again at these plies are new offers."""
        self._answered = {a for a in self._answered if a[1] < plies}

    def accepts_with_move(self, ply: int) -> bool:
        """Our move at `ply` accepts the opponent's draw offer."""
        return self._draw_with_move == ply

    def answer(self, state: events.GameState) -> None:
        """Answer the offers `state` shows, once each (the state's moves are the game's)."""
        opp = "black" if self.st.color == "white" else "white"
        ply = len(self.st.moves)
        if state.draw_offered_by(opp) and ("draw", ply) not in self._answered:
            self._answered.add(("draw", ply))
            self._draw(ply)
        if state.takeback_asked_by(opp) and ("takeback", ply) not in self._answered:
            self._answered.add(("takeback", ply))
            self._takeback()

    def _draw(self, ply: int) -> None:
        ctx, st = self.ctx, self.st
        draw = self.rules.draw_acceptable(st.pieces(), game_sources.our_wdl(ctx.sources, st))
        log.info("game %s: opponent offers a draw; %s", ctx.game_id,
                 "accepting" if draw else "declining")
        if draw and st.to_move() == st.color:
            self._draw_with_move = ply  # accepted with our move (see the docstring)
        else:
            self.outbox.do("draw answer", lambda: ctx.api.game.draw(
                ctx.game_id, draw, wanted=self._ongoing))

    def _takeback(self) -> None:
        ctx, game = self.ctx, self.ctx.cfg.game
        limit = game.max_takebacks_accepted
        back = game.accept_takebacks if limit is None else self.takebacks_accepted < limit
        self.takebacks_accepted += back
        log.info("game %s: opponent asks for a takeback; %s", ctx.game_id,
                 "accepting" if back else "declining")
        self.outbox.do("takeback answer", lambda: ctx.api.game.takeback(
            ctx.game_id, back, wanted=self._ongoing))

    def _ongoing(self) -> bool:
        return not self.st.over
