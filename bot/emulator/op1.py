"""The Lichess tablebase's partial 8-piece answers ("op1"), as lila-tablebase
gives them (lichess-org/lila-tablebase at a06a88b, 2026-03-07):

* src/op1.rs `use_op1` (the default `dtc=auxiliary` mode of src/request.rs): a
  standard position with exactly 8 pieces, no castling rights, a white pawn
  with a black pawn ahead of it on its file (`is_op1`), and each side more
  than a lone pawn (`more_than_lone_pawn`, lila-tablebase 53d3d09). It is asked
  when the position or any position after one legal move is such, on the same
  `/standard` route (src/main.rs has no other).
* its answer is DTC (depth to conversion, `dtc`), never DTZ: src/response.rs
  `with_dtc` turns it into a category (`maybe-win`/`maybe-loss` where the
  50-move rule cannot be ruled out), src/tablebases.rs `probe` gives each
  move's DTC with the position's halfmove clock before it, the position's with
  one ply less, and the position's category is the best move's negated.

The emulator has no op1 tables: a test gives the DTC values of a position
(OnlineData.set_op1), as the op1 backend would.
"""

from __future__ import annotations

import chess

OP1_PIECES = 8

NEGATE = {"loss": "win", "syzygy-loss": "syzygy-win", "maybe-loss": "maybe-win",
          "blessed-loss": "cursed-win", "draw": "draw", "unknown": "unknown"}
NEGATE.update({v: k for k, v in NEGATE.items()})


def is_op1(board: chess.Board) -> bool:
    """A white pawn with a black pawn 1 to 5 ranks ahead of it on its file
    (op1.rs `is_op1`: the white pawns shifted up by 8..40 squares)."""
    white = board.pawns & board.occupied_co[chess.WHITE]
    black = board.pawns & board.occupied_co[chess.BLACK]
    paths = 0
    for ranks in range(1, 6):
        paths |= (white << (8 * ranks)) & chess.BB_ALL
    return bool(paths & black)


def more_than_lone_pawn(board: chess.Board, color: chess.Color) -> bool:
    mine = board.occupied_co[color]
    return chess.popcount(board.pawns & mine) > 1 or bool(mine & ~board.kings & ~board.pawns)


def use_op1(board: chess.Board) -> bool:
    """op1.rs `use_op1` in the auxiliary mode (what the API uses by default)."""
    if type(board) is not chess.Board or board.castling_rights:
        return False
    return chess.popcount(board.occupied) == OP1_PIECES and is_op1(board) \
        and more_than_lone_pawn(board, chess.WHITE) and more_than_lone_pawn(board, chess.BLACK)


def asked(board: chess.Board) -> bool:
    """op1.rs `probe_dtc`: the op1 backend is asked for the position and its
    moves when the position or any child is an op1 position (8 or 9 pieces)."""
    if type(board) is not chess.Board or not OP1_PIECES <= chess.popcount(board.occupied) <= 9:
        return False
    if use_op1(board):
        return True
    for move in board.legal_moves:
        board.push(move)
        hit = use_op1(board)
        board.pop()
        if hit:
            return True
    return False


def zeroing_is_conversion(board: chess.Board) -> bool:
    """op1.rs: every pawn is blocked or about to promote, so DTC and DTZ agree."""
    for color, shift in ((chess.WHITE, 8), (chess.BLACK, -8)):
        pawns = board.pawns & board.occupied_co[color]
        ahead = (pawns << shift if shift > 0 else pawns >> -shift) & chess.BB_ALL
        last = chess.BB_RANK_8 if color == chess.WHITE else chess.BB_RANK_1
        if ahead & ~(board.pawns | last):
            return False
    return True


def dtc_category(dtc: int, halfmoves: int, halfmoves_before: int, zic: bool) -> str:
    """response.rs `with_dtc` for a position with a DTC and no DTZ (no game end)."""
    if dtc == 0:
        return "draw"
    if halfmoves_before >= 100:
        return "blessed-loss" if dtc < 0 else "cursed-win"
    # Dtc.assume_zeroing_is_conversion (x2: plies), then add_plies_saturating.
    n = dtc * 2 + (halfmoves if dtc > 0 else -halfmoves)
    if n < -100:
        return "blessed-loss" if zic else "maybe-loss"
    if n < 0:
        return "maybe-loss"
    if n <= 100:
        return "maybe-win"
    return "cursed-win" if zic else "maybe-win"
