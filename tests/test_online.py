"""Online move sources over real HTTP against the emulator's explorer, cloud-eval
and tablebase routes: choices, misses, timeouts, 429 pauses, User-Agent."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Iterator
from pathlib import Path

import chess
import chess.syzygy
import pytest
from conftest import closed_port

from bot.config import parse_config
from bot.emulator import DEFAULT_TOKEN, CloudPv, Emulator, EmulatorConfig, ExplorerMove
from bot.lichess.token import Token
from bot.lichess.transport import USER_AGENT
from bot.sources.online import OnlineSources, tablebase_pieces

TABLES = Path(__file__).parent / "data" / "syzygy"
START = chess.STARTING_FEN


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    with Emulator(EmulatorConfig()) as e:
        yield e


@pytest.fixture(autouse=True)
def _clean(emu: Emulator) -> None:
    emu.faults.clear()
    emu.traffic.reset()


def sources(url: str, pause_s: float = 60.0, token: str | None = DEFAULT_TOKEN,
            **sections: dict[str, object]) -> OnlineSources:
    om: dict[str, object] = {"explorer_url": url, "tablebase_url": url, "cloud_url": url}
    om.update(sections)
    cfg = parse_config({"engine": {"online_moves": om}})
    return OnlineSources(cfg.engine.online_moves, url, Token(token, "test") if token else None,
                         pause_s=pause_s)


def run(coro):  # noqa: ANN001, ANN201 - test helper
    return asyncio.run(coro)


def test_explorer_masters_sorting_and_min_games(emu: Emulator) -> None:
    emu.online.set_explorer(START, [ExplorerMove("e2e4", 100, 50, 50),
                                    ExplorerMove("d2d4", 30, 10, 5),
                                    ExplorerMove("g2g4", 4, 0, 0)])
    board = chess.Board()
    src = sources(emu.url, lichess_opening_explorer={"enabled": True, "min_games": 5})
    move, asked = run(src.explorer(board, 60, 1.0))
    assert asked and move.uci == "d2d4"  # 78% beats 62%; g2g4's 4 games are too few
    assert move.source == "lichess_opening_explorer" and "45 games" in move.comment
    src = sources(emu.url, lichess_opening_explorer={"enabled": True, "sort": "games_played"})
    assert run(src.explorer(board, 60, 1.0))[0].uci == "e2e4"
    src = sources(emu.url, lichess_opening_explorer={"enabled": True, "min_games": 1000})
    assert run(src.explorer(board, 60, 1.0)) == (None, True)
    assert emu.traffic.count("GET /masters") == 3
    assert set(emu.online.user_agents[-3:]) == {USER_AGENT}


def test_explorer_needs_the_token(emu: Emulator, caplog: pytest.LogCaptureFixture) -> None:
    emu.online.set_explorer(START, [ExplorerMove("e2e4", 100, 50, 50)])
    anon = sources(emu.url, token=None, lichess_opening_explorer={"enabled": True})
    assert run(anon.explorer(chess.Board(), 60, 1.0)) == (None, True)
    assert emu.traffic.requests("GET /masters")[-1].status == 401
    assert "wants a valid token" in caplog.text
    # the token goes to the explorer only, and never into the log
    src = sources(emu.url, lichess_opening_explorer={"enabled": True},
                  lichess_cloud_analysis={"enabled": True})
    assert run(src.explorer(chess.Board(), 60, 1.0))[0].uci == "e2e4"
    assert "Authorization" not in src._session.headers
    assert DEFAULT_TOKEN not in caplog.text


def test_explorer_lichess_db_black_to_move(emu: Emulator) -> None:
    board = chess.Board()
    board.push_uci("e2e4")
    emu.online.set_explorer(board.fen(), [ExplorerMove("c7c5", 40, 20, 60),
                                          ExplorerMove("e7e5", 50, 30, 40)], db="lichess")
    src = sources(emu.url, lichess_opening_explorer={"enabled": True, "source": "lichess"})
    move, _ = run(src.explorer(board, 60, 1.0))
    assert move.uci == "c7c5"  # black scores 58% with c5, 50% with e5
    req = emu.traffic.requests("GET /lichess")[-1]
    assert req.status == 200


def test_cloud_eval_best_good_and_limits(emu: Emulator) -> None:
    board = chess.Board()
    board.push_uci("d2d4")
    emu.online.set_cloud_eval(board.fen(), [CloudPv("g8f6 c2c4", cp=20),
                                            CloudPv("d7d5 c2c4", cp=35),
                                            CloudPv("e7e5 d4e5", cp=120)], depth=40)
    src = sources(emu.url, lichess_cloud_analysis={"enabled": True})
    move, asked = run(src.cloud_eval(board, 60, 1.0))
    assert asked and move.uci == "g8f6" and "depth 40" in move.comment
    good = sources(emu.url, lichess_cloud_analysis={"enabled": True, "move_quality": "good",
                                                    "max_score_difference": 20})
    picks = {run(good.cloud_eval(board, 60, 1.0, random.Random(i)))[0].uci for i in range(12)}
    assert picks == {"g8f6", "d7d5"}  # e7e5 is 100 cp worse for black
    deep = sources(emu.url, lichess_cloud_analysis={"enabled": True, "min_depth": 50})
    assert run(deep.cloud_eval(board, 60, 1.0)) == (None, True)
    # unknown position: lila answers 404, a miss
    assert run(src.cloud_eval(chess.Board("8/8/8/8/8/2k5/8/K7 w - - 0 1"), 60, 1.0)) == \
        (None, True)


def test_cloud_eval_mate_score(emu: Emulator) -> None:
    board = chess.Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
    emu.online.set_cloud_eval(board.fen(), [CloudPv("a1a8", mate=1), CloudPv("g1f1", cp=500)])
    src = sources(emu.url, lichess_cloud_analysis={"enabled": True, "min_depth": 0})
    move, _ = run(src.cloud_eval(board, 60, 1.0))
    assert move.uci == "a1a8" and "mate" in move.comment


def test_online_tablebase_derived_from_syzygy(emu: Emulator) -> None:
    emu.online.use_syzygy(str(TABLES))
    src = sources(emu.url, online_egtb={"enabled": True})
    board = chess.Board("7K/4r3/4k3/Q7/8/8/8/8 w - - 0 1")
    move = run(src.tablebase(board, 60, 1.0))
    assert move is not None and move.source == "online_egtb" and "win" in move.comment
    with chess.syzygy.open_tablebase(str(TABLES)) as tb:
        board.push_uci(move.uci)
        assert tb.probe_wdl(board) == -2  # the win is kept
    # Out of the emulator's tables: category unknown -> None; too many pieces: not asked.
    before = emu.traffic.count("GET /standard")
    assert run(src.tablebase(chess.Board("4k3/8/8/8/8/8/3pp3/R3K3 w - - 0 1"), 60, 1)) is None
    assert run(src.tablebase(chess.Board(), 60, 1.0)) is None
    assert emu.traffic.count("GET /standard") == before + 1


# lila-tablebase src/op1.rs tests: an 8-piece op1 position (h2 against h3).
OP1 = "R7/8/8/8/7q/2K1B2p/7P/2Bk4 w - - 0 1"


def test_online_tablebase_asks_8_pieces_only_where_op1_answers(emu: Emulator) -> None:
    """The Lichess tablebase answers 8-piece standard positions from its partial
    op1 tables (lila-tablebase src/op1.rs use_op1: opposed pawns, no castling,
    more than a lone pawn each) on the same /standard route, with DTC."""
    emu.online.set_op1(OP1, 16, {"e3f2": -15, "a8d8": 0})
    src = sources(emu.url, online_egtb={"enabled": True})
    move = run(src.tablebase(chess.Board(OP1), 60, 1.0))
    assert move is not None and move.uci == "e3f2", move
    assert move.comment == "online tablebase maybe win, dtc -15", move.comment
    assert emu.traffic.count("GET /standard") == 1
    # 8 pieces, not op1 (no opposed pawns; a lone pawn against pieces): not asked;
    # nor 9 pieces; nor op1 when the owner asks for fewer than 7.
    for fen in ("R7/8/8/8/7q/2K1B3/7P/2Bk1p2 w - - 0 1",
                "4k3/4p3/8/8/8/8/3PPPPP/4K3 w - - 0 1",
                "R7/8/8/8/7q/2K1B2p/7P/2Bk1n2 w - - 0 1"):
        assert run(src.tablebase(chess.Board(fen), 60, 1.0)) is None
    six = sources(emu.url, online_egtb={"enabled": True, "max_pieces": 6})
    assert run(six.tablebase(chess.Board(OP1), 60, 1.0)) is None
    assert emu.traffic.count("GET /standard") == 1
    assert tablebase_pieces(chess.Board(OP1), 7, "standard") == 8
    assert tablebase_pieces(chess.Board(OP1), 7, "atomic") == 7


def test_429_pauses_the_source(emu: Emulator) -> None:
    board = chess.Board()
    emu.online.set_cloud_eval(START, [CloudPv("e2e4", cp=30)])
    src = sources(emu.url, pause_s=0.5, lichess_cloud_analysis={"enabled": True,
                                                                "min_depth": 0})
    emu.faults.inject("http_error", "GET /api/cloud-eval", status=429)
    assert run(src.cloud_eval(board, 60, 1.0)) == (None, True)
    assert run(src.cloud_eval(board, 60, 1.0)) == (None, False)  # paused: nothing sent
    assert emu.traffic.count("GET /api/cloud-eval") == 1
    time.sleep(0.6)
    assert run(src.cloud_eval(board, 60, 1.0))[0].uci == "e2e4"
    assert emu.traffic.count("GET /api/cloud-eval") == 2
    # The product (bot/sources/chain.py) takes the default: a minute, as Lichess asks.
    cfg = parse_config({"engine": {"online_moves": {"cloud_url": emu.url}}})
    assert OnlineSources(cfg.engine.online_moves, emu.url, None).pause_s == 60.0


@pytest.mark.parametrize("status", [500, 503, 400])
def test_errors_are_misses(emu: Emulator, status: int) -> None:
    emu.online.set_cloud_eval(START, [CloudPv("e2e4", cp=30)])
    src = sources(emu.url, lichess_cloud_analysis={"enabled": True, "min_depth": 0})
    emu.faults.inject("http_error", "GET /api/cloud-eval", status=status)
    assert run(src.cloud_eval(chess.Board(), 60, 1.0)) == (None, True)
    assert run(src.cloud_eval(chess.Board(), 60, 1.0))[0].uci == "e2e4"  # not paused


def test_slow_answer_costs_only_the_timeout(emu: Emulator) -> None:
    emu.online.set_cloud_eval(START, [CloudPv("e2e4", cp=30)])
    src = sources(emu.url, lichess_cloud_analysis={"enabled": True, "min_depth": 0,
                                                   "timeout_s": 0.3})
    emu.faults.inject("slow", "GET /api/cloud-eval", duration_s=3)
    t0 = time.monotonic()
    assert run(src.cloud_eval(chess.Board(), 60, 5.0)) == (None, True)
    assert time.monotonic() - t0 < 1.5
    # the move's budget caps the source's own timeout
    emu.faults.inject("slow", "GET /api/cloud-eval", duration_s=3)
    roomy = sources(emu.url, lichess_cloud_analysis={"enabled": True, "timeout_s": 10})
    t0 = time.monotonic()
    assert run(roomy.cloud_eval(chess.Board(), 60, 0.3)) == (None, True)
    assert time.monotonic() - t0 < 1.5


def test_unreachable_server_is_a_quick_miss() -> None:
    src = sources(f"http://127.0.0.1:{closed_port()}", lichess_cloud_analysis={"enabled": True})
    t0 = time.monotonic()
    assert run(src.cloud_eval(chess.Board(), 60, 1.0)) == (None, True)
    assert time.monotonic() - t0 < 1.0


def test_min_time_and_max_out_of_book_moves(emu: Emulator) -> None:
    src = sources(emu.url, max_out_of_book_moves=2,
                  lichess_cloud_analysis={"enabled": True, "min_time": 30},
                  lichess_opening_explorer={"enabled": True, "min_time": 0})
    lost = chess.Board("8/8/8/8/8/2k5/8/K6R w - - 0 1")  # nobody knows it
    assert run(src.pick(lost, "g1", clock_s=10, budget_s=1.0)) is None
    assert emu.traffic.count("GET /api/cloud-eval") == 0  # 10 s < min_time 30 s
    assert emu.traffic.count("GET /masters") == 1
    assert run(src.pick(lost, "g1", clock_s=60, budget_s=1.0)) is None
    assert src.misses("g1") == 2
    assert run(src.pick(lost, "g1", clock_s=60, budget_s=1.0)) is None
    assert emu.traffic.count("GET /masters") == 2 and emu.traffic.count("GET /api/cloud-eval") == 1
    # another game still asks; a finished game forgets its count
    assert run(src.pick(lost, "g2", clock_s=60, budget_s=1.0)) is None
    assert emu.traffic.count("GET /masters") == 3
    src.game_over("g1")
    assert src.misses("g1") == 0


def test_all_off_by_default_sends_nothing(emu: Emulator) -> None:
    src = OnlineSources(parse_config({}).engine.online_moves, emu.url)
    assert not src.enabled
    assert run(src.pick(chess.Board(), "g", clock_s=600, budget_s=1.0)) is None
    assert emu.traffic.count("GET *") == 0
    assert src.describe() == ["online moves: all sources off"]


def test_online_data_over_the_control_api(emu: Emulator) -> None:
    import requests

    board = chess.Board()
    board.push_uci("g1f3")
    r = requests.post(f"{emu.url}/emu/online/cloud-eval", timeout=5, json={
        "fen": board.fen(), "depth": 25, "pvs": [{"moves": "d7d5 d2d4", "cp": 10}]})
    assert r.status_code == 200, r.text
    src = sources(emu.url, lichess_cloud_analysis={"enabled": True})
    assert run(src.cloud_eval(board, 60, 1.0))[0].uci == "d7d5"
    r = requests.post(f"{emu.url}/emu/online/explorer", timeout=5, json={
        "fen": board.fen(), "db": "lichess", "moves": [{"uci": "g8f6", "white": 5, "draws": 5,
                                                        "black": 20}]})
    assert r.status_code == 200, r.text
    src = sources(emu.url, lichess_opening_explorer={"enabled": True, "source": "lichess"})
    assert run(src.explorer(board, 60, 1.0))[0].uci == "g8f6"
    r = requests.post(f"{emu.url}/emu/online/syzygy", timeout=5, json={"path": str(TABLES)})
    assert r.status_code == 200, r.text
    for bad in ({"fen": board.fen(), "pvs": [{"moves": "e2e4", "cp": 1}]},  # illegal for black
                {"fen": board.fen(), "pvs": [{"line": "d7d5"}]},
                {"fen": board.fen(), "pvs": "d7d5"},
                {"fen": board.fen(), "extra": 1}):
        r = requests.post(f"{emu.url}/emu/online/cloud-eval", timeout=5, json=bad)
        assert r.status_code == 400 and "error" in r.json(), (bad, r.text)
    r = requests.post(f"{emu.url}/emu/online/book", timeout=5, json={"path": "/nonexistent"})
    assert r.status_code == 400 and "cannot open" in r.json()["error"]
