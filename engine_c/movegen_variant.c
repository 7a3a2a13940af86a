/* movegen_variant.c — the legal moves of the variants (movegen.h), built on
 * the standard generator: movegen_legal comes here only when b->variant is
 * not VAR_STANDARD, so nothing here costs standard chess anything. */
#include "movegen.h"
#include "attacks.h"
#include "bitboard.h"

static const Bitboard CenterBB = 0x0000001818000000ULL;   /* d4 e4 d5 e5 */

/* Racing kings: the game is over once a king is on the eighth rank, except
 * that after White arrives Black gets one move to arrive too (a draw). As
 * python-chess's RacingKingsBoard.is_variant_end. */
static bool race_over(const Board *b) {
    if (!(b->by_type[KING] & RANK_8_BB)) return false;
    Bitboard bk = board_pieces(b, BLACK, KING);
    if (b->side == WHITE || (bk & RANK_8_BB) || !bk) return true;
    Bitboard targets = KingAttacks[lsb(bk)] & RANK_8_BB & ~b->by_color[BLACK];
    while (targets) {
        int t = pop_lsb(&targets);
        if (!board_sq_attacked(b, t, WHITE, b->by_type[0])) return false;
    }
    return true;
}

bool movegen_variant_end(const Board *b) {
    switch (b->variant) {
    case VAR_KOTH: return (b->by_type[KING] & CenterBB) != 0;
    case VAR_THREECHECK: return !b->checks_left[WHITE] || !b->checks_left[BLACK];
    case VAR_RACINGKINGS: return race_over(b);
    default: return false;
    }
}

/* Would m check the opponent's king? For racing kings only: no pawns, no
 * castling, no en passant, so a move just takes its piece from `from` to `to`. */
static bool race_gives_check(const Board *b, Move m) {
    int us = b->side, from = move_from(m), to = move_to(m);
    int ksq = board_king_sq(b, !us);
    Bitboard mv = sq_bb(from) | sq_bb(to);
    Bitboard occ = (b->by_type[0] ^ sq_bb(from)) | sq_bb(to);
    Bitboard ours[7];
    for (int t = KNIGHT; t <= KING; t++) ours[t] = board_pieces(b, us, t);
    ours[piece_type(b->squares[from])] ^= mv;
    return (KnightAttacks[ksq] & ours[KNIGHT]) || (KingAttacks[ksq] & ours[KING]) ||
           (rook_attacks(ksq, occ) & (ours[ROOK] | ours[QUEEN])) ||
           (bishop_attacks(ksq, occ) & (ours[BISHOP] | ours[QUEEN]));
}

int movegen_variant_legal(const Board *b, MoveList *list, int kind) {
    if (movegen_variant_end(b)) return 0;
    int start = list->count;
    int n = movegen_chess(b, list, kind);
    if (b->variant == VAR_RACINGKINGS) {
        /* No move may give check. */
        int keep = start;
        for (int i = start; i < start + n; i++)
            if (!race_gives_check(b, list->moves[i])) list->moves[keep++] = list->moves[i];
        list->count = keep;
        n = keep - start;
    }
    return n;
}
