"""Perft through the cffi binding: standard positions, the 124-position suite, Chess960."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest
from conftest import read_epd

from bot.engine import Board

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
