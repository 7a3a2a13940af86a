/* eval.c — static evaluation; see eval.h for the weight layout.
 *
 * Every weight is added through ADD(), which also records a coefficient in
 * the optional trace, so the Texel tuner sees exactly the terms the engine
 * uses (no second implementation to drift out of sync).
 */
#include "eval.h"

#include <string.h>

#include "attacks.h"
#include "bitboard.h"

#include "evalparams.h"
#include "evalparams_atomic.h"
#include "evalparams_horde.h"

/* Fixed (untuned) king-attack unit weights: the tuner fits the curve over
 * units (king_danger_lin/quad); keeping the units fixed keeps it linear. */
static const int KingAttackUnits[7] = {0, 0, 2, 2, 3, 5, 0};
static const int SafeCheckUnits[7] = {0, 0, 3, 2, 4, 3, 0};
enum { KING_UNITS_MAX = 60 };

static const int PhaseWeight[7] = {0, 0, 1, 1, 2, 4, 0};

typedef struct {
    const Board *b;
    const EvalParams *p;
    EvalTrace *t;
    Score score[2];
    Bitboard attacked[2][7];     /* [colour][piece type]; [0] = by anything */
    Bitboard attacked2[2];       /* squares attacked at least twice */
    Bitboard pawn_attacks[2];
    Bitboard mob_area[2];
    Bitboard king_zone[2];
    int king_sq[2];              /* -1: no king (the horde's White) */
    int king_units[2];           /* units scored by [colour] against the enemy king */
    int king_attackers[2];
    Bitboard passed[2];
} EvalCtx;

/* Add weight `field` `n` times for colour c (and trace it). `field` is
 * evaluated twice: it must have no side effects. */
#define ADD(ctx, c, field, n)                                                     \
    do {                                                                          \
        int n_ = (n);                                                             \
        (ctx)->score[c] += (ctx)->p->field * n_;                                  \
        if ((ctx)->t)                                                             \
            (ctx)->t->coef[&(ctx)->p->field - (const Score *)(ctx)->p][c] += n_;  \
    } while (0)

/* ---- masks computed on the fly (cheap shifts, no global tables) ---- */

static inline Bitboard ranks_ahead(int c, int sq) {
    int r = sq_rank(sq);
    if (c == WHITE) return r == 7 ? 0 : ~0ULL << (8 * (r + 1));
    return r == 0 ? 0 : (~0ULL >> (8 * (8 - r)));
}
static inline Bitboard adjacent_files(int sq) {
    Bitboard f = file_bb(sq);
    return shift_east(f) | shift_west(f);
}
static inline Bitboard forward_file(int c, int sq) { return ranks_ahead(c, sq) & file_bb(sq); }
static inline Bitboard passed_span(int c, int sq) {
    return ranks_ahead(c, sq) & (file_bb(sq) | adjacent_files(sq));
}
static inline Bitboard pawn_attacks_bb(int c, Bitboard pawns) {
    Bitboard f = pawn_push(c, pawns);
    return shift_east(f) | shift_west(f);
}
static inline int sq_distance(int a, int b) {
    int df = sq_file(a) - sq_file(b), dr = sq_rank(a) - sq_rank(b);
    if (df < 0) df = -df;
    if (dr < 0) dr = -dr;
    return df > dr ? df : dr;
}
static inline int rel_sq(int c, int sq) { return c == WHITE ? sq : sq ^ 56; }

/* ---- terms ---- */

static void eval_material_psqt(EvalCtx *e) {
    const Board *b = e->b;
    for (int c = WHITE; c <= BLACK; c++) {
        for (int pt = PAWN; pt <= KING; pt++) {
            Bitboard bb = board_pieces(b, c, pt);
            if (pt != KING) ADD(e, c, material[pt], popcount(bb));
            while (bb) {
                int sq = pop_lsb(&bb);
                ADD(e, c, psqt[pt][rel_sq(c, sq)], 1);
            }
        }
    }
}

static void eval_pawns(EvalCtx *e, int c) {
    const Board *b = e->b;
    Bitboard own = board_pieces(b, c, PAWN), their = board_pieces(b, !c, PAWN);
    Bitboard bb = own;
    e->passed[c] = 0;
    while (bb) {
        int sq = pop_lsb(&bb);
        int rr = relative_rank(c, sq);
        Bitboard adj = adjacent_files(sq);
        Bitboard stop = pawn_push(c, sq_bb(sq));
        Bitboard supporters = PawnAttacks[!c][sq] & own;
        Bitboard phalanx = (shift_east(sq_bb(sq)) | shift_west(sq_bb(sq))) & own;

        if (forward_file(c, sq) & own) ADD(e, c, pawn_doubled, 1);
        if (!(adj & own)) {
            ADD(e, c, pawn_isolated, 1);
        } else if (!(adj & own & ~ranks_ahead(c, sq)) && (stop & e->pawn_attacks[!c])) {
            /* no neighbour level or behind can ever defend it, and its
             * advance is controlled by an enemy pawn */
            ADD(e, c, pawn_backward, 1);
        }
        if (supporters) ADD(e, c, pawn_supported[rr], popcount(supporters));
        if (phalanx) ADD(e, c, pawn_phalanx[rr], 1);
        if (!(passed_span(c, sq) & their) && !(forward_file(c, sq) & own)) {
            e->passed[c] |= sq_bb(sq);
            ADD(e, c, passed_rank[rr], 1);
        }
    }
}

/* Mobility, outposts, rook files, attack maps and king-attack units. */
static void eval_pieces(EvalCtx *e, int c) {
    const Board *b = e->b;
    Bitboard occ = b->by_type[0];
    Bitboard own_pawns = board_pieces(b, c, PAWN), their_pawns = board_pieces(b, !c, PAWN);
    int their_king = e->king_sq[!c];
    Bitboard zone = e->king_zone[!c];
    /* enemy squares from which each slider kind would give check, safe
     * when not attacked by the enemy (approximated by pawns and king). */
    Bitboard unsafe = e->pawn_attacks[!c] | e->attacked[!c][KING] | b->by_color[c];
    Bitboard check_sq[7] = {0};
    if (their_king >= 0) {
        check_sq[KNIGHT] = KnightAttacks[their_king];
        check_sq[BISHOP] = bishop_attacks(their_king, occ);
        check_sq[ROOK] = rook_attacks(their_king, occ);
        check_sq[QUEEN] = check_sq[BISHOP] | check_sq[ROOK];
    }

    for (int pt = KNIGHT; pt <= QUEEN; pt++) {
        Bitboard bb = board_pieces(b, c, pt);
        while (bb) {
            int sq = pop_lsb(&bb);
            Bitboard att;
            if (pt == KNIGHT) att = KnightAttacks[sq];
            /* x-ray through own queens (and rooks for rooks) so batteries count */
            else if (pt == BISHOP) att = bishop_attacks(sq, occ ^ board_pieces(b, c, QUEEN));
            else if (pt == ROOK) att = rook_attacks(sq, occ ^ board_pieces(b, c, QUEEN) ^ board_pieces(b, c, ROOK));
            else att = queen_attacks(sq, occ);

            e->attacked2[c] |= e->attacked[c][0] & att;
            e->attacked[c][0] |= att;
            e->attacked[c][pt] |= att;

            int mob = popcount(att & e->mob_area[c]);
            switch (pt) {
            case KNIGHT: ADD(e, c, mob_knight[mob], 1); break;
            case BISHOP: ADD(e, c, mob_bishop[mob], 1); break;
            case ROOK: ADD(e, c, mob_rook[mob], 1); break;
            default: ADD(e, c, mob_queen[mob], 1); break;
            }

            if (att & zone) {
                e->king_attackers[c]++;
                e->king_units[c] += KingAttackUnits[pt] + popcount(att & zone);
            }
            if (att & check_sq[pt] & ~unsafe) e->king_units[c] += SafeCheckUnits[pt];

            int rr = relative_rank(c, sq);
            if ((pt == KNIGHT || pt == BISHOP) && rr >= 3 && rr <= 5
                && (PawnAttacks[!c][sq] & own_pawns)
                && !(passed_span(c, sq) & adjacent_files(sq) & their_pawns)) {
                if (pt == KNIGHT) ADD(e, c, knight_outpost, 1);
                else ADD(e, c, bishop_outpost, 1);
            }
            if (pt == ROOK) {
                Bitboard f = file_bb(sq);
                if (!(f & own_pawns)) {
                    if (!(f & their_pawns)) ADD(e, c, rook_open, 1);
                    else ADD(e, c, rook_semiopen, 1);
                }
                if (rr == 6 && ((their_king >= 0 && relative_rank(c, their_king) == 7)
                                || (their_pawns & rank_bb(sq))))
                    ADD(e, c, rook_seventh, 1);
            }
        }
    }
}

static void eval_king(EvalCtx *e, int c) {
    const Board *b = e->b;
    int ksq = e->king_sq[c];
    if (ksq < 0) return;   /* no king, no shelter or danger */
    Bitboard own_pawns = board_pieces(b, c, PAWN), their_pawns = board_pieces(b, !c, PAWN);
    int kf = sq_file(ksq);
    if (kf < 1) kf = 1;
    if (kf > 6) kf = 6;
    /* pawns level with or in front of the king only */
    Bitboard front = ranks_ahead(c, ksq) | rank_bb(ksq);
    for (int f = kf - 1; f <= kf + 1; f++) {
        Bitboard file = FILE_A_BB << f;
        Bitboard ours = own_pawns & file & front, theirs = their_pawns & file & front;
        int shield = 0, storm = 0;
        if (ours) shield = relative_rank(c, c == WHITE ? lsb(ours) : msb(ours));
        if (theirs) storm = relative_rank(c, c == WHITE ? lsb(theirs) : msb(theirs));
        ADD(e, c, king_shield[shield], 1);
        ADD(e, c, king_storm[storm], 1);
        if (!(own_pawns & file)) {
            ADD(e, c, king_semiopen, 1);
            if (!(their_pawns & file)) ADD(e, c, king_open, 1);
        }
    }
    /* danger from the enemy: only with two attackers or a queen in the attack */
    int them = !c;
    int units = e->king_units[them];
    if (e->king_attackers[them] >= 2
        || (e->king_attackers[them] >= 1 && board_pieces(b, them, QUEEN))) {
        if (!board_pieces(b, them, QUEEN)) units /= 2;
        if (units > KING_UNITS_MAX) units = KING_UNITS_MAX;
        /* the danger is a bonus for the attacker */
        ADD(e, them, king_danger_lin, units);
        ADD(e, them, king_danger_quad, units * units / 16);
    }
}

static void eval_passed(EvalCtx *e, int c) {
    const Board *b = e->b;
    Bitboard bb = e->passed[c];
    int own_king = e->king_sq[c], their_king = e->king_sq[!c];
    while (bb) {
        int sq = pop_lsb(&bb);
        int rr = relative_rank(c, sq);
        int stop = c == WHITE ? sq + 8 : sq - 8;   /* rr <= 6, so stop is on the board */
        if (own_king >= 0) ADD(e, c, passed_own_king[rr], sq_distance(own_king, stop));
        if (their_king >= 0) ADD(e, c, passed_their_king[rr], sq_distance(their_king, stop));
        if (!(b->by_type[0] & sq_bb(stop)) && !(e->attacked[!c][0] & sq_bb(stop)))
            ADD(e, c, passed_safe_push[rr], 1);
    }
}

static void eval_threats(EvalCtx *e, int c) {
    const Board *b = e->b;
    Bitboard their = b->by_color[!c];
    Bitboard non_pawn = their & ~b->by_type[PAWN] & ~b->by_type[KING];
    /* (the victim type is computed first: ADD() evaluates its field twice) */
    Bitboard bb = non_pawn & e->pawn_attacks[c];
    while (bb) {
        int victim = piece_type(b->squares[pop_lsb(&bb)]);
        ADD(e, c, threat_pawn[victim], 1);
    }
    bb = their & ~b->by_type[KING] & (e->attacked[c][KNIGHT] | e->attacked[c][BISHOP]);
    while (bb) {
        int victim = piece_type(b->squares[pop_lsb(&bb)]);
        ADD(e, c, threat_minor[victim], 1);
    }
    bb = their & ~b->by_type[KING] & e->attacked[c][ROOK];
    while (bb) {
        int victim = piece_type(b->squares[pop_lsb(&bb)]);
        ADD(e, c, threat_rook[victim], 1);
    }
    /* attacked and not defended at all */
    bb = their & ~b->by_type[KING] & e->attacked[c][0] & ~e->attacked[!c][0];
    ADD(e, c, threat_hanging, popcount(bb));
}

/* Endgame scale (0..128) for the side that is ahead in the endgame. */
static int eval_scale(const Board *b, int eg) {
    int strong = eg >= 0 ? WHITE : BLACK, weak = !strong;
    Bitboard sp = board_pieces(b, strong, PAWN);
    int npm[2];
    for (int c = WHITE; c <= BLACK; c++)
        npm[c] = 3 * popcount(board_pieces(b, c, KNIGHT) | board_pieces(b, c, BISHOP))
                 + 5 * popcount(board_pieces(b, c, ROOK)) + 9 * popcount(board_pieces(b, c, QUEEN));
    Bitboard wb = board_pieces(b, WHITE, BISHOP), bbp = board_pieces(b, BLACK, BISHOP);
    const Bitboard dark = 0xAA55AA55AA55AA55ULL;
    /* opposite-coloured bishops: the extra pawns rarely win */
    if (npm[WHITE] == 3 && npm[BLACK] == 3 && popcount(wb) == 1 && popcount(bbp) == 1
        && !!(wb & dark) != !!(bbp & dark))
        return 48 + 8 * (popcount(sp) - popcount(board_pieces(b, weak, PAWN)) > 2);
    if (!sp) {
        /* no pawns: a minor piece up (or less) is a draw; KNN too */
        if (npm[strong] - npm[weak] <= 3)
            return npm[strong] <= 3 ? 0 : (npm[weak] >= 3 ? 16 : 32);
        if (npm[strong] == 6 && npm[weak] == 0 && popcount(board_pieces(b, strong, KNIGHT)) == 2)
            return 0;
    }
    if (popcount(sp) == 1 && npm[strong] == 3 && npm[weak] == 3)
        return 64; /* one pawn with equal minor material: often drawn */
    return EVAL_SCALE_NORMAL;
}

int eval_evaluate_with(const Board *b, const EvalParams *p, EvalTrace *t) {
    if (t) memset(t, 0, sizeof(*t));
    if (board_insufficient_material(b)) {
        if (t) t->scale = 0;
        return 0;
    }
    EvalCtx e;
    memset(&e, 0, sizeof(e));
    e.b = b;
    e.p = p;
    e.t = t;

    for (int c = WHITE; c <= BLACK; c++) {
        Bitboard pawns = board_pieces(b, c, PAWN), king = board_pieces(b, c, KING);
        int ksq = king ? lsb(king) : -1;
        Bitboard katt = king ? KingAttacks[ksq] : 0;
        e.king_sq[c] = ksq;
        e.pawn_attacks[c] = pawn_attacks_bb(c, pawns);
        e.king_zone[c] = katt | king;
        e.attacked[c][PAWN] = e.pawn_attacks[c];
        e.attacked[c][KING] = katt;
        e.attacked2[c] = e.pawn_attacks[c] & katt;
        e.attacked[c][0] = e.pawn_attacks[c] | katt;
    }
    for (int c = WHITE; c <= BLACK; c++) {
        /* safe squares: not blocked own pawns, own king, or enemy pawn attacks */
        Bitboard own_pawns = board_pieces(b, c, PAWN);
        Bitboard blocked = own_pawns & pawn_push(!c, b->by_type[0]);
        e.mob_area[c] = ~(blocked | board_pieces(b, c, KING) | e.pawn_attacks[!c]);
    }

    eval_material_psqt(&e);
    eval_pawns(&e, WHITE);
    eval_pawns(&e, BLACK);
    eval_pieces(&e, WHITE);
    eval_pieces(&e, BLACK);
    eval_king(&e, WHITE);
    eval_king(&e, BLACK);
    eval_passed(&e, WHITE);
    eval_passed(&e, BLACK);
    eval_threats(&e, WHITE);
    eval_threats(&e, BLACK);
    for (int c = WHITE; c <= BLACK; c++)
        if (more_than_one(board_pieces(b, c, BISHOP))) ADD(&e, c, bishop_pair, 1);
    ADD(&e, b->side, tempo, 1);

    int phase = 0;
    for (int pt = KNIGHT; pt <= QUEEN; pt++) phase += PhaseWeight[pt] * popcount(b->by_type[pt]);
    if (phase > EVAL_PHASE_MAX) phase = EVAL_PHASE_MAX;

    Score s = e.score[WHITE] - e.score[BLACK];
    int mg = score_mg(s), eg = score_eg(s);
    int scale = eval_scale(b, eg);
    /* the scale applies to the whole tapered score: a dead draw stays 0
     * even with a little middlegame phase left (e.g. KNN v K) */
    int v = (mg * phase + eg * (EVAL_PHASE_MAX - phase)) / EVAL_PHASE_MAX;
    v = v * scale / EVAL_SCALE_NORMAL;
    if (t) {
        t->phase = phase;
        t->scale = scale;
        t->eval = v;
    }
    return b->side == WHITE ? v : -v;
}

int eval_evaluate(const Board *b) { return eval_evaluate_with(b, &EvalDefaultParams, NULL); }

#define PARAM(field, r, cl)                                                                   \
    { #field, (int)(offsetof(EvalParams, field) / sizeof(Score)), r, cl }

const EvalParamInfo EvalParamTable[] = {
    PARAM(material, 7, 1),
    PARAM(psqt, 7, 64),
    PARAM(mob_knight, 9, 1),
    PARAM(mob_bishop, 14, 1),
    PARAM(mob_rook, 15, 1),
    PARAM(mob_queen, 28, 1),
    PARAM(pawn_isolated, 1, 0),
    PARAM(pawn_doubled, 1, 0),
    PARAM(pawn_backward, 1, 0),
    PARAM(pawn_supported, 8, 1),
    PARAM(pawn_phalanx, 8, 1),
    PARAM(passed_rank, 8, 1),
    PARAM(passed_safe_push, 8, 1),
    PARAM(passed_own_king, 8, 1),
    PARAM(passed_their_king, 8, 1),
    PARAM(bishop_pair, 1, 0),
    PARAM(knight_outpost, 1, 0),
    PARAM(bishop_outpost, 1, 0),
    PARAM(rook_open, 1, 0),
    PARAM(rook_semiopen, 1, 0),
    PARAM(rook_seventh, 1, 0),
    PARAM(king_shield, 8, 1),
    PARAM(king_storm, 8, 1),
    PARAM(king_semiopen, 1, 0),
    PARAM(king_open, 1, 0),
    PARAM(king_danger_lin, 1, 0),
    PARAM(king_danger_quad, 1, 0),
    PARAM(threat_pawn, 7, 1),
    PARAM(threat_minor, 7, 1),
    PARAM(threat_rook, 7, 1),
    PARAM(threat_hanging, 1, 0),
    PARAM(tempo, 1, 0),
};
const int EvalParamTableCount = (int)(sizeof(EvalParamTable) / sizeof(EvalParamTable[0]));
