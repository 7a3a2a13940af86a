"""Static evaluation through the real cffi engine (engine_c/eval.c).

Symmetry is the main invariant: eval(position) must equal eval(colour-flipped
position), both from the side to move's view, for every position. The
positions come from seeded random playouts, so the test is reproducible.
"""

from __future__ import annotations

import random

import chess
import pytest

from bot._engine import ffi, lib

PB_ERR_FEN = -1


def evaluate(fen: str) -> int:
    out = ffi.new("int *")
    rc = lib.pb_eval_fen(fen.encode(), out)
    assert rc == 0, f"pb_eval_fen failed ({rc}) for {fen}"
    return int(out[0])


def detail(fen: str) -> tuple[int, int, int]:
    out, phase, scale = ffi.new("int *"), ffi.new("int *"), ffi.new("int *")
    assert lib.pb_eval_fen_detail(fen.encode(), out, phase, scale) == 0
    return int(out[0]), int(phase[0]), int(scale[0])


def random_positions(games: int, seed: int) -> list[chess.Board]:
    """Positions of every phase: random playouts biased toward captures so
    that endgames (where scaling and passed-pawn terms fire) show up."""
    rng = random.Random(seed)
    boards: list[chess.Board] = []
    for _ in range(games):
        board = chess.Board()
        for ply in range(200):
            moves = list(board.legal_moves)
            if not moves or board.is_game_over():
                break
            captures = [m for m in moves if board.is_capture(m)]
            pool = captures if captures and rng.random() < 0.6 else moves
            board.push(rng.choice(pool))
            if ply % 3 == 0:
                boards.append(board.copy(stack=False))
    return boards


POSITIONS = random_positions(40, seed=20261122)


def test_positions_cover_all_phases() -> None:
    phases = {detail(b.fen())[1] for b in POSITIONS}
    assert min(phases) <= 4 and max(phases) == 24


def test_colour_flip_symmetry() -> None:
    mismatches = []
    for board in POSITIONS:
        fen, flipped = board.fen(), board.mirror().fen()
        a, b = evaluate(fen), evaluate(flipped)
        if a != b:
            mismatches.append((fen, a, b))
    assert not mismatches, f"{len(mismatches)} asymmetric positions, first: {mismatches[0]}"


@pytest.mark.parametrize(
    "fen",
    [
        "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 0 9",
        "8/2k5/8/1pP5/1P6/8/5K2/8 w - b6 0 1",
        "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    ],
)
def test_symmetry_on_known_positions(fen: str) -> None:
    assert evaluate(fen) == evaluate(chess.Board(fen).mirror().fen())


def test_deterministic() -> None:
    fens = [b.fen() for b in POSITIONS[:50]]
    assert [evaluate(f) for f in fens] == [evaluate(f) for f in fens]


def test_start_position_is_roughly_level() -> None:
    value, phase, scale = detail(chess.STARTING_FEN)
    assert phase == 24 and scale == 128
    assert 0 <= value <= 40  # just the tempo bonus


def test_material_dominates() -> None:
    up_a_queen = "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    assert evaluate(up_a_queen) > 700
    black_view = "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1"
    assert evaluate(black_view) < -700


@pytest.mark.parametrize(
    "fen",
    [
        "8/8/4k3/8/8/3K4/8/8 w - - 0 1",          # bare kings
        "8/8/4k3/8/8/3KB3/8/8 w - - 0 1",         # KB v K
        "8/8/4k3/8/8/3KN3/8/8 b - - 0 1",         # KN v K
        "8/8/4k3/8/8/2NKN3/8/8 w - - 0 1",        # KNN v K: cannot force mate
        "8/8/3nk3/8/8/3KB3/8/8 w - - 0 1",        # minor v minor, no pawns
    ],
)
def test_drawn_material_is_zero(fen: str) -> None:
    assert evaluate(fen) == 0


def test_drawish_endgames_are_scaled() -> None:
    # a rook up with no pawns wins; a bishop "up" against a rook does not
    assert detail("8/8/4k3/8/8/3K3R/8/8 w - - 0 1")[2] == 128
    assert detail("8/8/4k3/3b4/8/3K3R/8/8 w - - 0 1")[2] < 64
    # opposite-coloured bishops with a pawn more
    ocb = "8/5k2/3b4/8/2P5/1P1B4/5K2/8 w - - 0 1"
    assert detail(ocb)[2] < 128


def test_passed_pawn_value_grows_with_rank() -> None:
    def pawn_on(rank: int) -> str:
        board = chess.Board("4k3/8/8/8/8/8/8/4K3 w - - 0 1")
        board.set_piece_at(chess.square(0, rank), chess.Piece(chess.PAWN, chess.WHITE))
        return board.fen()

    # from the 3rd rank on (the PeSTO-derived tables value a pawn on the
    # 2nd rank about as much as on the 3rd: it is often still a defender)
    values = [evaluate(pawn_on(rank)) for rank in range(2, 7)]
    assert values == sorted(values) and values[0] > 0, values
    assert evaluate(pawn_on(6)) > evaluate(pawn_on(1)) + 100


def test_bad_fen_is_an_error_code() -> None:
    out = ffi.new("int *")
    assert lib.pb_eval_fen(b"not a fen", out) == PB_ERR_FEN
    assert lib.pb_eval_fen(ffi.NULL, out) != 0


def test_weights_table_size() -> None:
    assert lib.pb_eval_nparams() > 500
