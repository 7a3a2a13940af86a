"""A game's state as the game task sees it (shared by its rooms), plus helpers on it."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import chess

from bot import variants
from bot.lichess.events import GameFull
from bot.play import records
from bot.play.clock import Clock

ONGOING = ("created", "started")  # game statuses of a game still being played


@dataclass
class GameHooks:
    """Optional observers (the soak benchmark uses them)."""

    on_move: Callable[[str, float, float], None] | None = None  # game, overhead ms, think ms
    on_end: Callable[[str, str, str | None, str], None] | None = None  # game, status, winner, color
    # game, this move's measured latency (ms), the move overhead the engine used (ms)
    on_latency: Callable[[str, float, int], None] | None = None


@dataclass
class GameState:
    color: str = "white"
    opponent: str = "?"
    initial_fen: str | None = None  # None: the variant's own start position
    chess960: bool = False
    variant: str = "standard"  # Lichess's key (bot/variants.py)
    first_to_move: str = "white"
    has_clock: bool = True
    moves: list[str] = field(default_factory=list)
    status: str = "started"
    winner: str | None = None
    clock: Clock | None = None
    full: GameFull | None = None  # the stream's last gameFull
    comments: dict[int, str] = field(default_factory=dict)  # ply -> PGN comment (book, ...)
    correspondence: bool = False  # days per move: no abort timer, parks when idle
    over: bool = False  # a final status was seen: the game is over for good

    def seat(self, full: GameFull, me: str) -> None:
        """Take the game's fixed facts from its gameFull (`me`: our account's name)."""
        self.full = full
        self.color = "white" if full.white.id.lower() == me.lower() else "black"
        self.opponent = (full.black if self.color == "white" else full.white).display or "?"
        self.initial_fen = full.start_fen  # None: the variant's own start (horde's, ...)
        self.chess960 = full.variant == "chess960"
        self.variant = full.variant
        self.first_to_move = "black" if self.initial_fen \
            and self.initial_fen.split()[1:2] == ["b"] else "white"
        self.has_clock = full.clock is not None
        self.correspondence = full.correspondence

    def ongoing(self) -> bool:
        return self.status in ONGOING

    def to_move(self) -> str:
        other = "black" if self.first_to_move == "white" else "white"
        return self.first_to_move if len(self.moves) % 2 == 0 else other

    def opponent_has_moved(self) -> bool:
        return len(self.moves) >= (1 if self.first_to_move != self.color else 2)

    def board(self, moves: list[str] | None = None) -> chess.Board:
        """python-chess's board after `moves` under the game's rules (a crazyhouse
        board's pockets filled by the captures and drops played); ValueError for
        an unreadable FEN or an illegal move."""
        board = variants.get(self.variant).start_board(self.initial_fen, self.chess960)
        for m in self.moves if moves is None else moves:
            board.push_uci(m)
        return board

    def pieces(self, moves: list[str] | None = None) -> int:
        try:
            return len(self.board(moves).piece_map())
        except ValueError:
            return 32

    def fallback_move(self, moves: list[str]) -> str | None:
        """Any legal move: played only when the engine failed, so we never flag."""
        try:
            board = self.board(moves)
        except ValueError:
            return None
        legal = list(board.legal_moves)
        return legal[0].uci() if legal else None

    def record(self, game_id: str, url: str) -> records.GameRecord | None:
        """The PGN record of the game so far; None before its gameFull."""
        full = self.full
        if full is None:
            return None
        white, black = full.white, full.black
        created_ms = full.created_at_ms if full.created_at_ms is not None \
            else time.time() * 1000
        return records.GameRecord(
            game_id=game_id, url=url,
            white=white.name or f"AI level {white.ai_level or '?'}",
            black=black.name or f"AI level {black.ai_level or '?'}",
            white_rating=white.rating, black_rating=black.rating,
            variant=full.variant, initial_fen=self.initial_fen,
            time_control=full.clock.show() if full.clock else "-", rated=full.rated,
            moves=self.moves, status=self.status, winner=self.winner,
            started=dt.datetime.fromtimestamp(created_ms / 1000, dt.UTC),
            comments=dict(self.comments))
