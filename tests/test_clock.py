"""Clock snapshots and arithmetic (pure, no I/O)."""

from __future__ import annotations

import pytest

from bot.lichess.events import GameState
from bot.play.clock import NO_CLOCK_MS, Clock, silence_limit_s


def test_clock_from_a_parsed_state() -> None:
    state = GameState.parse({"type": "gameState", "wtime": 60000, "btime": 59000,
                             "winc": 1000, "binc": 1000}, 10.0)
    assert Clock.from_state(state, 10.0) == Clock(60000, 59000, 1000, 1000, 10.0)
    # A state without times (none sent yet) counts as a generous clock, not zero.
    empty = Clock.from_state(GameState(), 3.0)
    assert (empty.wtime, empty.btime, empty.winc) == (NO_CLOCK_MS, NO_CLOCK_MS, 0)


def test_only_side_to_move_ticks() -> None:
    c = Clock(60000, 50000, 0, 0, received_at=100.0)
    assert c.remaining_ms("white", "white", 101.5) == pytest.approx(58500)
    assert c.remaining_ms("black", "white", 101.5) == 50000
    assert c.remaining_ms("white", "white", 1000.0) == 0.0
    w, b, wi, bi = c.search_times("white", 100.25)
    assert (w, b) == (59750, 50000)


def test_budget_and_after_move() -> None:
    c = Clock(10000, 8000, 2000, 2000, received_at=0.0)
    assert c.move_budget_ms("black", 1.0, 100) == pytest.approx(6900)
    after = c.after_our_move("black", 3.0)
    assert after.btime == 7000 and after.wtime == 10000 and after.received_at == 3.0


def test_no_clock() -> None:
    c = Clock.from_state(GameState(wtime=1, btime=1), 0.0, has_clock=False)
    assert c.wtime == NO_CLOCK_MS and not c.has_clock


def test_silence_limit_follows_a_low_clock() -> None:
    # Plenty of time: the normal limit (the read timeout, the echo timeout).
    assert silence_limit_s(100_000, 9.0, 2.5) == 9.0
    assert silence_limit_s(36_000, 3.0, 1.0) == 3.0
    assert silence_limit_s(90_000, 9.0, 1.5) == 9.0
    # Low clock: a tenth of it, so a dead stream cannot eat the rest.
    assert silence_limit_s(50_000, 9.0, 1.5) == 5.0
    assert silence_limit_s(20_000, 3.0, 1.0) == 2.0
    # Never below the floor (a healthy stream is quiet between keep-alives).
    assert silence_limit_s(10_000, 9.0, 1.5) == 1.5
    assert silence_limit_s(0, 3.0, 1.0) == 1.0
