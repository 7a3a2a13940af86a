"""Strength levels through the real engine: the mapping's shape, legal moves,
bounded choices, seeded randomness, think time against the full-strength
budget, stop/ponder/infinite, persistence and an exact way back."""

from __future__ import annotations

import threading
import time

import chess
import pytest

from bot.engine.bench import BENCH_FENS
from bot.engine.engine import Engine, SearchLimits, SearchResult, time_budget
from bot.engine.exceptions import EngineArgumentError
from bot.engine.strength import MAX_ELO, MIN_ELO, level_params

MIDDLEGAMES = BENCH_FENS[1:16]
CLOCK = SearchLimits(wtime=4000, btime=4000, winc=40, binc=40)


@pytest.fixture(scope="module")
def eng():
    with Engine(hash_mb=16, threads=1) as e:
        yield e


def _search(eng: Engine, fen: str, limits: SearchLimits, elo: int | None,
            seed: int = 1) -> SearchResult:
    eng.strength.set(elo)
    eng.strength.seed(seed)
    eng.new_game()
    eng.set_position(fen, [])
    return eng.search(limits)


def _legal(fen: str) -> set[str]:
    return {m.uci() for m in chess.Board(fen).legal_moves}


def test_the_mapping_grows_with_the_level() -> None:
    levels = [level_params(elo) for elo in range(MIN_ELO, MAX_ELO + 1, 25)]
    for weak, strong in zip(levels, levels[1:], strict=False):
        assert weak.elo < strong.elo
        assert weak.nodes <= strong.nodes and weak.depth <= strong.depth
        assert weak.spread_cp >= strong.spread_cp and weak.max_loss_cp >= strong.max_loss_cp
        assert weak.think_pct <= strong.think_pct
    assert levels[-1].nodes > 100 * levels[0].nodes
    assert all(p.multipv >= 2 for p in levels)
    # A piece (300 cp) is given away outright only below Stockfish's range.
    assert all(level_params(elo).max_loss_cp < 300 for elo in range(1350, MAX_ELO + 1))
    assert all(level_params(elo).max_loss_cp >= 300 for elo in range(MIN_ELO, 1301))
    assert level_params(100).elo == MIN_ELO and level_params(5000).elo == MAX_ELO


def test_the_calibration_shift_moves_the_measured_levels_only() -> None:
    # strength.h STRENGTH_SHIFTS: a measured level plays the anchors' parameters of
    # its number plus its shift; 1300 and below, never measured against Stockfish,
    # are the anchors'.
    at_1100 = level_params(1100)
    assert (at_1100.nodes, at_1100.depth, at_1100.spread_cp) == (6000, 5, 800)
    at_1400 = level_params(1400)
    assert at_1400.elo == 1400
    # +50: 1450, two thirds of the way from the 1350 row to the 1500 row: nodes
    # 20,000 x 1.75^(2/3) (geometric), depth 7, spread 633 (unshifted: 24,100, 6, 667)
    assert (at_1400.nodes, at_1400.depth, at_1400.spread_cp) == (29044, 7, 633)
    # +15: 1815, a twentieth of the way from the 1800 row to the 2100 row
    at_1800 = level_params(1800)
    assert (at_1800.nodes, at_1800.depth, at_1800.spread_cp) == (62813, 8, 244)
    # +150: 2950, two thirds of the way from the 2850 row to the 3000 row, which
    # no level's number reaches; 2850 plays that top row, and nothing above it
    at_2800 = level_params(2800)
    assert (at_2800.nodes, at_2800.depth, at_2800.spread_cp) == (3174802, 27, 7)
    top = level_params(2850)
    assert (top.nodes, top.depth, top.multipv, top.spread_cp) == (4_000_000, 30, 2, 5)


def test_the_setting_is_checked_clamped_and_kept(eng: Engine) -> None:
    assert eng.strength.set(1500) == 1500 and eng.strength.elo == 1500
    assert eng.strength.set(100) == MIN_ELO and eng.strength.set(9999) == MAX_ELO
    for bad in (-1, "1500", 1500.0, True):
        with pytest.raises(EngineArgumentError, match="strength"):
            eng.strength.set(bad)  # type: ignore[arg-type]
    for bad_seed in (-1, 1 << 64, "7"):
        with pytest.raises(EngineArgumentError, match="seed"):
            eng.strength.seed(bad_seed)  # type: ignore[arg-type]
    assert eng.strength.elo == MAX_ELO  # a refused value changes nothing
    assert eng.strength.set(0) is None and eng.strength.elo is None


def test_the_level_persists_across_searches_and_games(eng: Engine) -> None:
    eng.strength.set(1500)
    try:
        for fen in MIDDLEGAMES[:3]:
            eng.new_game()
            eng.set_position(fen, [])
            res = eng.search(SearchLimits(depth=30))
            assert res.strength == 1500 and eng.strength.elo == 1500
            assert res.depth <= level_params(1500).depth
            assert res.nodes <= 2 * level_params(1500).nodes
    finally:
        eng.strength.set(None)


def test_full_strength_comes_back_exactly() -> None:
    """After a level, None (or 0) is full strength again: same move, same
    nodes as a fresh engine (a new game clears what any search leaves)."""
    limits = SearchLimits(depth=9)
    with Engine(hash_mb=16) as fresh:
        fresh.set_position(MIDDLEGAMES[4], [])
        want = fresh.search(limits)
    assert want.strength is None
    with Engine(hash_mb=16) as e:
        for back in (None, 0):
            e.strength.set(1100)
            e.set_position(MIDDLEGAMES[4], [])
            assert e.search(limits).strength == 1100
            e.strength.set(back)
            e.new_game()
            got = e.search(limits)
            assert (got.bestmove, got.nodes, got.pv, got.strength) == \
                (want.bestmove, want.nodes, want.pv, None)


@pytest.mark.parametrize("elo", [MIN_ELO, 1500, 2200, MAX_ELO])
def test_a_level_always_plays_a_legal_move(eng: Engine, elo: int) -> None:
    awkward = [
        "7k/8/8/8/8/8/8/K6q w - - 0 1",                                    # check, two moves
        "k7/8/8/8/8/8/6q1/7K w - - 0 1",                                   # one legal move
        "6k1/5ppp/8/8/8/8/r4PPP/1R1R2K1 w - - 0 1",                        # mate in one
        "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2",   # Qh4#
    ]
    try:
        for fen in [*awkward, *MIDDLEGAMES[:6]]:
            for seed in (1, 2):
                res = _search(eng, fen, SearchLimits(depth=20), elo, seed)
                assert res.bestmove in _legal(fen), (fen, res)
                _check_pv(fen, res.pv)
    finally:
        eng.strength.set(None)


def _check_pv(fen: str, pv: list[str]) -> None:
    board = chess.Board(fen)
    for mv in pv:
        assert chess.Move.from_uci(mv) in board.legal_moves, (fen, pv)
        board.push_uci(mv)


def test_no_legal_move_is_still_answered(eng: Engine) -> None:
    try:
        res = _search(eng, "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", SearchLimits(depth=5), 1500)
    finally:
        eng.strength.set(None)
    assert res.bestmove == "0000"


def test_mates_in_one_are_not_missed(eng: Engine) -> None:
    fen = "6k1/5ppp/8/8/8/8/r4PPP/1R1R2K1 w - - 0 1"   # Rb8# and Rd8#
    try:
        for elo in (MIN_ELO, 1500):
            for seed in range(6):
                res = _search(eng, fen, SearchLimits(depth=20), elo, seed)
                board = chess.Board(fen)
                board.push_uci(res.bestmove)
                assert board.is_checkmate() and res.mate == 1, res
    finally:
        eng.strength.set(None)


def test_the_choice_never_gives_away_a_piece_from_1350_up(eng: Engine) -> None:
    """The move a level plays is never max_loss or more below its own best line,
    and from 1350 up that is under a piece (what its search sees; deeper
    tactics it misses by design). A low level does depart from its best line."""
    departed = 0
    try:
        for elo in (MIN_ELO, 1350, 1800):
            limit = level_params(elo).max_loss_cp
            for seed, fen in enumerate(MIDDLEGAMES[:8]):
                res = _search(eng, fen, SearchLimits(depth=20), elo, seed)
                best = res.lines[0].score_cp
                if best is None or res.score_cp is None:
                    continue  # mate scores: only a mate's own line is ever close
                loss = best - res.score_cp
                assert 0 <= loss <= limit, (elo, fen, res)
                if elo >= 1350:
                    assert loss < 300
                departed += res.bestmove != res.lines[0].pv[0]
    finally:
        eng.strength.set(None)
    assert departed > 0


def test_a_low_level_plays_other_moves_than_full_strength_and_repeats_with_a_seed(
        eng: Engine) -> None:
    limits = SearchLimits(nodes=200_000)
    full = [_search(eng, fen, limits, None).bestmove for fen in MIDDLEGAMES]
    try:
        low = [_search(eng, fen, limits, 1000, seed=42).bestmove for fen in MIDDLEGAMES]
        again = [_search(eng, fen, limits, 1000, seed=42).bestmove for fen in MIDDLEGAMES]
    finally:
        eng.strength.set(None)
    assert low == again
    assert sum(a != b for a, b in zip(full, low, strict=True)) >= 3, (full, low)


def test_think_time_is_a_share_of_the_full_strength_budget(eng: Engine) -> None:
    """A level never takes more than full strength plans for the same clock (the
    soft budget, which full strength spends on a typical move), nor answers
    at once; in total it takes less than full strength did."""
    soft, _ = time_budget(CLOCK, white_to_move=True)
    level_ms, full_ms = 0, 0
    try:
        for fen in MIDDLEGAMES[:5]:
            board = chess.Board(fen)
            limits = CLOCK if board.turn == chess.WHITE else SearchLimits(
                wtime=4000, btime=4000, winc=40, binc=40)
            res = _search(eng, fen, limits, 1500)
            assert res.time_ms <= soft * 0.6 + 60, (fen, res.time_ms, soft)
            assert res.time_ms >= soft * 0.1, (fen, res.time_ms, soft)
            level_ms += res.time_ms
            full_ms += _search(eng, fen, limits, None).time_ms
    finally:
        eng.strength.set(None)
    assert level_ms < full_ms


def test_a_forced_move_is_answered_quickly(eng: Engine) -> None:
    soft, _ = time_budget(CLOCK, white_to_move=True)
    try:
        res = _search(eng, "k7/8/8/8/8/8/6q1/7K w - - 0 1", CLOCK, 1500)
    finally:
        eng.strength.set(None)
    assert res.bestmove == "h1g2"  # the only move
    assert res.time_ms <= soft * 0.15 + 60, (res.time_ms, soft)


def _in_thread(eng: Engine, limits: SearchLimits) -> tuple[threading.Thread, list[SearchResult]]:
    out: list[SearchResult] = []
    th = threading.Thread(target=lambda: out.append(eng.search(limits)), daemon=True)
    th.start()
    return th, out


def test_stop_ends_the_think_time_at_once(eng: Engine) -> None:
    eng.strength.set(1500)
    eng.strength.seed(3)
    eng.new_game()
    eng.set_position(MIDDLEGAMES[0], [])
    try:
        # A long clock: the level would think for seconds.
        th, out = _in_thread(eng, SearchLimits(wtime=600_000, btime=600_000))
        time.sleep(0.4)
        assert th.is_alive()
        t0 = time.monotonic()
        eng.stop()
        th.join(5)
        assert not th.is_alive() and time.monotonic() - t0 < 1.0
    finally:
        eng.strength.set(None)
    assert out[0].bestmove in _legal(MIDDLEGAMES[0])


@pytest.mark.parametrize("mode", ["ponder", "infinite"])
def test_ponder_and_infinite_keep_the_level(eng: Engine, mode: str) -> None:
    """Pondering or analysing, a level still searches only its own budget, and
    answers only after ponderhit (then within its think time) or stop."""
    budget = level_params(1500).nodes
    eng.strength.set(1500)
    eng.strength.seed(5)
    eng.new_game()
    eng.set_position(MIDDLEGAMES[1], [])
    limits = (SearchLimits(wtime=4000, btime=4000, winc=40, binc=40, ponder=True)
              if mode == "ponder" else SearchLimits(infinite=True))
    try:
        th, out = _in_thread(eng, limits)
        time.sleep(0.5)
        assert th.is_alive()
        t0 = time.monotonic()
        if mode == "ponder":
            eng.ponderhit()
        else:
            eng.stop()
        th.join(10)
        assert not th.is_alive()
        soft, _ = time_budget(CLOCK, white_to_move=chess.Board(MIDDLEGAMES[1]).turn)
        assert time.monotonic() - t0 < soft * 0.6 / 1000 + 0.5
    finally:
        eng.strength.set(None)
    res = out[0]
    assert res.nodes <= 2 * budget and res.strength == 1500
    assert res.bestmove in _legal(MIDDLEGAMES[1])
