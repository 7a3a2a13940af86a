/* search_tunables.h — the search constants SPSA may tune (tools/tune/spsa.py).
 *
 * One PB_PARAM(name, default, min, max) per line; no include guard: the
 * includer defines PB_PARAM first. search_params.h turns each line into a
 * compile-time constant, or, in a tuning build (-DPB_TUNE), into an int that
 * search_tune.c sets once from the PIBOT_TUNE environment variable. min/max
 * bound what the tuner tries. Fractional constants are in hundredths (_X100).
 */

/* late move reductions: Reductions[d][m] = base + ln d * ln m / divisor */
PB_PARAM(LMR_BASE_X100, 75, 0, 200)
PB_PARAM(LMR_DIVISOR_X100, 225, 120, 400)
PB_PARAM(LMR_DEEPER_MARGIN, 60, 10, 200)   /* re-search a ply deeper above best + this ... */
PB_PARAM(LMR_SHALLOWER_MARGIN, 10, 0, 60)  /* ... a ply shallower below best + this */
PB_PARAM(LMR_HISTORY_DIVISOR, 6000, 2000, 20000) /* one ply less (more) per this much history, +-2 */
/* history: a cutoff's bonus (and the others' malus) = min(per_ply * depth - base, max) */
PB_PARAM(HIST_BONUS_PER_PLY, 170, 50, 400)
PB_PARAM(HIST_BONUS_BASE, 100, 0, 400)
PB_PARAM(HIST_BONUS_MAX, 1700, 500, 4000)
PB_PARAM(CAP_LMR_HIST_DIV, 2000, 500, 8000) /* capture LMR: 1 - capture history / this, 0..3 */
/* aspiration windows */
PB_PARAM(ASP_DELTA, 18, 6, 60)          /* initial half-width around the previous score */
PB_PARAM(ASP_WIDEN_ADD, 5, 0, 30)       /* after a fail: delta += delta / 2 + this */
/* quiescence */
PB_PARAM(QS_DELTA_MARGIN, 200, 50, 500) /* delta pruning: stand + victim + margin <= alpha */
/* node pruning (non-PV, not in check) */
PB_PARAM(RFP_MAX_DEPTH, 8, 3, 12)       /* reverse futility pruning up to this depth */
PB_PARAM(RFP_MARGIN, 80, 30, 180)       /* per ply of depth (minus one ply when improving) */
PB_PARAM(NMP_BASE_R, 3, 1, 6)           /* R = base + depth / div + min((eval - beta) / ...) */
PB_PARAM(NMP_DEPTH_DIV, 4, 2, 8)
PB_PARAM(NMP_EVAL_DIV, 200, 80, 500)    /* one more ply of reduction per this much eval over beta */
PB_PARAM(IIR_MIN_DEPTH, 4, 2, 10)      /* internal iterative reduction from this depth */
PB_PARAM(PROBCUT_MIN_DEPTH, 5, 3, 10)  /* ProbCut from this depth ... */
PB_PARAM(PROBCUT_MARGIN, 200, 60, 500)  /* ... for beta + this ... */
PB_PARAM(PROBCUT_REDUCTION, 4, 2, 6)    /* ... its second search this many plies shallower */
/* move pruning (once a non-losing line exists) */
PB_PARAM(LMP_BASE, 3, 0, 10)            /* late move pruning: quiets after (base + d*d) / (2 - improving) */
PB_PARAM(FUT_BASE, 100, 0, 300)         /* futility pruning of quiets: eval + base + per_ply * d <= alpha */
PB_PARAM(FUT_PER_PLY, 100, 30, 250)
PB_PARAM(SEE_QUIET_PER_PLY, 60, 10, 150)  /* quiets: see >= -this * depth */
PB_PARAM(SEE_NOISY_PER_PLY, 100, 30, 250) /* captures / promotions: see >= -this * depth */
PB_PARAM(HP_MAX_DEPTH, 4, 1, 8)           /* history pruning of quiets (non-PV) up to this depth ... */
PB_PARAM(HP_MARGIN, 2500, 500, 8000)      /* ... whose history sum is below -this * depth */
