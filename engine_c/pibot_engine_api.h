/* pibot_engine_api.h — the search engine half of the cffi API.
 *
 * Read by cffi's cdef() after pibot_api.h (which declares the opaque
 * PbEngine), so: plain declarations only. One PbEngine per game; engines
 * share nothing mutable. Every fallible call returns 0 or a PB_ERR_* code.
 * pb_engine_search blocks (cffi drops the GIL); pb_engine_stop,
 * pb_engine_ponderhit and pb_engine_get_info may be called from any thread
 * while it runs. All times are milliseconds; -1 means "not given".
 *
 * Threads (the contract, enforced in C):
 * - While a search runs, set_hash / set_threads / set_position / clear and a
 *   second pb_engine_search return PB_ERR_BUSY; set_move_overhead applies
 *   from the next search. Calls racing with the start of a search either
 *   complete before it or get PB_ERR_BUSY, never half-apply.
 * - pb_engine_stop / pb_engine_ponderhit act on the search running when they
 *   are called and are ignored when none runs: a stop that may arrive before
 *   pb_engine_search has started must be re-sent while pb_engine_is_searching
 *   (the Python wrapper re-sends every poll until the search returns).
 * - pb_engine_free stops a search running in another thread and waits for it
 *   to return before freeing. No call may start on an engine once
 *   pb_engine_free has been called, and it must not be called from the
 *   searching thread itself.
 * - A ponderhit starts the clock at the moment of the call; the result's
 *   time_ms then counts from the ponderhit. The time pondered counts against
 *   the soft and hard budgets (not a movetime): a long ponder answers soon.
 * - A clock (wtime/btime/winc/binc) given only for the other side means our
 *   clock is empty (0), not unlimited; with no clock at all (and no
 *   movetime) the search is limited by depth/nodes only.
 */

enum { PB_ENGINE_MAX_THREADS = 256, PB_ENGINE_MAX_HASH_MB = 1048576, PB_ENGINE_PV_CHARS = 1024 };

typedef struct {
    int64_t wtime, btime, winc, binc;  /* -1 = not given */
    int movestogo;                     /* 0 = none */
    int64_t movetime;                  /* -1 = not given */
    int depth;                         /* 0 = no limit */
    uint64_t nodes;                    /* 0 = no limit */
    int infinite;                      /* search until pb_engine_stop */
    int ponder;                        /* like infinite until pb_engine_ponderhit */
    int64_t start_us;                  /* CLOCK_MONOTONIC us when the clock started
                                          (e.g. when `go` arrived); 0 = now */
} PbLimits;

typedef struct {
    int depth, seldepth;
    int score_cp;        /* valid when is_mate == 0 */
    int mate;            /* moves to mate (negative: we are mated); valid when is_mate */
    int is_mate;
    int bound;           /* 0 exact, 1 upper bound, 2 lower bound */
    uint64_t nodes;
    uint64_t nps;
    int hashfull;        /* per mille */
    int64_t time_ms;
    char pv[1024];       /* space separated UCI moves */
} PbInfo;

typedef struct {
    char bestmove[8];    /* "0000" when the position has no legal move */
    char ponder[8];      /* "" when unknown */
    int score_cp, mate, is_mate;
    int depth, seldepth;
    uint64_t nodes;
    int64_t time_ms;
    char pv[1024];
} PbResult;

PbEngine *pb_engine_new(int hash_mb, int threads, int *err);
void pb_engine_free(PbEngine *e);
int pb_engine_set_hash(PbEngine *e, int hash_mb);
int pb_engine_set_threads(PbEngine *e, int threads);
int pb_engine_set_move_overhead(PbEngine *e, int ms);
int pb_engine_clear(PbEngine *e);
/* on=1: a clear running now (or started later, until on=0) stops zeroing at
 * once and leaves the rest of the table to the kernel's zero-fill on first
 * touch -- still empty, ready at once, its page faults paid by the searches.
 * Any thread, any time (the engine pool's acquire while a warm-up runs). */
void pb_engine_hurry_clear(PbEngine *e, int on);
int pb_engine_set_position(PbEngine *e, const char *fen, const char *moves, int chess960,
                           char *err, size_t errlen);
/* The same for a variant's position: `variant` named as UCI_Variant
 * (Fairy-Stockfish), Lichess or python-chess name it ("atomic",
 * "kingOfTheHill", "3check", ...; NULL or "chess" is standard chess), fen
 * NULL, "" or "startpos" its start position. PB_ERR_VARIANT for an unknown
 * variant; the search then plays by its rules with its own evaluation
 * (never the NNUE), and moves are written as python-chess and Lichess write
 * them (a crazyhouse drop is "N@f3"). */
int pb_engine_set_variant_position(PbEngine *e, const char *variant, const char *fen, const char *moves,
                                   int chess960, char *err, size_t errlen);
int pb_engine_search(PbEngine *e, const PbLimits *limits, PbResult *out);
void pb_engine_stop(PbEngine *e);
void pb_engine_ponderhit(PbEngine *e);
uint64_t pb_engine_get_info(PbEngine *e, PbInfo *out);
int pb_engine_hashfull(PbEngine *e);
int pb_engine_is_searching(PbEngine *e);
int pb_engine_get_fen(PbEngine *e, char *out, size_t outlen);
int pb_engine_eval(PbEngine *e, int *out);
int pb_engine_legal_moves(PbEngine *e, char *out, size_t outlen);
int64_t pb_engine_now_us(void);   /* the monotonic clock the time manager uses */
/* The budget pb_engine_search would plan for these limits with `side` to move
 * (0 white, 1 black), this move overhead and `moves_played` full moves
 * already played (the FEN's fullmove number - 1): soft (no new iteration
 * after it) and hard (abort) in ms; both 0 = no time limit. Pure (tests, tools). */
int pb_engine_time_budget(const PbLimits *limits, int side, int overhead_ms, int moves_played,
                          int64_t *soft_ms, int64_t *hard_ms);
