"""One spelling per move: the game stream's moves in the engine's UCI form.

Castling has two UCI spellings.  Since scalachess 167b2c60 (Sep 2025) UciDump
writes king-takes-rook (`e1h1`) in every variant unless `legacyStandardCastling`
is passed, and lila's bot game stream (modules/bot BotJsonView.gameState) does
not pass it, so lichess.org may send `e1h1` where our engine plays `e1g1`
(standard chess; in Chess960 both write `e1h1`).  Moves are therefore compared
as moves: each stream move is re-written the way the engine writes it (python-
chess, which reads both forms), so "our move is echoed" and "we pondered this
position" hold whichever form the server uses.
"""

from __future__ import annotations

import logging

import chess

from bot import variants

log = logging.getLogger(__name__)


class MoveForms:
    """Re-writes a game's move list in the engine's form, incrementally: a game
    stream repeats the whole list with every move, so only new moves are parsed
    (a takeback, or anything unexpected, re-reads the list from the start)."""

    def __init__(self, initial_fen: str | None, chess960: bool,
                 variant: str = "standard") -> None:
        self.initial_fen, self.chess960 = initial_fen, chess960
        self.variant = variants.get(variant)  # drops (P@e4) parse on a crazyhouse board
        self._raw: list[str] = []
        self._out: list[str] = []
        self._board = self._start()
        self._warned = -1  # the stream move last warned about (once, not per state)

    def _start(self) -> chess.Board:
        return self.variant.start_board(self.initial_fen, self.chess960)

    def canonical(self, raw: list[str]) -> list[str]:
        """`raw` with every move spelt as the engine spells it; a move that does not
        parse (never expected) and all after it are kept as they came."""
        n = len(self._raw)
        if raw[:n] != self._raw:
            self._raw, self._out, self._board = [], [], self._start()
        for i in range(len(self._raw), len(raw)):
            try:
                move = self._board.parse_uci(raw[i])
            except ValueError:
                if self._warned != i:
                    self._warned = i
                    log.warning("move %d (%r) of the game stream is not legal here; comparing "
                                "moves as strings from there on", i + 1, raw[i])
                return self._out + raw[i:]
            self._out.append(self._board.uci(move))
            self._board.push(move)
            self._raw.append(raw[i])
        return list(self._out)

    def same(self, before: list[str], a: str, b: str) -> bool:
        """Whether `a` and `b` are the same move after the moves `before`."""
        if a == b:
            return True
        board = self._start()
        try:
            for m in before:
                board.push_uci(m)
            return board.parse_uci(a) == board.parse_uci(b)
        except ValueError:
            return False
