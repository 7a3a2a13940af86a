"""The pibot chess engine: C core bound through cffi.

Public API: Board (rules, FEN, perft), backend() ("pext" or "magic"), and the
search Engine (see engine.py; its search lock and poller: search_control.py;
its strength levels: strength.py) with its limits/result types. `bench.py` is
the fixed-depth bench, `pool.py` the service's warm engines, `closing.py`
their `with` support.

Below everything that plays: it may import the compiled core `bot._engine` (only
bindings.py and search_bindings.py do), `bot.errors`, and `bot.host` (the
status file's slot type, in pool.py); nothing from the config, the wings or the
service.
"""

from __future__ import annotations

from bot.engine.bindings import PerftStop, backend
from bot.engine.board import STARTPOS, Board
from bot.engine.engine import Engine, SearchInfo, SearchLimits, SearchResult

__all__ = ["STARTPOS", "Board", "Engine", "PerftStop", "SearchInfo", "SearchLimits",
           "SearchResult", "backend"]
