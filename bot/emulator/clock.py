"""A Lichess-style chess clock over monotonic time.

Like lila, the clock only starts once both sides have made their first move:
the first white and black moves cost no time and earn no increment (a separate
first-move timer guards them, see core.py).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from bot.emulator.payloads import UNLIMITED_MS


@dataclass
class GameClock:
    initial_ms: int | None  # None = no clock (correspondence / unlimited)
    increment_ms: int = 0
    white_ms: float = 0.0
    black_ms: float = 0.0
    running: bool = False
    turn_started: float = 0.0  # monotonic time the side to move started thinking

    def __post_init__(self) -> None:
        if self.initial_ms is not None and not self.white_ms and not self.black_ms:
            self.white_ms = float(self.initial_ms)
            self.black_ms = float(self.initial_ms)
        self.turn_started = time.monotonic()

    @property
    def limited(self) -> bool:
        return self.initial_ms is not None

    def remaining_ms(self, white: bool, white_to_move: bool, now: float | None = None) -> float:
        if not self.limited:
            return float(UNLIMITED_MS)
        base = self.white_ms if white else self.black_ms
        if self.running and white == white_to_move:
            now = time.monotonic() if now is None else now
            base -= (now - self.turn_started) * 1000.0
        return base

    def flag_deadline(self, white_to_move: bool) -> float | None:
        """Monotonic time at which the side to move runs out, if the clock runs."""
        if not self.limited or not self.running:
            return None
        left = self.white_ms if white_to_move else self.black_ms
        return self.turn_started + left / 1000.0

    def flagged(self, white_to_move: bool, now: float) -> bool:
        deadline = self.flag_deadline(white_to_move)
        return deadline is not None and now >= deadline

    def on_move(self, white_moved: bool, plies_after: int, now: float) -> None:
        """Charge the mover for the time used, add the increment, switch sides."""
        if self.limited and self.running:
            spent = (now - self.turn_started) * 1000.0
            if white_moved:
                self.white_ms = self.white_ms - spent + self.increment_ms
            else:
                self.black_ms = self.black_ms - spent + self.increment_ms
        elif self.limited and plies_after >= 2:
            self.running = True
        self.turn_started = now

    def stop(self, white_to_move: bool, now: float) -> None:
        """Freeze the clocks (game over): charge the side to move up to now."""
        if self.limited and self.running:
            spent = (now - self.turn_started) * 1000.0
            if white_to_move:
                self.white_ms = max(0.0, self.white_ms - spent)
            else:
                self.black_ms = max(0.0, self.black_ms - spent)
        self.running = False
        self.turn_started = now
