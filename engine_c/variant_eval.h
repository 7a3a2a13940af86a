/* variant_eval.h — the hand-crafted evaluation of the variants.
 *
 * Layout: one function per rule set behind variant_eval(), all from the side
 * to move's view in centipawns, like eval_evaluate. The variants that keep
 * chess's kings and material (king of the hill, three-check, crazyhouse,
 * atomic) start from the standard HCE (eval.h) and add their own terms; the
 * ones whose men or goal differ (antichess, racing kings, horde) have their
 * own material and terms only. King of the hill and three-check may start
 * from chess's net instead (variant_eval_on_chess); a variant's own net, where
 * one is loaded, replaces all of this (nnue.h). Every
 * weight is a named parameter below (set by hand until tuned; docs/strength.md
 * records how they play; docs/tuning.md "The variants' weights"). A "win in one" term marks what the search would
 * find a ply later (a king step onto the hill, the last check, an
 * explosion of the king): it lets the quiescence search see the threat.
 */
#ifndef PB_VARIANT_EVAL_H
#define PB_VARIANT_EVAL_H

#include "board.h"

/* ---- weights (centipawns) ----
 * Named parameters, one group per variant (a group's fields start with its
 * prefix), the values in variant_params.h (VariantDefaultParams; generated,
 * like evalparams.h, by engine_c/tools/tune.c --variant NAME, which rewrites
 * one variant's group and copies the others). Every field is an int, so the
 * tuner walks them as an int array (VariantParamTable). The groups share no
 * field: tuning one variant leaves the others as they are.
 *   win_in_one: the side to move wins with its next move (a static guess;
 *     not tuned: a marker for the quiescence search); threat_to_win: the
 *     other side threatens that. Index 0 of a per-distance table is unused. */
typedef struct {
    /* king of the hill: king moves to the centre along squares the enemy does not attack */
    int koth_dist[5];            /* by distance 1..4 */
    int koth_win_in_one, koth_threat_to_win;
    /* three-check: per check already given (1, 2); per ready check square, safe check
     * square and enemy-attacked square next to the king, x the checks given + 1 */
    int threecheck_given_1, threecheck_given_2;
    int threecheck_ready, threecheck_safe_check, threecheck_king_zone;
    int threecheck_win_in_one, threecheck_threat_to_win;
    /* crazyhouse: men in hand by type (pawn..queen); king danger in units (variant_eval.c),
     * centipawns = min(units, cap) x units / div, plus a linear flank term */
    int crazyhouse_hand[6];
    int crazyhouse_attack_weight[6];     /* a king-ring attacker's weight, on the board or in hand */
    int crazyhouse_safe_check[6];        /* a safe check next move by a man of this type, moved or dropped */
    int crazyhouse_ring_weak, crazyhouse_unsafe_check, crazyhouse_ring_hits;   /* units per square */
    int crazyhouse_flank_attack;         /* centipawns per attack on the king's flank */
    int crazyhouse_flank_defense, crazyhouse_knight_guard;   /* units off: per defended flank square, a knight by the king */
    int crazyhouse_danger_cap, crazyhouse_danger_div;
    int crazyhouse_drop_square;          /* per unattacked empty square of the enemy's half, pieces in hand */
    /* atomic: own men next to one's own king (a capture there explodes it) */
    int atomic_next_to_king, atomic_kings_touch;
    int atomic_win_in_one, atomic_threat_to_win;
    /* antichess: every man a liability (pawn..king); mobility keeps one out of zugzwang */
    int antichess_value[7];
    int antichess_mobility, antichess_attacked, antichess_tempo;
    /* a side that can take must (less when the man taken is retaken), and a
     * man it can put en prise offers a forced capture (more where it stands
     * alone): Fairy-Stockfish's terms for must-capture variants */
    int antichess_must_take, antichess_offer, antichess_offer_lone;
    /* racing kings: material (knight..queen), king rank, free squares on the king's next
     * rank; the race's winner (rk_race) by its king's safe path 1..4 (1: threat_to_win) */
    int racingkings_value[6];
    int racingkings_rank[8];
    int racingkings_free_step, racingkings_blocked;
    int racingkings_race[5];
    int racingkings_win_in_one, racingkings_tempo;
    /* horde: chess's HCE (no king for White) plus these */
    int horde_balance;       /* for White (the horde) while it has pawns, and ... */
    int horde_pawn;          /* ... this a pawn: the HCE's doubled pawns and material read the wall as lost */
    int horde_lone_file;     /* against White's pawns only: x the file's pawns / (1 + those of
                                the files beside it): pawns easy to stop */
    int horde_breakthrough;  /* x White's pawns / (1 + d^2) / (2 with a black queen, else 4): d how far
                                black is from breaking through the wall (variant_eval.c) */
} VariantParams;

#define VARIANT_NPARAMS ((int)(sizeof(VariantParams) / sizeof(int)))

extern const VariantParams VariantDefaultParams;

/* One field of VariantParams: its name, variant (VAR_*), first int and
 * count, and whether the tuner may move it. */
typedef struct {
    const char *name;
    int variant, offset, count;
    bool tuned;
} VariantParamInfo;

extern const VariantParamInfo VariantParamTable[];
extern const int VariantParamTableCount;

/* variant_eval with the given weights (the tuner's). */
int variant_eval_with(const Board *b, const VariantParams *p);

/* Centipawns from the side to move's point of view, for b->variant !=
 * VAR_STANDARD in a position whose game is not over (no king exploded or
 * on the hill, ...): the search asks movegen_variant_end first. */
int variant_eval(const Board *b);

/* Does the variant's eval start from chess's (king of the hill, three-check:
 * chess's men and moves, plus a goal; crazyhouse: plus the pockets), so that
 * chess's net can give it? */
static inline bool variant_on_chess(int variant) {
    return variant == VAR_KOTH || variant == VAR_THREECHECK || variant == VAR_CRAZYHOUSE;
}
/* variant_eval of such a variant with `chess` (chess's eval of b, side to
 * move's view; from the net) in place of the standard HCE; _with: the
 * variant's weights p (the tuner's). */
int variant_eval_on_chess(const Board *b, int chess);
int variant_eval_on_chess_with(const Board *b, const VariantParams *p, int chess);

#endif
