/* variant_eval.c — the hand-crafted evaluation of the variants (variant_eval.h). */
#include "variant_eval.h"
#include "attacks.h"
#include "bitboard.h"
#include "eval.h"

static const Bitboard CenterBB = 0x0000001818000000ULL;   /* d4 e4 d5 e5 */

static inline Bitboard pawn_attacks_bb(int c, Bitboard pawns) {
    Bitboard f = pawn_push(c, pawns);
    return shift_east(f) | shift_west(f);
}

/* Squares attacked by c's men; kings included when `kings`. */
static Bitboard attacks_by(const Board *b, int c, bool kings) {
    Bitboard occ = b->by_type[0];
    Bitboard att = pawn_attacks_bb(c, board_pieces(b, c, PAWN));
    Bitboard bb = b->by_color[c] & ~b->by_type[PAWN];
    if (!kings) bb &= ~b->by_type[KING];
    while (bb) {
        int sq = pop_lsb(&bb);
        switch (piece_type(b->squares[sq])) {
        case KNIGHT: att |= KnightAttacks[sq]; break;
        case BISHOP: att |= bishop_attacks(sq, occ); break;
        case ROOK: att |= rook_attacks(sq, occ); break;
        case QUEEN: att |= queen_attacks(sq, occ); break;
        default: att |= KingAttacks[sq]; break;
        }
    }
    return att;
}

/* Squares from which a piece of type t would check a king on ksq. */
static Bitboard check_squares(const Board *b, int t, int ksq, int checker) {
    Bitboard occ = b->by_type[0];
    switch (t) {
    case PAWN: return PawnAttacks[!checker][ksq];
    case KNIGHT: return KnightAttacks[ksq];
    case BISHOP: return bishop_attacks(ksq, occ);
    case ROOK: return rook_attacks(ksq, occ);
    case QUEEN: return queen_attacks(ksq, occ);
    default: return 0;
    }
}

/* Pseudo-legal targets of c's pieces of type t (no pawns, no kings). */
static Bitboard piece_targets(const Board *b, int c, int t) {
    Bitboard occ = b->by_type[0], bb = board_pieces(b, c, t), att = 0;
    while (bb) {
        int sq = pop_lsb(&bb);
        att |= t == KNIGHT ? KnightAttacks[sq] : t == BISHOP ? bishop_attacks(sq, occ)
             : t == ROOK ? rook_attacks(sq, occ) : queen_attacks(sq, occ);
    }
    return att & ~b->by_color[c];
}

static inline int for_side(const Board *b, int white_view) { return b->side == WHITE ? white_view : -white_view; }

/* The squares a king on bb reaches in one step. */
static inline Bitboard king_spread(Bitboard bb) {
    Bitboard h = bb | shift_east(bb) | shift_west(bb);
    return h | shift_north(h) | shift_south(h);
}

/* King moves c's king needs to reach `goal` over squares the enemy does not
 * attack (`their_att`) and that hold none of `blocked`; maxd + 1 if it
 * cannot within maxd. A static guess: the men stand still meanwhile. */
static int safe_path(const Board *b, int c, Bitboard their_att, Bitboard blocked, Bitboard goal, int maxd) {
    Bitboard pass = ~their_att & ~blocked, reach = board_pieces(b, c, KING);
    for (int d = 1; d <= maxd; d++) {
        Bitboard next = (king_spread(reach) & pass) | reach;
        if (next & ~reach & goal) return d;
        if (next == reach) break;
        reach = next;
    }
    return maxd + 1;
}

/* ---- king of the hill ---- */

static int koth_dist_bonus(int d) {
    switch (d) {
    case 1: return VE_KOTH_DIST_1;
    case 2: return VE_KOTH_DIST_2;
    case 3: return VE_KOTH_DIST_3;
    case 4: return VE_KOTH_DIST_4;
    default: return 0;
    }
}

/* Can c's king step onto a centre square now (empty or enemy, not attacked)? */
static bool koth_step_free(const Board *b, int c, Bitboard their_att) {
    int k = board_king_sq(b, c);
    return (KingAttacks[k] & CenterBB & ~b->by_color[c] & ~their_att) != 0;
}

static int eval_koth(const Board *b) {
    int v = eval_evaluate(b);   /* side to move's view */
    int us = b->side, them = !us;
    Bitboard att[2] = {attacks_by(b, WHITE, true), attacks_by(b, BLACK, true)};
    /* The king's distance to the hill along squares the enemy does not
     * attack (own pawns block, own pieces can step aside). */
    int d_us = safe_path(b, us, att[them], board_pieces(b, us, PAWN), CenterBB, 4);
    int d_them = safe_path(b, them, att[us], board_pieces(b, them, PAWN), CenterBB, 4);
    v += koth_dist_bonus(d_us) - koth_dist_bonus(d_them);
    if (d_us == 1 && !b->checkers && koth_step_free(b, us, att[them])) return v + VE_WIN_IN_ONE;
    if (d_them == 1 && koth_step_free(b, them, att[us])) v -= VE_THREAT_TO_WIN;
    return v;
}

/* ---- three-check ---- */

static int checks_given_bonus(int left) {
    return left == 2 ? VE_3CHECK_GIVEN_1 : left <= 1 ? VE_3CHECK_GIVEN_2 : 0;
}

/* Squares from which c can check the enemy king with a move of a piece
 * (pawns and kings left out; pins not looked at); *safe: those of them the
 * enemy does not attack (`defended`). */
static int ready_checks(const Board *b, int c, Bitboard defended, int *safe) {
    int ksq = board_king_sq(b, !c), n = 0;
    *safe = 0;
    for (int t = KNIGHT; t <= QUEEN; t++) {
        Bitboard sq = piece_targets(b, c, t) & check_squares(b, t, ksq, c);
        n += popcount(sq);
        *safe += popcount(sq & ~defended);
    }
    return n;
}

static int eval_threecheck(const Board *b) {
    int v = eval_evaluate(b);
    int us = b->side, them = !us;
    v += checks_given_bonus(b->checks_left[us]) - checks_given_bonus(b->checks_left[them]);
    Bitboard att[2] = {attacks_by(b, WHITE, false), attacks_by(b, BLACK, false)};
    Bitboard guard[2] = {att[WHITE] | KingAttacks[board_king_sq(b, WHITE)],
                         att[BLACK] | KingAttacks[board_king_sq(b, BLACK)]};
    int safe_us, safe_them;
    int ready_us = ready_checks(b, us, guard[them], &safe_us), ready_them = ready_checks(b, them, guard[us], &safe_them);
    /* Each check counts more the fewer are left to give: the ready checks,
     * the safe ones (a check the enemy cannot answer by taking the
     * checker) and the attacks on the king's zone (king danger) grow with
     * the checks already given. */
    int given_us = 4 - b->checks_left[us], given_them = 4 - b->checks_left[them];
    v += VE_3CHECK_READY * (ready_us * given_us - ready_them * given_them);
    v += VE_3CHECK_SAFE_CHECK * (safe_us * given_us - safe_them * given_them);
    v += VE_3CHECK_KING_ZONE * (popcount(KingAttacks[board_king_sq(b, them)] & att[us]) * given_us -
                                popcount(KingAttacks[board_king_sq(b, us)] & att[them]) * given_them);
    if (b->checks_left[us] == 1 && ready_us && !b->checkers) return v + VE_WIN_IN_ONE;
    if (b->checks_left[them] == 1 && ready_them) v -= VE_THREAT_TO_WIN;
    return v;
}

/* ---- crazyhouse ---- */

static const int ZhHand[8] = {0, VE_ZH_HAND_PAWN, VE_ZH_HAND_KNIGHT, VE_ZH_HAND_BISHOP, VE_ZH_HAND_ROOK,
                              VE_ZH_HAND_QUEEN, 0, 0};

/* King-attack weight of a man in the enemy's hand, and the danger units of
 * a drop of it that checks safely. */
static const int ZhHandAttack[8] = {0, 1, 2, 2, 3, 4, 0, 0};
static const int ZhSafeDropCheck[8] = {0, VE_ZH_SAFE_CHECK_PAWN, VE_ZH_SAFE_CHECK_KNIGHT, VE_ZH_SAFE_CHECK_BISHOP,
                                       VE_ZH_SAFE_CHECK_ROOK, VE_ZH_SAFE_CHECK_QUEEN, 0, 0};

/* Danger to c's king: the enemy's attacks on and the empty squares of its
 * zone, and the enemy's safe drop checks, times what the enemy can drop
 * (ZhHandAttack). A drop check is safe on a square none of c's men (the
 * king aside) guards; next to the king only if the enemy supports it (else
 * the king takes the checker). `our_att`, `their_att`: without kings. */
static int zh_king_danger(const Board *b, int c, Bitboard our_att, Bitboard their_att) {
    int k = board_king_sq(b, c), them = !c;
    Bitboard zone = KingAttacks[k], empty = ~b->by_type[0];
    int units = VE_ZH_ZONE_ATTACKED * popcount(zone & their_att) + VE_ZH_ZONE_EMPTY * popcount(zone & empty);
    int hand = 0;
    for (int t = PAWN; t < KING; t++) {
        if (!b->pocket[them][t]) continue;
        hand += b->pocket[them][t] * ZhHandAttack[t];
        Bitboard checks = check_squares(b, t, k, them) & empty;
        if (t == PAWN) checks &= ~(RANK_1_BB | RANK_8_BB);
        if (checks & ~our_att & (~zone | their_att)) units += ZhSafeDropCheck[t];
    }
    int d = units * (hand + 1) * VE_ZH_DANGER_MUL / 2;
    return d > VE_ZH_DANGER_MAX ? VE_ZH_DANGER_MAX : d;
}

/* Drop mobility: the empty squares of the enemy's half it does not attack,
 * where c's pieces in hand (pawns aside) could land. */
static int zh_drop_squares(const Board *b, int c, Bitboard their_att) {
    bool pieces = b->pocket[c][KNIGHT] | b->pocket[c][BISHOP] | b->pocket[c][ROOK] | b->pocket[c][QUEEN];
    if (!pieces) return 0;
    Bitboard half = c == WHITE ? 0xFFFFFFFF00000000ULL : 0x00000000FFFFFFFFULL;
    return popcount(half & ~b->by_type[0] & ~their_att);
}

static int eval_crazyhouse(const Board *b) {
    int v = eval_evaluate(b);
    int us = b->side, them = !us;
    for (int t = PAWN; t < KING; t++) v += ZhHand[t] * (b->pocket[us][t] - b->pocket[them][t]);
    Bitboard att_us = attacks_by(b, us, false), att_them = attacks_by(b, them, false);
    v += zh_king_danger(b, them, att_them, att_us) - zh_king_danger(b, us, att_us, att_them);
    v += VE_ZH_DROP_SQUARE * (zh_drop_squares(b, us, att_them) - zh_drop_squares(b, them, att_us));
    return v;
}

/* ---- atomic ---- */

/* Does c threaten to explode the enemy king with a capture: a man of the
 * enemy's (or the king itself) next to it, attacked by c's non-king men,
 * the capture not also blowing up c's own king? */
static bool atomic_threat(const Board *b, int c, Bitboard att_nonking) {
    Bitboard ck = board_pieces(b, c, KING), ek = board_pieces(b, !c, KING);
    if (!ck || !ek) return false;
    int k = lsb(ck), e = lsb(ek);
    if (KingAttacks[k] & ek) return false;   /* touching kings: no capture may take both */
    Bitboard targets = (KingAttacks[e] | ek) & b->by_color[!c] & att_nonking & ~KingAttacks[k];
    return targets != 0;
}

static int eval_atomic(const Board *b) {
    int v = eval_evaluate(b);
    int us = b->side, them = !us;
    Bitboard att_us = attacks_by(b, us, false), att_them = attacks_by(b, them, false);
    int ku = board_king_sq(b, us), kt = board_king_sq(b, them);
    if (KingAttacks[ku] & sq_bb(kt)) return v + (b->checkers ? 0 : VE_ATOMIC_KINGS_TOUCH / 4);
    v -= VE_ATOMIC_NEXT_TO_KING * (popcount(KingAttacks[ku] & b->by_color[us] & ~b->by_type[PAWN]) -
                                   popcount(KingAttacks[kt] & b->by_color[them] & ~b->by_type[PAWN]));
    if (!b->checkers && atomic_threat(b, us, att_us)) return v + VE_WIN_IN_ONE;
    if (atomic_threat(b, them, att_them)) v -= VE_THREAT_TO_WIN;
    return v;
}

/* ---- antichess ---- */

static const int AcValue[8] = {0, VE_AC_PAWN, VE_AC_KNIGHT, VE_AC_BISHOP, VE_AC_ROOK, VE_AC_QUEEN, VE_AC_KING, 0};

static int eval_antichess(const Board *b) {
    int s[2] = {0, 0};
    Bitboard att[2] = {attacks_by(b, WHITE, true), attacks_by(b, BLACK, true)};
    for (int c = WHITE; c <= BLACK; c++) {
        for (int t = PAWN; t <= KING; t++) s[c] -= AcValue[t] * popcount(board_pieces(b, c, t));
        s[c] += VE_AC_MOBILITY * popcount(att[c] & ~b->by_color[c]);
        /* the other side must take what it attacks: men of ours it attacks
         * are men it will have to remove for us */
        s[c] += VE_AC_ATTACKED * popcount(b->by_color[c] & att[!c]);
    }
    return for_side(b, s[WHITE] - s[BLACK]) + VE_TEMPO;
}

/* ---- racing kings ---- */

/* Who wins the race of kings dw and db king moves from the eighth rank,
 * `stm` to move, if neither is stopped: +1 White, -1 Black, 0 a draw.
 * Once White arrives Black has one move to arrive too (a draw); Black
 * arriving first wins. White to move: White first if dw < db, Black
 * follows if dw == db. Black to move: Black first if db <= dw, follows if
 * db == dw + 1. (A distance past safe_path's reach, 7, reads as "at least".) */
static int rk_race(int dw, int db, int stm) {
    if (stm == WHITE) return dw < db ? 1 : dw == db ? 0 : -1;
    return db <= dw ? -1 : db == dw + 1 ? 0 : 1;
}

static const int RkValue[8] = {0, 0, VE_RK_KNIGHT, VE_RK_BISHOP, VE_RK_ROOK, VE_RK_QUEEN, 0, 0};

static int eval_racingkings(const Board *b) {
    /* White's king is home and the game goes on (race_over): Black is to
     * move and can follow, which draws (not following loses). Exact. */
    if (board_pieces(b, WHITE, KING) & RANK_8_BB) return 0;
    static const int rank_bonus[8] = VE_RK_RANK_INIT;
    int s[2] = {0, 0};
    Bitboard att[2] = {attacks_by(b, WHITE, true), attacks_by(b, BLACK, true)};
    for (int c = WHITE; c <= BLACK; c++) {
        for (int t = KNIGHT; t <= QUEEN; t++) s[c] += RkValue[t] * popcount(board_pieces(b, c, t));
        int k = board_king_sq(b, c), r = sq_rank(k);
        s[c] += rank_bonus[r];
        if (r < 7) {
            Bitboard ahead = KingAttacks[k] & (RANK_1_BB << (8 * (r + 1)));
            int free = popcount(ahead & ~att[!c] & ~b->by_color[c]);
            s[c] += free ? VE_RK_FREE_STEP * free : -VE_RK_BLOCKED;
        }
    }
    int v = for_side(b, s[WHITE] - s[BLACK]) + VE_TEMPO;
    /* The race: each king's safe path to the eighth rank (rk_race); the
     * winner's side gets more the shorter its path, a win in one when it
     * is to move and one step away. */
    int dw = safe_path(b, WHITE, att[BLACK], b->by_color[WHITE], RANK_8_BB, 6);
    int db = safe_path(b, BLACK, att[WHITE], b->by_color[BLACK], RANK_8_BB, 6);
    int r = rk_race(dw, db, b->side);
    if (r == 0) return dw <= 2 ? v / 4 : v;   /* black follows white: a draw */
    int winner = r > 0 ? WHITE : BLACK, dwin = r > 0 ? dw : db;
    if (dwin > 4) return v;
    if (dwin == 1 && winner == b->side) return v + VE_WIN_IN_ONE;
    static const int race[5] = {0, VE_THREAT_TO_WIN, VE_RK_RACE_2, VE_RK_RACE_3, VE_RK_RACE_4};
    return v + (winner == b->side ? race[dwin] : -race[dwin]);
}

/* ---- horde ---- */

static const int HordeValue[8] = {0, 100, 320, 330, 500, 950, 0, 0};

/* Black's way through the pawn wall, d: 0 if its queen already reaches
 * White's first rank, 1 if another man does, else 2 + the fewest pawns
 * (both sides') on a file (an open file is a step short of a man through).
 * The closer, the more the wall's pawns are worth to Black: a piece
 * through it attacks pawns from behind. */
static int horde_breakthrough(const Board *b) {
    Bitboard white = b->by_color[WHITE];
    if (!white || board_pieces(b, WHITE, KING)) return 0;   /* not the horde */
    int dist = 2 + 8;
    Bitboard queens = board_pieces(b, BLACK, QUEEN), occ = b->by_type[0], q = queens;
    Bitboard qatt = 0;
    while (q) qatt |= queen_attacks(pop_lsb(&q), occ);
    if (qatt & RANK_1_BB) dist = 0;
    else if (attacks_by(b, BLACK, true) & RANK_1_BB) dist = 1;
    else
        for (int f = 0; f < 8; f++) {
            int n = 2 + popcount(b->by_type[PAWN] & (FILE_A_BB << f));
            if (n < dist) dist = n;
        }
    int pawns = popcount(board_pieces(b, WHITE, PAWN));
    return VE_HORDE_BREAKTHROUGH * pawns / (1 + dist * dist) / (queens ? 2 : 4);
}

static int eval_horde(const Board *b) {
    static const int advance[8] = VE_HORDE_ADVANCE_INIT;
    int s[2] = {0, 0};
    Bitboard wp = board_pieces(b, WHITE, PAWN), wpa = pawn_attacks_bb(WHITE, wp);
    Bitboard bb = wp;
    while (bb) {
        int sq = pop_lsb(&bb), f = sq_file(sq);
        s[WHITE] += VE_HORDE_PAWN + advance[sq_rank(sq)];
        if (wpa & sq_bb(sq)) s[WHITE] += VE_HORDE_SUPPORTED;
        Bitboard files = (f > 0 ? FILE_A_BB << (f - 1) : 0) | (f < 7 ? FILE_A_BB << (f + 1) : 0);
        if (!(files & wp)) s[WHITE] -= VE_HORDE_ISOLATED;
    }
    for (int c = WHITE; c <= BLACK; c++) {
        for (int t = KNIGHT; t <= QUEEN; t++) {
            Bitboard pcs = board_pieces(b, c, t);
            s[c] += HordeValue[t] * popcount(pcs);
            s[c] += VE_HORDE_PIECE_MOBILITY * popcount(piece_targets(b, c, t));
        }
    }
    Bitboard bp = board_pieces(b, BLACK, PAWN);
    while (bp) {
        int sq = pop_lsb(&bp);
        s[BLACK] += HordeValue[PAWN] + advance[relative_rank(BLACK, sq)];
    }
    s[BLACK] += horde_breakthrough(b);
    return for_side(b, s[WHITE] - s[BLACK]) + VE_TEMPO;
}

int variant_eval(const Board *b) {
    switch (b->variant) {
    case VAR_KOTH: return eval_koth(b);
    case VAR_THREECHECK: return eval_threecheck(b);
    case VAR_CRAZYHOUSE: return eval_crazyhouse(b);
    case VAR_ATOMIC: return eval_atomic(b);
    case VAR_ANTICHESS: return eval_antichess(b);
    case VAR_RACINGKINGS: return eval_racingkings(b);
    case VAR_HORDE: return eval_horde(b);
    default: return eval_evaluate(b);
    }
}
