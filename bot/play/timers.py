"""A game's two timers: the no-first-move abort and the claim against an
opponent who left.

Lichess never expires games from challenges (lila: Source.expirable = Lobby,
Arena, Pool, Swiss), so aborting a game whose opponent never moves is ours to
do (never an arena game's: lila ends it as noStart); and when the opponent
leaves, lila lets us claim after `claimWinInSeconds`: the win, or a draw when
we cannot win on material (lila RoundAsyncActor ResignForce would end it drawn
and answer claim-victory with 400 "You cannot claim the win on this game", so
pibot asks for what it gets: BotPlayer.claimDraw).  Both requests go through
the game's Outbox and are retried until they land or are moot.
"""

from __future__ import annotations

import asyncio
import logging
import time

import chess

from bot.config import GameConfig
from bot.lichess.client import Lichess, LichessError, NetworkError, RateLimited
from bot.lichess.events import OpponentGone
from bot.play import chat
from bot.play.game_state import GameState
from bot.play.outbox import Outbox

log = logging.getLogger(__name__)


class GameTimers:
    def __init__(self, game_id: str, cfg: GameConfig, api: Lichess, outbox: Outbox,
                 st: GameState) -> None:
        self.game_id, self.cfg, self.api, self.outbox, self.st = game_id, cfg, api, outbox, st
        self._abort: asyncio.Task[None] | None = None
        self._abort_ply = -1  # ply at which the no-first-move timer was started
        self._abort_deadline = 0.0  # when that timer fires (monotonic)
        self._claim: asyncio.Task[None] | None = None
        # A claim sent and not refused: lila's countdown events keep coming each second
        # until the game's end reaches our stream, and must not send a second claim
        # (it would meet a finished game: 400).
        self._claim_sent = False
        self._gone_while_sent = False  # a countdown event came while that claim was out

    def cancel(self) -> None:
        for t in (self._abort, self._claim):
            if t is not None and not t.done():
                t.cancel()

    def update_abort(self, now: float) -> None:
        """The no-first-move abort counts only the opponent's time to their first
        move: it (re)starts whenever it becomes their turn before they have moved
        and stops while we think.  Correspondence: none (a first move may take days)."""
        st = self.st
        # An arena game is never aborted by the bot: lila refuses (Game.abortable needs
        # nonMandatory) and ends a game without a first move itself (Finisher.noStart).
        arena = st.full is not None and st.full.tournament_id is not None
        waiting = not st.over and not st.correspondence and not arena \
            and not st.opponent_has_moved() and st.to_move() != st.color
        timer = self._abort
        if not waiting:
            if timer is not None:
                timer.cancel()
                self._abort = None
            self._abort_ply = -1
            return
        ply = len(st.moves)
        if timer is not None and not timer.done() and self._abort_ply == ply:
            return  # the same wait (e.g. a re-synced stream): keep counting
        if timer is not None:
            timer.cancel()
        self._abort_ply = ply
        self._abort_deadline = now + self.cfg.abort_if_no_first_move_s
        self._abort = asyncio.create_task(self._abort_at(self._abort_deadline, ply))

    def wait_for_first_move(self) -> bool:
        """!wait: give the opponent WAIT_S more for their first move, if we are waiting."""
        timer = self._abort
        if timer is None or timer.done():
            return False
        timer.cancel()
        self._abort_deadline = max(self._abort_deadline, time.monotonic() + chat.WAIT_S)
        self._abort = asyncio.create_task(self._abort_at(self._abort_deadline, self._abort_ply))
        log.info("game %s: !wait: waiting %.0f s more for the first move", self.game_id,
                 chat.WAIT_S)
        return True

    def opponent_gone(self, ev: OpponentGone) -> None:
        if self._claim is not None:
            self._claim.cancel()
            self._claim = None
        if not ev.gone:
            # They came back: a later leave is claimed anew.
            self._claim_sent = self._gone_while_sent = False
        elif self._claim_sent:
            self._gone_while_sent = True
        else:
            secs = float(ev.claim_win_in_seconds or 0)
            log.info("game %s: opponent gone; claiming %s in %.0f s", self.game_id,
                     "a draw" if self._cannot_win() else "victory", secs)
            self._claim = asyncio.create_task(self._claim_after(secs))

    def _ongoing(self) -> bool:
        return not self.st.over

    def _cannot_win(self) -> bool:
        """We lack mating material, by the game's rules (python-chess's per-variant
        `has_insufficient_material`, as scalachess's `opponentHasInsufficientMaterial`
        which lila's ResignForce asks of the claimer)."""
        try:
            board = self.st.board()
        except ValueError:
            return False
        return board.has_insufficient_material(chess.WHITE if self.st.color == "white"
                                               else chess.BLACK)

    async def _claim_after(self, secs: float) -> None:
        await asyncio.sleep(secs)
        if self.st.over:
            return
        # Retried until it lands or the game ends (the opponent came back, or
        # their clock ran out): Lichess waits for it.
        draw = self._cannot_win()
        if draw:
            log.info("game %s: claiming a draw (we cannot win on material)", self.game_id)
        else:
            log.info("game %s: claiming victory", self.game_id)
        self._claim_sent, self._gone_while_sent = True, False

        async def claim() -> None:
            try:
                if draw:
                    await self.api.game.claim_draw(self.game_id, wanted=self._ongoing)
                else:
                    await self.api.game.claim_victory(self.game_id, wanted=self._ongoing)
            except (NetworkError, RateLimited):
                raise  # the outbox tries again while the game goes on
            except LichessError:
                # Refused (sent a moment early?): the next countdown event claims
                # again, or now if one came while this claim was out.
                self._claim_sent = False
                if self._gone_while_sent:
                    self._gone_while_sent = False
                    self._claim = asyncio.create_task(self._claim_after(0.0))
                raise

        self.outbox.do("claim draw" if draw else "claim victory", claim, until=self._ongoing)

    async def _abort_at(self, deadline: float, ply: int) -> None:
        await asyncio.sleep(max(0.0, deadline - time.monotonic()))
        st = self.st
        if not st.over and not st.opponent_has_moved() and len(st.moves) == ply:
            log.info("game %s: opponent made no first move in %.0f s; aborting",
                     self.game_id, self.cfg.abort_if_no_first_move_s)

            def still_waiting() -> bool:  # the game still waits for the abort
                return not st.over and not st.opponent_has_moved()

            # Retried until it lands or is moot: a game whose opponent never moves
            # must not hold its slot until a restart.
            self.outbox.do("abort", lambda: self.api.game.abort(self.game_id, wanted=still_waiting),
                           until=still_waiting)
