"""Board: a Pythonic position object over the C core (rules, FEN, perft)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from bot.engine import bindings

STARTPOS = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

_STATUS = ("ongoing", "checkmate", "stalemate", "fifty", "threefold", "insufficient", "variant_end")


class Board:
    """A chess position with its move history (for undo and repetition).

    >>> b = Board(); b.push_uci("e2e4"); b.fen()
    'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1'
    """

    __slots__ = ("_ptr", "chess960", "variant")

    def __init__(self, fen: str | None = None, chess960: bool = False,
                 variant: str = "chess") -> None:
        """`variant` as UCI_Variant, Lichess or python-chess name it; fen None is
        the variant's start position."""
        self._ptr = bindings.board_new()
        self.chess960 = chess960
        self.variant = "chess"
        if variant != "chess":
            bindings.board_set_variant_fen(self._ptr, variant, fen, chess960)
            self.variant = bindings.board_variant(self._ptr)
        elif fen is not None or chess960:
            bindings.board_set_fen(self._ptr, STARTPOS if fen is None else fen, chess960)

    def set_fen(self, fen: str) -> None:
        if self.variant != "chess":
            bindings.board_set_variant_fen(self._ptr, self.variant, fen, self.chess960)
        else:
            bindings.board_set_fen(self._ptr, fen, self.chess960)

    def fen(self) -> str:
        return bindings.board_fen(self._ptr)

    def push_uci(self, move: str) -> None:
        bindings.board_push_uci(self._ptr, move)

    def pop(self) -> None:
        bindings.board_pop(self._ptr)

    def legal_moves(self) -> list[str]:
        return bindings.board_legal_moves(self._ptr)

    @property
    def turn(self) -> Literal["white", "black"]:
        return "white" if bindings.board_side_to_move(self._ptr) == 0 else "black"

    def is_check(self) -> bool:
        return bindings.board_in_check(self._ptr)

    def key(self) -> int:
        """Incrementally maintained Zobrist key."""
        return bindings.board_key(self._ptr)

    def computed_key(self) -> int:
        """Zobrist key recomputed from scratch (equals key() unless there is a bug)."""
        return bindings.board_compute_key(self._ptr)

    def status(self) -> str:
        return _STATUS[bindings.board_status(self._ptr)]

    def perft(self, depth: int, stop: bindings.PerftStop | None = None) -> int:
        """Leaf paths `depth` plies deep; raises PerftInterrupted once `stop` is set."""
        return bindings.perft(self._ptr, depth, stop)

    def perft_divide(self, depth: int, stop: bindings.PerftStop | None = None,
                     on_row: Callable[[str, int], None] | None = None,
                     ) -> tuple[list[tuple[str, int]], int]:
        """(move, count) per legal root move in generation order, and the total.

        `on_row` sees each row as soon as it is counted (long perfts show
        progress). depth 0 has no rows and counts 1, as perft(0) does."""
        bindings.check_perft_depth(depth)
        if depth == 0:
            return [], self.perft(0, stop)
        rows: list[tuple[str, int]] = []
        for move in self.legal_moves():
            self.push_uci(move)
            try:
                count = self.perft(depth - 1, stop)
            finally:
                self.pop()
            rows.append((move, count))
            if on_row is not None:
                on_row(move, count)
        return rows, sum(n for _, n in rows)

    def copy(self) -> Board:
        other = Board.__new__(Board)
        other._ptr = bindings.board_copy(self._ptr)
        other.chess960 = self.chess960
        other.variant = self.variant
        return other

    def __repr__(self) -> str:
        variant = f", variant={self.variant!r}" if self.variant != "chess" else ""
        return f"Board({self.fen()!r}{', chess960=True' if self.chess960 else ''}{variant})"
