"""Polyglot opening books (engine.polyglot).

Books are opened and validated once, at start (`OpeningBooks.open`): a missing,
unreadable or corrupt file is one UserError naming the file and the fix, so a
bad path never surfaces mid-game. `choose()` then costs a binary search in an
mmap'd file (tens of microseconds).

Chess960 castling: polyglot stores castling as king-takes-rook; python-chess's
reader turns that into the board's own castling move, and `uci()` below writes
it the way Lichess expects (e1h1-style in Chess960, e1g1 in standard).
"""

from __future__ import annotations

import random
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import chess
import chess.polyglot

from bot import variants
from bot.config import PolyglotConfig
from bot.errors import UserError, read_regular_file
from bot.lichess_limits import VARIANTS

ENTRY_SIZE = 16  # key u64, move u16, weight u16, learn u32, big-endian
# The largest public books are a few hundred MB; validation reads the whole file
# into memory (a Pi has 1-8 GB), so anything larger is a wrong path, not a book.
MAX_BOOK_BYTES = 512 << 20
_KEY = struct.Struct(">Q")
# engine.polyglot.book's lists: one per Lichess variant (fromPosition uses standard's).
BOOK_LISTS = tuple(v for v in VARIANTS if v != "fromPosition")


@dataclass(frozen=True)
class BookMove:
    uci: str
    weight: int
    learn: int
    book: str  # file name, for the log / PGN comment
    total_weight: int  # of the candidates the choice was made from


@dataclass(frozen=True)
class BookInfo:
    path: Path
    variant: str
    entries: int


def variant_key(board: chess.Board, variant: str | None = None) -> str:
    """Which book list a game uses: its variant's (Lichess's key; `variant` None: the
    board's), fromPosition's being standard's. A variant with rules of its own never
    falls back to the standard books: their moves are no advice there."""
    key = variants.of_board(board).key if variant is None else variant
    return "standard" if key == "fromPosition" else key


CONFIG_FIX = "fix engine.polyglot.book or set engine.polyglot.enabled: false"


def validate_book(path: Path, fix: str = CONFIG_FIX) -> int:
    """Check a .bin file is a readable, sorted polyglot book; return its entry count.

    `fix` ends each error: how the user turns the book off or points it elsewhere
    (config keys for the service, UCI options for `pibot uci`)."""
    data = read_regular_file(path, "polyglot book", fix, f"check its permissions or {fix}",
                             MAX_BOOK_BYTES)
    if not data or len(data) % ENTRY_SIZE:
        raise UserError(f"polyglot book {path} is corrupt: {len(data)} bytes is not a "
                        f"positive multiple of {ENTRY_SIZE}; re-download or rebuild it "
                        f"(polyglot make-book), or {fix}")
    # The reader binary-searches by key: an unsorted file silently misses moves.
    prev = -1
    for off in range(0, len(data), ENTRY_SIZE):
        (key,) = _KEY.unpack_from(data, off)
        if key < prev:
            raise UserError(f"polyglot book {path} is corrupt: keys are not sorted "
                            f"(entry {off // ENTRY_SIZE}); rebuild it with polyglot "
                            f"make-book, or {fix}")
        prev = key
    return len(data) // ENTRY_SIZE


class OpeningBooks:
    """The configured books, open for the life of the service."""

    def __init__(self, cfg: PolyglotConfig, infos: list[BookInfo]) -> None:
        self.cfg = cfg
        self.infos = infos
        self._readers: dict[str, list[tuple[Path, chess.polyglot.MemoryMappedReader]]] = {}
        for info in infos:
            reader = chess.polyglot.MemoryMappedReader(str(info.path))
            self._readers.setdefault(info.variant, []).append((info.path, reader))

    @classmethod
    def open(cls, cfg: PolyglotConfig, base: Path | None = None,
             fix: str = CONFIG_FIX) -> OpeningBooks | None:
        """Validate and open every listed book; None when books are disabled.

        Relative paths are relative to `base` (the config file's directory) when given.
        """
        if not cfg.enabled:
            return None
        infos: list[BookInfo] = []
        for variant in BOOK_LISTS:
            for name in getattr(cfg.book, variant):
                path = Path(name).expanduser()
                if base is not None and not path.is_absolute():
                    path = base / path
                infos.append(BookInfo(path, variant, validate_book(path, fix)))
        if not infos:
            raise UserError("engine.polyglot.enabled is true but engine.polyglot.book lists "
                            "no files; add a .bin under book.standard or disable the book")
        return cls(cfg, infos)

    def close(self) -> None:
        for items in self._readers.values():
            for _, reader in items:
                reader.close()
        self._readers = {}

    def _candidates(self, board: chess.Board, variant: str) -> Iterator[
            tuple[Path, list[chess.polyglot.Entry]]]:
        for path, reader in self._readers.get(variant, []):
            # find_all skips illegal moves (hash collisions) and converts castling.
            entries = list(reader.find_all(board, minimum_weight=self.cfg.min_weight))
            if entries:
                yield path, entries

    def choose(self, board: chess.Board, variant: str | None = None,
               rng: random.Random | None = None) -> BookMove | None:
        """A book move for `board`, or None (past max_depth, or no book knows it).

        The first book in the list that has moves for the position decides,
        as in lichess-bot.
        """
        if board.ply() >= self.cfg.max_depth:
            return None
        rng = rng or random.Random()
        for path, entries in self._candidates(board, variant_key(board, variant)):
            # dedupe (a book may hold the same move twice) keeping the heaviest
            best: dict[chess.Move, chess.polyglot.Entry] = {}
            for e in entries:
                if e.move not in best or e.weight > best[e.move].weight:
                    best[e.move] = e
            pool = sorted(best.values(), key=lambda e: (-e.weight, e.move.uci()))
            total = sum(e.weight for e in pool)
            sel = self.cfg.selection
            if sel == "best_move":
                entry = pool[0]
            elif sel == "uniform_random" or total == 0:
                entry = rng.choice(pool)
            else:
                entry = rng.choices(pool, weights=[e.weight for e in pool])[0]
            return BookMove(uci=board.uci(entry.move, chess960=board.chess960),
                            weight=entry.weight, learn=entry.learn, book=path.name,
                            total_weight=total)
        return None

    def describe(self) -> list[str]:
        """One line per book for `pibot check`."""
        return [f"polyglot book {i.path} ({i.variant}): {i.entries} entries" for i in self.infos]
