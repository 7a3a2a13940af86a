"""The variants' rules in the C engine against python-chess's chess.variant.

For each variant the engine plays (king of the hill, three-check, racing
kings, horde, antichess, atomic and crazyhouse): perft from the start
position at depth 4 and from 100 positions of seeded random games at
depth 3, each equal to python-chess's;
the legal move set, the FEN and the incrementally kept Zobrist key checked
after every move of random games; and the variant's game end.
"""

from __future__ import annotations

import random

import chess
import chess.variant
import pytest

from bot.engine.board import Board
from bot.engine.exceptions import FenError, VariantError
from bot.variants import ENGINE_BOARDS

VARIANTS = ENGINE_BOARDS  # UCI_Variant name -> python-chess board (bot/variants.py)
RANDOM_POSITIONS = 100
GAMES = 30


def ref_perft(board: chess.Board, depth: int) -> int:
    """python-chess perft, counting the legal moves at the last ply."""
    if depth == 0:
        return 1
    moves = list(board.legal_moves)
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        board.push(move)
        total += ref_perft(board, depth - 1)
        board.pop()
    return total


def ref_fen(board: chess.Board) -> str:
    # The engine writes an en-passant square when a pawn could take
    # (pseudo-legally), as python-chess's X-FEN option does.
    return board.fen(en_passant="xfen")


def random_games(cls: type[chess.Board], seed: int, games: int, max_plies: int = 160):
    """(python-chess board, moves from the start) after every ply of seeded random games."""
    rng = random.Random(seed)
    for _ in range(games):
        board = cls()
        moves: list[chess.Move] = []
        while len(moves) < max_plies:
            legal = list(board.legal_moves)
            if not legal:
                break
            move = rng.choice(legal)
            board.push(move)
            moves.append(move)
            yield board, moves


@pytest.mark.parametrize("variant", VARIANTS)
def test_start_position_and_perft_4(variant: str) -> None:
    ref = VARIANTS[variant]()
    ours = Board(variant=variant)
    assert ours.fen() == ref_fen(ref)
    assert ours.perft(4) == ref_perft(ref, 4)


@pytest.mark.parametrize("variant", VARIANTS)
def test_perft_3_from_random_game_positions(variant: str) -> None:
    cls = VARIANTS[variant]
    rng = random.Random(f"perft {variant}")
    positions = [board.copy(stack=False) for board, _ in random_games(cls, 7, 40)]
    sample = rng.sample(positions, RANDOM_POSITIONS)
    for ref in sample:
        ours = Board(ref.fen(), variant=variant)
        assert ours.perft(3) == ref_perft(ref, 3), ref.fen()


@pytest.mark.parametrize("variant", VARIANTS)
def test_legal_moves_fen_and_key_along_random_games(variant: str) -> None:
    cls = VARIANTS[variant]
    ours = Board(variant=variant)
    last_len = 0
    ends = 0
    for ref, moves in random_games(cls, 11, GAMES):
        if len(moves) < last_len:            # a new game began
            ours = Board(variant=variant)
            for move in moves[:-1]:
                ours.push_uci(move.uci())
        last_len = len(moves)
        ours.push_uci(moves[-1].uci())
        assert ours.fen() == ref_fen(ref), moves
        assert sorted(ours.legal_moves()) == sorted(m.uci() for m in ref.legal_moves), ref.fen()
        assert ours.key() == ours.computed_key()
        # A FEN read back gives the same position and key.
        assert Board(ours.fen(), variant=variant).key() == ours.key()
        if ref.is_variant_end():
            ends += 1
            assert ours.status() == "variant_end"
    # pop() undoes the variant's state too (three-check's counters).
    for _ in range(last_len):
        ours.pop()
    assert ours.fen() == Board(variant=variant).fen()
    assert ours.key() == Board(variant=variant).key()
    if variant in ("kingofthehill", "3check", "atomic"):   # random games of the others rarely end
        assert ends > 0


def test_names_as_lichess_and_fairy_stockfish_write_them() -> None:
    for name in ("kingOfTheHill", "KingOfTheHill", "kingofthehill"):
        assert Board(variant=name).variant == "kingofthehill"
    for name in ("threeCheck", "3check"):
        assert Board(variant=name).variant == "3check"
    assert Board(variant="racingKings").variant == "racingkings"


def test_horde_pawns_step_twice_from_the_first_rank_without_an_en_passant_square() -> None:
    fen = "4k3/8/8/8/8/2p5/8/1P6 w - - 0 1"
    ours, ref = Board(fen, variant="horde"), chess.variant.HordeBoard(fen)
    expected = sorted(m.uci() for m in ref.legal_moves)
    assert sorted(ours.legal_moves()) == expected == ["b1b2", "b1b3"]
    ours.push_uci("b1b3")
    ref.push_uci("b1b3")
    assert ours.fen() == ref_fen(ref) == "4k3/8/8/8/8/1Pp5/8/8 b - - 0 1"
    assert ours.key() == ours.computed_key()
    # The horde is captured: the game is over.
    done = Board("4k3/8/8/8/8/8/8/8 w - - 0 1", variant="horde")
    assert done.legal_moves() == [] and done.status() == "variant_end"


def test_antichess_captures_are_forced_and_a_pawn_may_become_a_king() -> None:
    fen = "8/4P3/8/8/8/8/8/k7 w - - 0 1"
    ours, ref = Board(fen, variant="antichess"), chess.variant.AntichessBoard(fen)
    assert sorted(ours.legal_moves()) == sorted(m.uci() for m in ref.legal_moves)
    assert "e7e8k" in ours.legal_moves()
    ours.push_uci("e7e8k")
    assert ours.fen() == "4K3/8/8/8/8/8/8/k7 b - - 0 1"
    assert ours.key() == ours.computed_key()
    ours.pop()
    assert ours.fen() == fen
    forced = Board("8/8/8/8/3p4/4P3/8/k6K w - - 0 1", variant="antichess")
    assert forced.legal_moves() == ["e3d4"]


def test_atomic_explosions_and_their_undo() -> None:
    # Nxd7 blows up the knight, the bishop c8, the queen d8 and the king e8 (not
    # the pawns): White wins. The king may not take; kings that touch never check.
    fen = "rnbqkbnr/pppppppp/8/2N5/8/8/PPPPPPPP/R1BQKBNR w KQkq - 0 1"
    ours, ref = Board(fen, variant="atomic"), chess.variant.AtomicBoard(fen)
    ours.push_uci("c5d7")
    ref.push_uci("c5d7")
    assert ours.fen() == ref_fen(ref)
    assert ours.status() == "variant_end" and ours.legal_moves() == []
    assert ours.key() == ours.computed_key()
    ours.pop()
    assert ours.fen() == fen and ours.key() == ours.computed_key()
    touching = Board("8/8/8/3kK3/8/8/8/7q w - - 0 1", variant="atomic")
    assert not touching.is_check()


def test_three_check_counts_in_both_fen_forms() -> None:
    fen = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 1+2 0 3"
    lichess = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3 +2+1"
    assert Board(fen, variant="3check").fen() == fen
    assert Board(lichess, variant="3check").fen() == fen
    assert chess.variant.ThreeCheckBoard(lichess).fen() == fen
    # The third check ends the game: no legal moves, a variant end.
    done = Board("4k3/8/8/8/8/8/8/4K2R w K - 0+2 0 1", variant="3check")
    assert done.legal_moves() == []
    assert done.status() == "variant_end"


@pytest.mark.parametrize("variant, fen", [
    ("3check", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 4+3 0 1"),
    ("3check", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 +x+0"),
    ("racingkings", "8/8/8/8/8/8/krbnNBRK/qrbnNBRQ w K - 0 1"),
    ("racingkings", "8/8/8/8/8/8/krbnNBRP/qrbnNBRK w - - 0 1"),
    ("racingkings", "8/8/8/8/8/7r/k1bnNBRK/qrbnNBRQ w - - 0 1"),  # white in check
    ("kingofthehill", "8/8/8/8/8/8/8/8 w - - 0 1"),
    ("antichess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
    ("horde", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),   # a white king
    ("horde", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/PPPPPPPP w KQkq - 0 1"),   # white castling
    ("horde", "rnbqkbPr/pppppppp/8/8/8/8/PPPPPPPP/PPPPPPPP b q - 0 1"),      # a pawn on rank 8
])
def test_an_illegal_fen_for_the_variant_is_a_fen_error(variant: str, fen: str) -> None:
    with pytest.raises(FenError):
        Board(fen, variant=variant)


@pytest.mark.parametrize("variant", ["nosuchvariant", "atomic-ish"])
def test_an_unknown_variant_is_a_variant_error(variant: str) -> None:
    with pytest.raises(VariantError):
        Board(variant=variant)


def test_crazyhouse_pockets_drops_and_promoted_pieces() -> None:
    # A promoted queen (~) captured goes to the pocket as a pawn; drops as P@e4.
    fen = "r3k2r/8/8/8/8/8/8/R2QK2R[Nn] b KQkq - 0 1"
    ref = chess.variant.CrazyhouseBoard("r3k2r/8/8/8/8/8/8/R2Q~K2R[Nn] b KQkq - 0 1")
    ours = Board("r3k2r/8/8/8/8/8/8/R2Q~K2R[Nn] b KQkq - 0 1", variant="crazyhouse")
    assert ours.fen() == ref_fen(ref)
    assert Board(fen, variant="crazyhouse").key() != ours.key()     # the mark is in the key
    for uci in ("a8a1", "d1a1", "n@b3", "e1g1", "b3a1"):   # (lower-case drop letters are read too)
        ours.push_uci(uci)
        ref.push_uci(uci)
        assert ours.fen() == ref_fen(ref)
        assert sorted(ours.legal_moves()) == sorted(m.uci() for m in ref.legal_moves)
        assert ours.key() == ours.computed_key()
    assert ours.fen() == "4k2r/8/8/8/8/8/8/n4RK1[RNrp] w k - 0 4"   # the queen~ went back as a pawn
    assert "P@e4" not in ours.legal_moves()
    black_to_move = Board(ours.fen().replace(" w ", " b "), variant="crazyhouse")
    assert "P@e4" in black_to_move.legal_moves()
    for _ in range(5):
        ours.pop()
    assert ours.fen() == "r3k2r/8/8/8/8/8/8/R2Q~K2R[Nn] b KQkq - 0 1"
    assert ours.key() == ours.computed_key()
    # Drops block a check (and only then), never a pawn on the first or last rank.
    check = Board("4k3/8/8/8/8/8/8/r3K3[Pp] w - - 0 1", variant="crazyhouse")
    ref = chess.variant.CrazyhouseBoard("4k3/8/8/8/8/8/8/r3K3[Pp] w - - 0 1")
    assert sorted(check.legal_moves()) == sorted(m.uci() for m in ref.legal_moves)
    assert not any("@" in m for m in check.legal_moves())   # a1-e1 is a rank where pawns may not go
    check = Board("4k3/8/8/8/8/8/8/r3K3[Nn] w - - 0 1", variant="crazyhouse")
    assert sorted(m for m in check.legal_moves() if "@" in m) == ["N@b1", "N@c1", "N@d1"]
    # The Lichess form and python-chess's ninth rank read the same.
    ninth_rank = Board("4k3/8/8/8/8/8/8/4K3/Qp w - - 0 1", variant="crazyhouse")
    assert ninth_rank.fen() == "4k3/8/8/8/8/8/8/4K3[Qp] w - - 0 1"


def test_crazyhouse_threefold_counts_the_pockets() -> None:
    ours = Board("4k3/8/8/8/8/8/8/4K3[Nn] w - - 0 1", variant="crazyhouse")
    for _ in range(2):
        for uci in ("e1d1", "e8d8", "d1e1", "d8e8"):
            ours.push_uci(uci)
    assert ours.status() == "threefold"
    ours.pop()
    assert ours.status() == "ongoing"


@pytest.mark.parametrize("fen", [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[K] w KQkq - 0 1",       # a king in the pocket
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[x] w KQkq - 0 1",       # not a piece
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[P w KQkq - 0 1",        # unclosed
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNRP] w KQkq - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Q] w KQkq - 0 1",       # 33 men
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[QQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQ] w KQkq - 0 1",
    "rnbqk~bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1",      # ~ after a king
    "rnbqkbnr/ppp~ppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1",      # ~ after a pawn
    "~rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/P/p w KQkq - 0 1",
    "Pnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/1NBQKBNR[] w Kkq - 0 1",         # a pawn on the 8th rank
])
def test_an_illegal_crazyhouse_fen_is_a_fen_error(fen: str) -> None:
    with pytest.raises(FenError):
        Board(fen, variant="crazyhouse")


def test_crazyhouse_perft_5_from_the_start() -> None:
    # Depth 5 is the first where drops count (python-chess needs minutes for it;
    # 4888832 is the published crazyhouse figure, Fairy-Stockfish's too).
    assert Board(variant="crazyhouse").perft(5) == 4888832


def test_crazyhouse_a_position_with_341_moves() -> None:
    # More than standard's old MAX_MOVES (256): drops of all five types.
    fen = "K7/8/1R4Q1/8/3Q2Bk/6R1/2N5/8[QRBNPppp] w - - 0 1"
    ref = chess.variant.CrazyhouseBoard(fen)
    ours = Board(fen, variant="crazyhouse")
    assert sorted(ours.legal_moves()) == sorted(m.uci() for m in ref.legal_moves)
    assert len(ours.legal_moves()) == 341
    assert ours.perft(2) == ref_perft(ref, 2)
