"""The Python Engine contract (bot.engine.Engine) over the real cffi engine."""

from __future__ import annotations

import threading
import time

import chess
import pytest

from bot.engine.engine import Engine, SearchInfo, SearchLimits, SearchResult
from bot.engine.exceptions import (
    EngineArgumentError,
    EngineBusyError,
    EngineError,
    FenError,
    IllegalMoveError,
)

pytestmark = pytest.mark.arm64  # scripts/arm64-check.sh runs these on arm64


@pytest.fixture
def eng():
    with Engine(hash_mb=8, threads=1) as e:
        yield e


def test_search_returns_contract_fields(eng: Engine) -> None:
    eng.set_position(None, ["e2e4", "e7e5"])
    infos: list[SearchInfo] = []
    res = eng.search(SearchLimits(depth=6), on_info=infos.append)
    assert isinstance(res, SearchResult)
    board = chess.Board()
    board.push_uci("e2e4")
    board.push_uci("e7e5")
    assert chess.Move.from_uci(res.bestmove) in board.legal_moves
    assert res.depth == 6 and res.nodes > 0 and res.time_ms >= 0
    assert res.pv[0] == res.bestmove
    assert res.score_cp is not None and res.mate is None
    if res.ponder is not None:
        board.push_uci(res.bestmove)
        assert chess.Move.from_uci(res.ponder) in board.legal_moves
    assert infos, "on_info is called at least once"
    assert infos[-1].nodes == res.nodes
    assert all(i.pv for i in infos)


def test_fen_and_move_errors_keep_previous_position(eng: Engine) -> None:
    eng.set_position(None, ["d2d4"])
    with pytest.raises(FenError, match="FEN"):
        eng.set_position("not a fen", [])
    with pytest.raises(IllegalMoveError, match="e2e5"):
        eng.set_position(None, ["e2e4", "e2e5"])
    with pytest.raises(EngineArgumentError):
        eng.set_position(None, "e2e4")  # type: ignore[arg-type]
    assert eng.fen().startswith("rnbqkbnr/pppppppp/8/8/3P4/")


def test_bad_limits_and_options_are_clear_errors(eng: Engine) -> None:
    with pytest.raises(EngineArgumentError, match="depth"):
        SearchLimits(depth=0)
    with pytest.raises(EngineArgumentError, match="wtime"):
        SearchLimits(wtime=-5)
    with pytest.raises(EngineArgumentError, match="threads"):
        eng.set_option(threads=0)
    with pytest.raises(EngineArgumentError, match="hash_mb"):
        Engine(hash_mb=0)


def test_set_option_and_new_game(eng: Engine) -> None:
    eng.set_option(hash_mb=4, threads=2, move_overhead_ms=100)
    eng.new_game()
    res = eng.search(SearchLimits(depth=5))
    assert res.bestmove in {m.uci() for m in chess.Board().legal_moves}


def test_stop_from_another_thread(eng: Engine) -> None:
    threading.Timer(0.2, eng.stop).start()
    res = eng.search(SearchLimits(infinite=True))
    assert res.bestmove in {m.uci() for m in chess.Board().legal_moves}


def test_stop_event_set_before_search_starts(eng: Engine) -> None:
    ev = threading.Event()
    ev.set()
    res = eng.search(SearchLimits(infinite=True), stop_event=ev)
    assert res.bestmove


def test_ponderhit_turns_ponder_into_timed_search(eng: Engine) -> None:
    threading.Timer(0.2, eng.ponderhit).start()
    res = eng.search(SearchLimits(ponder=True, wtime=1000, btime=1000))
    assert res.bestmove in {m.uci() for m in chess.Board().legal_moves}


def test_busy_and_closed(eng: Engine) -> None:
    t = threading.Thread(target=eng.search, args=(SearchLimits(infinite=True),))
    t.start()
    while not eng.searching:
        time.sleep(0.005)
    with pytest.raises(EngineBusyError):
        eng.search(SearchLimits(depth=1))
    with pytest.raises(EngineBusyError):
        eng.set_position(None, [])
    eng.stop()
    t.join(10)
    assert not t.is_alive()
    eng.close()
    with pytest.raises(EngineError, match="closed"):
        eng.search(SearchLimits(depth=1))
    eng.close()  # idempotent


def test_on_info_exception_propagates_and_stops(eng: Engine) -> None:
    def boom(info: SearchInfo) -> None:
        raise RuntimeError("callback failed")

    with pytest.raises(RuntimeError, match="callback failed"):
        eng.search(SearchLimits(infinite=True), on_info=boom)
    assert not eng.searching
    assert eng.search(SearchLimits(depth=2)).bestmove


def test_two_engines_search_concurrently() -> None:
    results: list[SearchResult] = []
    with Engine(hash_mb=4) as a, Engine(hash_mb=4) as b:
        a.set_position(None, ["e2e4"])
        b.set_position(None, ["d2d4"])
        ts = [threading.Thread(target=lambda e=e: results.append(e.search(SearchLimits(depth=7))))
              for e in (a, b)]
        for t in ts:
            t.start()
        for t in ts:
            t.join(60)
    assert len(results) == 2


def test_repr_is_short(eng: Engine) -> None:
    assert repr(eng).startswith("Engine(hash_mb=8")


def test_start_us_charges_latency_to_the_budget(eng: Engine) -> None:
    from bot.engine.engine import monotonic_us

    # The clock started 2 s ago and we had 1 s: answer at once, still legally.
    res = eng.search(SearchLimits(movetime=1000), start_us=monotonic_us() - 2_000_000)
    assert res.bestmove in {m.uci() for m in chess.Board().legal_moves}
    # A stamp from the future (clock mix-up) is ignored rather than trusted.
    res = eng.search(SearchLimits(depth=3), start_us=monotonic_us() + 5_000_000)
    assert res.depth == 3
