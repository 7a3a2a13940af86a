/* nnue.h — NNUE evaluation: 768 (+ pocket) inputs -> Hx2 -> 1 of B output
 * buckets, SCReLU, int16 (net formats v1 = one bucket, v2, and v3 = a net of a
 * variant, or one with mirrored inputs). H, the hidden width, is fixed at build
 * time (PB_NNUE_HIDDEN, 384 unless the build says otherwise: the Makefile and
 * build_engine.py read it from the header of the net they embed), so every loop
 * over it has a constant trip count the compiler vectorises and unrolls.
 *
 * Data layout. NnueNet holds the quantised weights of one .pbnn file:
 * ft_weight is feature-major (feature f's H int16 weights are one contiguous
 * row of 2H bytes, so adding or removing a piece is one row add), then
 * ft_bias[H], and per output bucket out_weight[2H] (first H for the side to
 * move, next H for the other side) and out_bias; the bucket of a position is
 * chosen by its piece count on the board (nnue_bucket). Feature of a piece of
 * colour c and type t (0 pawn .. 5 king) on square s, for perspective p:
 *     idx = (c == p ? 0 : 384) + 64 * t + ((p == WHITE ? s : s ^ 56) ^ m[p])
 * where m[p] = 0, except in a mirrored net (a v3 header's flag) when p's own
 * king stands on files e..h: then 7, every square of p's view mirrored a<->h,
 * so that the net sees p's king on files a..d only.
 * A crazyhouse net (v3) has NNUE_POCKET_INPUTS more: for the k-th piece of
 * type t (pawn .. queen) in the pocket of colour c, k = 1 .. NnuePocketCap[t]
 * (a count above the cap adds nothing more),
 *     idx = 768 + (c == p ? 0 : 30) + NnuePocketBase[t] + k - 1.
 * An NnueAcc is one ply of a search: acc[WHITE] and acc[BLACK] (int16[H]
 * each, valid when `computed`), m[WHITE] and m[BLACK] (the mirror XOR of
 * each view; set only for a mirrored net), and the delta from the ply before
 * it (at most 2 features removed and 2 added, as (piece, square); a square of
 * 64 + k - 1 is the piece's k-th pocket feature). A search thread
 * owns an array of NNUE_STACK of them indexed by ply from its root: making
 * a move writes the delta into entry ply+1 (not computed), unmaking is free
 * (the search just uses entry ply again), and evaluating walks back to the
 * nearest computed entry and applies the deltas forward (lazy update). In a
 * mirrored net, a view whose king crossed the d/e line on the way cannot
 * follow the deltas (all its features change): it is refreshed from the
 * board being evaluated, and the entries between are left not computed.
 * Entry 0 is refreshed from scratch at the root. The file format and the
 * exact integer arithmetic are in docs/nnue.md (the trainer's contract).
 */
#ifndef PB_NNUE_H
#define PB_NNUE_H

#include "board.h"
#include <stdalign.h>

#ifndef PB_NNUE_HIDDEN
#define PB_NNUE_HIDDEN 384
#endif
#if PB_NNUE_HIDDEN < 64 || PB_NNUE_HIDDEN > 1024 || PB_NNUE_HIDDEN % 64
#error "PB_NNUE_HIDDEN must be a multiple of 64 in 64..1024"
#endif

enum {
    NNUE_INPUTS = 768,           /* board features: every net has them */
    NNUE_POCKET_INPUTS = 60,     /* crazyhouse: 2 colours x (16 + 4 + 4 + 4 + 2) */
    NNUE_MAX_INPUTS = NNUE_INPUTS + NNUE_POCKET_INPUTS,
    NNUE_HIDDEN = PB_NNUE_HIDDEN,
    /* screlu_dot sums blocks of this many terms exactly in int32 (nnue.c) */
    NNUE_DOT_BLOCK = 256,
    NNUE_QA = 255, NNUE_QB = 64, NNUE_SCALE = 400,
    NNUE_VERSION = 1, NNUE_VERSION_BUCKETS = 2, NNUE_VERSION_VARIANT = 3, NNUE_ACT_SCRELU = 1,
    NNUE_MAX_BUCKETS = 8,
    NNUE_HEADER_BYTES = 48,
    NNUE_V3_HEADER_BYTES = 64,   /* v3: the 48 bytes, u32 variant, u32 flags, 8 zero bytes */
    NNUE_FLAG_MIRRORED = 1,      /* v3 flags: mirrored inputs (m[p] above) */
    NNUE_FT_BYTES = NNUE_INPUTS * NNUE_HIDDEN * 2 + NNUE_HIDDEN * 2,
    NNUE_BUCKET_BYTES = 2 * NNUE_HIDDEN * 2 + 4,     /* one bucket's out_weight + out_bias */
    NNUE_FILE_BYTES = NNUE_HEADER_BYTES + NNUE_FT_BYTES + NNUE_BUCKET_BYTES,   /* v1 */
    NNUE_MAX_FILE_BYTES = NNUE_V3_HEADER_BYTES + NNUE_FT_BYTES + NNUE_POCKET_INPUTS * NNUE_HIDDEN * 2 +
                          NNUE_MAX_BUCKETS * NNUE_BUCKET_BYTES,
    NNUE_MAX_OUT_WEIGHT = 127,   /* |out_weight| bound: keeps v * w within int16 */
    NNUE_STACK = MAX_PLY + 8     /* search plies 0..MAX_PLY plus slack */
};

/* Crazyhouse pocket features per colour: caps and first index by type
 * (pawn .. queen; a pocket never holds more than 16 pawns, 4 knights, bishops
 * or rooks, 2 queens: promoted pieces go back as pawns). */
static const uint8_t NnuePocketCap[KING] = {0, 16, 4, 4, 4, 2};
static const uint8_t NnuePocketBase[KING] = {0, 0, 16, 20, 24, 28};

typedef struct {
    alignas(64) int16_t ft_weight[NNUE_MAX_INPUTS * NNUE_HIDDEN];
    alignas(64) int16_t ft_bias[NNUE_HIDDEN];
    alignas(64) int16_t out_weight[NNUE_MAX_BUCKETS][2 * NNUE_HIDDEN];
    int32_t out_bias[NNUE_MAX_BUCKETS];
    int buckets;                /* 1 (a v1 file) .. NNUE_MAX_BUCKETS */
    int inputs;                 /* NNUE_INPUTS, or NNUE_MAX_INPUTS for crazyhouse */
    int variant;                /* VAR_* it evaluates (VAR_STANDARD: chess and Chess960) */
    bool mirrored;              /* the v3 flag NNUE_FLAG_MIRRORED */
    uint64_t checksum;
    char name[16];              /* "pbnn-" + first 8 hex digits of the checksum */
} NnueNet;

typedef struct {
    alignas(64) int16_t acc[2][NNUE_HIDDEN];
    bool computed;
    uint8_t m[2];               /* mirror XOR (0 or 7) of each view: a mirrored net's */
    uint8_t nadd, nsub;
    uint8_t add_pc[2], add_sq[2], sub_pc[2], sub_sq[2];
    const Board *board;         /* set by nnue_refresh; entry 0's: the stack's live board */
} NnueAcc;

/* FNV-1a 64 of a byte range (the file's checksum). */
uint64_t nnue_fnv1a(const uint8_t *data, size_t len);
/* The inputs of a net for this VAR_*, or 0 if no net can serve it (atomic:
 * an explosion changes more than the accumulator delta holds). */
int nnue_variant_inputs(int variant);
/* The most men a position of this VAR_* can hold (pocket men included; the
 * FEN parser enforces it): the int16 overflow guard's piece count. */
int nnue_variant_max_men(int variant);
/* Parse and validate a whole .pbnn file image (v1, v2 or v3) into *net. Returns
 * PB_OK or PB_ERR_NET_MAGIC / _VERSION / _FORMAT / _SIZE / _CHECKSUM (checked
 * in that order); *net is unspecified on failure. */
int nnue_parse(NnueNet *net, const uint8_t *data, size_t len);
/* As nnue_parse; on failure `why` (if non-NULL) gets a one-line reason more
 * precise than nnue_strerror's where there is one (a bad bucket count, the
 * size a v2 file of its bucket count must have), else "". */
int nnue_parse_why(NnueNet *net, const uint8_t *data, size_t len, char *why, size_t whylen);
/* Read, parse and validate a file into a new 64-byte aligned net (free with
 * nnue_free). PB_ERR_IO when it cannot be read; err gets a one-line reason. */
int nnue_load_file(const char *path, NnueNet **out, char *err, size_t errlen);
void nnue_free(NnueNet *net);
/* The net embedded at build time, parsed and verified once (thread-safe).
 * NULL when it is corrupt; *err (if non-NULL) gets the PB_ERR_NET_* code. */
const NnueNet *nnue_default(int *err);
/* One-line text for a PB_ERR_NET_* / PB_ERR_IO code. */
const char *nnue_strerror(int code);

/* Accumulators from scratch (a crazyhouse net's include the pockets); a->board
 * = b, the board a stack whose entry 0 this is follows. */
void nnue_refresh(const NnueNet *net, NnueAcc *a, const Board *b);
/* Before board_make_move(b, m) at `ply`: record the delta into stack[ply+1]. */
void nnue_push_move(NnueAcc *stack, int ply, const Board *b, Move m);
/* The same for a variant's board (b->variant != VAR_STANDARD) under a net of
 * that variant: drops and captures into the pocket, antichess's promotion
 * to a king. Standard chess keeps nnue_push_move, untouched. */
void nnue_push_move_variant(NnueAcc *stack, int ply, const Board *b, Move m);
/* Before board_make_null at `ply`: stack[ply+1] = stack[ply], no delta. */
void nnue_push_null(NnueAcc *stack, int ply);
/* Make stack[ply] computed (lazy update from the nearest computed ancestor;
 * stack[0] must be computed). A mirrored net refreshes a view whose king
 * crossed the d/e line from stack[0].board, which must hold the position at
 * `ply` (as it does when the caller makes its moves on the board it
 * refreshed stack[0] from). */
void nnue_update(const NnueNet *net, NnueAcc *stack, int ply);
/* nnue_update for stacks whose deltas may hold pocket features. */
void nnue_update_variant(const NnueNet *net, NnueAcc *stack, int ply);
/* nnue_update for chess's net on a crazyhouse board: the deltas' pocket
 * entries (nnue_push_move_variant writes them) are left out. */
void nnue_update_board_only(const NnueNet *net, NnueAcc *stack, int ply);
/* Output bucket of a position with `pieces` pieces (kings included) for a net
 * of `buckets` buckets: (pieces - 2) * buckets / 31, clamped to 0..buckets-1
 * (docs/nnue.md; the same rule in tools/nnue/pbnn.py, reference.py, train.py). */
static inline int nnue_bucket(int pieces, int buckets) {
    int n = pieces < 2 ? 0 : pieces - 2;
    int k = n * buckets / 31;
    return k < buckets ? k : buckets - 1;
}
/* Output layer for the board `b` whose accumulators `a` holds: centipawns
 * from the side to move's view (the bucket from b's piece count). */
int nnue_output(const NnueNet *net, const NnueAcc *a, const Board *b);
/* nnue_update + nnue_output for the board at stack[ply]. */
static inline int nnue_evaluate(const NnueNet *net, NnueAcc *stack, int ply, const Board *b) {
    nnue_update(net, stack, ply);
    return nnue_output(net, &stack[ply], b);
}
static inline int nnue_evaluate_variant(const NnueNet *net, NnueAcc *stack, int ply, const Board *b) {
    nnue_update_variant(net, stack, ply);
    return nnue_output(net, &stack[ply], b);
}
/* Chess's net on a variant board (variant_on_chess): its men on the board only. */
static inline int nnue_evaluate_board_only(const NnueNet *net, NnueAcc *stack, int ply, const Board *b) {
    nnue_update_board_only(net, stack, ply);
    return nnue_output(net, &stack[ply], b);
}

#endif
