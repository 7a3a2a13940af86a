"""State of one emulated game and the JSON Lichess would send about it (its PGN:
game_pgn.py).

Pure data + rules (python-chess); the locking and the scheduling live in
core.py, which is the only caller.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

import chess
import chess.variant

from bot.emulator.clock import GameClock
from bot.emulator.config import OpponentSpec
from bot.emulator.payloads import (
    STATUS_IDS,
    VARIANTS,
    ChatLineJson,
    GameEventInfo,
    GameFullJson,
    GameStateJson,
    PlayerJson,
    perf_key,
    perf_name,
    show_clock,
    variant_json,
)

FINISHED_STATUSES = frozenset(STATUS_IDS) - {"created", "started"}


class MoveRejected(Exception):
    """A move the server refuses (HTTP 400); the message is Lichess-like."""


@dataclass
class Player:
    name: str
    title: str | None = None
    rating: int = 1500
    provisional: bool = False

    @property
    def id(self) -> str:
        return self.name.lower()

    def json(self) -> PlayerJson:
        return {
            "id": self.id,
            "name": self.name,
            "title": self.title,
            "rating": self.rating,
            "provisional": self.provisional,
        }


@dataclass
class ChatLine:
    room: str
    username: str
    text: str

    def json(self) -> ChatLineJson:
        return {"type": "chatLine", "room": self.room, "username": self.username,
                "text": self.text}


def make_board(variant: str, initial_fen: str | None) -> chess.Board:
    """A python-chess board for a Lichess variant (chess960 uses king-takes-rook UCI)."""
    pychess_name = VARIANTS[variant][2]
    chess960 = variant == "chess960"
    if pychess_name is None:
        if initial_fen is None:
            return chess.Board(chess960=chess960)
        return chess.Board(initial_fen, chess960=chess960)
    cls = chess.variant.find_variant(pychess_name)
    if initial_fen is None:
        return cls()
    return cls(initial_fen)


@dataclass
class Game:
    id: str
    variant: str
    rated: bool
    speed: str
    clock: GameClock
    days: int | None
    white: Player
    black: Player
    bot_color: chess.Color  # the side played by the account under test
    board: chess.Board
    initial_fen: str | None  # None = the standard start position
    opponent: OpponentSpec
    rng: random.Random
    source: str = "friend"
    tournament_id: str | None = None  # an arena game (source "arena")
    king_takes_rook: bool = False  # castling written e1h1 in standard too (lila since 2025)
    moves: list[str] = field(default_factory=list)
    status: str = "started"
    winner: str | None = None
    draw_offer: dict[bool, bool] = field(default_factory=lambda: {True: False, False: False})
    takeback_offer: dict[bool, bool] = field(default_factory=lambda: {True: False, False: False})
    chat: list[ChatLine] = field(default_factory=list)
    created_at_ms: int = field(default_factory=lambda: int(time.time() * 1000))
    full_suffix: str = "abcd"
    # Opponent bookkeeping (owned by core.py's scheduler).
    opp_moves_made: int = 0
    takebacks_asked: int = 0  # proposals made for OpponentSpec.takeback_at
    opp_due: float | None = None
    opp_gone: bool = False
    gone_claim_at: float | None = None
    gone_last_sent: int | None = None
    first_move_deadline: float | None = None
    first_move_s: float = 0.0  # lila timeForFirstMove of an expirable game (its deadline's)
    finished_at: float | None = None
    spectator_at: float | None = None  # next configured spectator chat line
    spectator_lines: int = 0

    # ---- basic facts -------------------------------------------------
    @property
    def over(self) -> bool:
        return self.status in FINISHED_STATUSES

    @property
    def white_to_move(self) -> bool:
        return self.board.turn == chess.WHITE

    @property
    def bot_to_move(self) -> bool:
        return self.board.turn == self.bot_color

    @property
    def bot_player(self) -> Player:
        return self.white if self.bot_color == chess.WHITE else self.black

    @property
    def opp_player(self) -> Player:
        return self.black if self.bot_color == chess.WHITE else self.white

    @property
    def full_id(self) -> str:
        return self.id + self.full_suffix

    def color_name(self, color: chess.Color) -> str:
        return "white" if color == chess.WHITE else "black"

    def moves_by(self, color: chess.Color) -> int:
        """How many moves `color` has made in this game (counting from the start position)."""
        first_white = self._first_turn_white()
        n = len(self.moves)
        if color == chess.WHITE:
            return (n + 1) // 2 if first_white else n // 2
        return n // 2 if first_white else (n + 1) // 2

    def _first_turn_white(self) -> bool:
        if self.initial_fen is None:
            return True
        return self.initial_fen.split()[1] == "w"

    # ---- rules ------------------------------------------------------
    def parse_move(self, uci: str) -> chess.Move:
        try:
            move = chess.Move.from_uci(uci)
        except ValueError:
            raise MoveRejected(f"Invalid UCI move: {uci}") from None
        try:
            legal = self.board.parse_uci(uci)
        except ValueError:
            legal = None
        if legal is None or move.drop is not None:
            if legal is not None:
                return legal
            src = chess.square_name(move.from_square)
            dst = chess.square_name(move.to_square)
            if self.board.piece_at(move.from_square) is None:
                raise MoveRejected(f"Illegal move {uci}: no piece on {src}")
            raise MoveRejected(f"Illegal move {uci}: piece on {src} cannot move to {dst}")
        # Lichess only knows king-takes-rook castling in chess960 games.
        if self.variant == "chess960" and self.board.is_castling(legal):
            if self.board.uci(legal) != uci:
                raise MoveRejected(f"Illegal move {uci}: castle by moving the king onto the rook")
        return legal

    def push(self, move: chess.Move, now: float) -> None:
        mover_white = self.white_to_move
        # Both castling forms are accepted on a move POST (parse_move); the stream writes
        # the one lila writes (EmulatorConfig.castling_king_takes_rook).
        uci = self.board.uci(move, chess960=True if self.king_takes_rook else None)
        self.board.push(move)
        self.moves.append(uci)
        self.clock.on_move(mover_white, len(self.moves), now)
        # A move answers any pending offer: Lichess declines the opponent's draw
        # offer and cancels takeback proposals when a move is played.
        self.draw_offer[not mover_white] = False
        self.takeback_offer = {True: False, False: False}

    def takeback(self, plies: int, now: float) -> None:
        for _ in range(min(plies, len(self.moves))):
            self.board.pop()
            self.moves.pop()
        self.clock.turn_started = now
        self.takeback_offer = {True: False, False: False}

    def natural_end(self) -> tuple[str, str | None] | None:
        """(status, winner) if the position ends the game by the rules.

        As scalachess's Situation.status orders them: a mate first (a third check
        or a king on the hill that also mates is "mate"), then a variant's own end
        ("variantEnd": a king on the hill, the third check, a king on the eighth
        rank, an exploded king, a side without pieces, an antichess stalemate),
        then stalemate, then the draws, racing kings' two kings on the eighth rank
        among them (RacingKings.specialDraw is an autoDraw: status "draw")."""
        outcome = self.board.outcome(claim_draw=True)
        if outcome is None:
            return None
        winner = None if outcome.winner is None else self.color_name(outcome.winner)
        term = outcome.termination
        if term == chess.Termination.CHECKMATE or self._mate_at_variant_end(term):
            return "mate", winner
        if term == chess.Termination.STALEMATE:
            return "stalemate", None
        if term in (chess.Termination.VARIANT_WIN, chess.Termination.VARIANT_LOSS):
            return "variantEnd", winner
        return "draw", None

    def _mate_at_variant_end(self, term: chess.Termination) -> bool:
        """A three-check or king of the hill end that is a mate as well: python-chess
        reports the variant's end (it generates no moves once the game is over), so
        the mate is looked for under chess's rules, which are these variants' moves."""
        if term != chess.Termination.VARIANT_LOSS or not isinstance(
                self.board, chess.variant.ThreeCheckBoard | chess.variant.KingOfTheHillBoard):
            return False
        plain = chess.Board.empty()
        plain.set_piece_map(self.board.piece_map())
        plain.turn, plain.ep_square = self.board.turn, self.board.ep_square
        plain.castling_rights = self.board.castling_rights
        return plain.is_checkmate()

    def finish(self, status: str, winner: str | None, now: float) -> None:
        self.clock.stop(self.white_to_move, now)
        self.status = status
        self.winner = winner
        self.finished_at = now
        self.opp_due = None
        self.draw_offer = {True: False, False: False}
        self.takeback_offer = {True: False, False: False}

    # ---- JSON -------------------------------------------------------
    def state_json(self, now: float | None = None) -> GameStateJson:
        inc = self.clock.increment_ms
        state: GameStateJson = {
            "type": "gameState",
            "moves": " ".join(self.moves),
            "wtime": int(max(0.0, self.clock.remaining_ms(True, self.white_to_move, now))),
            "btime": int(max(0.0, self.clock.remaining_ms(False, self.white_to_move, now))),
            "winc": inc,
            "binc": inc,
            "status": self.status,
        }
        if self.winner:
            state["winner"] = self.winner
        if self.draw_offer[True]:
            state["wdraw"] = True
        if self.draw_offer[False]:
            state["bdraw"] = True
        if self.takeback_offer[True]:
            state["wtakeback"] = True
        if self.takeback_offer[False]:
            state["btakeback"] = True
        if self.first_move_deadline is not None and not self.over:
            # lila modules/game/src/main/JsonView.scala `expiration`: only while the
            # game is `expirable` (RoundGame: a lobby, arena, pool or Swiss game
            # before both first moves); idle since the last move or the start.
            t = time.monotonic() if now is None else now
            moved_at = self.first_move_deadline - self.first_move_s
            state["expiration"] = {"idleMillis": int(max(0.0, t - moved_at) * 1000),
                                   "millisToMove": int(self.first_move_s * 1000)}
        return state

    def full_json(self, now: float | None = None) -> GameFullJson:
        full: GameFullJson = {
            "type": "gameFull",
            "id": self.id,
            "rated": self.rated,
            "variant": variant_json(self.variant),
            "speed": self.speed,
            "perf": {"name": perf_name(perf_key(self.variant, self.speed))},
            "createdAt": self.created_at_ms,
            "white": self.white.json(),
            "black": self.black.json(),
            "initialFen": self.initial_fen or "startpos",
            "state": self.state_json(now),
        }
        if self.clock.limited:
            full["clock"] = {
                "initial": int(self.clock.initial_ms or 0),
                "increment": self.clock.increment_ms,
            }
        if self.days is not None:
            full["daysPerTurn"] = self.days
        if self.tournament_id is not None:
            full["tournamentId"] = self.tournament_id  # BotJsonView.gameImmutable
        return full

    def event_info(self, now: float | None = None) -> GameEventInfo:
        """The `game` object of gameStart/gameFinish and /api/account/playing."""
        opp = self.opp_player
        bot_white = self.bot_color == chess.WHITE
        info: GameEventInfo = {
            "fullId": self.full_id,
            "gameId": self.id,
            "id": self.id,
            "fen": self.board.fen(),
            "color": self.color_name(self.bot_color),
            "lastMove": self.moves[-1] if self.moves else "",
            "source": self.source,
            "status": {"id": STATUS_IDS[self.status], "name": self.status},
            "variant": {"key": self.variant, "name": VARIANTS[self.variant][0]},
            "speed": self.speed,
            "perf": perf_key(self.variant, self.speed),
            "rated": self.rated,
            "hasMoved": self.moves_by(self.bot_color) > 0,
            "opponent": {"id": opp.id, "username": opp.name, "rating": opp.rating},
            "isMyTurn": (not self.over) and self.bot_to_move,
            "compat": {"bot": True, "board": True},
        }
        if self.clock.limited:
            left = self.clock.remaining_ms(bot_white, self.white_to_move, now)
            info["secondsLeft"] = int(max(0.0, left) // 1000)
        if self.winner:
            info["winner"] = self.winner
        if self.tournament_id is not None:
            info["tournamentId"] = self.tournament_id  # lila.game.JsonView.ownerPreview
        diffs = self.rating_diffs()
        if diffs is not None:  # ownerPreview: ours at the top, the opponent's in opponent
            info["ratingDiff"] = diffs[0]
            info["opponent"]["ratingDiff"] = diffs[1]
        return info

    def rating_diffs(self) -> tuple[int, int] | None:
        """(ours, the opponent's) rating change of a rated game that counted: Elo
        with K = 20, as plausible as Glicko-2 for a test (lila: none while playing,
        for a casual game, or an aborted one)."""
        if not self.rated or not self.over or self.status in ("aborted", "noStart"):
            return None
        me, opp = self.bot_player.rating, self.opp_player.rating
        score = 0.5 if self.winner is None else \
            (1.0 if self.winner == self.color_name(self.bot_color) else 0.0)
        expected = 1 / (1 + 10 ** ((opp - me) / 400))
        ours = round(20 * (score - expected))
        theirs = round(20 * ((1 - score) - (1 - expected)))
        return ours, theirs


def clock_label(limit_s: int | None, increment_s: int | None) -> str:
    if limit_s is None:
        return "-"
    return show_clock(limit_s, increment_s or 0)
