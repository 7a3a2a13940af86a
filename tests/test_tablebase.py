"""Syzygy root probing: wins converted within the DTZ bound, draws held, the
50-move rule respected, bad paths reported as one clear error.

The tables used here (KRvK, KQvKR, KPvK, KRvKR and the 3-piece children) are
copied into tests/data/syzygy (~400 KB) so these tests always run.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import chess
import chess.engine
import chess.syzygy
import pytest

from bot.config import parse_config
from bot.errors import UserError
from bot.sources.tablebase import Tablebases

TABLES = Path(__file__).parent / "data" / "syzygy"
STOCKFISH = shutil.which("stockfish") or shutil.which("stockfish", path="/usr/games")


def open_tbs(paths: list[str] | None = None, **kw: object) -> Tablebases:
    cfg = parse_config({"engine": {"syzygy": {"enabled": True,
                                              "paths": paths or [str(TABLES)], **kw}}})
    tbs = Tablebases.open(cfg.engine.syzygy)
    assert tbs is not None
    return tbs


@pytest.fixture(scope="module")
def tbs() -> Iterator[Tablebases]:
    t = open_tbs()
    yield t
    t.close()


@pytest.fixture(scope="module")
def oracle() -> Iterator[chess.syzygy.Tablebase]:
    with chess.syzygy.open_tablebase(str(TABLES)) as tb:
        yield tb


@pytest.fixture(scope="module")
def stockfish() -> Iterator[chess.engine.SimpleEngine]:
    if not STOCKFISH:
        pytest.skip("stockfish is not installed")
    eng = chess.engine.SimpleEngine.popen_uci(STOCKFISH)
    yield eng
    eng.quit()


def play_out(tbs: Tablebases, oracle: chess.syzygy.Tablebase, fen: str,
             defender: chess.engine.SimpleEngine | None = None) -> tuple[chess.Board, int]:
    """Winner plays tablebase moves; the loser too, or Stockfish. Returns the final
    board and the ply of the first zeroing move."""
    board = chess.Board(fen)
    winner = board.turn
    assert oracle.probe_wdl(board) == 2
    first_zero = -1
    for ply in range(300):
        if board.is_game_over(claim_draw=True):
            break
        if board.turn == winner or defender is None:
            tb_move = tbs.root_move(board)
            assert tb_move is not None, board.fen()
            move = chess.Move.from_uci(tb_move.uci)
        else:
            move = defender.play(board, chess.engine.Limit(time=0.01)).move
        assert move in board.legal_moves
        board.push(move)
        if first_zero < 0 and (board.halfmove_clock == 0 or board.is_checkmate()):
            first_zero = ply + 1
    return board, first_zero


@pytest.mark.parametrize("fen", [
    "8/8/8/4k3/8/8/1R6/K7 w - - 0 1",      # KRvK, dtz 31
    "7K/4r3/4k3/Q7/8/8/8/8 w - - 0 1",     # KQvKR, dtz 57
    "8/8/2k5/8/8/1K4P1/8/8 w - - 0 1",     # KPvK, dtz 17
])
def test_wins_are_converted_within_dtz_both_sides_tablebase(
        tbs: Tablebases, oracle: chess.syzygy.Tablebase, fen: str) -> None:
    dtz = oracle.probe_dtz(chess.Board(fen))
    board, first_zero = play_out(tbs, oracle, fen)
    assert board.is_checkmate() and board.turn == chess.BLACK, board.fen()
    # A perfect defender delays the zeroing move as long as the table allows:
    # it lands exactly at dtz (syzygy DTZ may be rounded up by one ply).
    assert 0 < first_zero <= dtz + 1


@pytest.mark.parametrize("fen", [
    "7K/4r3/4k3/Q7/8/8/8/8 w - - 0 1",
    "8/8/8/4k3/8/8/1R6/K7 w - - 0 1",
    "8/8/2k5/8/8/1K4P1/8/8 w - - 0 1",
])
def test_wins_are_converted_against_stockfish(
        tbs: Tablebases, oracle: chess.syzygy.Tablebase,
        stockfish: chess.engine.SimpleEngine, fen: str) -> None:
    dtz = oracle.probe_dtz(chess.Board(fen))
    board, first_zero = play_out(tbs, oracle, fen, defender=stockfish)
    assert board.is_checkmate() and board.turn == chess.BLACK, board.fen()
    assert 0 < first_zero <= dtz + 1


def test_drawn_krvkr_is_held(tbs: Tablebases, oracle: chess.syzygy.Tablebase,
                             stockfish: chess.engine.SimpleEngine) -> None:
    board = chess.Board("8/1k6/r1R5/8/8/8/5K2/8 w - - 0 1")
    losing = 0
    for move in board.legal_moves:  # the position is a trap: many moves lose
        board.push(move)
        losing += oracle.probe_wdl(board) == 2
        board.pop()
    assert losing >= 10
    for _ in range(40):
        if board.is_game_over(claim_draw=True):
            break
        tb_move = tbs.root_move(board)
        assert tb_move is not None and tb_move.wdl >= 0
        board.push_uci(tb_move.uci)
        if board.is_game_over(claim_draw=True):
            break
        assert oracle.probe_wdl(board) <= 0  # black (to move) never wins after our move
        board.push(stockfish.play(board, chess.engine.Limit(time=0.01)).move)
    assert not (board.is_checkmate() and board.turn == chess.WHITE)


def test_fifty_move_rule_cursed_win_is_a_draw(tbs: Tablebases) -> None:
    fen = "8/8/8/4k3/8/8/1R6/K7 w - - {} 80"  # KRvK, dtz 31
    fresh = tbs.root_move(chess.Board(fen.format(0)))
    assert fresh is not None and fresh.wdl == 2 and fresh.dtz < 31
    late = tbs.root_move(chess.Board(fen.format(90)))
    assert late is not None and late.wdl == 0 and late.raw_wdl == 2
    assert "cursed win" in late.comment()
    # Just inside the limit it is still a win.
    edge = tbs.root_move(chess.Board(fen.format(100 - 31)))
    assert edge is not None and edge.wdl == 2


def test_zeroing_win_and_prolonged_loss(tbs: Tablebases, oracle: chess.syzygy.Tablebase) -> None:
    # White can take the rook: a capture that keeps the win ranks first.
    board = chess.Board("8/8/8/3k4/8/8/3r4/3Q2K1 w - - 0 1")
    move = tbs.root_move(board)
    assert move is not None and move.uci == "d1d2" and move.wdl == 2
    # KRvK loser: the move with the longest resistance (max DTZ after it).
    board = chess.Board("8/8/8/4k3/8/8/1R6/K7 b - - 0 1")
    move = tbs.root_move(board)
    assert move is not None and move.wdl == -2
    dtzs = []
    for m in board.legal_moves:
        board.push(m)
        dtzs.append(oracle.probe_dtz(board))
        board.pop()
    assert move.dtz == max(dtzs)


def test_out_of_scope_positions_give_none(tbs: Tablebases) -> None:
    assert tbs.root_move(chess.Board()) is None  # 32 pieces
    assert tbs.root_move(chess.Board("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1")) is None  # castling
    assert tbs.root_move(chess.Board("4k3/8/8/8/8/8/3p4/R3K3 w - - 0 1")) is None  # no KRvKP
    three = open_tbs(max_pieces=3)
    assert three.root_move(chess.Board("7K/4r3/4k3/Q7/8/8/8/8 w - - 0 1")) is None
    assert three.root_move(chess.Board("8/8/8/4k3/8/8/1R6/K7 w - - 0 1")) is not None
    assert tbs.root_move(chess.Board("k7/1Q6/1K6/8/8/8/8/8 b - - 0 1")) is None  # game over


def test_suggest_candidates_keep_the_result(tbs: Tablebases,
                                            oracle: chess.syzygy.Tablebase) -> None:
    board = chess.Board("7K/4r3/4k3/Q7/8/8/8/8 w - - 0 1")  # some queen moves lose it
    move = tbs.root_move(board)
    assert move is not None and move.uci in move.candidates
    for uci in move.candidates:
        board.push_uci(uci)
        assert oracle.probe_wdl(board) == -2
        board.pop()
    assert len(move.candidates) < board.legal_moves.count()


def test_bad_paths_are_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match=r"syzygy path .*nowhere does not exist.*engine\.syzygy"):
        open_tbs([str(tmp_path / "nowhere")])
    (tmp_path / "file").write_text("x")
    with pytest.raises(UserError, match="is not a directory"):
        open_tbs([str(tmp_path / "file")])
    with pytest.raises(UserError, match=r"holds no \.rtbw tables"):
        open_tbs([str(tmp_path)])
    with pytest.raises(UserError, match="paths is empty"):
        Tablebases.open(parse_config({"engine": {"syzygy": {"enabled": True}}}).engine.syzygy)
    assert Tablebases.open(parse_config({}).engine.syzygy) is None


def test_describe_counts_tables(tbs: Tablebases) -> None:
    assert tbs.info.wdl_tables == 7 and tbs.info.dtz_tables == 7
    assert tbs.info.max_pieces == 4
    assert "7 WDL and 7 DTZ tables up to 4 pieces" in tbs.describe()[0]


def test_corrupt_table_is_one_clear_error(tmp_path: Path) -> None:
    shutil.copy(TABLES / "KRvK.rtbw", tmp_path)
    (tmp_path / "KRvK.rtbz").write_bytes(b"<html>404 Not Found</html>")
    with pytest.raises(UserError, match=r"syzygy table .*KRvK\.rtbz is corrupt \(bad header\)"):
        open_tbs([str(tmp_path)])


def test_truncated_table_with_a_good_header_is_found_by_check(tmp_path: Path) -> None:
    # Old code: the header passed, and every probe raised "invalid file size".
    import os
    import subprocess
    import sys

    for name in ("KQvK.rtbw", "KQvKR.rtbw", "KQvKR.rtbz"):
        shutil.copy(TABLES / name, tmp_path)
    os.truncate(tmp_path / "KQvKR.rtbw", 4000)
    with pytest.raises(UserError, match=r"KQvKR\.rtbw is corrupt \(size 4000 bytes"):
        open_tbs([str(tmp_path)])
    cfg = tmp_path / "c.yml"
    cfg.write_text(f"pgn_directory: null\nengine:\n  syzygy:\n    enabled: true\n"
                   f"    paths: [{tmp_path}]\n")
    r = subprocess.run([sys.executable, "-m", "bot.cli", "check", "--config", str(cfg)],
                       capture_output=True, text=True, timeout=60, cwd=tmp_path,
                       env={k: v for k, v in os.environ.items() if k != "LICHESS_BOT_TOKEN"})
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert any(ln.startswith("PROBLEM") and "KQvKR.rtbw is corrupt" in ln
               for ln in r.stdout.splitlines()), r.stdout


def test_a_table_damaged_after_start_is_one_log_line(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    # Old code: OSError out of every probe, i.e. a traceback per move.
    import os

    for name in ("KQvK.rtbw", "KQvK.rtbz", "KRvK.rtbw", "KRvK.rtbz", "KQvKR.rtbw",
                 "KQvKR.rtbz"):
        shutil.copy(TABLES / name, tmp_path)
    tbs = open_tbs([str(tmp_path)])
    try:
        os.truncate(tmp_path / "KQvKR.rtbw", 4000)  # after the start-up check
        board = chess.Board("8/1r5k/8/8/3Q4/8/8/K7 w - - 0 1")
        with caplog.at_level("ERROR", logger="bot.sources.tablebase"):
            for _ in range(3):
                assert tbs.root_move(board) is None
                assert tbs.probe_wdl(board) is None
        errors = [r for r in caplog.records if r.levelname == "ERROR"]
        assert len(errors) == 1 and "KQvKR.rtbw" in errors[0].getMessage()
    finally:
        tbs.close()
