"""Strict FEN parsing and move-string handling: errors, never crashes."""

from __future__ import annotations

import random

import pytest

from bot.engine import Board
from bot.engine.exceptions import EngineError, FenError, IllegalMoveError

pytestmark = pytest.mark.arm64  # scripts/arm64-check.sh runs these on arm64

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

BAD_FENS = {
    "empty": ("", "empty"),
    "missing fields": ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq", "fields"),
    "five fields": ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0", "fields"),
    "seven fields": (START + " extra", "too many fields"),
    "seven ranks": ("rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "ranks"),
    "nine ranks": ("rnbqkbnr/pppppppp/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "ranks"),
    "short rank": ("rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "squares"),
    "long rank": ("rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "squares"),
    "digit overflow": ("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "character"),
    "two digits": ("rnbqkbnr/pppppppp/44/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "two digits"),
    "bad piece": ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1", "character"),
    "no white king": ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQQBNR w kq - 0 1", "kings"),
    "two black kings": ("rnbkkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1", "kings"),
    "no kings": ("8/8/8/8/8/8/8/8 w - - 0 1", "kings"),
    "pawn on rank 8": ("rnbqkbnP/pppppppp/8/8/8/8/PPPPPPP1/RNBQKBNR w KQq - 0 1", "pawn"),
    "bad side": ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "side to move"),
    "bad castling char": ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkx - 0 1", "castling"),
    "castling no rook": ("rnbqkbn1/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "rook"),
    "castling king moved": ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w KQkq - 0 1", "kings"),
    "castling king off square": ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1KNR w KQkq - 0 1",
                                 "castling"),
    "duplicate castling": ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KKkq - 0 1", "twice"),
    "bad ep square": ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1", "en passant"),
    "ep wrong rank": ("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e4 0 1", "en passant"),
    "ep without push": ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq e3 0 1", "en passant"),
    "negative halfmove": ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 1", "halfmove"),
    "huge halfmove": ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 99999999999 1",
                      "halfmove"),
    "zero fullmove": ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0", "fullmove"),
    "opponent in check": ("4k3/8/8/8/8/8/4R3/4K3 b - - 0 1", None),
    "side not to move in check": ("4k3/4R3/8/8/8/8/8/4K3 w - - 0 1", "not to move"),
    "triple check": ("4k3/8/3N1N2/8/8/8/8/K3R3 b - - 0 1", "more than two"),
}


@pytest.mark.parametrize("name", sorted(BAD_FENS))
def test_malformed_fen_is_a_clear_error(name: str) -> None:
    fen, fragment = BAD_FENS[name]
    if fragment is None:  # a legal position after all (black to move, in check)
        assert Board(fen).is_check()
        return
    with pytest.raises(FenError) as info:
        Board(fen)
    assert fragment in str(info.value), str(info.value)


def test_failed_set_fen_leaves_board_unchanged() -> None:
    b = Board()
    b.push_uci("e2e4")
    before = b.fen()
    with pytest.raises(FenError):
        b.set_fen("garbage")
    assert b.fen() == before


def test_fen_round_trip_and_four_field_fens() -> None:
    fens = [START, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"]
    for fen in fens:
        assert Board(fen).fen() == fen
    assert Board("8/8/8/8/8/8/8/K6k w - -").fen() == "8/8/8/8/8/8/8/K6k w - - 0 1"


def test_shredder_and_xfen_castling_fields() -> None:
    b = Board("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", chess960=True)
    # X-FEN output: both rooks are the outermost on their side of the king.
    assert b.fen().split()[2] == "KQkq"
    inner = Board("1r2k1r1/8/8/8/8/8/8/RR2K2R w BHg - 0 1", chess960=True)
    assert inner.fen().split()[2] == "KBk"
    with pytest.raises(FenError, match="Chess960"):
        Board("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9")


@pytest.mark.parametrize("move", ["", "e2", "e2e4e", "e2e9", "i2i4", "e7e5", "e2e5", "e1g1",
                                  "e2e4\0", "0000", "a7a8q", "e2e4 ", "E2E4", "\u00e92e4"])
def test_bad_move_strings_raise(move: str) -> None:
    b = Board()
    with pytest.raises(EngineError):
        b.push_uci(move)
    assert b.fen() == START


def test_illegal_move_message_names_the_move_and_position() -> None:
    with pytest.raises(IllegalMoveError, match="'e2e5' is not a legal move"):
        Board().push_uci("e2e5")


def test_random_garbage_fens_never_crash() -> None:
    rng = random.Random(5)
    alphabet = "rnbqkpRNBQKP12345678/ -wbKQkqa-h0123456789x"
    accepted = 0
    for _ in range(20000):
        base = list(START)
        for _ in range(rng.randrange(1, 4)):
            pos = rng.randrange(len(base))
            op = rng.random()
            if op < 0.4:
                base[pos] = rng.choice(alphabet)
            elif op < 0.7:
                del base[pos]
            else:
                base.insert(pos, rng.choice(alphabet))
        text = "".join(base)
        try:
            b = Board(text)
        except FenError:
            continue
        accepted += 1
        b.legal_moves()
        b.fen()
    assert accepted > 0


def test_pop_on_fresh_board_is_an_error() -> None:
    with pytest.raises(EngineError):
        Board().pop()


def test_non_string_input_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        Board().push_uci(42)  # type: ignore[arg-type]
