/* search_params.h — every tunable constant of the search in one place.
 *
 * Depths and plies are in plies, margins in centipawns, history values in
 * the units of search.c's history tables (saturating at HIST_GRAVITY).
 * Changing any of these changes the bench signature (bench/signature.txt):
 * record the change and its measurement in docs/strength.md.
 */
#ifndef PB_SEARCH_PARAMS_H
#define PB_SEARCH_PARAMS_H

#include "types.h"

/* ---- late move reductions: Reductions[d][m] = LMR_BASE + ln d * ln m / LMR_DIVISOR */
#define LMR_BASE 0.75
#define LMR_DIVISOR 2.25
enum {
    LMR_MIN_DEPTH = 3,          /* no reductions below this depth */
    LMR_HISTORY_DIVISOR = 12000 /* one ply less (more) per this much history score */
};

/* ---- limits: the main thread checks the clock (and the total node count of
 * all threads) every this many of its nodes; a power of two */
enum { LIMIT_CHECK_INTERVAL = 1024 };

/* ---- iterative deepening and aspiration windows */
enum {
    ASP_MIN_DEPTH = 5,      /* full window below this depth */
    ASP_DELTA = 18,         /* initial half-width around the previous score */
    ASP_WIDEN_ADD = 5,      /* after a fail: delta += delta / 2 + ASP_WIDEN_ADD */
    SMP_SKIP_CYCLE = 3,     /* helper thread i skips depth d when (d + i) % cycle == 0 */
    SINGLE_REPLY_DEPTH = 4  /* with one legal move, stop a timed search at this depth */
};

/* ---- quiescence */
enum {
    QS_DELTA_MARGIN = 200,            /* delta pruning: stand + victim + margin <= alpha */
    QS_BAD_CAPTURE_SLACK = 1000000    /* picker scores below SC_GOOD_CAP - slack lose material */
};

/* ---- node pruning (non-PV, not in check) */
enum {
    RFP_MAX_DEPTH = 8,        /* reverse futility pruning up to this depth */
    RFP_MARGIN = 80,          /* per ply of depth (minus one ply when improving) */
    NMP_MIN_DEPTH = 3,        /* null move from this depth */
    NMP_BASE_R = 3,           /* R = base + depth / NMP_DEPTH_DIV + min((eval - beta) / ...) */
    NMP_DEPTH_DIV = 4,
    NMP_EVAL_DIV = 200,       /* one more ply of reduction per this much eval over beta */
    NMP_EVAL_MAX_R = 3,       /* ... at most this many */
    TT_CUT_MAX_RULE50 = 90    /* no TT cutoffs this close to a fifty-move draw */
};

/* ---- move pruning (once a non-losing line exists) */
enum {
    LMP_MAX_DEPTH = 8,        /* late move pruning: quiets after (LMP_BASE + d*d) / (2 - improving) */
    LMP_BASE = 3,
    FUT_MAX_DEPTH = 8,        /* futility pruning of quiets: eval + base + per_ply * d <= alpha */
    FUT_BASE = 100,
    FUT_PER_PLY = 100,
    SEE_MAX_DEPTH = 8,        /* SEE pruning up to this depth with a threshold per ply: */
    SEE_QUIET_PER_PLY = 60,   /* quiets: see >= -60 * depth */
    SEE_NOISY_PER_PLY = 100   /* captures / promotions: see >= -100 * depth */
};

/* ---- extensions */
#define CHECK_EXT_MAX_PLY (2 * MAX_PLY / 3)   /* check extension only below this ply */

/* ---- history heuristics */
enum {
    HIST_GRAVITY = 16384,     /* history entries saturate at +-this */
    HIST_BONUS_MAX = 1200,    /* bonus = min(depth * depth, max) * scale */
    HIST_BONUS_SCALE = 8
};

/* ---- consistency with the rest of the engine */
_Static_assert((LIMIT_CHECK_INTERVAL & (LIMIT_CHECK_INTERVAL - 1)) == 0,
               "LIMIT_CHECK_INTERVAL is used as a bit mask");
_Static_assert(CHECK_EXT_MAX_PLY < MAX_PLY, "extensions must stop before MAX_PLY");
_Static_assert(MAX_PLY <= 255, "TT entries store the depth in 8 bits");
_Static_assert(HIST_BONUS_MAX * HIST_BONUS_SCALE <= HIST_GRAVITY,
               "a history bonus must not exceed the gravity bound");
_Static_assert(HIST_GRAVITY <= 32767, "history entries are int16_t");

#endif
