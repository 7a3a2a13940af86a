"""MultiPV through the real engine: lines distinct and ordered, each legal,
reported during the search and in the result, and free when it is 1."""

from __future__ import annotations

import chess
import chess.variant
import pytest

from bot.engine.bench import BENCH_FENS
from bot.engine.engine import MAX_MULTIPV, Engine, SearchInfo, SearchLimits
from bot.engine.exceptions import EngineArgumentError

MIDDLEGAMES = BENCH_FENS[1:9]


@pytest.fixture(scope="module")
def eng():
    with Engine(hash_mb=16, threads=1) as e:
        yield e


def _check_line(fen: str, pv: list[str]) -> None:
    board = chess.Board(fen)
    for mv in pv:
        assert chess.Move.from_uci(mv) in board.legal_moves, (fen, pv, mv)
        board.push_uci(mv)


@pytest.mark.parametrize("fen", MIDDLEGAMES)
def test_lines_are_distinct_ordered_and_legal(eng: Engine, fen: str) -> None:
    eng.new_game()
    eng.set_position(fen, [])
    eng.set_option(multipv=4)
    try:
        res = eng.search(SearchLimits(depth=8))
    finally:
        eng.set_option(multipv=1)
    assert [line.multipv for line in res.lines] == [1, 2, 3, 4]
    firsts = [line.pv[0] for line in res.lines]
    assert len(set(firsts)) == 4, firsts
    scores = [line.score_cp for line in res.lines]
    assert all(s is not None for s in scores), res.lines
    assert scores == sorted(scores, reverse=True), scores  # type: ignore[type-var]
    assert all(line.depth == 8 for line in res.lines), res.lines
    for line in res.lines:
        _check_line(fen, line.pv)
    # The answer is the best line's.
    assert res.bestmove == firsts[0] and res.score_cp == scores[0] and res.pv == res.lines[0].pv


def test_the_second_line_is_the_best_without_the_first(eng: Engine) -> None:
    """Line 2 is what the search finds best once line 1's move is gone: a
    position where one capture wins a queen and every other move is equal."""
    fen = "4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1"   # Rxd5 wins the queen; the rest lose the rook
    eng.new_game()
    eng.set_position(fen, [])
    eng.set_option(multipv=2)
    try:
        res = eng.search(SearchLimits(depth=6))
    finally:
        eng.set_option(multipv=1)
    assert res.lines[0].pv[0] == "d2d5"
    assert res.lines[1].pv[0] != "d2d5"
    assert res.lines[0].score_cp is not None and res.lines[1].score_cp is not None
    assert res.lines[0].score_cp - res.lines[1].score_cp > 500, res.lines


def test_more_lines_than_moves_searches_them_all(eng: Engine) -> None:
    fen = "7k/8/8/8/8/8/8/K6q w - - 0 1"    # in check: two king moves
    board = chess.Board(fen)
    legal = {m.uci() for m in board.legal_moves}
    eng.new_game()
    eng.set_position(fen, [])
    eng.set_option(multipv=50)
    try:
        res = eng.search(SearchLimits(depth=5))
    finally:
        eng.set_option(multipv=1)
    assert {line.pv[0] for line in res.lines} == legal
    assert len(res.lines) == len(legal)


def test_every_line_is_reported_during_the_search(eng: Engine) -> None:
    fen = MIDDLEGAMES[2]
    seen: list[SearchInfo] = []
    eng.new_game()
    eng.set_position(fen, [])
    eng.set_option(multipv=3)
    try:
        res = eng.search(SearchLimits(depth=9), on_info=seen.append)
    finally:
        eng.set_option(multipv=1)
    last = [info for info in seen if info.depth == 9]
    assert sorted({info.multipv for info in last}) == [1, 2, 3], seen[-6:]
    assert {info.multipv for info in seen} <= {1, 2, 3}
    final = {info.multipv: info.pv for info in last}
    assert final == {line.multipv: line.pv for line in res.lines}


def test_multipv_one_is_the_plain_search() -> None:
    """MultiPV 1 searches the same tree as before it existed, and a MultiPV
    search leaves nothing behind once it is set back and a game starts."""
    fen, limits = MIDDLEGAMES[0], SearchLimits(depth=9)
    with Engine(hash_mb=16) as fresh:
        fresh.set_position(fen, [])
        plain = fresh.search(limits)
    assert len(plain.lines) == 1 and plain.lines[0].pv == plain.pv
    with Engine(hash_mb=16) as e:
        e.set_position(fen, [])
        e.set_option(multipv=5)
        e.search(limits)
        e.set_option(multipv=1)
        e.new_game()
        again = e.search(limits)
    assert (again.bestmove, again.nodes, again.pv) == (plain.bestmove, plain.nodes, plain.pv)


def test_multipv_with_threads_and_in_a_variant() -> None:
    with Engine(hash_mb=16, threads=2) as e:
        e.set_option(multipv=3)
        e.set_position(MIDDLEGAMES[3], [])
        res = e.search(SearchLimits(depth=8))
        assert len({line.pv[0] for line in res.lines}) == 3
        for line in res.lines:
            _check_line(MIDDLEGAMES[3], line.pv)
        e.set_option(threads=1)
        e.set_position(None, ["e2e4", "d7d5"], variant="atomic")
        res = e.search(SearchLimits(depth=5))
        moves = [line.pv[0] for line in res.lines]
        assert len(set(moves)) == 3 and res.bestmove == moves[0]
        board = chess.variant.AtomicBoard()
        board.push_uci("e2e4")
        board.push_uci("d7d5")
        assert set(moves) <= {m.uci() for m in board.legal_moves}


def test_multipv_out_of_range_is_refused(eng: Engine) -> None:
    for bad in (0, MAX_MULTIPV + 1, -3):
        with pytest.raises(EngineArgumentError, match="multipv"):
            eng.set_option(multipv=bad)
