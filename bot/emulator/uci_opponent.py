"""The `uci` opponent policy: a real UCI engine (e.g. Stockfish at a chosen
skill level) per game, through python-chess's SimpleEngine. It is started on
the opponent's first move and closed when the game ends or the emulator stops.
Searching happens in a worker thread, outside the core lock, so streams and
other games keep going while the engine thinks.

A variant game needs an engine whose UCI_Variant offers it (python-chess sets
the option from the board's class; Debian's fairy-stockfish 11.1 plays every
Lichess variant but atomic): with one that does not (Stockfish, or that
fairy-stockfish in atomic), the opponent plays random legal moves in that game,
said once in the log."""

from __future__ import annotations

import logging
import os
import shutil
import threading

import chess
import chess.engine

log = logging.getLogger(__name__)

# Debian installs engines (stockfish, ...) in /usr/games, often not on a service's PATH.
EXTRA_ENGINE_DIRS = ("/usr/games", "/usr/local/games")


def resolve_engine(engine: str) -> str | None:
    """The engine's executable path, or None if it cannot be found."""
    if os.sep in engine:
        return engine if os.path.isfile(engine) and os.access(engine, os.X_OK) else None
    return shutil.which(engine) or shutil.which(engine, path=os.pathsep.join(EXTRA_ENGINE_DIRS))


class UciPlayer:
    """One engine process for one game."""

    def __init__(self, path: str, skill_level: int | None, movetime_ms: int) -> None:
        self.path = path
        self.skill_level = skill_level
        self.movetime_ms = movetime_ms
        self._engine: chess.engine.SimpleEngine | None = None
        self._lock = threading.Lock()  # one search at a time; close() waits for it
        self.closed = False
        self.no_variant = False  # the engine lacks UCI_Variant: random moves in this game

    @property
    def running(self) -> bool:
        return self._engine is not None

    def choose(self, board: chess.Board) -> chess.Move | None:
        """The engine's move, or None if it is closed or failed (the caller falls back)."""
        with self._lock:
            if self.closed or self.no_variant:
                return None
            try:
                if self._engine is None:
                    self._engine = chess.engine.SimpleEngine.popen_uci(self.path)
                    if self.skill_level is not None:
                        self._engine.configure({"Skill Level": self.skill_level})
                variant = type(board).uci_variant
                option = self._engine.options.get("UCI_Variant")
                if variant != "chess" and (option is None or variant not in (option.var or [])):
                    self.no_variant = True
                    log.warning("uci opponent %s has no UCI_Variant for %s; playing random "
                                "moves in this game", self.path, variant)
                    return None
                result = self._engine.play(
                    board, chess.engine.Limit(time=self.movetime_ms / 1000.0)
                )
                return result.move
            except (chess.engine.EngineError, chess.engine.EngineTerminatedError, OSError) as exc:
                log.warning("uci opponent %s failed (%s); playing a random move", self.path, exc)
                return None

    def close(self) -> None:
        self.closed = True
        with self._lock:
            engine, self._engine = self._engine, None
        if engine is not None:
            try:
                engine.quit()
            except (chess.engine.EngineError, chess.engine.EngineTerminatedError, OSError):
                engine.close()
