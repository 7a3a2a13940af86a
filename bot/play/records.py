"""Finished games saved as PGN files (built locally with python-chess, so a
game is recorded even when Lichess's export endpoint is slow or rate limited)."""

from __future__ import annotations

import datetime as dt
import logging
import os
import re
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

import chess
import chess.pgn

from bot import variants
from bot.store import pgn

log = logging.getLogger(__name__)



@dataclass
class GameRecord:
    game_id: str
    url: str
    white: str
    black: str
    white_rating: int | None
    black_rating: int | None
    variant: str  # Lichess key
    initial_fen: str | None  # None or "startpos" for the standard start
    time_control: str  # PGN "base+inc" in seconds, or "-"
    rated: bool
    moves: list[str]
    status: str
    winner: str | None
    started: dt.datetime
    # ply -> PGN comment, e.g. {0: "book"} for a move that came from the opening book
    comments: dict[int, str] = field(default_factory=dict)
    # The PGN as Lichess exports it (bot.store.pgn: %eval, %clk, full headers), when
    # the game's journal could build it; else to_pgn builds a plain one.
    text: str | None = None


def to_pgn(rec: GameRecord) -> str:
    if rec.text is not None:
        return rec.text
    chess960 = rec.variant == "chess960"
    fen = rec.initial_fen if rec.initial_fen not in (None, "", "startpos") else None
    variant = variants.get(rec.variant)
    try:
        board = variant.start_board(fen, chess960)
    except ValueError:
        log.warning("game %s: its start (%s, %s) is unreadable; PGN without moves",
                    rec.game_id, rec.variant, fen)
        board, fen = chess.Board(), None
    game = chess.pgn.Game()
    h = game.headers
    h["Event"] = f"{'Rated' if rec.rated else 'Casual'} {rec.variant} game"
    h["Site"] = f"{rec.url}/{rec.game_id}"
    h["Date"] = rec.started.strftime("%Y.%m.%d")
    h["White"], h["Black"] = rec.white, rec.black
    h["Result"] = pgn.result(rec.winner, rec.status)
    if rec.white_rating:
        h["WhiteElo"] = str(rec.white_rating)
    if rec.black_rating:
        h["BlackElo"] = str(rec.black_rating)
    h["TimeControl"] = rec.time_control
    h["Termination"] = rec.status
    if fen or chess960:
        game.setup(board)  # sets FEN/SetUp (and drops Variant for a standard board)
    if rec.variant != "standard":
        h["Variant"] = variant.name
    node: chess.pgn.GameNode = game
    for ply, uci in enumerate(rec.moves):
        try:
            move = board.parse_uci(uci)
        except ValueError:
            log.warning("game %s: move %s not legal for PGN; record truncated", rec.game_id, uci)
            break
        board.push(move)
        node = node.add_variation(move, comment=rec.comments.get(ply, ""))
    return str(game) + "\n"


# Lichess game ids are 8 alphanumerics (12 with the player suffix); anything else
# (a path separator, "..", a NUL) must never reach the file name.
_SAFE_ID = re.compile(r"[^A-Za-z0-9_-]")
# Records kept in memory while the directory cannot be written: a week of bullet
# games is far less, and each record is a few KiB.
MAX_PENDING = 1000


def file_name(game_id: str) -> str:
    safe = _SAFE_ID.sub("_", game_id)[:64]
    return f"{safe or 'game'}.pgn"


def save(rec: GameRecord, directory: str) -> Path:
    """Write <directory>/<game id>.pgn atomically (a crash never leaves half a file)."""
    d = Path(directory).expanduser()
    d.mkdir(parents=True, exist_ok=True)
    path = d / file_name(rec.game_id)
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-", suffix=".pgn")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(to_pgn(rec))
            f.flush()
            os.fsync(f.fileno())  # a full disk reports ENOSPC here, not after the rename
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def directory_problem(directory: str, create: bool) -> str | None:
    """Why PGNs cannot be saved in `directory` (None: they can).

    Writes, syncs and removes a small probe file, so a read-only or full file
    system is found now rather than at the end of the first game. With
    `create` false (`pibot check`) a missing directory is not made: its nearest
    existing parent is probed instead."""
    d = Path(directory).expanduser()
    probe_dir = d
    if not create:
        while not probe_dir.exists() and probe_dir != probe_dir.parent:
            if probe_dir.is_symlink():  # a dangling link: mkdir would fail
                return f"pgn_directory {d}: {probe_dir} is a broken symbolic link"
            probe_dir = probe_dir.parent
    try:
        if create:
            try:
                d.mkdir(parents=True, exist_ok=True)
            except FileExistsError:
                pass  # a file by that name: named just below
        if not probe_dir.is_dir():
            return f"pgn_directory {d}: {probe_dir} is not a directory"
        fd, tmp = tempfile.mkstemp(dir=probe_dir, prefix=".pibot-probe-")
        try:
            os.write(fd, b"\n" * 4096)  # a record's size: a full disk fails here or at fsync
            os.fsync(fd)
        finally:
            os.close(fd)
            os.unlink(tmp)
    except OSError as exc:
        return f"pgn_directory {d}: cannot write there ({exc.strerror or exc})"
    return None


class Saver:
    """Saves finished games; a record that cannot be written now is kept in
    memory and retried (`retry`, each watchdog tick) until it lands."""

    def __init__(self) -> None:
        self._pending: list[tuple[GameRecord, str]] = []
        self.problem: str | None = None  # the last failure, while records are pending
        self._lock = threading.Lock()

    @property
    def pending(self) -> int:
        return len(self._pending)

    def save(self, rec: GameRecord, directory: str) -> Path | None:
        """Save now or keep for later (blocking: call in a worker thread)."""
        with self._lock:
            self._pending.append((rec, directory))
            if len(self._pending) > MAX_PENDING:
                lost, _ = self._pending.pop(0)
                log.error("game %s: PGN dropped: %d records already wait for the disk",
                          lost.game_id, MAX_PENDING)
            known = self.problem
            saved = self._flush()
            if rec.game_id not in saved and self.problem == known:
                log.warning("game %s: PGN kept in memory with %d other(s) until %s can be "
                            "written", rec.game_id, len(self._pending) - 1, directory)
        return saved.get(rec.game_id)

    def retry(self) -> None:
        with self._lock:
            if self._pending:
                self._flush()

    def _flush(self) -> dict[str, Path]:
        saved: dict[str, Path] = {}
        left: list[tuple[GameRecord, str]] = []
        for rec, directory in self._pending:
            if left:  # the disk just failed: keep the order, try again next time
                left.append((rec, directory))
                continue
            try:
                saved[rec.game_id] = path = save(rec, directory)
                log.info("game %s: saved %s", rec.game_id, path)
            except OSError as exc:
                reason = f"{directory}: {exc.strerror or exc}"
                if self.problem != reason:
                    log.error("game %s: could not save PGN (%s); kept in memory and "
                              "retried until it can be written", rec.game_id, reason)
                self.problem = reason
                left.append((rec, directory))
        if not left and self.problem is not None and saved:
            log.info("PGN directory writable again: %d kept record(s) saved", len(saved))
        self._pending = left
        if not left:
            self.problem = None
        return saved

    def give_up(self) -> None:
        """At exit: one last try, then the unsaved games go to the log in full."""
        self.retry()
        with self._lock:
            for rec, directory in self._pending:
                log.error("game %s: PGN could not be saved in %s; the record follows\n%s",
                          rec.game_id, directory, to_pgn(rec))
            self._pending = []
