/* see.c — static exchange evaluation (threshold form, as in Stockfish). */
#include "see.h"
#include "attacks.h"
#include "bitboard.h"

const int SeeValue[8] = {0, 100, 320, 330, 500, 950, 0, 0};

/* The recaptures on `to` once the first move is made: `swap` is what the
 * side that moved still stands to lose (> 0), occ the occupancy after the
 * move. Inlined into each caller. */
static inline __attribute__((always_inline)) bool see_exchange(const Board *b, int to, Bitboard occ, int swap) {
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
    return see_exchange(b, to, occ, swap);
}

/* ---------- variants (the search's variant copy calls see_ge_variant) ---------- */

/* Crazyhouse: a drop captures nothing and promotes nothing (the drop of a
 * piece is coded as a promotion); what it risks is the dropped man. */
static bool see_ge_drop(const Board *b, Move m, int threshold) {
    int swap = -threshold;
    if (swap < 0) return false;
    swap = SeeValue[move_drop_type(m)] - swap;
    if (swap <= 0) return true;
    return see_exchange(b, move_to(m), b->by_type[0], swap);   /* `to` is empty */
}

/* SeeValue of the men in bb (kings count 0). */
static inline int men_value(const Board *b, Bitboard bb) {
    int v = 0;
    for (int t = PAWN; t <= QUEEN; t++) v += SeeValue[t] * popcount(bb & b->by_type[t]);
    return v;
}

/* Atomic, a capture: the capturer, the victim and every non-pawn next to
 * the target blow up; nothing is left on the target to recapture. */
static int atomic_capture_gain(const Board *b, Move m) {
    int us = b->side, from = move_from(m), to = move_to(m);
    Bitboard blast = KingAttacks[to] & b->by_type[0] & ~b->by_type[PAWN] & ~sq_bb(from);
    Bitboard kings = (blast | sq_bb(to)) & b->by_type[KING];
    if (kings & b->by_color[us]) return -SEE_ATOMIC_WIN;    /* illegal: never generated */
    if (kings) return SEE_ATOMIC_WIN;
    int victim = move_kind(m) == MOVE_EP ? PAWN : piece_type(board_piece_on(b, to));
    return SeeValue[victim] + men_value(b, blast & b->by_color[!us]) - men_value(b, blast & b->by_color[us]) -
           SeeValue[piece_type(board_piece_on(b, from))];
}

/* Atomic, a move that captures nothing: what the opponent's best capture
 * of the man on its new square wins (>= 0; SEE_ATOMIC_WIN if the
 * explosion would take our king). Kings never capture; a capture whose
 * blast reaches the capturer's own king is not one. */
static int atomic_quiet_loss(const Board *b, Move m) {
    int us = b->side, them = !us, from = move_from(m), to = move_to(m);
    int moved = piece_type(board_piece_on(b, from));
    if (move_kind(m) == MOVE_CASTLE || moved == KING) return 0;
    Bitboard occ = (b->by_type[0] ^ sq_bb(from)) | sq_bb(to);
    Bitboard attackers = board_attackers_to(b, to, occ) & b->by_color[them] & ~b->by_type[KING];
    Bitboard around = KingAttacks[to];
    if (!attackers || (around & board_pieces(b, them, KING))) return 0;
    if (around & board_pieces(b, us, KING)) return SEE_ATOMIC_WIN;
    if (move_kind(m) == MOVE_PROMO) moved = move_promo(m);
    Bitboard ours = b->by_color[us] & ~sq_bb(from) & ~b->by_type[PAWN] & around;
    Bitboard theirs = b->by_color[them] & ~b->by_type[PAWN] & around;
    int base = SeeValue[moved] + men_value(b, ours), best = 0;
    while (attackers) {
        int a = pop_lsb(&attackers);
        int g = base - SeeValue[piece_type(board_piece_on(b, a))] - men_value(b, theirs & ~sq_bb(a));
        if (g > best) best = g;
    }
    return best;
}

int see_atomic_gain(const Board *b, Move m) {
    int kind = move_kind(m);
    if (kind == MOVE_EP || (kind != MOVE_CASTLE && board_piece_on(b, move_to(m)) != NO_PIECE))
        return atomic_capture_gain(b, m);
    int promo = kind == MOVE_PROMO ? SeeValue[move_promo(m)] - SeeValue[PAWN] : 0;
    return promo - atomic_quiet_loss(b, m);
}

bool see_ge_variant(const Board *b, Move m, int threshold) {
    if (b->variant == VAR_ATOMIC) return see_atomic_gain(b, m) >= threshold;
    if (b->variant == VAR_CRAZYHOUSE && move_is_drop(m)) return see_ge_drop(b, m, threshold);
    return see_ge(b, m, threshold);
}
