/* variant_eval.h — the hand-crafted evaluation of the variants.
 *
 * Layout: one function per rule set behind variant_eval(), all from the side
 * to move's view in centipawns, like eval_evaluate. The variants that keep
 * chess's kings and material (king of the hill, three-check, crazyhouse,
 * atomic) start from the standard HCE (eval.h) and add their own terms; the
 * ones whose men or goal differ (antichess, racing kings, horde) have their
 * own material and terms only. The NNUE is never used for a variant. Every
 * weight is a named constant below (untuned, set by hand; docs/strength.md
 * records how they play). A "win in one" term marks what the search would
 * find a ply later (a king step onto the hill, the last check, an
 * explosion of the king): it lets the quiescence search see the threat.
 */
#ifndef PB_VARIANT_EVAL_H
#define PB_VARIANT_EVAL_H

#include "board.h"

/* ---- weights (centipawns) ---- */
enum {
    VE_TEMPO = 15,
    VE_WIN_IN_ONE = 3000,        /* the side to move wins with its next move (static guess) */
    VE_THREAT_TO_WIN = 250,      /* the other side threatens that */
    /* king of the hill: king moves to the centre along squares the enemy does not attack */
    VE_KOTH_DIST_1 = 180, VE_KOTH_DIST_2 = 90, VE_KOTH_DIST_3 = 40, VE_KOTH_DIST_4 = 15,
    /* three-check: per check already given (1, 2), per square from which a check is ready */
    VE_3CHECK_GIVEN_1 = 250, VE_3CHECK_GIVEN_2 = 700, VE_3CHECK_READY = 25,
    VE_3CHECK_KING_ZONE = 20,    /* per enemy-attacked square next to the king, x (checks given + 1) */
    VE_3CHECK_SAFE_CHECK = 30,   /* per check square the enemy does not guard, x (checks given + 1) */
    /* crazyhouse: men in hand by type, king danger from the enemy's hand */
    VE_ZH_HAND_PAWN = 120, VE_ZH_HAND_KNIGHT = 330, VE_ZH_HAND_BISHOP = 330,
    VE_ZH_HAND_ROOK = 450, VE_ZH_HAND_QUEEN = 850,
    VE_ZH_ZONE_ATTACKED = 3, VE_ZH_ZONE_EMPTY = 2,   /* king-danger units per zone square */
    VE_ZH_DANGER_MUL = 5, VE_ZH_DANGER_MAX = 1200,
    /* king-danger units of a man in the enemy's hand that can be dropped with a safe check */
    VE_ZH_SAFE_CHECK_PAWN = 2, VE_ZH_SAFE_CHECK_KNIGHT = 4, VE_ZH_SAFE_CHECK_BISHOP = 3,
    VE_ZH_SAFE_CHECK_ROOK = 4, VE_ZH_SAFE_CHECK_QUEEN = 6,
    VE_ZH_DROP_SQUARE = 2,       /* per unattacked empty square of the enemy's half, with pieces in hand */
    /* atomic: own men next to one's own king (a capture there explodes it) */
    VE_ATOMIC_NEXT_TO_KING = 12, VE_ATOMIC_KINGS_TOUCH = 40,
    /* antichess: every man a liability; mobility keeps one out of zugzwang */
    VE_AC_PAWN = 100, VE_AC_KNIGHT = 160, VE_AC_BISHOP = 180, VE_AC_ROOK = 240, VE_AC_QUEEN = 260,
    VE_AC_KING = 120, VE_AC_MOBILITY = 4, VE_AC_ATTACKED = 10,
    /* racing kings: material, king rank, free squares on the king's next rank */
    VE_RK_KNIGHT = 300, VE_RK_BISHOP = 320, VE_RK_ROOK = 480, VE_RK_QUEEN = 900,
    VE_RK_FREE_STEP = 25, VE_RK_BLOCKED = 60,
    /* racing kings: the race's winner (variant_eval.c, rk_race), by its king's safe path */
    VE_RK_RACE_2 = 150, VE_RK_RACE_3 = 70, VE_RK_RACE_4 = 30,
    /* horde: the white pawns, their chains and advance; black's pieces */
    VE_HORDE_PAWN = 100, VE_HORDE_SUPPORTED = 10, VE_HORDE_ISOLATED = 15,
    VE_HORDE_PIECE_MOBILITY = 3,
    VE_HORDE_BREAKTHROUGH = 35,  /* x White's pawns / (1 + d^2) / (2 with a black queen, else 4): d how far
                                    black is from breaking through the wall (variant_eval.c) */
};

/* Per relative rank (racing kings: the rank itself). */
#define VE_RK_RANK_INIT {0, 25, 60, 110, 180, 280, 430, 0}
#define VE_HORDE_ADVANCE_INIT {0, 0, 4, 10, 20, 40, 80, 0}

/* Centipawns from the side to move's point of view, for b->variant !=
 * VAR_STANDARD in a position whose game is not over (no king exploded or
 * on the hill, ...): the search asks movegen_variant_end first. */
int variant_eval(const Board *b);

#endif
