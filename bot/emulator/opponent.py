"""Move choice for the built-in opponent (a python-chess player, no engine)."""

from __future__ import annotations

import logging
import random

import chess
import chess.variant

from bot.emulator.config import OpponentSpec

log = logging.getLogger(__name__)

PIECE_VALUES = {
    chess.PAWN: 1,
    chess.KNIGHT: 3,
    chess.BISHOP: 3,
    chess.ROOK: 5,
    chess.QUEEN: 9,
    chess.KING: 0,
}


def _material(board: chess.Board, color: chess.Color) -> int:
    total = 0
    for piece_type, value in PIECE_VALUES.items():
        total += value * len(board.pieces(piece_type, color))
        total -= value * len(board.pieces(piece_type, not color))
    return total


def _greedy(board: chess.Board, rng: random.Random) -> chess.Move:
    """1-ply: mate (or a variant's win: the hill, the third check, an exploded
    king...) if possible, else the best material balance (antichess: the least
    material), random tie-break."""
    me = board.turn
    sign = -1 if isinstance(board, chess.variant.AntichessBoard) else 1
    best: list[chess.Move] = []
    best_score = -(10**9)
    for move in board.legal_moves:
        board.push(move)
        if board.is_checkmate() or board.is_variant_loss():
            score = 10**6
        else:
            score = sign * _material(board, me)
        board.pop()
        if score > best_score:
            best_score, best = score, [move]
        elif score == best_score:
            best.append(move)
    return rng.choice(best)


def choose_move(
    board: chess.Board, spec: OpponentSpec, moves_made: int, rng: random.Random
) -> chess.Move:
    """The opponent's next move; `moves_made` counts its own earlier moves."""
    if spec.policy == "scripted" and moves_made < len(spec.moves):
        uci = spec.moves[moves_made]
        try:
            move = board.parse_uci(uci)
        except ValueError:
            log.warning("scripted move %s is illegal here (%s); playing random", uci, board.fen())
        else:
            return move
    if spec.policy == "greedy":
        return _greedy(board, rng)
    return rng.choice(list(board.legal_moves))
