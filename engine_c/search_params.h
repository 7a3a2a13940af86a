/* search_params.h — every constant of the search in one place.
 *
 * The ones a tuner may change are listed in search_tunables.h: constants in
 * an ordinary build, ints set from PIBOT_TUNE in a tuning build (-DPB_TUNE,
 * search_tune.h). The rest are structural and stay constants.
 *
 * Depths and plies are in plies, margins in centipawns, history values in
 * the units of search.c's history tables (saturating at HIST_GRAVITY).
 * Changing any of these changes the bench signature (bench/signature.txt):
 * record the change and its measurement in docs/strength.md.
 */
#ifndef PB_SEARCH_PARAMS_H
#define PB_SEARCH_PARAMS_H

#include "types.h"

#ifdef PB_TUNE
#define PB_PARAM(name, value, lo, hi) extern int name;
#else
#define PB_PARAM(name, value, lo, hi) enum { name = value };
#endif
#include "search_tunables.h"
#undef PB_PARAM

/* ---- scores: centipawns; mate in n plies from the root is MATE - n */
enum {
    SCORE_INF = 32001,
    MATE = 32000,
    MATE_IN_MAX = MATE - MAX_PLY,
    SCORE_NONE = 32002,
    NNUE_EVAL_LIMIT = 20000   /* an NNUE eval is clamped to +-this, far from mate scores */
};

/* ---- late move reductions (the formula's constants are tunables) */
enum { LMR_MIN_DEPTH = 3 };     /* no reductions below this depth */

/* ---- limits: the main thread checks the clock (and the total node count of
 * all threads) every this many of its nodes; a power of two */
enum { LIMIT_CHECK_INTERVAL = 1024 };

/* ---- iterative deepening and aspiration windows */
enum {
    SEARCH_MAX_MULTIPV = 256, /* root lines (UCI MultiPV) */
    ASP_MIN_DEPTH = 5,      /* full window below this depth */
    SMP_SKIP_CYCLE = 3,     /* helper thread i skips depth d when (d + i) % cycle == 0 */
    SINGLE_REPLY_DEPTH = 4  /* with one legal move, stop a timed search at this depth */
};

/* ---- quiescence */
enum { QS_BAD_CAPTURE_SLACK = 1000000 }; /* picker scores below SC_GOOD_CAP - slack lose material */

/* ---- node pruning (non-PV, not in check) */
enum {
    NMP_MIN_DEPTH = 3,        /* null move from this depth */
    NMP_EVAL_MAX_R = 3,       /* at most this many plies of reduction for eval over beta */
    TT_CUT_MAX_RULE50 = 90    /* no TT scores (cutoffs, refined evals) this close to a
                                 fifty-move draw: the key ignores the counter */
};

/* ---- move pruning (once a non-losing line exists) */
enum {
    LMP_MAX_DEPTH = 8,        /* late move pruning up to this depth */
    FUT_MAX_DEPTH = 8,        /* futility pruning of quiets up to this depth */
    SEE_MAX_DEPTH = 8         /* SEE pruning up to this depth */
};

/* ---- extensions */
enum {
    SE_MIN_DEPTH = 6,         /* singular extension of the TT move from this depth */
    SE_TT_DEPTH_SLACK = 3,    /* ... when its entry is from at least depth - this */
    SE_MARGIN_PER_PLY = 2,    /* singular beta = TT score - this * depth */
    SE_DOUBLE_MARGIN = 20,    /* a non-PV move this far below singular beta: extend 2 */
    SE_MAX_DOUBLES = 6        /* double extensions along one line */
};
#define CHECK_EXT_MAX_PLY (2 * MAX_PLY / 3)   /* check extension only below this ply */

/* ---- history heuristics (the bonus's constants are tunables) */
enum {
    HIST_GRAVITY = 16384,     /* history entries saturate at +-this */
    HIST_MAX_CAPS_TRIED = 32, /* captures a node remembers for the capture-history malus */
    /* capture order (movepicker.c): victim value x MP_MVV_SCALE + capture
     * history / MP_CAPHIST_DIV, so a history at its bound moves a capture
     * about one victim class (a pawn is 1600, a queen 14400) */
    MP_MVV_SCALE = 16,
    MP_CAPHIST_DIV = 4
};

/* ---- static-eval correction history (per thread; history.h): CORR_TABLES
 * tables, each indexed by the side to move and a key of part of the
 * position; entries are cp x CORR_GRAIN, the correction is their sum; a
 * node's update weighs min(d*d + 2d + 1, CORR_WEIGHT_MAX) / CORR_WEIGHT_SCALE
 * of its (score - corrected eval) into each. */
enum {
    CORR_TABLES = 6,          /* pawns, white's and black's other men, minor, major,
                                 the two previous moves */
    CORR_BITS = 14,
    CORR_SIZE = 1 << CORR_BITS, /* entries per side (hist_corr_index: the top CORR_BITS of a key) */
    CORR_GRAIN = 256,
    CORR_MAX = 64 * CORR_GRAIN,   /* +-64 cp per table: CORR_TABLES x that (+-384 cp) in all,
                                     before clamp_eval */
    CORR_WEIGHT_SCALE = 1024,
    CORR_WEIGHT_MAX = 128
};

/* ---- consistency with the rest of the engine */
_Static_assert((LIMIT_CHECK_INTERVAL & (LIMIT_CHECK_INTERVAL - 1)) == 0,
               "LIMIT_CHECK_INTERVAL is used as a bit mask");
_Static_assert(CHECK_EXT_MAX_PLY < MAX_PLY, "extensions must stop before MAX_PLY");
_Static_assert(MAX_PLY <= 255, "TT entries store the depth in 8 bits");
#ifndef PB_TUNE   /* (a tuning build keeps within the tunable's range, far below) */
_Static_assert((int)HIST_BONUS_MAX <= (int)HIST_GRAVITY, "a history bonus must not exceed the gravity bound");
#endif
_Static_assert(HIST_GRAVITY <= 32767, "history entries are int16_t");
_Static_assert((CORR_SIZE & (CORR_SIZE - 1)) == 0, "CORR_SIZE is used as a bit mask");
_Static_assert(CORR_MAX <= 32767, "correction entries are int16_t");
/* Each table steps by w/scale of the residual error, so the tables' sum moves
 * by (tables + 1) x w/scale of its distance from its settling point: above 1
 * it would overshoot and swing. */
_Static_assert((CORR_TABLES + 1) * CORR_WEIGHT_MAX <= CORR_WEIGHT_SCALE,
               "the correction tables together must not overshoot");

#endif
