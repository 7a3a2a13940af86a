/* movegen.c — fully legal move generation with pin and check masks
 * (standard chess and Chess960; the variants: movegen_variant.c). */
#include "movegen.h"
#include "attacks.h"
#include "bitboard.h"
#include "movegen_emit.h"


/* Pieces of `us` pinned to their king by sliders of `them`. */
static Bitboard pinned_pieces(const Board *b, int us, int ksq) {
    int them = !us;
    Bitboard snipers = ((rook_attacks(ksq, 0) & (b->by_type[ROOK] | b->by_type[QUEEN])) |
                        (bishop_attacks(ksq, 0) & (b->by_type[BISHOP] | b->by_type[QUEEN]))) & b->by_color[them];
    Bitboard pinned = 0, occ = b->by_type[0];
    while (snipers) {
        int s = pop_lsb(&snipers);
        Bitboard between = between_bb(ksq, s) & occ;
        if (between && !more_than_one(between)) pinned |= between & b->by_color[us];
    }
    return pinned;
}

static Move *gen_pawns(const Board *b, Move *out, int kind, Bitboard target, Bitboard pinned, int ksq) {
    int us = b->side, them = !us;
    Bitboard pawns = board_pieces(b, us, PAWN);
    Bitboard empty = ~b->by_type[0], enemies = b->by_color[them];
    Bitboard rank7 = us == WHITE ? (RANK_8_BB >> 8) : (RANK_1_BB << 8);
    Bitboard rank3 = us == WHITE ? (RANK_1_BB << 16) : (RANK_8_BB >> 16);
    int up = us == WHITE ? 8 : -8;

    /* Pinned pawns are handled one by one; the rest in bulk. */
    Bitboard free_pawns = pawns & ~pinned;
    Bitboard promo = free_pawns & rank7, normal = free_pawns & ~rank7;

    if (kind != GEN_NOISY) {
        Bitboard s1 = pawn_push(us, normal) & empty;
        Bitboard s2 = pawn_push(us, s1 & rank3) & empty;
        s1 &= target; s2 &= target;
        while (s1) { int to = pop_lsb(&s1); out = mg_add(out, to - up, to, MOVE_NORMAL); }
        while (s2) { int to = pop_lsb(&s2); out = mg_add(out, to - 2 * up, to, MOVE_NORMAL); }
    }
    if (kind != GEN_QUIET) {
        Bitboard ce = (us == WHITE ? shift_east(shift_north(normal)) : shift_east(shift_south(normal))) & enemies & target;
        Bitboard cw = (us == WHITE ? shift_west(shift_north(normal)) : shift_west(shift_south(normal))) & enemies & target;
        while (ce) { int to = pop_lsb(&ce); out = mg_add(out, to - up - 1, to, MOVE_NORMAL); }
        while (cw) { int to = pop_lsb(&cw); out = mg_add(out, to - up + 1, to, MOVE_NORMAL); }
    }
    if (promo) {
        Bitboard s1 = pawn_push(us, promo) & empty & target;
        Bitboard ce = (us == WHITE ? shift_east(shift_north(promo)) : shift_east(shift_south(promo))) & enemies & target;
        Bitboard cw = (us == WHITE ? shift_west(shift_north(promo)) : shift_west(shift_south(promo))) & enemies & target;
        while (s1) { int to = pop_lsb(&s1); out = mg_add_promos(out, to - up, to, kind); }
        while (ce) { int to = pop_lsb(&ce); out = mg_add_promos(out, to - up - 1, to, kind); }
        while (cw) { int to = pop_lsb(&cw); out = mg_add_promos(out, to - up + 1, to, kind); }
    }
    Bitboard pp = pawns & pinned;
    while (pp) {
        int from = pop_lsb(&pp);
        Bitboard ray = line_bb(ksq, from);
        Bitboard tos = 0;
        if (kind != GEN_NOISY || (sq_bb(from) & rank7)) {
            Bitboard s1 = pawn_push(us, sq_bb(from)) & empty;
            tos |= s1 | (pawn_push(us, s1 & rank3) & empty);
        }
        Bitboard caps = PawnAttacks[us][from] & enemies;
        tos = (tos | caps) & target & ray;
        while (tos) {
            int to = pop_lsb(&tos);
            bool capture = (caps & sq_bb(to)) != 0;
            if (sq_bb(from) & rank7) out = mg_add_promos(out, from, to, kind);
            else if (capture ? kind != GEN_QUIET : kind != GEN_NOISY) out = mg_add(out, from, to, MOVE_NORMAL);
        }
    }
    /* En passant: checked by simulating the occupancy (covers the horizontal pin). */
    if (b->ep != SQ_NONE && kind != GEN_QUIET) {
        int ep = b->ep, cap_sq = ep - up;
        Bitboard capturers = PawnAttacks[them][ep] & pawns;
        while (capturers) {
            int from = pop_lsb(&capturers);
            Bitboard occ = (b->by_type[0] ^ sq_bb(from) ^ sq_bb(cap_sq)) | sq_bb(ep);
            Bitboard att = (board_attackers_to(b, ksq, occ) & b->by_color[them]) & ~sq_bb(cap_sq);
            if (!att) out = mg_add(out, from, ep, MOVE_EP);
        }
    }
    return out;
}

static Move *gen_castling(const Board *b, Move *out, int ksq) {
    int us = b->side, them = !us;
    for (int idx = us * 2; idx < us * 2 + 2; idx++) {
        if (!(b->castling & (1 << idx))) continue;
        int rsq = b->castle_rook[idx];
        if (b->by_type[0] & b->castle_path[idx]) continue;
        bool king_side = (idx % 2) == 0;
        int kto = make_sq(king_side ? 6 : 2, sq_rank(ksq));
        Bitboard occ = b->by_type[0] ^ sq_bb(ksq) ^ sq_bb(rsq);
        Bitboard walk = between_bb(ksq, kto) | sq_bb(kto);
        bool ok = true;
        while (walk && ok) {
            int s = pop_lsb(&walk);
            if (board_sq_attacked(b, s, them, occ)) ok = false;
        }
        if (ok) out = mg_add(out, ksq, rsq, MOVE_CASTLE);
    }
    return out;
}

/* The legal moves of standard chess and Chess960. */
static inline int gen_chess(const Board *b, MoveList *list, int kind) {
    int us = b->side, them = !us;
    int ksq = board_king_sq(b, us);
    Move *start = list->moves + list->count, *out = start;
    Bitboard ours = b->by_color[us], occ = b->by_type[0];
    Bitboard kind_mask = kind == GEN_NOISY ? b->by_color[them] : kind == GEN_QUIET ? ~occ : ~ours;

    /* King moves: the destination must not be attacked with the king lifted. */
    Bitboard occ_noking = occ ^ sq_bb(ksq);
    Bitboard kt = KingAttacks[ksq] & ~ours & kind_mask;
    while (kt) {
        int to = pop_lsb(&kt);
        if (!board_sq_attacked(b, to, them, occ_noking)) out = mg_add(out, ksq, to, MOVE_NORMAL);
    }
    if (more_than_one(b->checkers)) goto done;

    Bitboard target = ~ours;
    if (b->checkers) {
        int c = lsb(b->checkers);
        target = between_bb(ksq, c) | b->checkers;
    }
    Bitboard pinned = pinned_pieces(b, us, ksq);
    out = gen_pawns(b, out, kind, target, pinned, ksq);

    Bitboard piece_target = target & kind_mask;
    Bitboard pieces = board_pieces(b, us, KNIGHT) & ~pinned;   /* a pinned knight never moves */
    while (pieces) {
        int from = pop_lsb(&pieces);
        Bitboard t = KnightAttacks[from] & piece_target;
        while (t) out = mg_add(out, from, pop_lsb(&t), MOVE_NORMAL);
    }
    pieces = ours & (b->by_type[BISHOP] | b->by_type[QUEEN]);
    while (pieces) {
        int from = pop_lsb(&pieces);
        Bitboard t = bishop_attacks(from, occ) & piece_target;
        if (pinned & sq_bb(from)) t &= line_bb(ksq, from);
        while (t) out = mg_add(out, from, pop_lsb(&t), MOVE_NORMAL);
    }
    pieces = ours & (b->by_type[ROOK] | b->by_type[QUEEN]);
    while (pieces) {
        int from = pop_lsb(&pieces);
        Bitboard t = rook_attacks(from, occ) & piece_target;
        if (pinned & sq_bb(from)) t &= line_bb(ksq, from);
        while (t) out = mg_add(out, from, pop_lsb(&t), MOVE_NORMAL);
    }
    if (!b->checkers && kind != GEN_NOISY && b->castling) out = gen_castling(b, out, ksq);
done:
    list->count += (int)(out - start);
    return (int)(out - start);
}

int movegen_chess(const Board *b, MoveList *list, int kind) { return gen_chess(b, list, kind); }

int movegen_legal(const Board *b, MoveList *list, int kind) {
    if (__builtin_expect(b->variant != VAR_STANDARD, 0)) return movegen_variant_legal(b, list, kind);
    return gen_chess(b, list, kind);
}

int movegen_count(const Board *b) {
    MoveList list;
    list.count = 0;
    return movegen_legal(b, &list, GEN_ALL);
}

/* Is m in the generator's GEN_ALL list? The reference definition; castling
 * and en passant (rare as TT moves) are checked this way. */
static bool in_legal_list(const Board *b, Move m) {
    MoveList list;
    list.count = 0;
    movegen_legal(b, &list, GEN_ALL);
    for (int i = 0; i < list.count; i++)
        if (list.moves[i] == m) return true;
    return false;
}

/* The search asks this of every TT move, so it does not generate: it applies
 * the generator's own rules to the one move (tests/test_engine_unit.py checks
 * it against in_legal_list for every 16-bit move in many positions). */
/* Crazyhouse: is the drop m legal? A man in hand, an empty target (a pawn
 * not on the first or last rank), in check only between the king and a
 * lone checker (gen_drops' rules). */
static bool zh_drop_legal(const Board *b, Move m) {
    int to = move_to(m), t = move_drop_type(m), us = b->side;
    if (m != move_make_drop(to, t) || !b->pocket[us][t] || b->squares[to]) return false;
    if (t == PAWN && ((RANK_1_BB | RANK_8_BB) & sq_bb(to))) return false;
    if (!b->checkers) return true;
    return !more_than_one(b->checkers) && (between_bb(board_king_sq(b, us), lsb(b->checkers)) & sq_bb(to));
}

static bool is_legal_variant(const Board *b, Move m);

/* Chess's rules for a board move (standard chess, Chess960, crazyhouse). */
static inline __attribute__((always_inline)) bool is_legal_chess(const Board *b, Move m) {
    int us = b->side, them = !us;
    int from = move_from(m), to = move_to(m), kind = move_kind(m);
    int pc = b->squares[from];
    if (!pc || piece_color(pc) != us) return false;
    if (kind == MOVE_CASTLE || kind == MOVE_EP) return in_legal_list(b, m);
    if (kind == MOVE_NORMAL && m != move_make(from, to, MOVE_NORMAL, 0)) return false;
    Bitboard occ = b->by_type[0], tob = sq_bb(to);
    if (tob & b->by_color[us]) return false;
    int type = piece_type(pc);
    if (type == KING)
        return kind == MOVE_NORMAL && (KingAttacks[from] & tob) &&
               !board_sq_attacked(b, to, them, occ ^ sq_bb(from));
    if (more_than_one(b->checkers)) return false;  /* double check: king moves only */
    Bitboard reach;
    if (type == PAWN) {
        /* From the seventh rank a pawn only promotes, from elsewhere never. */
        if ((kind == MOVE_PROMO) != (relative_rank(us, from) == 6)) return false;
        Bitboard push1 = pawn_push(us, sq_bb(from)) & ~occ;
        Bitboard push2 = relative_rank(us, from) == 1 ? pawn_push(us, push1) & ~occ : 0;
        reach = push1 | push2 | (PawnAttacks[us][from] & b->by_color[them]);
    } else {
        if (kind != MOVE_NORMAL) return false;
        reach = type == KNIGHT ? KnightAttacks[from]
              : type == BISHOP ? bishop_attacks(from, occ)
              : type == ROOK ? rook_attacks(from, occ) : queen_attacks(from, occ);
    }
    if (!(reach & tob)) return false;
    int ksq = board_king_sq(b, us);
    /* In check: capture the checker or block (movegen_legal's target). */
    if (b->checkers && !((between_bb(ksq, lsb(b->checkers)) | b->checkers) & tob)) return false;
    /* A pinned piece stays on its pin ray (a pinned knight never can). */
    if ((pinned_pieces(b, us, ksq) & sq_bb(from)) && !(line_bb(ksq, from) & tob)) return false;
    return true;
}

bool movegen_is_legal(const Board *b, Move m) {
    if (m == MOVE_NONE || m == MOVE_NULL) return false;
    if (__builtin_expect(b->variant != VAR_STANDARD, 0)) return is_legal_variant(b, m);
    return is_legal_chess(b, m);
}

/* Crazyhouse's board moves are chess's: only its drops need their own
 * test. The other variants' moves are looked up in their list. */
static __attribute__((noinline)) bool is_legal_variant(const Board *b, Move m) {
    if (b->variant != VAR_CRAZYHOUSE) return in_legal_list(b, m);
    if (move_is_drop(m)) return zh_drop_legal(b, m);
    return is_legal_chess(b, m);
}

bool movegen_is_legal_noisy(const Board *b, Move m) {
    if (!movegen_is_legal(b, m)) return false;
    /* GEN_NOISY: captures and queen promotions; a capturing under-promotion
     * is not one of them (mg_add_promos). */
    if (move_kind(m) == MOVE_PROMO) return move_promo(m) == QUEEN && !move_is_drop(m);  /* a queen drop is quiet */
    return move_kind(m) == MOVE_EP || (move_kind(m) == MOVE_NORMAL && b->squares[move_to(m)]);
}
