/* see.c — static exchange evaluation (threshold form, as in Stockfish). */
#include "see.h"
#include "attacks.h"
#include "bitboard.h"

const int SeeValue[8] = {0, 100, 320, 330, 500, 950, 0, 0};

bool see_ge(const Board *b, Move m, int threshold) {
    int kind = move_kind(m);
    if (kind == MOVE_CASTLE) return threshold <= 0;
    int from = move_from(m), to = move_to(m);
    int captured = kind == MOVE_EP ? PAWN : piece_type(board_piece_on(b, to));
    int swap = SeeValue[captured] - threshold;
    if (kind == MOVE_PROMO) swap += SeeValue[move_promo(m)] - SeeValue[PAWN];
    if (swap < 0) return false;
    int moving = kind == MOVE_PROMO ? move_promo(m) : piece_type(board_piece_on(b, from));
    swap = SeeValue[moving] - swap;
    if (swap <= 0) return true;

    Bitboard occ = b->by_type[0] ^ sq_bb(from) ^ sq_bb(to);
    if (kind == MOVE_EP) occ ^= sq_bb(to + (b->side == WHITE ? -8 : 8));
    int stm = b->side;
    Bitboard attackers = board_attackers_to(b, to, occ) & occ;
    Bitboard bishops = b->by_type[BISHOP] | b->by_type[QUEEN];
    Bitboard rooks = b->by_type[ROOK] | b->by_type[QUEEN];
    int res = 1;
    for (;;) {
        stm ^= 1;
        attackers &= occ;
        Bitboard mine = attackers & b->by_color[stm];
        if (!mine) break;
        res ^= 1;
        Bitboard bb;
        if ((bb = mine & b->by_type[PAWN])) {
            if ((swap = SeeValue[PAWN] - swap) < res) break;
            occ ^= sq_bb(lsb(bb));
            attackers |= bishop_attacks(to, occ) & bishops;
        } else if ((bb = mine & b->by_type[KNIGHT])) {
            if ((swap = SeeValue[KNIGHT] - swap) < res) break;
            occ ^= sq_bb(lsb(bb));
        } else if ((bb = mine & b->by_type[BISHOP])) {
            if ((swap = SeeValue[BISHOP] - swap) < res) break;
            occ ^= sq_bb(lsb(bb));
            attackers |= bishop_attacks(to, occ) & bishops;
        } else if ((bb = mine & b->by_type[ROOK])) {
            if ((swap = SeeValue[ROOK] - swap) < res) break;
            occ ^= sq_bb(lsb(bb));
            attackers |= rook_attacks(to, occ) & rooks;
        } else if ((bb = mine & b->by_type[QUEEN])) {
            if ((swap = SeeValue[QUEEN] - swap) < res) break;
            occ ^= sq_bb(lsb(bb));
            attackers |= (bishop_attacks(to, occ) & bishops) | (rook_attacks(to, occ) & rooks);
        } else {
            /* King: it may only capture if the other side has no attacker left. */
            return (attackers & ~b->by_color[stm]) ? res ^ 1 : res;
        }
    }
    return res;
}
