"""Book and tablebase moves for `pibot uci`: the UCI options that configure them
and the lookup before each `go`.

The lookup is the bot's own (`MoveSources.pick_local`: bot/sources/book.py, then
bot/sources/tablebase.py); only the configuration differs: UCI options
(bot/uci/options.py hands them over) instead of config.yml.  A book or table
path is opened and checked when its option is set, so a bad path is reported at
once (one `info string`) and the previous setting stays in force; a GUI never
sees a traceback and the engine keeps working.
"""

from __future__ import annotations

import logging
import os
import random
from dataclasses import dataclass

import chess

from bot.config import PolyglotBooks, PolyglotConfig, SyzygyConfig
from bot.errors import UserError
from bot.sources.book import OpeningBooks
from bot.sources.chain import MoveSources, SourceMove
from bot.sources.tablebase import Tablebases

log = logging.getLogger(__name__)

SELECTIONS = ("weighted_random", "uniform_random", "best_move")
MAX_BOOK_DEPTH = 1000
MAX_SEED = 2**31 - 1
TB_WIN_CP = 20000  # a tablebase win or loss: beyond any eval, below the mate range
_EMPTY = ("", "<empty>")  # Stockfish's spelling of an empty string option

BOOK_FIX = (f"set BookFile to one or more polyglot .bin files separated by '{os.pathsep}', "
            f"or set OwnBook to false")
SYZYGY_FIX = (f"set SyzygyPath to directories of .rtbw/.rtbz files separated by "
              f"'{os.pathsep}', or to <empty> for no tables")


@dataclass
class SourceOptions:
    own_book: bool = False
    book_file: str = ""
    book_selection: str = "weighted_random"
    book_depth: int = PolyglotConfig.max_depth  # plies from the start, as lichess-bot
    book_seed: int = 0  # 0 = a fresh random choice each run
    syzygy_path: str = ""
    syzygy_probe_limit: int = 7


def option_lines() -> list[str]:
    o = SourceOptions()
    return [
        "option name OwnBook type check default false",
        "option name BookFile type string default <empty>",
        f"option name BookSelection type combo default {o.book_selection} "
        + " ".join(f"var {s}" for s in SELECTIONS),
        f"option name BookDepth type spin default {o.book_depth} min 1 max {MAX_BOOK_DEPTH}",
        f"option name BookSeed type spin default {o.book_seed} min 0 max {MAX_SEED}",
        "option name SyzygyPath type string default <empty>",
        f"option name SyzygyProbeLimit type spin default {o.syzygy_probe_limit} min 0 max 7",
    ]


class UciSources:
    """The open book files and tables of one UCI session."""

    def __init__(self) -> None:
        self.opts = SourceOptions()
        self._books: OpeningBooks | None = None  # open whenever BookFile names files
        self._tbs: Tablebases | None = None
        self._rng = random.Random()
        self._warned = False
        self._boards = PositionCache()

    # ---- options ----

    def set_own_book(self, on: bool) -> None:
        self.opts.own_book = on
        self._warned = False

    def set_book_selection(self, value: str) -> None:
        sel = value.lower()
        if sel not in SELECTIONS:
            raise UserError(f"BookSelection {value!r} is not one of {', '.join(SELECTIONS)}; "
                            f"keeping {self.opts.book_selection}")
        self.opts.book_selection = sel
        self._update_book_cfg()

    def set_book_depth(self, plies: int) -> None:
        self.opts.book_depth = plies
        self._update_book_cfg()

    def set_book_seed(self, seed: int) -> None:
        self.opts.book_seed = seed
        self.new_game()

    def set_probe_limit(self, pieces: int) -> None:
        self.opts.syzygy_probe_limit = pieces
        if self._tbs is not None:
            info = self._tbs.info
            self._tbs.close()
            self._tbs = Tablebases(self._syzygy_cfg([str(p) for p in info.paths]), info)

    def _book_cfg(self, files: list[str]) -> PolyglotConfig:
        o = self.opts
        # One list for every game: a GUI's book is used in Chess960 games too.
        return PolyglotConfig(enabled=True, book=PolyglotBooks(standard=files),
                              selection=o.book_selection, min_weight=1, max_depth=o.book_depth)

    def _update_book_cfg(self) -> None:
        if self._books is not None:
            files = list(self._books.cfg.book.standard)
            self._books.cfg = self._book_cfg(files)

    def set_book_file(self, value: str) -> None:
        files = _split_paths(value)
        if not files:
            self._close_books()
            self.opts.book_file = ""
            self._warned = False
            return
        try:
            books = OpeningBooks.open(self._book_cfg(files), fix=BOOK_FIX)
        except UserError as exc:
            raise UserError(f"BookFile not changed: {exc}") from None
        self._close_books()
        self._books = books
        self.opts.book_file = value
        self._warned = False

    def _syzygy_cfg(self, paths: list[str]) -> SyzygyConfig:
        return SyzygyConfig(enabled=True, paths=paths,
                            max_pieces=self.opts.syzygy_probe_limit, move_quality="best")

    def set_syzygy_path(self, value: str) -> None:
        paths = _split_paths(value)
        if not paths:
            self._close_tbs()
            self.opts.syzygy_path = ""
            return
        try:
            tbs = Tablebases.open(self._syzygy_cfg(paths), fix=SYZYGY_FIX)
        except UserError as exc:
            raise UserError(f"SyzygyPath not changed: {exc}") from None
        self._close_tbs()
        self._tbs = tbs
        self.opts.syzygy_path = value

    def describe(self) -> list[str]:
        """What is in use, for an `info string` after a path is set."""
        lines: list[str] = []
        if self._books is not None:
            lines += self._books.describe()
        if self._tbs is not None:
            lines += self._tbs.describe()
        return lines

    # ---- games ----

    def new_game(self) -> None:
        # A seed makes each game's book choices depend only on its positions.
        self._rng = random.Random(self.opts.book_seed or None)

    def notice(self) -> str | None:
        """A one-time warning about a setting that cannot work, else None."""
        if self.opts.own_book and self._books is None and not self._warned:
            self._warned = True
            return f"OwnBook is true but BookFile is empty: no book moves; {BOOK_FIX}"
        return None

    @property
    def active(self) -> bool:
        return (self.opts.own_book and self._books is not None) or self._tbs is not None

    def pick(self, fen: str | None, moves: list[str], chess960: bool) -> SourceMove | None:
        """A book or tablebase move for the position, or None (search). Never raises."""
        if not self.active:
            return None
        try:
            board = self._boards.board(fen, moves, chess960)
        except ValueError:
            # The engine accepted it (it validated the position first); python-chess
            # may still differ on an exotic FEN: then the engine just searches.
            log.debug("python-chess cannot set up %s %s; searching", fen, moves)
            self._boards.forget()
            return None
        books = self._books if self.opts.own_book else None
        return MoveSources(books, self._tbs, None).pick_local(board, "standard", self._rng)

    def score(self, hit: SourceMove, fen: str | None, moves: list[str],
              chess960: bool) -> str:
        """The UCI score of a tablebase move: mate 1, else a won/drawn/lost value."""
        board = self._boards.board(fen, moves, chess960).copy(stack=False)
        board.push_uci(hit.uci)
        if board.is_checkmate():
            return "mate 1"
        return f"cp {TB_WIN_CP * (hit.wdl or 0) // 2}"

    # ---- cleanup ----

    def _close_books(self) -> None:
        if self._books is not None:
            self._books.close()
            self._books = None

    def _close_tbs(self) -> None:
        if self._tbs is not None:
            self._tbs.close()
            self._tbs = None

    def close(self) -> None:
        self._close_books()
        self._close_tbs()


def _split_paths(value: str) -> list[str]:
    if value.strip() in _EMPTY:
        return []
    return [p.strip() for p in value.split(os.pathsep) if p.strip()]


class PositionCache:
    """The python-chess board of the last position looked up, extended move by
    move: a GUI sends the whole game before each `go`, one move longer each time."""

    def __init__(self) -> None:
        self._board: chess.Board | None = None
        self._key: tuple[str | None, bool] = (None, False)
        self._moves: list[str] = []

    def board(self, fen: str | None, moves: list[str], chess960: bool) -> chess.Board:
        key = (fen, chess960)
        done = self._moves
        if (self._board is None or key != self._key or len(moves) < len(done)
                or moves[:len(done)] != done):
            self._board = chess.Board(fen or chess.STARTING_FEN, chess960=chess960)
            self._key, self._moves = key, []
        board = self._board
        for mv in moves[len(self._moves):]:
            board.push_uci(mv)
            self._moves.append(mv)
        return board

    def forget(self) -> None:
        self._board = None
