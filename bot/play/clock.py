"""Pure clock math over monotonic time.

Lichess reports clocks (int ms) at the moment it sends a gameState.  `Clock`
keeps that snapshot together with the monotonic time it was received, so every
later question ("how much time do I have now?") is arithmetic, never I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.lichess.events import GameState

# Correspondence/unlimited games have no clock; treat them as a generous but
# finite budget so the engine still gets a sensible time limit.
NO_CLOCK_MS = 24 * 3600 * 1000
# Lichess starts the clocks only after both sides' first moves, so a first move
# costs no clock time, but the opponent waits for it (and may abort): bound it.
FIRST_MOVE_CAP_MS = 3_000
# Kept back from lila's first-move deadline: the move's round trip and the engine's start.
FIRST_MOVE_RESERVE_MS = 1_000


@dataclass(frozen=True)
class Clock:
    """A clock snapshot: times in ms as sent, plus when (monotonic s) we got it."""

    wtime: int
    btime: int
    winc: int
    binc: int
    received_at: float
    has_clock: bool = True
    # lila's gameState.expiration: ms left for the first move when it was sent
    # (None: no such deadline, e.g. a challenge's game)
    expires_in_ms: int | None = None

    @classmethod
    def from_state(cls, state: GameState, received_at: float,
                   has_clock: bool = True) -> Clock:
        if not has_clock:
            return cls(NO_CLOCK_MS, NO_CLOCK_MS, 0, 0, received_at, False)
        wtime = NO_CLOCK_MS if state.wtime is None else state.wtime
        btime = NO_CLOCK_MS if state.btime is None else state.btime
        left = None if state.expiration is None else state.expiration.left_ms
        return cls(wtime, btime, state.winc, state.binc, received_at, expires_in_ms=left)

    def first_move_left_ms(self, now: float) -> float | None:
        """What lila's first-move deadline leaves at `now`, or None without one."""
        if self.expires_in_ms is None:
            return None
        return self.expires_in_ms - (now - self.received_at) * 1000.0

    def time_of(self, color: str) -> int:
        return self.wtime if color == "white" else self.btime

    def inc_of(self, color: str) -> int:
        return self.winc if color == "white" else self.binc

    def remaining_ms(self, color: str, to_move: str, now: float) -> float:
        """Time left for `color` at monotonic time `now` (only the side to move ticks)."""
        left = float(self.time_of(color))
        if color == to_move:
            left -= (now - self.received_at) * 1000.0
        return max(0.0, left)

    def search_times(self, me: str, now: float) -> tuple[int, int, int, int]:
        """(wtime, btime, winc, binc) for the engine, our own clock aged to `now`."""
        aged = int(self.remaining_ms(me, me, now))
        w = aged if me == "white" else self.wtime
        b = aged if me == "black" else self.btime
        return max(1, w), max(1, b), self.winc, self.binc

    def move_budget_ms(self, me: str, now: float, overhead_ms: int) -> float:
        """How long a move post may still be retried before the flag is at risk."""
        return self.remaining_ms(me, me, now) - overhead_ms

    def after_our_move(self, me: str, now: float) -> Clock:
        """Estimate of the clock right after we moved (for pondering): our time
        is frozen at what was left plus the increment."""
        left = int(self.remaining_ms(me, me, now)) + self.inc_of(me)
        if me == "white":
            return Clock(left, self.btime, self.winc, self.binc, now, self.has_clock)
        return Clock(self.wtime, left, self.winc, self.binc, now, self.has_clock)


def clock_running(plies: int) -> bool:
    """Lichess's clocks run from the third ply on (both first moves are free)."""
    return plies >= 2


def first_move_think_ms(my_time_ms: int, deadline_left_ms: float | None = None) -> int:
    """Think time for a move made before the clocks run: a few seconds at most, and
    within lila's first-move deadline (gameState.expiration) less a round trip's
    reserve when that is sooner (a game joined late, e.g. after a restart)."""
    cap = min(FIRST_MOVE_CAP_MS, my_time_ms // 40)
    if deadline_left_ms is not None:
        cap = min(cap, int(deadline_left_ms) - FIRST_MOVE_RESERVE_MS)
    return max(100, cap)


def silence_limit_s(my_left_ms: float, normal_s: float, floor_s: float) -> float:
    """How long a game stream may stay silent before it is re-opened.

    A dead stream (no FIN, no keep-alives) is only noticed by its silence, and
    when it dies while the opponent thinks, their move is lost with it and our
    clock runs unseen until we notice.  So the limit is the normal one, or a
    tenth of our clock when that is less (a 30+0 game may still have 60 moves
    to pay round trips for), but never below `floor_s`: a healthy stream can
    be quiet for a keep-alive gap, and a needless re-open costs a request.
    """
    return max(floor_s, min(normal_s, my_left_ms / 10000.0))


def elapsed_ms(start: float, end: float) -> float:
    return (end - start) * 1000.0
