/* pibot_api.h — the C API exported to Python through cffi.
 *
 * This file is read by cffi's cdef() as well as by the C compiler, so it
 * holds only plain declarations (no macros, no inline code). Opaque handles:
 * PbBoard wraps a Board, PbEngine a search context (one per game). Every
 * fallible call returns 0 or a negative PB_ERR_* code (see types.h);
 * pb_strerror() names it. Strings in are NUL-terminated UTF-8/ASCII; strings
 * out are written into caller buffers of the given size.
 */

typedef struct PbBoard PbBoard;
typedef struct PbEngine PbEngine;

/* ---- library ---- */
void pb_init(void);                          /* idempotent, thread-safe */
const char *pb_backend(void);                /* "pext" or "magic" */
const char *pb_strerror(int code);
int pb_attacks_selftest(int samples);        /* mismatches vs slow reference */

/* ---- board ---- */
PbBoard *pb_board_new(void);                 /* start position; NULL if out of memory */
void pb_board_free(PbBoard *b);
PbBoard *pb_board_copy(const PbBoard *b);
int pb_board_set_fen(PbBoard *b, const char *fen, int chess960, char *err, size_t errlen);
/* A position of a variant, named as UCI_Variant (Fairy-Stockfish), Lichess
 * or python-chess name it ("chess", "kingofthehill", "threeCheck", ...);
 * fen NULL or "" is the variant's start position. PB_ERR_VARIANT for an
 * unknown variant or one whose rules are not built in, PB_ERR_FEN for a FEN
 * that is not a legal position of it; the board is unchanged on error. */
int pb_board_set_variant_fen(PbBoard *b, const char *variant, const char *fen, int chess960,
                             char *err, size_t errlen);
/* The board's variant as its UCI_Variant name ("chess" for standard). */
const char *pb_board_variant(const PbBoard *b);
int pb_board_get_fen(const PbBoard *b, char *out, size_t outlen);
int pb_board_push_uci(PbBoard *b, const char *uci);
int pb_board_pop(PbBoard *b);                /* PB_ERR_ARG if nothing to undo */
/* Legal moves as space-separated UCI; returns the number of moves. */
int pb_board_legal_moves(PbBoard *b, char *out, size_t outlen);
int pb_board_side_to_move(const PbBoard *b); /* 0 white, 1 black */
int pb_board_in_check(const PbBoard *b);
uint64_t pb_board_key(const PbBoard *b);
uint64_t pb_board_compute_key(const PbBoard *b);  /* from scratch, for tests */
/* 0 ongoing, 1 checkmate, 2 stalemate, 3 fifty-move, 4 threefold, 5 insufficient material,
 * 6 ended by a variant rule (a king on the hill, the third check, a king in the goal) */
int pb_board_status(PbBoard *b);
uint64_t pb_perft(PbBoard *b, int depth);    /* perft(0) = 1; 0 for a negative depth */

/* ---- interruptible perft ----
 * A PbPerftStop is a flag another thread sets to end a running perft early
 * (Ctrl-C on `pibot perft`, `stop` in the UCI loop). Use one per run. */
typedef struct PbPerftStop PbPerftStop;
PbPerftStop *pb_perft_stop_new(void);       /* NULL if out of memory */
void pb_perft_stop_free(PbPerftStop *s);
void pb_perft_stop_set(PbPerftStop *s);     /* any thread, any time */
/* perft(depth) into *nodes. Returns 0 when complete, 1 when `stop` (may be
 * NULL) was set first (*nodes is then meaningless), PB_ERR_ARG for a depth
 * outside 0..63. The board is unchanged either way. */
int pb_perft_run(PbBoard *b, int depth, PbPerftStop *stop, uint64_t *nodes);
