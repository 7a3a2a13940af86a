"""Moves that need no search: opening book -> Syzygy at the root -> Lichess online
sources, tried in that order. The game loop asks before each search:

    sources = MoveSources.open(cfg, token=token)  # at start; UserError if misconfigured
    ...
    hit = await sources.pick(board, MoveContext(game_id, variant, clock_s, budget_s))
    if hit is None:             -> search as usual
    elif hit.restrict_to:       -> search only these root moves (syzygy move_quality: suggest);
                                   hit.uci is the tablebase's own choice if the engine can't
    else:                       -> play hit.uci now; log / PGN-comment hit.comment
    ...
    sources.game_over(game_id)                 # forget per-game counters
    sources.close()                            # at service stop

Book and tablebase answers are local and take well under a millisecond (see
docs/strength.md, "Book and tablebase moves"); online sources spend at most the
given budget and fail to None.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from dataclasses import dataclass
from pathlib import Path

import chess

from bot.config import Config
from bot.errors import UserError
from bot.lichess.token import Token
from bot.sources.book import OpeningBooks, variant_key
from bot.sources.online import OnlineSources
from bot.sources.tablebase import Tablebases

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SourceMove:
    uci: str  # Lichess notation (king-takes-rook castling in Chess960)
    source: str  # "book", "syzygy", "lichess_opening_explorer", "lichess_cloud_analysis",
    #              "online_egtb"
    comment: str  # one short line for the log and the PGN comment
    elapsed_ms: float  # time spent finding it
    restrict_to: tuple[str, ...] = ()  # non-empty: search only these moves instead
    wdl: int | None = None  # syzygy: our result after the move, 2 win / 0 draw / -2 loss


@dataclass
class MoveContext:
    game_id: str
    variant: str  # the game's Lichess key (bot/variants.py)
    clock_s: float  # our remaining clock (online sources need min_time)
    budget_s: float  # the most pick() may spend (online requests share it)
    rng: random.Random | None = None


class MoveSources:
    def __init__(self, books: OpeningBooks | None, tablebases: Tablebases | None,
                 online: OnlineSources | None) -> None:
        self.books = books
        self.tablebases = tablebases
        self.online = online

    @classmethod
    def open(cls, cfg: Config, base: Path | None = None,
             token: Token | None = None) -> MoveSources:
        """Open what the config enables. Relative paths are relative to `base`
        (default: the working directory, as for token_file). The opening explorer
        needs the bot's `token`."""
        books = OpeningBooks.open(cfg.engine.polyglot, base)
        try:
            tbs = Tablebases.open(cfg.engine.syzygy, base)
        except UserError:
            if books is not None:
                books.close()
            raise
        online = OnlineSources(cfg.engine.online_moves, cfg.url, token)
        return cls(books, tbs, online if online.enabled else None)

    @property
    def enabled(self) -> bool:
        return any((self.books, self.tablebases, self.online))

    async def pick(self, board: chess.Board, ctx: MoveContext) -> SourceMove | None:
        t0 = time.perf_counter()
        rng = ctx.rng or random.Random()
        hit = self._book(board, ctx.variant, rng, t0)
        if hit is not None:
            return hit
        if self.tablebases is not None:
            # ~3 ms typical, up to ~100 ms: off the event loop, so other games'
            # streams are not held up (python-chess's tables lock internally).
            try:
                hit = await asyncio.to_thread(self._tablebase, board.copy(stack=False), t0)
            except Exception:  # e.g. no thread to run it in at shutdown: search
                log.exception("syzygy probe failed on %s; searching instead", board.fen())
                hit = None
            if hit is not None:
                return hit
        if self.online is not None:
            left = ctx.budget_s - (time.perf_counter() - t0)
            try:
                online = await self.online.pick(board, ctx.game_id, ctx.clock_s, left, rng)
            except Exception:
                log.exception("online move sources failed on %s; searching instead",
                              board.fen())
                online = None
            if online is not None:
                return SourceMove(online.uci, online.source, online.comment, _ms_since(t0))
        return None

    def pick_local(self, board: chess.Board, variant: str,
                   rng: random.Random | None = None) -> SourceMove | None:
        """Book, then Syzygy, in the calling thread (no online sources): for
        `pibot uci`, whose `go` already runs in a worker thread."""
        t0 = time.perf_counter()
        rng = rng or random.Random()
        hit = self._book(board, variant, rng, t0)
        if hit is None and self.tablebases is not None:
            hit = self._tablebase(board, t0)
        return hit

    def _book(self, board: chess.Board, variant: str, rng: random.Random,
              t0: float) -> SourceMove | None:
        if self.books is None:
            return None
        # A broken source must never cost the game: any error means "search".
        try:
            book = self.books.choose(board, variant_key(board, variant), rng)
        except Exception:
            log.exception("opening book failed on %s; searching instead", board.fen())
            return None
        if book is None:
            return None
        return SourceMove(book.uci, "book", f"book {book.book}: weight "
                          f"{book.weight}/{book.total_weight}", _ms_since(t0))

    def _tablebase(self, board: chess.Board, t0: float) -> SourceMove | None:
        assert self.tablebases is not None
        try:
            tb = self.tablebases.root_move(board)
        except Exception:
            log.exception("syzygy probe failed on %s; searching instead", board.fen())
            return None
        if tb is None:
            return None
        suggest = self.tablebases.cfg.move_quality == "suggest"
        return SourceMove(tb.uci, "syzygy", tb.comment(), _ms_since(t0),
                          tb.candidates if suggest else (), tb.wdl)

    def game_over(self, game_id: str) -> None:
        if self.online is not None:
            self.online.game_over(game_id)

    def close(self) -> None:
        for part in (self.books, self.tablebases, self.online):
            if part is not None:
                part.close()

    def describe(self) -> list[str]:
        lines: list[str] = []
        lines += self.books.describe() if self.books else ["polyglot books: off"]
        lines += self.tablebases.describe() if self.tablebases else ["syzygy: off"]
        lines += self.online.describe() if self.online else ["online moves: all sources off"]
        return lines


def _ms_since(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000


def check_lines(cfg: Config, base: Path | None = None) -> list[tuple[bool, str]]:
    """`pibot check`: (ok, text) lines about books, tables and online sources."""
    try:
        sources = MoveSources.open(cfg, base)
    except UserError as exc:
        return [(False, str(exc))]
    try:
        return [(True, line) for line in sources.describe()]
    finally:
        sources.close()
