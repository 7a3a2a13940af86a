/* variant_eval.c — the hand-crafted evaluation of the variants (variant_eval.h). */
#include "variant_eval.h"

#include <stddef.h>

#include "attacks.h"
#include "bitboard.h"
#include "eval.h"
#include "variant_params.h"

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
        att |= piece_attacks(piece_type(b->squares[sq]), sq, occ);
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
        att |= piece_attacks(t, sq, occ);
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

static int koth_dist_bonus(const VariantParams *p, int d) { return d >= 1 && d <= 4 ? p->koth_dist[d] : 0; }

/* Can c's king step onto a centre square now (empty or enemy, not attacked)? */
static bool koth_step_free(const Board *b, int c, Bitboard their_att) {
    int k = board_king_sq(b, c);
    return (KingAttacks[k] & CenterBB & ~b->by_color[c] & ~their_att) != 0;
}

/* `v`: chess's eval of b (side to move's view), the HCE's or the net's. */
static int eval_koth(const Board *b, const VariantParams *p, int v) {
    int us = b->side, them = !us;
    Bitboard att[2] = {attacks_by(b, WHITE, true), attacks_by(b, BLACK, true)};
    /* The king's distance to the hill along squares the enemy does not
     * attack (own pawns block, own pieces can step aside). */
    int d_us = safe_path(b, us, att[them], board_pieces(b, us, PAWN), CenterBB, 4);
    int d_them = safe_path(b, them, att[us], board_pieces(b, them, PAWN), CenterBB, 4);
    v += koth_dist_bonus(p, d_us) - koth_dist_bonus(p, d_them);
    if (d_us == 1 && !b->checkers && koth_step_free(b, us, att[them])) return v + p->koth_win_in_one;
    if (d_them == 1 && koth_step_free(b, them, att[us])) v -= p->koth_threat_to_win;
    return v;
}

/* ---- three-check ---- */

static int checks_given_bonus(const VariantParams *p, int left) {
    return left == 2 ? p->threecheck_given_1 : left <= 1 ? p->threecheck_given_2 : 0;
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

static int eval_threecheck(const Board *b, const VariantParams *p, int v) {
    int us = b->side, them = !us;
    v += checks_given_bonus(p, b->checks_left[us]) - checks_given_bonus(p, b->checks_left[them]);
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
    v += p->threecheck_ready * (ready_us * given_us - ready_them * given_them);
    v += p->threecheck_safe_check * (safe_us * given_us - safe_them * given_them);
    v += p->threecheck_king_zone * (popcount(KingAttacks[board_king_sq(b, them)] & att[us]) * given_us -
                                    popcount(KingAttacks[board_king_sq(b, us)] & att[them]) * given_them);
    if (b->checks_left[us] == 1 && ready_us && !b->checkers) return v + p->threecheck_win_in_one;
    if (b->checks_left[them] == 1 && ready_them) v -= p->threecheck_threat_to_win;
    return v;
}

/* ---- crazyhouse ---- */

/* The shape of Fairy-Stockfish's classical king danger for drop variants
 * (src/evaluate.cpp, Evaluation::king and ::hand): danger units from the
 * attackers of the king's ring (their count times their weight, men in hand
 * counted as attackers where they can land in the ring), weak ring squares,
 * safe and unsafe checks (moved or dropped) and attacks on the king's
 * flank, less the flank's defenders and a knight guarding the king, turned
 * into centipawns quadratically: one more attacker is worth
 * more when others are there. Drops make every attack cheap, so the danger
 * is large next to the material; a hand-set linear term here lost each
 * White game of its first Fairy-Stockfish match to a drop attack. */

/* c's attacks: by men of each type (pawn..queen), all of them with the
 * king's (`all`), the squares two or more attack (`twice`), and its attack
 * on the enemy king's ring (that king's square and its neighbours): men
 * attacking it (a pawn-attacked ring square counts as one), their weights,
 * their attacks on the squares next to that king. */
typedef struct {
    Bitboard by_type[KING];
    Bitboard all, twice;
    int attackers, weight, hits;
} ZhAttacks;

static inline void zh_add(ZhAttacks *a, Bitboard att) {
    a->twice |= a->all & att;
    a->all |= att;
}

static void zh_attacks(const Board *b, const VariantParams *p, int c, ZhAttacks *a) {
    int ek = board_king_sq(b, !c);
    Bitboard ring = KingAttacks[ek] | sq_bb(ek), occ = b->by_type[0];
    Bitboard push = pawn_push(c, board_pieces(b, c, PAWN));
    *a = (ZhAttacks){0};
    zh_add(a, shift_east(push));
    zh_add(a, shift_west(push));
    a->by_type[PAWN] = a->all;
    a->attackers = popcount(ring & a->all);
    zh_add(a, KingAttacks[board_king_sq(b, c)]);
    Bitboard bb = b->by_color[c] & ~b->by_type[PAWN] & ~b->by_type[KING];
    while (bb) {
        int sq = pop_lsb(&bb), t = piece_type(b->squares[sq]);
        Bitboard att = piece_attacks(t, sq, occ);
        zh_add(a, att);
        a->by_type[t] |= att;
        if (att & ring) {
            a->attackers++;
            a->weight += p->crazyhouse_attack_weight[t];
            a->hits += popcount(att & KingAttacks[ek]);
        }
    }
}

/* The files of a king's flank (Fairy-Stockfish's KingFlank) and c's camp
 * (its first five ranks). */
static Bitboard zh_flank(int ksq) {
    static const Bitboard QueenSide = FILE_A_BB * 0x0F, KingSide = FILE_A_BB * 0xF0, Centre = FILE_A_BB * 0x3C;
    int f = sq_file(ksq);
    return f == 0 ? QueenSide ^ (FILE_A_BB << 3) : f < 3 ? QueenSide : f < 5 ? Centre
         : f < 7 ? KingSide : KingSide ^ (FILE_A_BB << 4);
}

static Bitboard zh_camp(int c) { return c == WHITE ? 0x000000FFFFFFFFFFULL : 0xFFFFFFFFFF000000ULL; }

/* Danger to c's king in centipawns (>= 0): `ours` c's attacks, `theirs` the enemy's. */
static int zh_king_danger(const Board *b, const VariantParams *p, int c, const ZhAttacks *ours, const ZhAttacks *theirs) {
    int k = board_king_sq(b, c), them = !c;
    Bitboard next = KingAttacks[k], ring = next | sq_bb(k), empty = ~b->by_type[0];
    /* squares they attack that c guards at most once, and then by its king or queen only */
    Bitboard weak = theirs->all & ~ours->twice & (~ours->all | next | ours->by_type[QUEEN]);
    /* a man in hand attacks the ring where it can land unless c guards the square twice and they not at all */
    Bitboard landing = empty & (~ours->twice | theirs->all), pawn_drops = empty & ~(RANK_1_BB | RANK_8_BB);
    int in_hand = 0, hand_weight = 0, hits = theirs->hits;
    for (int t = PAWN; t < KING; t++) {
        int n = b->pocket[them][t];
        Bitboard land = t == PAWN ? landing & pawn_drops : landing;
        if (!n || !(land & ring)) continue;
        in_hand += n;
        hand_weight += n * p->crazyhouse_attack_weight[t];
        hits += popcount(land & next);
    }
    /* checks next move: by a move or a drop, safe where c does not guard the
     * square (or guards it only weakly and they attack it twice) */
    Bitboard safe = ~b->by_color[them] & (~ours->all | (weak & theirs->twice)), unsafe = 0;
    int units = 0;
    for (int t = PAWN; t < KING; t++) {
        Bitboard reach = t == PAWN ? 0 : theirs->by_type[t];   /* a pawn checks by a drop only, as there */
        if (b->pocket[them][t]) reach |= t == PAWN ? pawn_drops : empty;
        Bitboard checks = check_squares(b, t, k, them) & reach;
        if (checks & safe) units += p->crazyhouse_safe_check[t];
        else unsafe |= checks;
    }
    Bitboard flank = zh_flank(k) & zh_camp(c);
    int flank_attacks = popcount(theirs->all & flank) + popcount(theirs->twice & flank);
    units += theirs->attackers * theirs->weight + in_hand * theirs->weight + theirs->attackers * hand_weight
           + p->crazyhouse_ring_weak * popcount(ring & weak) + p->crazyhouse_unsafe_check * popcount(unsafe)
           + p->crazyhouse_ring_hits * hits + 3 * flank_attacks * flank_attacks / 8
           - p->crazyhouse_flank_defense * popcount(ours->all & flank)
           - (ours->by_type[KNIGHT] & next ? p->crazyhouse_knight_guard : 0);
    int d = p->crazyhouse_flank_attack * flank_attacks;
    int div = p->crazyhouse_danger_div > 0 ? p->crazyhouse_danger_div : 1;   /* the tuner may walk it down */
    if (units > 100) d += (units < p->crazyhouse_danger_cap ? units : p->crazyhouse_danger_cap) * units / div;
    return d;
}

/* Drop mobility: the empty squares of the enemy's half it does not attack,
 * where c's pieces in hand (pawns aside) could land. */
static int zh_drop_squares(const Board *b, int c, Bitboard their_att) {
    bool pieces = b->pocket[c][KNIGHT] | b->pocket[c][BISHOP] | b->pocket[c][ROOK] | b->pocket[c][QUEEN];
    if (!pieces) return 0;
    Bitboard half = c == WHITE ? 0xFFFFFFFF00000000ULL : 0x00000000FFFFFFFFULL;
    return popcount(half & ~b->by_type[0] & ~their_att);
}

/* `v`: chess's eval of b's board (side to move's view), the HCE's or the net's. */
static int eval_crazyhouse(const Board *b, const VariantParams *p, int v) {
    int us = b->side, them = !us;
    for (int t = PAWN; t < KING; t++) v += p->crazyhouse_hand[t] * (b->pocket[us][t] - b->pocket[them][t]);
    ZhAttacks a_us, a_them;
    zh_attacks(b, p, us, &a_us);
    zh_attacks(b, p, them, &a_them);
    v += zh_king_danger(b, p, them, &a_them, &a_us) - zh_king_danger(b, p, us, &a_us, &a_them);
    v += p->crazyhouse_drop_square * (zh_drop_squares(b, us, a_them.all) - zh_drop_squares(b, them, a_us.all));
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

/* Chess's hand-crafted eval with atomic's own weights (AtomicEvalParams),
 * then its king's neighbours and the threat to explode a king. */
static int eval_atomic(const Board *b, const VariantParams *p) {
    int v = eval_evaluate_with(b, &AtomicEvalParams, NULL);
    int us = b->side, them = !us;
    Bitboard att_us = attacks_by(b, us, false), att_them = attacks_by(b, them, false);
    int ku = board_king_sq(b, us), kt = board_king_sq(b, them);
    if (KingAttacks[ku] & sq_bb(kt)) return v + (b->checkers ? 0 : p->atomic_kings_touch);
    v -= p->atomic_next_to_king * (popcount(KingAttacks[ku] & b->by_color[us] & ~b->by_type[PAWN]) -
                                   popcount(KingAttacks[kt] & b->by_color[them] & ~b->by_type[PAWN]));
    if (!b->checkers && atomic_threat(b, us, att_us)) return v + p->atomic_win_in_one;
    if (atomic_threat(b, them, att_them)) v -= p->atomic_threat_to_win;
    return v;
}

/* ---- antichess ---- */

/* Color c's attacks (kings' too) into *att, and the squares attacked twice into
 * *att2; *quiet gets the squares its men but the king can move to without a
 * capture (a pawn's single push). */
static void antichess_attacks(const Board *b, int c, Bitboard *att, Bitboard *att2, Bitboard *quiet) {
    Bitboard occ = b->by_type[0], push = pawn_push(c, board_pieces(b, c, PAWN));
    Bitboard east = shift_east(push), west = shift_west(push);
    Bitboard a = east | west, a2 = east & west;
    Bitboard q = push & ~occ;
    Bitboard bb = b->by_color[c] & ~b->by_type[PAWN];
    while (bb) {
        int sq = pop_lsb(&bb), t = piece_type(b->squares[sq]);
        Bitboard m = piece_attacks(t, sq, occ);
        a2 |= a & m;
        a |= m;
        if (t != KING) q |= m & ~occ;
    }
    *att = a;
    *att2 = a2;
    *quiet = q;
}

static int eval_antichess(const Board *b, const VariantParams *p) {
    int s[2] = {0, 0};
    Bitboard att[2], att2[2], quiet[2];
    antichess_attacks(b, WHITE, &att[WHITE], &att2[WHITE], &quiet[WHITE]);
    antichess_attacks(b, BLACK, &att[BLACK], &att2[BLACK], &quiet[BLACK]);
    for (int c = WHITE; c <= BLACK; c++) {
        for (int t = PAWN; t <= KING; t++) s[c] -= p->antichess_value[t] * popcount(board_pieces(b, c, t));
        s[c] += p->antichess_mobility * popcount(att[c] & ~b->by_color[c]);
        /* the other side must take what it attacks: men of ours it attacks
         * are men it will have to remove for us */
        s[c] += p->antichess_attacked * popcount(b->by_color[c] & att[!c]);
        /* Fairy-Stockfish's must-capture terms (src/evaluate.cpp threats()):
         * men of theirs we attack are captures we will have to make, the
         * fewer the more each costs (a retaken man, one they defend and we
         * do not attack twice, makes it a trade); empty squares they attack
         * that a man of ours can reach are captures we can force on them */
        Bitboard takes = att[c] & b->by_color[!c];
        if (takes) s[c] -= p->antichess_must_take / (1 + popcount(takes & att[!c] & ~att2[c]));
        Bitboard offers = quiet[c] & att[!c];
        s[c] += p->antichess_offer * popcount(offers) + p->antichess_offer_lone * popcount(offers & ~att2[c]);
    }
    return for_side(b, s[WHITE] - s[BLACK]) + p->antichess_tempo;
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

static int eval_racingkings(const Board *b, const VariantParams *p) {
    /* White's king is home and the game goes on (race_over): Black is to
     * move and can follow, which draws (not following loses). Exact. */
    if (board_pieces(b, WHITE, KING) & RANK_8_BB) return 0;
    int s[2] = {0, 0};
    Bitboard att[2] = {attacks_by(b, WHITE, true), attacks_by(b, BLACK, true)};
    for (int c = WHITE; c <= BLACK; c++) {
        for (int t = KNIGHT; t <= QUEEN; t++) s[c] += p->racingkings_value[t] * popcount(board_pieces(b, c, t));
        int k = board_king_sq(b, c), r = sq_rank(k);
        s[c] += p->racingkings_rank[r];
        if (r < 7) {
            Bitboard ahead = KingAttacks[k] & (RANK_1_BB << (8 * (r + 1)));
            int free = popcount(ahead & ~att[!c] & ~b->by_color[c]);
            s[c] += free ? p->racingkings_free_step * free : -p->racingkings_blocked;
        }
    }
    int v = for_side(b, s[WHITE] - s[BLACK]) + p->racingkings_tempo;
    /* The race: each king's safe path to the eighth rank (rk_race); the
     * winner's side gets more the shorter its path, a win in one when it
     * is to move and one step away. */
    int dw = safe_path(b, WHITE, att[BLACK], b->by_color[WHITE], RANK_8_BB, 6);
    int db = safe_path(b, BLACK, att[WHITE], b->by_color[BLACK], RANK_8_BB, 6);
    int r = rk_race(dw, db, b->side);
    if (r == 0) return dw <= 2 ? v / 4 : v;   /* black follows white: a draw */
    int winner = r > 0 ? WHITE : BLACK, dwin = r > 0 ? dw : db;
    if (dwin > 4) return v;
    if (dwin == 1 && winner == b->side) return v + p->racingkings_win_in_one;
    return v + (winner == b->side ? p->racingkings_race[dwin] : -p->racingkings_race[dwin]);
}

/* ---- horde ---- */

/* Black's way through the pawn wall, d: 0 if its queen already reaches
 * White's first rank, 1 if another man does, else 2 + the fewest pawns
 * (both sides') on a file (an open file is a step short of a man through).
 * The closer, the more the wall's pawns are worth to Black: a piece
 * through it attacks pawns from behind. */
static int horde_breakthrough(const Board *b, const VariantParams *p) {
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
    return p->horde_breakthrough * pawns / (1 + dist * dist) / (queens ? 2 : 4);
}

/* Chess's hand-crafted eval with the horde's own weights (HordeEvalParams:
 * its pawn structure, passed pawns, mobility, threats and Black's king
 * safety; eval.c scores no king for a side without one), then, while White
 * has pawns: the balance and a bonus a pawn, the files whose pawns have few
 * neighbours (Fairy-Stockfish's "pawns easy to stop" for a side of pawns),
 * and Black's way through the wall. The terms stay when a pawn promotes:
 * dropping them there (as until 2026-11-30) made a promotion to a queen cost
 * White about what the queen was worth, so the engine as Black let the
 * horde promote (docs/strength.md, "The horde's balance"). */
static int eval_horde(const Board *b, const VariantParams *p) {
    int v = eval_evaluate_with(b, &HordeEvalParams, NULL);
    Bitboard wp = board_pieces(b, WHITE, PAWN);
    if (!wp || board_pieces(b, WHITE, KING)) return v;   /* not the horde, or no pawn left */
    int s = p->horde_balance + p->horde_pawn * popcount(wp) - horde_breakthrough(b, p);
    int l = 0, m = 0, r = popcount(wp & FILE_A_BB);
    for (int f = 0; f < 8; f++) {
        l = m;
        m = r;
        r = f < 7 ? popcount(wp & (FILE_A_BB << (f + 1))) : 0;
        s -= p->horde_lone_file * m / (1 + l * r);
    }
    return v + for_side(b, s);
}

int variant_eval_with(const Board *b, const VariantParams *p) {
    switch (b->variant) {
    case VAR_KOTH: return eval_koth(b, p, eval_evaluate(b));
    case VAR_THREECHECK: return eval_threecheck(b, p, eval_evaluate(b));
    case VAR_CRAZYHOUSE: return eval_crazyhouse(b, p, eval_evaluate(b));
    case VAR_ATOMIC: return eval_atomic(b, p);
    case VAR_ANTICHESS: return eval_antichess(b, p);
    case VAR_RACINGKINGS: return eval_racingkings(b, p);
    case VAR_HORDE: return eval_horde(b, p);
    default: return eval_evaluate(b);
    }
}

int variant_eval(const Board *b) { return variant_eval_with(b, &VariantDefaultParams); }

int variant_eval_on_chess_with(const Board *b, const VariantParams *p, int chess) {
    return b->variant == VAR_KOTH ? eval_koth(b, p, chess)
         : b->variant == VAR_THREECHECK ? eval_threecheck(b, p, chess) : eval_crazyhouse(b, p, chess);
}

int variant_eval_on_chess(const Board *b, int chess) {
    return variant_eval_on_chess_with(b, &VariantDefaultParams, chess);
}

#define VPARAM(field, var, tuned)                                                             \
    { #field, var, (int)(offsetof(VariantParams, field) / sizeof(int)),                         \
      (int)(sizeof(((VariantParams *)0)->field) / sizeof(int)), tuned }

/* In the header's order; the tuner writes them so (tools/tune.c). */
const VariantParamInfo VariantParamTable[] = {
    VPARAM(koth_dist, VAR_KOTH, true),
    VPARAM(koth_win_in_one, VAR_KOTH, false),
    VPARAM(koth_threat_to_win, VAR_KOTH, true),
    VPARAM(threecheck_given_1, VAR_THREECHECK, true),
    VPARAM(threecheck_given_2, VAR_THREECHECK, true),
    VPARAM(threecheck_ready, VAR_THREECHECK, true),
    VPARAM(threecheck_safe_check, VAR_THREECHECK, true),
    VPARAM(threecheck_king_zone, VAR_THREECHECK, true),
    VPARAM(threecheck_win_in_one, VAR_THREECHECK, false),
    VPARAM(threecheck_threat_to_win, VAR_THREECHECK, true),
    VPARAM(crazyhouse_hand, VAR_CRAZYHOUSE, true),
    VPARAM(crazyhouse_attack_weight, VAR_CRAZYHOUSE, true),
    VPARAM(crazyhouse_safe_check, VAR_CRAZYHOUSE, true),
    VPARAM(crazyhouse_ring_weak, VAR_CRAZYHOUSE, true),
    VPARAM(crazyhouse_unsafe_check, VAR_CRAZYHOUSE, true),
    VPARAM(crazyhouse_ring_hits, VAR_CRAZYHOUSE, true),
    VPARAM(crazyhouse_flank_attack, VAR_CRAZYHOUSE, true),
    VPARAM(crazyhouse_flank_defense, VAR_CRAZYHOUSE, true),
    VPARAM(crazyhouse_knight_guard, VAR_CRAZYHOUSE, true),
    VPARAM(crazyhouse_danger_cap, VAR_CRAZYHOUSE, true),
    VPARAM(crazyhouse_danger_div, VAR_CRAZYHOUSE, true),
    VPARAM(crazyhouse_drop_square, VAR_CRAZYHOUSE, true),
    VPARAM(atomic_next_to_king, VAR_ATOMIC, true),
    VPARAM(atomic_kings_touch, VAR_ATOMIC, true),
    VPARAM(atomic_win_in_one, VAR_ATOMIC, false),
    VPARAM(atomic_threat_to_win, VAR_ATOMIC, true),
    VPARAM(antichess_value, VAR_ANTICHESS, true),
    VPARAM(antichess_mobility, VAR_ANTICHESS, true),
    VPARAM(antichess_attacked, VAR_ANTICHESS, true),
    VPARAM(antichess_tempo, VAR_ANTICHESS, true),
    VPARAM(antichess_must_take, VAR_ANTICHESS, true),
    VPARAM(antichess_offer, VAR_ANTICHESS, true),
    VPARAM(antichess_offer_lone, VAR_ANTICHESS, true),
    VPARAM(racingkings_value, VAR_RACINGKINGS, true),
    VPARAM(racingkings_rank, VAR_RACINGKINGS, true),
    VPARAM(racingkings_free_step, VAR_RACINGKINGS, true),
    VPARAM(racingkings_blocked, VAR_RACINGKINGS, true),
    VPARAM(racingkings_race, VAR_RACINGKINGS, true),
    VPARAM(racingkings_win_in_one, VAR_RACINGKINGS, false),
    VPARAM(racingkings_tempo, VAR_RACINGKINGS, true),
    VPARAM(horde_balance, VAR_HORDE, true),
    VPARAM(horde_pawn, VAR_HORDE, true),
    VPARAM(horde_lone_file, VAR_HORDE, true),
    VPARAM(horde_breakthrough, VAR_HORDE, true),
};
const int VariantParamTableCount = (int)(sizeof VariantParamTable / sizeof VariantParamTable[0]);
