"""Syzygy tablebases probed at the root (engine.syzygy).

`root_move(board)` picks the move with the best exact result under the 50-move
rule, like Stockfish's root probe:

* wins: mate, else a zeroing move (capture, pawn move) that keeps the win,
  else the move with the fewest plies to the next zeroing move (DTZ-optimal).
  A win whose DTZ plus the halfmove clock passes 100 plies is a *cursed* win:
  the 50-move rule draws it, so it counts as a draw;
* draws: held (a cursed win for us before a plain draw before a blessed loss);
* losses: prolonged: the move with the largest DTZ, non-zeroing if possible
  (a zeroing move gives the opponent a fresh 50-move count).

DTZ-optimal play always makes progress (every zeroing move is irreversible), so
it converts without repetitions.

Cost: python-chess probes WDL in ~0.2-0.5 ms, but a DTZ probe of a position
whose side to move the DTZ table does not store is a one-ply search (~5-12 ms).
So every child gets a WDL probe, and DTZ is probed only when it decides: the
root's DTZ once, then children (likeliest first: fewest opponent replies when
winning, most when losing) until one reaches the optimal distance (root DTZ - 1).
Against probing every child's DTZ this is ~3.5x less CPU (docs/strength.md).

The in-search WDL prober (C) is a separate, later piece of work.
"""

from __future__ import annotations

import logging
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

import chess
import chess.syzygy

from bot import variants
from bot.config import SyzygyConfig
from bot.errors import UserError

log = logging.getLogger(__name__)

_TABLE = re.compile(r"^K[QRBNP]*vK[QRBNP]*\.rtbw$")
# First bytes of every Syzygy file; a mismatch means a broken download.
_MAGIC = {".rtbw": bytes.fromhex("71e8235d"), ".rtbz": bytes.fromhex("d7660ca5")}

_VALUE = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9,
          chess.KING: 0}


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


CONFIG_FIX = "fix engine.syzygy.paths or set engine.syzygy.enabled: false"


def scan_paths(paths: list[str], base: Path | None = None,
               fix: str = CONFIG_FIX) -> TableInfo:
    """Check the configured directories; a bad one is a UserError naming it and
    ending with `fix` (config keys for the service, UCI options for `pibot uci`)."""
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
        for n in here_wdl + here_dtz:
            _check_magic(path / n, fix)
        if not here_wdl:
            raise UserError(f"syzygy path {path} holds no .rtbw tables; {fix}")
        wdl += len(here_wdl)
        dtz += len(here_dtz)
        largest = max(largest, *(len(n.split(".")[0]) - 1 for n in here_wdl))
        found.append(path)
    return TableInfo(tuple(found), wdl, dtz, largest)


def _check_magic(path: Path, fix: str) -> None:
    """Header and size, as python-chess checks them on first use (a probe would
    otherwise fail on every call)."""
    try:
        st = path.stat()
        if not stat.S_ISREG(st.st_mode):
            raise UserError(f"syzygy table {path} is not a regular file; remove it, or {fix}")
        with path.open("rb") as f:
            head = f.read(4)
    except OSError as exc:
        raise UserError(f"cannot read syzygy table {path}: {exc.strerror}; {fix}") from None
    if head != _MAGIC[path.suffix]:
        raise UserError(f"syzygy table {path} is corrupt (bad header); download it again, "
                        f"or remove it, or {fix}")
    # Every Syzygy file is 16 bytes of header plus whole 64-byte blocks.
    if st.st_size % 64 != 16:
        raise UserError(f"syzygy table {path} is corrupt (size {st.st_size} bytes is not "
                        f"that of a complete table: a truncated download?); download it "
                        f"again, or remove it, or {fix}")


class Tablebases:
    """Open Syzygy tables for the life of the service."""

    def __init__(self, cfg: SyzygyConfig, info: TableInfo) -> None:
        self.cfg = cfg
        self.info = info
        self._tb = chess.syzygy.Tablebase()
        for path in info.paths:
            self._tb.add_directory(str(path))
        self.max_pieces = min(cfg.max_pieces, info.max_pieces)
        self._failures: set[str] = set()  # logged once each

    @classmethod
    def open(cls, cfg: SyzygyConfig, base: Path | None = None,
             fix: str = CONFIG_FIX) -> Tablebases | None:
        if not cfg.enabled:
            return None
        return cls(cfg, scan_paths(cfg.paths, base, fix))

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
        except Exception as exc:  # noqa: BLE001 - a damaged table: the search decides
            self._table_failed(board, exc)
            return None

    def _table_failed(self, board: chess.Board, exc: Exception) -> None:
        """A table that broke after the start-up check (replaced, truncated, disk error):
        one line per table, then that position is left to the search."""
        key = str(exc) if isinstance(exc, OSError) else f"{type(exc).__name__}: {exc}"
        if key not in self._failures:
            self._failures.add(key)
            log.error("syzygy probe failed for %s (%s); the engine searches such positions "
                      "instead: check the tables", board.fen(), key)

    def _probable(self, board: chess.Board) -> bool:
        # Syzygy tables hold no positions with castling rights, and these are standard
        # chess's (a variant's position would be read under the wrong rules).
        return variants.of_board(board).standard_rules and not board.castling_rights \
            and chess.popcount(board.occupied) <= self.max_pieces

    def root_move(self, board: chess.Board) -> TbMove | None:
        """The tablebase move for the side to move, or None when the tables can't say."""
        if not self._probable(board) or board.is_game_over():
            return None
        try:
            return self._root_move(board)
        except (KeyError, chess.syzygy.MissingTableError):
            return None  # a position needs a table we don't have
        except Exception as exc:  # noqa: BLE001 - a damaged table: the search decides
            self._table_failed(board, exc)
            return None

    def _root_move(self, board: chess.Board) -> TbMove:
        kids: list[_Kid] = []
        for move in board.legal_moves:
            kid = _Kid(move, board.uci(move, chess960=board.chess960), board.is_zeroing(move),
                       _gain(board, move))
            board.push(move)
            try:
                if board.is_checkmate():
                    kid.mate, kid.wdl = True, 2
                elif board.is_stalemate() or board.is_insufficient_material():
                    kid.wdl = 0
                else:
                    kid.wdl = -self._tb.probe_wdl(board)
            finally:
                board.pop()
            kids.append(kid)
        best = max(k.wdl for k in kids)
        same = [k for k in kids if k.wdl == best]
        candidates = tuple(k.uci for k in same)
        if best == 2:
            mate = next((k for k in same if k.mate), None)
            if mate is not None:
                return TbMove(mate.uci, 2, 0, 2, candidates)
            zeroing = [k for k in same if k.zeroing]
            if zeroing:
                # a fresh 50-move count and a won position: a true win at once
                k = max(zeroing, key=lambda k: (k.gain, k.uci))
                return TbMove(k.uci, 2, 0, 2, candidates)
            k, plies = self._by_dtz(board, same, shortest=True)
            cursed = board.halfmove_clock + 1 + plies > 100
            return TbMove(k.uci, 0 if cursed else 2, plies, 2, candidates)
        if best == -2:
            quiet = [k for k in same if not k.zeroing] or same
            k, plies = self._by_dtz(board, quiet, shortest=False)
            blessed = board.halfmove_clock + 1 + plies > 100 and not k.zeroing
            return TbMove(k.uci, 0 if blessed else -2, plies, -2, candidates)
        # draws (cursed win 1, draw 0, blessed loss -1): no distance matters
        k = min(same, key=lambda k: k.uci)
        return TbMove(k.uci, 0, 0, best, candidates)

    def _by_dtz(self, board: chess.Board, kids: list[_Kid],
                shortest: bool) -> tuple[_Kid, int]:
        """The kid with the shortest (win) / longest (loss) DTZ and that DTZ, in plies
        after our move. Stops at the first kid reaching root DTZ - 1, the optimum."""
        target = abs(self._tb.probe_dtz(board)) - 1
        best: tuple[_Kid, int] | None = None
        # Probe likely-optimal moves first: when winning, moves that leave the
        # opponent few replies; when losing, moves that keep many.
        order: list[tuple[int, str, _Kid]] = []
        for kid in kids:
            board.push(kid.move)
            replies = board.legal_moves.count()
            board.pop()
            order.append((replies if shortest else -replies, kid.uci, kid))
        for _, _, kid in sorted(order, key=lambda o: o[:2]):
            board.push(kid.move)
            try:
                plies = abs(self._tb.probe_dtz(board))
            finally:
                board.pop()
            if best is None or (plies < best[1] if shortest else plies > best[1]):
                best = (kid, plies)
            # DTZ may be rounded by one ply: "reached" allows for it
            if (plies <= target) if shortest else (plies >= target):
                break
        assert best is not None
        return best


@dataclass
class _Kid:
    move: chess.Move
    uci: str
    zeroing: bool
    gain: int  # material won: promotion and capture values, for zeroing wins
    wdl: int = 0  # our result after the move, by WDL alone
    mate: bool = False


def _gain(board: chess.Board, move: chess.Move) -> int:
    victim = board.piece_type_at(move.to_square)
    gain = _VALUE[victim] if victim else 0
    if move.promotion:
        gain += _VALUE[move.promotion] - 1
    return gain
