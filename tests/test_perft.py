"""Perft through the cffi binding: standard positions, the 124-position suite, Chess960."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time

import pytest
from conftest import read_epd

from bot.engine import Board, PerftStop
from bot.engine.exceptions import PerftInterrupted

STANDARD = read_epd("standard.epd")
SUITE = read_epd("perftsuite.epd")
C960 = read_epd("chess960.epd")


@pytest.mark.parametrize("fen,depths", STANDARD, ids=[f"pos{i + 1}" for i in range(len(STANDARD))])
def test_standard_positions_deep(fen: str, depths: dict[int, int]) -> None:
    board = Board(fen)
    for depth, expected in sorted(depths.items()):
        if depth <= 6 and expected <= 200_000_000:
            assert board.perft(depth) == expected, f"depth {depth}"


def test_suite_124_positions_to_depth_5() -> None:
    assert len(SUITE) >= 120
    failures = []
    for fen, depths in SUITE:
        board = Board(fen)
        for depth in range(1, 6):
            if depth in depths and board.perft(depth) != depths[depth]:
                failures.append((fen, depth))
    assert failures == []


def test_chess960_positions_to_depth_5() -> None:
    failures = []
    for fen, depths in C960:
        board = Board(fen, chess960=True)
        for depth in range(1, 6):
            if board.perft(depth) != depths[depth]:
                failures.append((fen, depth))
    assert failures == []


def test_divide_sums_to_total_and_moves_match_legal_list() -> None:
    board = Board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    rows, total = board.perft_divide(3)
    assert total == 97862 == sum(n for _, n in rows)
    assert sorted(m for m, _ in rows) == sorted(board.legal_moves())
    assert "e1g1" in dict(rows) and "e1c1" in dict(rows)


def test_incremental_key_matches_recomputed_key_over_random_games() -> None:
    rng = random.Random(7)
    for _ in range(40):
        board = Board()
        for _ in range(120):
            moves = board.legal_moves()
            if not moves:
                break
            board.push_uci(rng.choice(moves))
            assert board.key() == board.computed_key()


def test_make_unmake_restores_fen_and_key() -> None:
    rng = random.Random(3)
    board = Board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    start_fen, start_key = board.fen(), board.key()
    played = 0
    for _ in range(60):
        moves = board.legal_moves()
        if not moves:
            break
        board.push_uci(rng.choice(moves))
        played += 1
    for _ in range(played):
        board.pop()
    assert (board.fen(), board.key()) == (start_fen, start_key)


def test_cli_perft_6_prints_stockfish_style_total() -> None:
    out = subprocess.run([sys.executable, "-m", "bot.cli", "perft", "6"],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    assert "Nodes searched: 119060324" in out.splitlines()
    assert "slider index:" in out.splitlines()[0]


def test_cli_perft_divide_and_bad_fen() -> None:
    out = subprocess.run([sys.executable, "-m", "bot.cli", "perft", "1", "--divide"],
                         capture_output=True, text=True, timeout=60, check=True).stdout
    assert "e2e4: 1" in out and "Nodes searched: 20" in out
    bad = subprocess.run([sys.executable, "-m", "bot.cli", "perft", "2", "--fen",
                          "8/8/8 w - - 0 1"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2
    assert "Traceback" not in bad.stderr
    assert "FEN" in bad.stderr


def test_cli_perft_sigint_stops_promptly_without_traceback() -> None:
    # Old code: Ctrl-C waited for the C call to return (days at depth 15).
    proc = subprocess.Popen([sys.executable, "-m", "bot.cli", "perft", "15"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            # a background job may have inherited SIGINT ignored
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert proc.stdout is not None
        assert "slider index" in proc.stdout.readline()  # the count has started
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130
    assert "interrupted" in err and "Traceback" not in err
    assert "Nodes searched" not in out


def test_cli_perft_0_and_range_and_broken_pipe() -> None:
    out = subprocess.run([sys.executable, "-m", "bot.cli", "perft", "0"],
                         capture_output=True, text=True, timeout=60, check=True).stdout
    assert "Nodes searched: 1" in out.splitlines()
    bad = subprocess.run([sys.executable, "-m", "bot.cli", "perft", "16"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "between 0 and 15" in bad.stderr
    # The reader of a pipe leaving early is not an error worth a traceback.
    proc = subprocess.Popen([sys.executable, "-m", "bot.cli", "perft", "6", "--divide"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()
    assert proc.wait(60) == 141
    assert b"Traceback" not in proc.stderr.read()


def test_perft_stop_flag_through_the_binding() -> None:
    board = Board()
    stop = PerftStop()
    stop.set()
    with pytest.raises(PerftInterrupted):
        board.perft(6, stop)
    assert board.fen() == Board().fen()  # unwound cleanly
    assert board.perft(0) == 1 and board.perft_divide(0) == ([], 1)
    assert board.perft(3, PerftStop()) == 8902
