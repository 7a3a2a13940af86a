"""What choosing a move gives (moves.py): the move and how it was found, or a
resignation.  Kept apart so the journal records a choice without importing the
code that makes it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Choice:
    move: str
    source: str | None = None  # the move source's name ("book", ...), for the PGN
    result: Any = None  # the engine's SearchResult, when the engine chose
    offer_draw: bool = False  # offered (or an offer accepted) with the move
    think_ms: float = 0.0  # from the question to the answer, ponder hit included
    pondered: bool = False
    overhead_ms: int = 0  # the move overhead the search was given


@dataclass(frozen=True)
class Resign:
    """The draw/resign rules say resign instead of moving."""
