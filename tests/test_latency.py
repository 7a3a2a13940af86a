"""Pure functions behind the real-site game rules: latency -> move overhead,
the first-move think bound, and which chat room may hear the evaluation."""

from __future__ import annotations

import pytest

from bot.lichess.latency import (
    CAP_MS,
    MARGIN_MS,
    LatencyEstimate,
    move_overhead_ms,
    overhead_sample_ms,
    percentile,
)
from bot.play import chat
from bot.play.clock import FIRST_MOVE_CAP_MS, clock_running, first_move_think_ms


def test_percentile_nearest_rank() -> None:
    assert percentile([5.0], 95) == 5.0
    assert percentile([1, 2, 3, 4], 50) == 2
    assert percentile(list(range(1, 101)), 95) == 95
    assert percentile([10, 1, 7], 100) == 10
    with pytest.raises(ValueError):
        percentile([], 50)


def test_sample_is_round_trip_minus_think() -> None:
    # received at t=10.0 s, acknowledged at 10.5 s, thought 350 ms -> 150 ms of latency
    assert overhead_sample_ms(10.0, 10.5, 350.0) == pytest.approx(150.0)
    assert overhead_sample_ms(10.0, 10.1, 500.0) == 0.0  # never negative


def test_overhead_never_below_floor_and_follows_p95() -> None:
    assert move_overhead_ms(150, []) == 150
    assert move_overhead_ms(150, [20, 30, 25]) == 150  # a fast link keeps the floor
    slow = [220, 260, 240, 300, 280]
    assert move_overhead_ms(150, slow) == 300 + MARGIN_MS
    assert move_overhead_ms(150, [100_000]) == CAP_MS


def test_estimate_window_forgets_old_spikes_and_summarises() -> None:
    est = LatencyEstimate(floor_ms=100)
    assert est.overhead_ms() == 100
    assert est.summary() == "no moves measured"
    est.add(900)
    assert est.overhead_ms() == 900 + MARGIN_MS
    for _ in range(40):
        est.add(10)
    assert est.overhead_ms() == 100  # the spike left the window
    text = est.summary()
    assert "41 moves" in text and "median 10 ms" in text and "max 900 ms" in text


def test_first_move_is_bounded_while_the_clock_stands() -> None:
    assert not clock_running(0) and not clock_running(1) and clock_running(2)
    assert first_move_think_ms(600_000) == FIRST_MOVE_CAP_MS  # 10+0: a few seconds, not 20
    assert first_move_think_ms(15_000) == 375  # ultrabullet: time/40
    assert first_move_think_ms(0) == 100


@pytest.mark.parametrize("room, playing, opt_in, reply", [
    ("player", True, False, chat.NOT_TO_OPPONENT), ("player", True, True, chat.NOT_TO_OPPONENT),
    ("spectator", True, False, chat.NOT_DURING_GAME), ("spectator", True, True, "EVAL"),
    ("player", False, False, "EVAL"), ("spectator", False, False, "EVAL")])
def test_eval_only_after_the_game_unless_spectators_opted_in(
        room: str, playing: bool, opt_in: bool, reply: str) -> None:
    got = chat.answer("!eval", "pibot", "pibot", lambda: "Eval (my view): +0.30",
                      room=room, playing=playing, spectator_eval=opt_in)
    assert got == ("Eval (my view): +0.30" if reply == "EVAL" else reply)
    assert chat.answer("!help", "pibot", "pibot", lambda: "x", room=room) is not None
