"""Finished games saved as PGN files (built locally with python-chess, so a
game is recorded even when Lichess's export endpoint is slow or rate limited)."""

from __future__ import annotations

import datetime as dt
import logging
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import chess
import chess.pgn

log = logging.getLogger(__name__)

_DRAWISH = {"draw", "stalemate"}


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


def result_string(status: str, winner: str | None) -> str:
    if winner == "white":
        return "1-0"
    if winner == "black":
        return "0-1"
    if status in _DRAWISH or status in ("outoftime", "timeout", "insufficientMaterial"):
        # outoftime without a winner = timeout vs insufficient material: a draw
        return "1/2-1/2"
    return "*"


def to_pgn(rec: GameRecord) -> str:
    chess960 = rec.variant == "chess960"
    fen = rec.initial_fen if rec.initial_fen not in (None, "", "startpos") else None
    board = chess.Board(fen, chess960=chess960) if fen else chess.Board(chess960=chess960)
    game = chess.pgn.Game()
    h = game.headers
    h["Event"] = f"{'Rated' if rec.rated else 'Casual'} {rec.variant} game"
    h["Site"] = f"{rec.url}/{rec.game_id}"
    h["Date"] = rec.started.strftime("%Y.%m.%d")
    h["White"], h["Black"] = rec.white, rec.black
    h["Result"] = result_string(rec.status, rec.winner)
    if rec.white_rating:
        h["WhiteElo"] = str(rec.white_rating)
    if rec.black_rating:
        h["BlackElo"] = str(rec.black_rating)
    h["TimeControl"] = rec.time_control
    h["Termination"] = rec.status
    if fen or chess960:
        game.setup(board)  # sets FEN/SetUp (and drops Variant for a standard board)
    if rec.variant != "standard":
        h["Variant"] = "Chess960" if chess960 else "From Position"
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


def save(rec: GameRecord, directory: str) -> Path:
    """Write <directory>/<game id>.pgn atomically (a crash never leaves half a file)."""
    d = Path(directory).expanduser()
    d.mkdir(parents=True, exist_ok=True)
    path = d / f"{rec.game_id}.pgn"
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-", suffix=".pgn")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(to_pgn(rec))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
