"""Shared state of the emulator core and the primitives every part uses:
ids, creating and finishing games. The state is held in parts with one job
each: People (people.py), the ChallengeBook (challenge.py), the StreamTable
(streams.py), Traffic (traffic.py), the FaultBook (faults.py), and the games.

Threading model: one re-entrant lock guards all state. Streams wait on their
own Condition (sharing that lock); the scheduler thread waits on `_wake`
until its next deadline; waiters for game changes use `changed`. Every
method here expects the caller to hold the lock.
"""

from __future__ import annotations

import logging
import random
import string
import threading
import time
from dataclasses import dataclass
from typing import Any

import chess

from bot.emulator.challenge import Challenge, ChallengeBook
from bot.emulator.clock import GameClock
from bot.emulator.config import EmulatorConfig, OpponentSpec
from bot.emulator.errors import EmulatorUsageError, bad_request
from bot.emulator.faults import FaultBook
from bot.emulator.game import ChatLine, Game, MoveRejected, Player, make_board
from bot.emulator.payloads import VARIANTS, speed_of
from bot.emulator.people import People
from bot.emulator.streams import StreamTable
from bot.emulator.traffic import Traffic
from bot.emulator.uci_opponent import UciPlayer

log = logging.getLogger(__name__)

NOT_YOUR_TURN = "Not your turn, or game already over"
ID_CHARS = string.ascii_letters + string.digits
COMPAT = {"bot": True, "board": True}
# lila Source.expirable (modules/core/src/main/game/misc.scala): the games whose
# first moves are timed (RoundGame.expirable); a challenge's game is "friend".
EXPIRABLE_SOURCES = frozenset({"lobby", "arena", "pool", "swiss"})


@dataclass(frozen=True)
class NewGame:
    """What a game starts from: a challenge, a direct start or an arena pairing."""

    gid: str
    bot: Player
    opp: Player
    bot_color: chess.Color
    variant: str
    rated: bool
    limit_s: int | None
    increment_s: int | None
    days: int | None
    initial_fen: str | None
    opponent: OpponentSpec
    source: str
    moves: tuple[str, ...] = ()  # already played when it starts
    wtime_ms: int | None = None  # the clocks then (None: the full time)
    btime_ms: int | None = None
    tournament_id: str | None = None


class CoreState:
    def __init__(self, config: EmulatorConfig) -> None:
        self.config = config
        self.lock = threading.RLock()
        self._wake = threading.Condition(self.lock)  # the scheduler
        self.changed = threading.Condition(self.lock)  # anything a waiter may watch
        self.rng = random.Random(config.seed)
        # Its own stream, so turning latency on leaves ids and colors reproducible.
        self.net_rng = random.Random(config.seed)
        self.site = "http://127.0.0.1"
        self.people = People(config)
        self.games: dict[str, Game] = {}
        self.challenges = ChallengeBook()
        self.streams = StreamTable()
        self.faults = FaultBook(self.rng)
        self.traffic = Traffic()
        self.stopping = False
        self._thread: threading.Thread | None = None
        # policy="uci" opponents: game id -> engine process; games whose engine is thinking.
        self.uci_players: dict[str, UciPlayer] = {}
        self.uci_thinking: set[str] = set()

    def _new_id(self) -> str:
        while True:
            gid = "".join(self.rng.choice(ID_CHARS) for _ in range(8))
            if gid not in self.games and gid not in self.challenges.open:
                return gid

    def _touch(self) -> None:
        """State changed: wake the scheduler and anyone waiting for a game."""
        self._wake.notify_all()
        self.changed.notify_all()

    def _publish_state(self, game: Game, now: float) -> None:
        self.streams.publish_game(game.id, dict(game.state_json(now)))
        self._touch()

    def _cancel(self, ch: Challenge) -> None:
        ch.status = "canceled"
        self.challenges.open.pop(ch.id, None)
        # Both sides hear about it on their event streams (the bot is one of them).
        for side in (ch.dest.name, ch.challenger.name):
            self.streams.publish_event(side, {"type": "challengeCanceled", "challenge": ch.json()})
        self._touch()

    def _start_game_from_challenge(self, ch: Challenge, bot_is_challenger: bool) -> Game:
        if bot_is_challenger:
            bot_color = chess.WHITE if ch.final_color == "white" else chess.BLACK
            bot, opp = ch.challenger, ch.dest
        else:
            bot_color = chess.BLACK if ch.final_color == "white" else chess.WHITE
            bot, opp = ch.dest, ch.challenger
        return self._create_game(NewGame(
            gid=ch.id, bot=bot, opp=opp, bot_color=bot_color, variant=ch.variant,
            rated=ch.rated, limit_s=ch.limit_s, increment_s=ch.increment_s, days=ch.days,
            initial_fen=ch.initial_fen, opponent=ch.opponent, source="friend"))

    def _create_game(self, new: NewGame) -> Game:
        initial_fen = new.initial_fen
        if new.variant == "chess960" and initial_fen is None:
            initial_fen = chess.Board.from_chess960_pos(self.rng.randrange(960)).fen()
        bot_white = new.bot_color == chess.WHITE
        opponent = new.opponent
        game = Game(
            id=new.gid,
            variant=new.variant,
            rated=new.rated,
            speed=speed_of(new.limit_s, new.increment_s, new.days),
            clock=GameClock(
                initial_ms=None if new.limit_s is None else new.limit_s * 1000,
                increment_ms=(new.increment_s or 0) * 1000,
            ),
            days=new.days,
            white=new.bot if bot_white else new.opp,
            black=new.opp if bot_white else new.bot,
            bot_color=new.bot_color,
            board=make_board(new.variant, initial_fen),
            initial_fen=initial_fen,
            opponent=opponent,
            rng=random.Random(opponent.seed if opponent.seed is not None else self.rng.random()),
            source=new.source,
            king_takes_rook=self.config.castling_king_takes_rook,
            full_suffix="".join(self.rng.choice(ID_CHARS) for _ in range(4)),
            tournament_id=new.tournament_id,
        )
        now = time.monotonic()
        self._replay(game, new, now)
        if len(game.moves) < 2 and self._expirable(game):
            game.first_move_s = self._first_move_s(game)
            game.first_move_deadline = now + game.first_move_s
        self.games[new.gid] = game
        if self.config.spectator_chat and self.config.spectator_chat_interval_s > 0:
            game.spectator_at = now + self.config.spectator_chat_interval_s
        if not game.bot_to_move:
            game.opp_due = now + opponent.think_time_s
        for text in opponent.chat:
            self._add_chat(game, "player", new.opp.name, text)
        self.streams.publish_event(new.bot.name,
                                   {"type": "gameStart", "game": game.event_info(now)})
        self._touch()
        log.info("game %s started: %s vs %s", new.gid, game.white.name, game.black.name)
        return game

    @staticmethod
    def _replay(game: Game, new: NewGame, now: float) -> None:
        """Play a started game's moves and set its clocks (start_game_directly)."""
        for uci in new.moves:
            try:
                mv = game.parse_move(uci)
            except MoveRejected as exc:
                raise EmulatorUsageError(f"start moves: {exc}") from None
            mover_is_bot = game.bot_to_move
            game.push(mv, now)
            if not mover_is_bot:
                game.opp_moves_made += 1
        if new.wtime_ms is not None:
            game.clock.white_ms = float(new.wtime_ms)
        if new.btime_ms is not None:
            game.clock.black_ms = float(new.btime_ms)

    def _after_move(self, game: Game, now: float) -> bool:
        """Common bookkeeping after any move; True if the game ended."""
        if len(game.moves) >= 2:
            game.first_move_deadline = None
        elif game.first_move_deadline is not None:
            game.first_move_deadline = now + game.first_move_s
        end = game.natural_end()
        if end is not None:
            self._finish(game, end[0], end[1], now)
            return True
        return False

    @staticmethod
    def _expirable(game: Game) -> bool:
        """lila RoundGame `expirable` (modules/round/src/main/RoundGame.scala): a
        real-time game from the lobby, a pool, an arena or a Swiss (`Source.expirable`,
        modules/core/src/main/game/misc.scala) ends if a side does not make its first
        move in time; a game from a challenge (source friend) never does."""
        return game.source in EXPIRABLE_SOURCES and game.clock.limited

    def _first_move_s(self, game: Game) -> float:
        """lila RoundGame `timeForFirstMove`, counted from the last move (`movedAt`)."""
        if game.tournament_id is not None:
            if self.config.arena_first_move_s is not None:
                return self.config.arena_first_move_s
            base = {"ultraBullet": 11.0, "bullet": 16.0, "blitz": 21.0,
                    "rapid": 25.0}.get(game.speed, 30.0)
        else:
            if self.config.first_move_timeout_s is not None:
                return self.config.first_move_timeout_s
            base = {"ultraBullet": 15.0, "bullet": 20.0, "blitz": 25.0,
                    "rapid": 30.0}.get(game.speed, 35.0)
        return base * 5 / 4 if game.variant == "chess960" else base

    def _arena_game_over(self, game: Game) -> None:
        """An arena game ended: its tournament scores it (arena.py overrides this)."""

    def _finish(self, game: Game, status: str, winner: str | None, now: float) -> None:
        game.finish(status, winner, now)
        if game.tournament_id is not None:
            self._arena_game_over(game)
        player = self.uci_players.pop(game.id, None)
        if player is not None:
            # quit() may wait for a search to stop: not under the lock.
            threading.Thread(target=player.close, name=f"emu-uci-close-{game.id}",
                             daemon=True).start()
        self.streams.publish_game(game.id, dict(game.state_json(now)))
        for sub in self.streams.game.pop(game.id, []):
            sub.close()
        self.streams.publish_event(
            game.bot_player.name, {"type": "gameFinish", "game": game.event_info(now)}
        )
        self._touch()
        log.info("game %s over: %s winner=%s", game.id, status, winner)

    def _check_flag(self, game: Game, now: float) -> bool:
        """End the game on time if the side to move has flagged."""
        if game.over or not game.clock.flagged(game.white_to_move, now):
            return False
        loser = game.board.turn
        winner: str | None = game.color_name(not loser)
        if game.board.has_insufficient_material(not loser):
            winner = None  # Lichess: flagging against a bare king is a draw
        self._finish(game, "outoftime", winner, now)
        return True

    def _add_chat(self, game: Game, room: str, username: str, text: str) -> None:
        line = ChatLine(room, username, text)
        game.chat.append(line)
        self.streams.publish_game(game.id, dict(line.json()))
        self._touch()

    def _offer_draw(self, game: Game, color: chess.Color, now: float) -> bool:
        """`color` offers a draw (lila modules/round/src/main/Drawer.scala `yes`, after
        its threefold and accept cases): when the other side cannot win on material
        (scalachess `opponentHasInsufficientMaterial`, per variant; python-chess's
        `has_insufficient_material` here) the game ends at once as
        insufficientMaterialClaim (status 39, no winner); otherwise the offer stands.
        Only once the game is `drawable` (playable, no longer abortable: two plies).
        True if the game ended."""
        if len(game.moves) >= 2 and game.board.has_insufficient_material(not color):
            self._finish(game, "insufficientMaterialClaim", None, now)
            return True
        game.draw_offer[color] = True
        return False

    def _go_gone(self, game: Game, now: float) -> None:
        claim = self.config.opponent_gone_claim_s
        game.opp_gone = True
        game.opp_due = None
        game.gone_claim_at = now + claim
        game.gone_last_sent = claim
        self.streams.publish_game(
            game.id, {"type": "opponentGone", "gone": True, "claimWinInSeconds": claim}
        )
        self._touch()


def check_variant(variant: str) -> str:
    if variant not in VARIANTS:
        raise EmulatorUsageError(f"unknown variant {variant!r}; use one of {sorted(VARIANTS)}")
    return variant


def check_fen(variant: str, fen: str) -> None:
    try:
        board = make_board(variant, fen)
    except ValueError as exc:
        raise EmulatorUsageError(f"invalid FEN {fen!r}: {exc}") from None
    if not board.is_valid():
        raise EmulatorUsageError(f"invalid position in FEN {fen!r}: {board.status()!r}")


def as_bool(value: Any, default: bool) -> bool:
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    return str(value).lower() in ("true", "1", "yes")


def as_int(value: Any, name: str) -> int | None:
    if value is None or value == "":
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        raise bad_request(f"{name} must be an integer, got {value!r}") from None
