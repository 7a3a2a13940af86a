/* movegen_variant.c — the legal moves of the variants (movegen.h), built on
 * the standard generator: movegen_legal comes here only when b->variant is
 * not VAR_STANDARD, so nothing here costs standard chess anything. */
#include "movegen.h"
#include "attacks.h"
#include "bitboard.h"
#include "movegen_emit.h"

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


/* Every move of a side without a king (the horde): with no king to expose,
 * every pseudo-legal move is legal. Pawns on the first or second rank may
 * step twice (python-chess: a double step lands on the third or fourth
 * rank). `kind` as movegen_legal: GEN_NOISY captures and queen promotions. */
static int gen_kingless(const Board *b, MoveList *list, int kind) {
    int us = b->side, them = !us;
    Move *start = list->moves + list->count, *out = start;
    Bitboard ours = b->by_color[us], theirs = b->by_color[them], occ = b->by_type[0], empty = ~occ;
    Bitboard kind_mask = kind == GEN_NOISY ? theirs : kind == GEN_QUIET ? empty : ~ours;
    int up = us == WHITE ? 8 : -8;
    Bitboard rank7 = us == WHITE ? (RANK_8_BB >> 8) : (RANK_1_BB << 8);
    Bitboard step2 = us == WHITE ? (RANK_1_BB << 8) | (RANK_1_BB << 16) : (RANK_8_BB >> 8) | (RANK_8_BB >> 16);
    Bitboard pawns = board_pieces(b, us, PAWN), promo = pawns & rank7, normal = pawns & ~rank7;
    if (kind != GEN_NOISY) {
        Bitboard s1 = pawn_push(us, normal) & empty;
        Bitboard s2 = pawn_push(us, s1 & step2) & empty;
        while (s1) { int to = pop_lsb(&s1); out = mg_add(out, to - up, to, MOVE_NORMAL); }
        while (s2) { int to = pop_lsb(&s2); out = mg_add(out, to - 2 * up, to, MOVE_NORMAL); }
    }
    if (kind != GEN_QUIET) {
        Bitboard ce = (us == WHITE ? shift_east(shift_north(normal)) : shift_east(shift_south(normal))) & theirs;
        Bitboard cw = (us == WHITE ? shift_west(shift_north(normal)) : shift_west(shift_south(normal))) & theirs;
        while (ce) { int to = pop_lsb(&ce); out = mg_add(out, to - up - 1, to, MOVE_NORMAL); }
        while (cw) { int to = pop_lsb(&cw); out = mg_add(out, to - up + 1, to, MOVE_NORMAL); }
        if (b->ep != SQ_NONE) {
            Bitboard capturers = PawnAttacks[them][b->ep] & pawns;
            while (capturers) out = mg_add(out, pop_lsb(&capturers), b->ep, MOVE_EP);
        }
    }
    if (promo) {
        Bitboard s1 = pawn_push(us, promo) & empty;
        Bitboard ce = (us == WHITE ? shift_east(shift_north(promo)) : shift_east(shift_south(promo))) & theirs;
        Bitboard cw = (us == WHITE ? shift_west(shift_north(promo)) : shift_west(shift_south(promo))) & theirs;
        while (s1) { int to = pop_lsb(&s1); out = mg_add_promos(out, to - up, to, kind); }
        while (ce) { int to = pop_lsb(&ce); out = mg_add_promos(out, to - up - 1, to, kind); }
        while (cw) { int to = pop_lsb(&cw); out = mg_add_promos(out, to - up + 1, to, kind); }
    }
    Bitboard pieces = ours & ~b->by_type[PAWN];
    while (pieces) {
        int from = pop_lsb(&pieces);
        int type = piece_type(b->squares[from]);
        Bitboard t = type == KNIGHT ? KnightAttacks[from] : type == BISHOP ? bishop_attacks(from, occ)
                   : type == ROOK ? rook_attacks(from, occ) : type == QUEEN ? queen_attacks(from, occ)
                   : KingAttacks[from];
        t &= kind_mask;
        while (t) out = mg_add(out, from, pop_lsb(&t), MOVE_NORMAL);
    }
    list->count += (int)(out - start);
    return (int)(out - start);
}

static inline Bitboard pawn_attacks_of(int c, Bitboard pawns) {
    Bitboard f = pawn_push(c, pawns);
    return shift_east(f) | shift_west(f);
}

static inline bool is_capture(const Board *b, Move m) {
    return move_kind(m) == MOVE_EP || b->squares[move_to(m)] != NO_PIECE;
}

/* Antichess: kings are men (no check, no castling), a pawn may also promote
 * to a king, and a capture must be made when one can be. */
static int gen_antichess(const Board *b, MoveList *list, int kind) {
    MoveList all;
    all.count = 0;
    gen_kingless(b, &all, GEN_ALL);
    int n = all.count;
    for (int i = 0; i < n; i++) {
        Move m = all.moves[i];
        if (move_kind(m) == MOVE_PROMO && move_promo(m) == QUEEN)
            all.moves[all.count++] = move_make(move_from(m), move_to(m), MOVE_KING_PROMO, 0);
    }
    bool must_capture = false;
    for (int i = 0; i < all.count && !must_capture; i++) must_capture = is_capture(b, all.moves[i]);
    int start = list->count;
    for (int i = 0; i < all.count; i++) {
        Move m = all.moves[i];
        bool capture = is_capture(b, m);
        if (must_capture && !capture) continue;
        bool noisy = capture || (move_kind(m) == MOVE_PROMO && move_promo(m) == QUEEN);
        if ((kind == GEN_NOISY && !noisy) || (kind == GEN_QUIET && noisy)) continue;
        list->moves[list->count++] = m;
    }
    return list->count - start;
}

/* Atomic: is the pseudo-legal m legal? A capture blows up the capturer and
 * every non-pawn around its target: it may not take one's own king (nor be
 * made by the king), wins at once if it takes the enemy king, and else
 * leaves one's king unattacked by what is left, unless the kings touch
 * (they never attack each other then). As python-chess's AtomicBoard. */
static bool atomic_legal(const Board *b, Move m) {
    int us = b->side, them = !us;
    int from = move_from(m), to = move_to(m), kind = move_kind(m);
    Bitboard ourk = board_pieces(b, us, KING), theirk = board_pieces(b, them, KING);
    bool king_moves = piece_type(b->squares[from]) == KING;
    Bitboard occ = b->by_type[0];
    if (kind == MOVE_EP || b->squares[to]) {
        if (king_moves) return false;
        Bitboard gone = sq_bb(from) | sq_bb(to) | (KingAttacks[to] & ~b->by_type[PAWN]);
        if (kind == MOVE_EP) gone |= sq_bb(us == WHITE ? to - 8 : to + 8);
        if (gone & ourk) return false;
        if (gone & theirk) return true;
        int k = lsb(ourk);
        if (KingAttacks[k] & theirk) return true;
        return !(board_attackers_to(b, k, occ & ~gone) & b->by_color[them] & ~gone);
    }
    int k = king_moves ? to : lsb(ourk);
    if (KingAttacks[k] & theirk) return true;
    return !(board_attackers_to(b, k, (occ ^ sq_bb(from)) | sq_bb(to)) & b->by_color[them]);
}

/* Atomic castling: as in chess, except that the king may pass squares next
 * to the enemy king (kings that touch do not attack each other). */
static Move *atomic_castling(const Board *b, Move *out) {
    int us = b->side, them = !us;
    int ksq = board_king_sq(b, us);
    Bitboard theirk = board_pieces(b, them, KING);
    Bitboard safe = theirk ? KingAttacks[lsb(theirk)] : 0;
    for (int idx = us * 2; idx < us * 2 + 2; idx++) {
        if (!(b->castling & (1 << idx))) continue;
        int rsq = b->castle_rook[idx];
        if (b->by_type[0] & b->castle_path[idx]) continue;
        int kto = make_sq(idx % 2 == 0 ? 6 : 2, sq_rank(ksq));
        Bitboard occ = b->by_type[0] ^ sq_bb(ksq) ^ sq_bb(rsq);
        Bitboard walk = (between_bb(ksq, kto) | sq_bb(kto) | sq_bb(ksq)) & ~safe;
        bool ok = true;
        while (walk && ok) ok = !board_sq_attacked(b, pop_lsb(&walk), them, occ);
        if (ok) *out++ = move_make(ksq, rsq, MOVE_CASTLE, 0);
    }
    return out;
}

static int gen_atomic(const Board *b, MoveList *list, int kind) {
    MoveList all;
    all.count = 0;
    gen_kingless(b, &all, GEN_ALL);
    int start = list->count;
    for (int i = 0; i < all.count; i++) {
        Move m = all.moves[i];
        if (!atomic_legal(b, m)) continue;
        bool noisy = is_capture(b, m) || (move_kind(m) == MOVE_PROMO && move_promo(m) == QUEEN);
        if ((kind == GEN_NOISY && !noisy) || (kind == GEN_QUIET && noisy)) continue;
        list->moves[list->count++] = m;
    }
    if (kind != GEN_NOISY && b->castling)
        list->count = (int)(atomic_castling(b, list->moves + list->count) - list->moves);
    return list->count - start;
}

bool movegen_variant_end(const Board *b) {
    switch (b->variant) {
    case VAR_KOTH: return (b->by_type[KING] & CenterBB) != 0;
    case VAR_THREECHECK: return !b->checks_left[WHITE] || !b->checks_left[BLACK];
    case VAR_RACINGKINGS: return race_over(b);
    case VAR_ATOMIC: return !(b->by_type[KING] & b->by_color[WHITE]) || !(b->by_type[KING] & b->by_color[BLACK]);
    case VAR_HORDE:
    case VAR_ANTICHESS: return !b->by_color[WHITE] || !b->by_color[BLACK];
    default: return false;
    }
}

int movegen_variant_winner(const Board *b) {
    switch (b->variant) {
    case VAR_KOTH: return (board_pieces(b, WHITE, KING) & CenterBB) ? WHITE : BLACK;
    case VAR_THREECHECK: return !b->checks_left[WHITE] ? WHITE : BLACK;
    case VAR_RACINGKINGS: {
        Bitboard goal = b->by_type[KING] & RANK_8_BB;
        if ((goal & b->by_color[WHITE]) && (goal & b->by_color[BLACK])) return -1;
        return (goal & b->by_color[WHITE]) ? WHITE : BLACK;
    }
    case VAR_ATOMIC: return board_pieces(b, WHITE, KING) ? WHITE : BLACK;
    case VAR_HORDE: return b->by_color[WHITE] ? WHITE : BLACK;       /* who has men left wins */
    case VAR_ANTICHESS: return b->by_color[WHITE] ? BLACK : WHITE;   /* who has none left wins */
    default: return -1;
    }
}

bool movegen_must_capture(const Board *b) {
    int us = b->side;
    Bitboard theirs = b->by_color[!us], occ = b->by_type[0];
    Bitboard pawns = board_pieces(b, us, PAWN);
    if (pawn_attacks_of(us, pawns) & theirs) return true;
    if (b->ep != SQ_NONE && (PawnAttacks[!us][b->ep] & pawns)) return true;
    Bitboard pieces = b->by_color[us] & ~b->by_type[PAWN];
    while (pieces) {
        int from = pop_lsb(&pieces), type = piece_type(b->squares[from]);
        Bitboard t = type == KNIGHT ? KnightAttacks[from] : type == BISHOP ? bishop_attacks(from, occ)
                   : type == ROOK ? rook_attacks(from, occ) : type == QUEEN ? queen_attacks(from, occ)
                   : KingAttacks[from];
        if (t & theirs) return true;
    }
    return false;
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

/* Crazyhouse drops (quiet moves): any piece in hand to an empty square, a
 * pawn not to the first or last rank; in check only between the king and a
 * lone checker, in double check nowhere. As python-chess's
 * CrazyhouseBoard.legal_drop_squares_mask. Stops at the end of the list. */
static int gen_drops(const Board *b, MoveList *list) {
    int us = b->side, start = list->count;
    Bitboard to = ~b->by_type[0];
    if (b->checkers)
        to &= more_than_one(b->checkers) ? 0 : between_bb(board_king_sq(b, us), lsb(b->checkers));
    for (int t = PAWN; t < KING; t++) {
        if (!b->pocket[us][t]) continue;
        Bitboard sqs = t == PAWN ? to & ~(RANK_1_BB | RANK_8_BB) : to;
        while (sqs && list->count < MAX_MOVES) list->moves[list->count++] = move_make_drop(pop_lsb(&sqs), t);
    }
    return list->count - start;
}

int movegen_variant_legal(const Board *b, MoveList *list, int kind) {
    if (movegen_variant_end(b)) return 0;
    int start = list->count;
    if (b->variant == VAR_ANTICHESS) return gen_antichess(b, list, kind);
    if (b->variant == VAR_ATOMIC) return gen_atomic(b, list, kind);
    if (!board_pieces(b, b->side, KING)) return gen_kingless(b, list, kind);
    int n = movegen_chess(b, list, kind);
    if (b->variant == VAR_CRAZYHOUSE && kind != GEN_NOISY) n += gen_drops(b, list);
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
