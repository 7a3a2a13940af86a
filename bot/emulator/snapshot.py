"""Plain records handed to tests and the /emu API (copies, never live state)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bot.emulator.game import ChatLine


@dataclass(frozen=True)
class RequestRecord:
    t: float  # monotonic
    method: str
    path: str
    route: str  # e.g. "POST /api/bot/game/{id}/move/{move}"
    status: int


@dataclass(frozen=True)
class GameSnapshot:
    """A copy of a game's state for tests and the /emu API."""

    id: str
    status: str
    winner: str | None
    over: bool
    moves: list[str]
    fen: str
    initial_fen: str | None
    variant: str
    rated: bool
    bot_color: str
    white: str
    black: str
    wtime_ms: int
    btime_ms: int
    clock_running: bool
    draw_offers: dict[str, bool]
    takeback_offers: dict[str, bool]
    opponent_gone: bool
    chat: list[ChatLine] = field(default_factory=list)
    finished_at: float | None = None  # monotonic, like RequestRecord.t

    def json(self) -> dict[str, Any]:
        data = dict(self.__dict__)
        data["chat"] = [line.__dict__ for line in self.chat]
        return data
