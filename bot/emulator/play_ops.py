"""What happens inside a game: the bot's moves, chat, abort/resign, draw and
takeback offers, plus the opponent's on-demand actions (the claims against an
opponent who left: claim_ops.py).
"""

from __future__ import annotations

import logging
import time
from typing import Any

import chess

from bot.emulator.config import AccountSpec, OpponentSpec, UserSpec
from bot.emulator.errors import EmulatorUsageError, bad_request, not_found
from bot.emulator.game import Game, MoveRejected, Player
from bot.emulator.game_pgn import game_pgn
from bot.emulator.people import bot_player
from bot.emulator.specs import GameSpec
from bot.emulator.state import (
    NOT_YOUR_TURN,
    CoreState,
    NewGame,
    check_fen,
    check_variant,
)

log = logging.getLogger(__name__)


class PlayOps(CoreState):
    def start_game_directly(self, spec: GameSpec) -> str:
        with self.lock:
            account = self.people.target(spec.bot_username)
            opp = Player(spec.opponent_name, spec.opponent_title, spec.opponent_rating)
            if opp.name.lower() not in self.people.users:
                self.people.users[opp.name.lower()] = UserSpec(
                    opp.name, title=opp.title, rating=opp.rating
                )
            color = spec.bot_color
            if color == "random":
                color = self.rng.choice(("white", "black"))
            if color not in ("white", "black"):
                raise EmulatorUsageError(f"bot_color {color!r} is invalid; use white or black")
            if spec.source not in ("friend", "lobby"):
                raise EmulatorUsageError(
                    f"source {spec.source!r} is invalid; use friend or lobby")
            variant = check_variant(spec.variant)
            fen = spec.initial_fen
            if fen is not None:
                variant = "fromPosition" if variant == "standard" else variant
                check_fen(variant, fen)
            game = self._create_game(NewGame(
                gid=self._new_id(), bot=bot_player(account), opp=opp,
                bot_color=chess.WHITE if color == "white" else chess.BLACK, variant=variant,
                rated=spec.rated, limit_s=spec.clock_limit_s, increment_s=spec.increment_s,
                days=spec.days, initial_fen=fen, opponent=spec.opponent or OpponentSpec(),
                source=spec.source, moves=tuple(spec.moves), wtime_ms=spec.wtime_ms,
                btime_ms=spec.btime_ms))
            return game.id

    def _game_for(self, account: AccountSpec, game_id: str) -> Game:
        game = self.games.get(game_id)
        if game is None or game.bot_player.id != account.username.lower():
            raise not_found("No such game")
        return game

    def _playing_game(self, account: AccountSpec, game_id: str) -> Game:
        game = self._game_for(account, game_id)
        if game.over:
            raise bad_request(NOT_YOUR_TURN)
        return game

    def bot_move(self, account: AccountSpec, game_id: str, uci: str, offering_draw: bool) -> None:
        with self.lock:
            game = self._playing_game(account, game_id)
            now = time.monotonic()
            if self._check_flag(game, now):
                raise bad_request(NOT_YOUR_TURN)
            if not game.bot_to_move:
                raise bad_request(NOT_YOUR_TURN)
            try:
                move = game.parse_move(uci)
            except MoveRejected as exc:
                raise bad_request(str(exc)) from None
            if offering_draw and game.draw_offer[not game.bot_color]:
                # lila BotPlayer.apply: a move offering a draw while the opponent offers
                # one accepts it before the move is played (the game ends drawn, the
                # move is not played, and the answer is still 200).
                self._finish(game, "draw", None, now)
                return
            if offering_draw and self._offer_draw(game, game.bot_color, now):
                # lila BotPlayer.apply tells the round the offer before the move: an
                # opponent who cannot win ends the game as insufficientMaterialClaim.
                return
            game.push(move, now)
            if self._after_move(game, now):
                return
            if offering_draw:
                game.draw_offer[game.bot_color] = True
            game.opp_due = now + game.opponent.think_time_s
            self._publish_state(game, now)
            if offering_draw:
                self._opponent_answers_draw(game, now)

    def bot_chat(self, account: AccountSpec, game_id: str, room: str, text: str) -> None:
        if room not in ("player", "spectator"):
            raise bad_request(f"Invalid room {room!r}: use player or spectator")
        if not text:
            raise bad_request("Empty chat message")
        if len(text) > 140:
            raise bad_request("Chat message too long: at most 140 characters")
        with self.lock:
            game = self._game_for(account, game_id)
            self._add_chat(game, room, account.username, text)

    def chat_history(self, account: AccountSpec, game_id: str) -> list[dict[str, str]]:
        with self.lock:
            game = self._game_for(account, game_id)
            return [{"text": c.text, "user": c.username} for c in game.chat if c.room == "player"]

    def bot_abort(self, account: AccountSpec, game_id: str) -> None:
        with self.lock:
            game = self._playing_game(account, game_id)
            # lila Game.abortable needs nonMandatory: an arena game never aborts.
            if len(game.moves) >= 2 or game.tournament_id is not None:
                raise bad_request("This game can no longer be aborted")
            self._finish(game, "aborted", None, time.monotonic())

    def bot_resign(self, account: AccountSpec, game_id: str) -> None:
        with self.lock:
            game = self._playing_game(account, game_id)
            now = time.monotonic()
            if self._check_flag(game, now):
                raise bad_request(NOT_YOUR_TURN)
            self._finish(game, "resign", game.color_name(not game.bot_color), now)

    def bot_draw(self, account: AccountSpec, game_id: str, accept: bool) -> None:
        with self.lock:
            game = self._playing_game(account, game_id)
            now = time.monotonic()
            opp = not game.bot_color
            if not accept:
                game.draw_offer[opp] = False
                self._publish_state(game, now)
                return
            if game.draw_offer[opp]:
                self._finish(game, "draw", None, now)
                return
            if self._offer_draw(game, game.bot_color, now):
                return
            self._publish_state(game, now)
            self._opponent_answers_draw(game, now)

    def _opponent_answers_draw(self, game: Game, now: float) -> None:
        if game.opponent.accept_draw and not game.opp_gone:
            self._finish(game, "draw", None, now)
        else:
            game.draw_offer[game.bot_color] = False
            self._publish_state(game, now)

    def bot_takeback(self, account: AccountSpec, game_id: str, accept: bool) -> None:
        with self.lock:
            game = self._playing_game(account, game_id)
            now = time.monotonic()
            opp = not game.bot_color
            if not accept:
                game.takeback_offer[opp] = False
                self._publish_state(game, now)
                return
            if game.takeback_offer[opp]:
                self._do_takeback(game, proposer=opp, now=now)
                return
            if not game.moves_by(game.bot_color):
                raise bad_request("No move to take back")
            game.takeback_offer[game.bot_color] = True
            self._publish_state(game, now)
            if game.opponent.accept_takeback and not game.opp_gone:
                self._do_takeback(game, proposer=game.bot_color, now=now)
            else:
                game.takeback_offer[game.bot_color] = False
                self._publish_state(game, now)

    def _do_takeback(self, game: Game, proposer: chess.Color, now: float) -> None:
        # The proposer's last move is undone; if the other side already replied, that too.
        plies = 2 if game.board.turn == proposer else 1
        plies = min(plies, len(game.moves))
        for i in range(plies):
            # Who made the i-th most recent move: the side NOT to move after it.
            mover = game.board.turn if i % 2 else not game.board.turn
            if mover != game.bot_color:
                game.opp_moves_made = max(0, game.opp_moves_made - 1)
        game.takeback(plies, now)
        game.opp_due = None if game.bot_to_move else now + game.opponent.think_time_s
        self._publish_state(game, now)

    def playing(self, account: AccountSpec, nb: int | None) -> list[dict[str, Any]]:
        me = account.username.lower()
        with self.lock:
            now = time.monotonic()
            games = [g for g in self.games.values() if not g.over and g.bot_player.id == me]
            out = [dict(g.event_info(now)) for g in games]
        return out[:nb] if nb else out

    def export_pgn(self, game_id: str) -> str:
        with self.lock:
            game = self.games.get(game_id)
            if game is None:
                raise not_found("No such game")
            return game_pgn(game, self.site)

    def spectator_say(self, game_id: str, text: str, username: str) -> None:
        """A watcher writes in the spectator room (BOT game streams carry it)."""
        if not isinstance(text, str) or not text:
            raise EmulatorUsageError("spectator text must be a non-empty string")
        if not isinstance(username, str) or not username:
            raise EmulatorUsageError("spectator username must be a non-empty string")
        with self.lock:
            game = self.games.get(game_id)
            if game is None:
                raise EmulatorUsageError(f"no game {game_id!r}")
            self._add_chat(game, "spectator", username, text)

    def opponent_action(self, game_id: str, action: str, text: str | None = None) -> None:
        """Make the built-in opponent do something now (tests, /emu API)."""
        with self.lock:
            game = self.games.get(game_id)
            if game is None:
                raise EmulatorUsageError(f"no game {game_id!r}")
            if game.over and action != "chat":
                raise EmulatorUsageError(f"game {game_id} is already over ({game.status})")
            now = time.monotonic()
            opp = not game.bot_color
            if action == "resign":
                self._finish(game, "resign", game.color_name(game.bot_color), now)
            elif action == "abort":
                self._finish(game, "aborted", None, now)
            elif action == "offer_draw":
                if game.draw_offer[game.bot_color]:
                    self._finish(game, "draw", None, now)  # Drawer.yes: the offer accepted
                elif not self._offer_draw(game, opp, now):
                    self._publish_state(game, now)
            elif action == "propose_takeback":
                game.takeback_offer[opp] = True
                self._publish_state(game, now)
            elif action == "leave":
                self._go_gone(game, now)
            elif action == "return":
                game.opp_gone = False
                game.gone_claim_at = None
                game.gone_last_sent = None
                self.streams.publish_game(game.id, {"type": "opponentGone", "gone": False})
                if not game.bot_to_move:
                    game.opp_due = now + game.opponent.think_time_s
                self._touch()
            elif action == "chat":
                self._add_chat(game, "player", game.opp_player.name, text or "")
            else:
                raise EmulatorUsageError(
                    f"unknown opponent action {action!r}; use resign, abort, offer_draw, "
                    "propose_takeback, leave, return or chat"
                )
