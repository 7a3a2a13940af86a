"""Cross-check legal move generation against python-chess over random playouts."""

from __future__ import annotations

import random

import chess

from bot.engine import Board

STATUS = {
    "checkmate": lambda b: b.is_checkmate(),
    "stalemate": lambda b: b.is_stalemate(),
    "insufficient": lambda b: b.is_insufficient_material(),
}


def _compare_playouts(games: int, chess960: bool, seed: int) -> int:
    rng = random.Random(seed)
    positions = 0
    for g in range(games):
        if chess960:
            ref = chess.Board.from_chess960_pos(rng.randrange(960))
            ref.chess960 = True
        else:
            ref = chess.Board()
        ours = Board(ref.fen(), chess960=chess960)
        for _ply in range(rng.randrange(40, 160)):
            expected = sorted(m.uci() for m in ref.legal_moves)
            got = sorted(ours.legal_moves())
            assert got == expected, f"game {g}: {ref.fen()}"
            assert ours.fen() == ref.fen(en_passant="xfen"), ref.fen()
            assert ours.is_check() == ref.is_check()
            positions += 1
            if not expected:
                assert ours.status() == ("checkmate" if ref.is_check() else "stalemate")
                break
            if ref.is_insufficient_material():
                assert ours.status() == "insufficient"
            # Prefer captures and promotions now and then to reach odd endgames.
            captures = [m for m in ref.legal_moves if ref.is_capture(m) or m.promotion]
            move = rng.choice(captures) if captures and rng.random() < 0.4 else rng.choice(
                list(ref.legal_moves))
            ref.push(move)
            ours.push_uci(move.uci())
    return positions


def test_standard_random_playouts_match_python_chess() -> None:
    assert _compare_playouts(games=60, chess960=False, seed=11) > 3000


def test_chess960_random_playouts_match_python_chess() -> None:
    assert _compare_playouts(games=60, chess960=True, seed=12) > 3000


def test_standard_castling_accepts_both_notations() -> None:
    fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
    for move in ("e1g1", "e1h1"):
        b = Board(fen)
        b.push_uci(move)
        assert b.fen().startswith("r3k2r/8/8/8/8/8/8/R4RK1 b kq")


def test_chess960_castling_is_king_takes_rook() -> None:
    b = Board("4k3/8/8/8/8/8/8/RK5R w HA - 0 1", chess960=True)
    assert {"b1a1", "b1h1"} <= set(b.legal_moves())
    b.push_uci("b1a1")
    assert b.fen() == "4k3/8/8/8/8/8/8/2KR3R b - - 1 1"
    # Rooks between king and destination block castling.
    blocked = Board("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
                    chess960=True)
    assert not {"g1h1", "g1f1"} & set(blocked.legal_moves())
