/* pibot_nnue_api.h — NNUE evaluation: the eval switch, nets, and checks.
 * Read by cffi's cdef() after pibot_api.h: plain declarations only.
 * Fallible calls return 0 or a PB_ERR_* code (PB_ERR_NET_* for a bad net
 * file; pb_strerror names each). Errors come back as codes, never abort. */

/* Evaluations an engine can use; PB_EVAL_DEFAULT is what pb_engine_new picks. */
enum { PB_EVAL_HCE = 0, PB_EVAL_NNUE = 1, PB_EVAL_DEFAULT = 1 };

/* The net embedded at build (engine_c/nets/default.pbnn): PB_OK or the
 * PB_ERR_NET_* its verification gave, and its name "pbnn-xxxxxxxx" ("" if bad). */
int pb_nnue_default_status(void);
const char *pb_nnue_default_name(void);
/* Validate a .pbnn file without loading it into an engine; writes its name. */
int pb_nnue_check_file(const char *path, char *name, size_t namelen, char *err, size_t errlen);
/* The same, and the net must be one of `variant` (UCI_Variant's names; NULL,
 * "" or "chess" = standard chess): else PB_ERR_NET_FORMAT naming both. */
int pb_nnue_check_file_for(const char *path, const char *variant, char *name, size_t namelen,
                           char *err, size_t errlen);

/* PB_EVAL_HCE or PB_EVAL_NNUE for the next searches (and pb_engine_eval).
 * A change clears the hash table, whose stored evals came from the other
 * one, and the search heuristics (correction history included), as a new
 * game does; so does loading a net while NNUE is the eval. */
int pb_engine_set_eval(PbEngine *e, int eval);
int pb_engine_get_eval(PbEngine *e);
/* Use the net in this file (NULL or "" = the embedded one). On failure the
 * engine keeps its net and err names the file and the problem. A variant's
 * net (format v3) is refused here. */
int pb_engine_load_net(PbEngine *e, const char *path, char *err, size_t errlen);
int pb_engine_net_name(PbEngine *e, char *out, size_t outlen);
/* The net a variant (UCI_Variant's name, not "chess") searches with when the
 * eval is NNUE: a v3 file naming that variant; NULL or "" = none, the
 * variant's hand-crafted eval. Failure keeps the net in force (err says why;
 * PB_ERR_VARIANT for a name that is not a variant). */
int pb_engine_load_variant_net(PbEngine *e, const char *variant, const char *path, char *err,
                               size_t errlen);
/* That net's name, "" when none is loaded. */
int pb_engine_variant_net_name(PbEngine *e, const char *variant, char *out, size_t outlen);

/* Debug check of the incremental accumulators with the engine's net: a
 * random walk of `steps` make/unmake/null steps from `fen` (seeded, so
 * reproducible) that after every step compares the lazily updated
 * accumulators and eval with a fresh refresh. Returns the number of
 * mismatches (0 = all equal) or a PB_ERR_* code (PB_ERR_BUSY while the
 * engine searches); counts what it played (king_crossings: king moves
 * across the d/e line, castling included, which a mirrored net refreshes). */
typedef struct {
    uint64_t makes, unmakes, nulls, checked;
    uint64_t captures, castles, en_passants, promotions, drops, king_crossings;
} PbNnueCheckStats;
int pb_nnue_check_walk(PbEngine *e, const char *fen, int chess960, int steps, uint64_t seed,
                       PbNnueCheckStats *stats);
/* The same walk in a variant's position with the engine's net for it (as
 * the variant search pushes and updates: drops, pockets); PB_ERR_ARG when
 * none is loaded. */
int pb_nnue_check_walk_variant(PbEngine *e, const char *variant, const char *fen, int steps,
                               uint64_t seed, PbNnueCheckStats *stats);

/* Cost of one evaluation on this build, nanoseconds per call, measured over
 * `iters` calls per kind over a fixed set of positions reached from `fen`:
 * HCE eval_evaluate; NNUE output layer from a computed accumulator; NNUE
 * incremental update of one ply (both perspectives); NNUE full refresh. */
typedef struct { double hce_ns, nnue_output_ns, nnue_update_ns, nnue_refresh_ns; } PbEvalSpeed;
int pb_eval_speed(const char *fen, int iters, PbEvalSpeed *out);
