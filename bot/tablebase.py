"""Syzygy tablebases probed at the root (engine.syzygy).

`root_move(board)` ranks every legal move by its exact result under the
50-move rule, the way Stockfish's root probe does:

* wins: the fewest plies to the next zeroing move (DTZ-optimal); a zeroing
  move (capture, pawn move, mate) that keeps the win ranks first. A win whose
  DTZ plus the halfmove clock passes 100 plies is a *cursed* win: the 50-move
  rule draws it, so it ranks as a draw;
* draws: held (a cursed win for us, then a plain draw, then a blessed loss);
* losses: prolonged, with the largest DTZ, zeroing moves last (they give the
  opponent a fresh 50-move count).

DTZ-optimal play always makes progress (every zeroing move is irreversible), so
it converts without repetitions. Probing is read-only on mmap'd files: a few
tens of microseconds per probe once the pages are cached.

The in-search WDL prober (C) is a separate, later piece of work.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import chess
import chess.syzygy

from bot.config import SyzygyConfig
from bot.errors import UserError

_TABLE = re.compile(r"^K[QRBNP]*vK[QRBNP]*\.rtbw$")

# Rank bands: wins above draws above losses, each ordered inside its band.
_WIN, _DRAW, _LOSS = 3_000_000, 2_000_000, 1_000_000


@dataclass(frozen=True)
class TbMove:
    uci: str
    wdl: int  # our result: 2 win, 0 draw, -2 loss (cursed/blessed count as 0 here)
    dtz: int  # plies to the next zeroing move after ours, from the position after our move
    raw_wdl: int  # the table's own value, -2..2 (±1 = cursed win / blessed loss)
    # every move that keeps the best result (for move_quality: suggest)
    candidates: tuple[str, ...] = field(default=())

    def comment(self) -> str:
        kind = {2: "win", 0: "draw", -2: "loss"}[self.wdl]
        if self.raw_wdl == 1 or (self.raw_wdl == 2 and self.wdl == 0):
            kind = "cursed win"
        elif self.raw_wdl == -1 or (self.raw_wdl == -2 and self.wdl == 0):
            kind = "blessed loss"
        return f"syzygy {kind}, dtz {self.dtz}"


@dataclass(frozen=True)
class TableInfo:
    paths: tuple[Path, ...]
    wdl_tables: int
    dtz_tables: int
    max_pieces: int  # largest piece count with a WDL table


def scan_paths(paths: list[str], base: Path | None = None) -> TableInfo:
    """Check the configured directories; a bad one is a UserError naming it."""
    fix = "fix engine.syzygy.paths or set engine.syzygy.enabled: false"
    if not paths:
        raise UserError(f"engine.syzygy.enabled is true but engine.syzygy.paths is empty; {fix}")
    found: list[Path] = []
    wdl = dtz = 0
    largest = 0
    for name in paths:
        path = Path(name).expanduser()
        if base is not None and not path.is_absolute():
            path = base / path
        if not path.is_dir():
            what = "is not a directory" if path.exists() else "does not exist"
            raise UserError(f"syzygy path {path} {what}; {fix}")
        try:
            names = [p.name for p in path.iterdir()]
        except OSError as exc:
            raise UserError(f"cannot read syzygy path {path}: {exc.strerror}; {fix}") from None
        here_wdl = [n for n in names if _TABLE.match(n)]
        here_dtz = [n for n in names if n.endswith(".rtbz")]
        if not here_wdl:
            raise UserError(f"syzygy path {path} holds no .rtbw tables; {fix}")
        wdl += len(here_wdl)
        dtz += len(here_dtz)
        largest = max(largest, *(len(n.split(".")[0]) - 1 for n in here_wdl))
        found.append(path)
    return TableInfo(tuple(found), wdl, dtz, largest)


class Tablebases:
    """Open Syzygy tables for the life of the service."""

    def __init__(self, cfg: SyzygyConfig, info: TableInfo) -> None:
        self.cfg = cfg
        self.info = info
        self._tb = chess.syzygy.Tablebase()
        for path in info.paths:
            self._tb.add_directory(str(path))
        self.max_pieces = min(cfg.max_pieces, info.max_pieces)

    @classmethod
    def open(cls, cfg: SyzygyConfig, base: Path | None = None) -> Tablebases | None:
        if not cfg.enabled:
            return None
        return cls(cfg, scan_paths(cfg.paths, base))

    def close(self) -> None:
        self._tb.close()

    def describe(self) -> list[str]:
        i = self.info
        return [f"syzygy: {i.wdl_tables} WDL and {i.dtz_tables} DTZ tables up to "
                f"{i.max_pieces} pieces in {', '.join(map(str, i.paths))}"]

    def probe_wdl(self, board: chess.Board) -> int | None:
        """The side to move's WDL (-2..2), or None when no table covers the position."""
        if not self._probable(board):
            return None
        try:
            return self._tb.probe_wdl(board)
        except (KeyError, chess.syzygy.MissingTableError):
            return None

    def _probable(self, board: chess.Board) -> bool:
        # Syzygy tables hold no positions with castling rights.
        return not board.castling_rights and chess.popcount(board.occupied) <= self.max_pieces

    def root_move(self, board: chess.Board) -> TbMove | None:
        """The tablebase move for the side to move, or None when the tables can't say."""
        if not self._probable(board) or board.is_game_over():
            return None
        ranked: list[tuple[int, str, int, int, int]] = []
        try:
            for move in board.legal_moves:
                ranked.append(self._rank(board, move))
        except (KeyError, chess.syzygy.MissingTableError):
            return None  # a child position needs a table we don't have
        ranked.sort(key=lambda r: (-r[0], r[1]))
        top_rank, uci, wdl, dtz, raw = ranked[0]
        band = _WIN if top_rank >= _WIN else _DRAW if top_rank >= _DRAW else _LOSS
        if band == _WIN:
            keep = [r[1] for r in ranked if r[0] >= _WIN]
        elif band == _DRAW:
            keep = [r[1] for r in ranked if r[0] >= _DRAW]
        else:
            keep = [r[1] for r in ranked if r[0] == top_rank]
        return TbMove(uci=uci, wdl=wdl, dtz=dtz, raw_wdl=raw, candidates=tuple(keep))

    def _rank(self, board: chess.Board, move: chess.Move) -> tuple[int, str, int, int, int]:
        uci = board.uci(move, chess960=board.chess960)
        zeroing = board.is_zeroing(move)
        board.push(move)
        try:
            if board.is_checkmate():
                return (_WIN + 1_000, uci, 2, 0, 2)
            if board.is_stalemate() or board.is_insufficient_material():
                return (_DRAW + 500, uci, 0, 0, 0)
            raw = -self._tb.probe_wdl(board)
            child_dtz = self._tb.probe_dtz(board)  # opponent's view: <0 means we win
            plies = abs(child_dtz)
            clock = board.halfmove_clock  # 0 after a zeroing move
        finally:
            board.pop()
        # The 50-move rule decides from the clock: after `plies` more plies the
        # winner zeroes; if that lands past 100 plies since the last zeroing
        # move, the game is a draw (cursed win / blessed loss).
        if raw == 2 and clock + plies <= 100:
            # zeroing wins first (progress is then irreversible), then fewest plies
            return (_WIN + (500 if zeroing else 0) + (499 - min(plies, 499)), uci, 2, plies, 2)
        if raw == -2 and clock + plies <= 100:
            # longest resistance; a zeroing move resets the opponent's count
            return (_LOSS + (0 if zeroing else 500) + min(plies, 499), uci, -2, plies, -2)
        order = {2: 300, 1: 300, 0: 200, -1: 100, -2: 100}[raw]
        return (_DRAW + order, uci, 0, plies, raw)
