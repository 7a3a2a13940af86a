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
 * - set_multipv / set_strength / set_seed may be called at any time and apply
 *   from the next search; they persist until changed (clear keeps them).
 */

enum { PB_ENGINE_MAX_THREADS = 256, PB_ENGINE_MAX_HASH_MB = 1048576, PB_ENGINE_PV_CHARS = 1024,
       PB_ENGINE_MAX_MULTIPV = 256 };
/* Strength levels (strength.h): Stockfish 15.1's UCI_Elo scale, widened downwards. */
enum { PB_STRENGTH_MIN_ELO = 800, PB_STRENGTH_MAX_ELO = 2850 };

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
    int multipv;         /* the line (1 = best) */
    uint64_t seq;        /* pb_engine_get_info's sequence number when this was written */
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
    int elo;             /* the strength level that chose bestmove; 0 = full strength */
} PbResult;

/* A level's parameters (strength.h explains each). */
typedef struct {
    int elo;
    uint64_t nodes;
    int depth, multipv, spread_cp, max_loss_cp, think_pct;
} PbStrengthParams;

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
/* The latest progress report (of any line) and its sequence number, which
 * grows with every report. */
uint64_t pb_engine_get_info(PbEngine *e, PbInfo *out);
/* The MultiPV lines of the running or last search, best first: writes up to
 * `max` and returns how many there are (lines searched at least once). Each
 * has its own depth and `seq`, so a poller prints the ones newer than it saw. */
int pb_engine_get_lines(PbEngine *e, PbInfo *out, int max);
/* Root lines to search and report: 1..PB_ENGINE_MAX_MULTIPV (PB_ERR_ARG
 * otherwise); more than the position's legal moves search them all. */
int pb_engine_set_multipv(PbEngine *e, int lines);
/* Playing strength: 0 = full strength; else an Elo, clamped into
 * PB_STRENGTH_MIN_ELO..PB_STRENGTH_MAX_ELO. Returns the level now in force
 * (0 or the clamped Elo). A level searches at least max(MultiPV, its own
 * candidates) lines and reports them all. */
int pb_engine_set_strength(PbEngine *e, int elo);
int pb_engine_get_strength(PbEngine *e);
/* The random stream a level chooses and times its moves with (seeded from
 * the clock by pb_engine_new): the same seed and limits, the same moves. */
void pb_engine_set_seed(PbEngine *e, uint64_t seed);
/* The parameters of level `elo` (clamped; 0 = the strongest level's). Pure. */
void pb_strength_params(int elo, PbStrengthParams *out);
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
