"""A game's state as the game task sees it, plus pure helpers on it."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import chess

from bot.play import records
from bot.play.clock import Clock


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
    initial_fen: str | None = None
    chess960: bool = False
    first_to_move: str = "white"
    has_clock: bool = True
    moves: list[str] = field(default_factory=list)
    status: str = "started"
    winner: str | None = None
    clock: Clock | None = None
    full: dict[str, Any] = field(default_factory=dict)
    comments: dict[int, str] = field(default_factory=dict)  # ply -> PGN comment (book, ...)

    def to_move(self) -> str:
        other = "black" if self.first_to_move == "white" else "white"
        return self.first_to_move if len(self.moves) % 2 == 0 else other

    def opponent_has_moved(self) -> bool:
        return len(self.moves) >= (1 if self.first_to_move != self.color else 2)

    def board(self, moves: list[str] | None = None) -> chess.Board:
        board = chess.Board(self.initial_fen, chess960=self.chess960) if self.initial_fen \
            else chess.Board(chess960=self.chess960)
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

    def record(self, game_id: str, url: str) -> records.GameRecord:
        full = self.full
        white, black = full.get("white") or {}, full.get("black") or {}
        clock = full.get("clock")
        tc = f"{clock['initial'] // 1000}+{clock['increment'] // 1000}" if clock else "-"
        created = full.get("createdAt")
        if not isinstance(created, dt.datetime):  # berserk may or may not convert it
            created = dt.datetime.fromtimestamp(float(created or time.time() * 1000) / 1000,
                                                dt.UTC)
        return records.GameRecord(
            game_id=game_id, url=url,
            white=white.get("name") or f"AI level {white.get('aiLevel', '?')}",
            black=black.get("name") or f"AI level {black.get('aiLevel', '?')}",
            white_rating=white.get("rating"), black_rating=black.get("rating"),
            variant=(full.get("variant") or {}).get("key", "standard"),
            initial_fen=self.initial_fen, time_control=tc, rated=bool(full.get("rated")),
            moves=self.moves, status=self.status, winner=self.winner, started=created,
            comments=dict(self.comments))
