"""Claiming a game whose opponent has left: claim-victory and claim-draw, as lila
decides them (read from its source; docs/lichess.md has the rows).

`POST /api/bot/game/{id}/claim-victory` and `/claim-draw` (app/controllers/
PlayApi.scala) call modules/bot/src/main/BotPlayer.scala:

* `claimVictory`: `pov.mightClaimWin.so` (not so: 200 and nothing happens), the
  round's `ResignForce` (modules/round/src/main/RoundAsyncActor.scala): with the
  opponent `isLongGone`, `Finisher.rageQuit(game, Some(color)` unless the
  claimer has insufficient material`)`, i.e. status timeout and a draw when we
  could not have won; then the game must be finished with us as its winner,
  else 400 "You cannot claim the win on this game" (also when it ended drawn).
* `claimDraw`: `pov.game.drawable.so` (not so: 200, nothing), `DrawForce`:
  `forceDrawable && hasClock && !isMyTurn` and the opponent long gone ->
  `rageQuit(game, None)` (status timeout, no winner); then the game must be
  drawn, else 400 "You cannot claim draw on this game".

`Pov.mightClaimWin = forceResignable && !isMyTurn`; `forceResignable` and
`forceDrawable` need a playable game past its abortable start (two plies, or an
arena game), a clock, no AI, no Swiss (lila modules/core/src/main/game/Game.scala,
Pov.scala, modules/round/src/main/RoundGame.scala). "Long gone" is the end of the
`opponentGone` countdown (`claimWinInSeconds` reaching 0). lila answers after a
500 ms wait (`finishRoundThenFetchGame`); the emulator at once.
"""

from __future__ import annotations

import time

from bot.emulator.config import AccountSpec
from bot.emulator.errors import bad_request, not_found
from bot.emulator.game import Game
from bot.emulator.state import NOT_YOUR_TURN, CoreState

CANNOT_CLAIM_WIN = "You cannot claim the win on this game"
CANNOT_CLAIM_DRAW = "You cannot claim draw on this game"


class ClaimOps(CoreState):
    def _claimable_game(self, account: AccountSpec, game_id: str) -> Game:
        game = self.games.get(game_id)
        if game is None or game.bot_player.id != account.username.lower():
            raise not_found("No such game")
        if game.over:
            raise bad_request(NOT_YOUR_TURN)
        return game

    @staticmethod
    def _force_claimable(game: Game) -> bool:
        """lila forceResignable / forceDrawable from the bot's side, with !isMyTurn:
        playable, no longer abortable, a clock, and the opponent to move."""
        abortable = len(game.moves) < 2 and game.tournament_id is None
        return not game.over and not abortable and game.clock.limited \
            and not game.bot_to_move

    @staticmethod
    def _long_gone(game: Game, now: float) -> bool:
        return game.opp_gone and game.gone_claim_at is not None and now >= game.gone_claim_at

    def bot_claim_victory(self, account: AccountSpec, game_id: str) -> None:
        with self.lock:
            game = self._claimable_game(account, game_id)
            now = time.monotonic()
            if not self._force_claimable(game):
                return  # BotPlayer.claimVictory: `mightClaimWin.so`, 200 and nothing
            if self._long_gone(game, now):
                # RoundAsyncActor ResignForce: no win for a side that cannot mate
                # (the side not to move: us).
                bare = game.board.has_insufficient_material(game.bot_color)
                self._finish(game, "timeout",
                             None if bare else game.color_name(game.bot_color), now)
            if game.winner != game.color_name(game.bot_color):
                raise bad_request(CANNOT_CLAIM_WIN)

    def bot_claim_draw(self, account: AccountSpec, game_id: str) -> None:
        with self.lock:
            game = self._claimable_game(account, game_id)
            now = time.monotonic()
            if len(game.moves) < 2 and game.tournament_id is None:
                return  # BotPlayer.claimDraw: `drawable.so`, 200 and nothing
            if self._force_claimable(game) and self._long_gone(game, now):
                self._finish(game, "timeout", None, now)  # DrawForce: rageQuit(None)
            if not (game.over and game.winner is None):
                raise bad_request(CANNOT_CLAIM_DRAW)
