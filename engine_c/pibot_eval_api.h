/* pibot_eval_api.h — static evaluation exported to Python (tests, tools).
 * Read by cffi's cdef(): plain declarations only. Returns 0 or PB_ERR_*. */

/* Static eval of a FEN in centipawns from the side to move's view. */
int pb_eval_fen(const char *fen, int *out);
/* Same, plus the game phase (0..24) and endgame scale (0..128) it used. */
int pb_eval_fen_detail(const char *fen, int *out, int *phase, int *scale);
/* Number of tunable weights (Scores) in EvalParams. */
int pb_eval_nparams(void);
