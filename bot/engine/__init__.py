"""The pibot chess engine: C core bound through cffi.

Public API: Board (rules, FEN, perft), backend() ("pext" or "magic"), and the
search Engine (see engine.py) with its limits/result types.
"""

from __future__ import annotations

from bot.engine.bindings import PerftStop, backend
from bot.engine.board import STARTPOS, Board
from bot.engine.engine import Engine, SearchInfo, SearchLimits, SearchResult

__all__ = ["STARTPOS", "Board", "Engine", "PerftStop", "SearchInfo", "SearchLimits",
           "SearchResult", "backend"]
