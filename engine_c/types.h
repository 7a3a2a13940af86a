/* types.h — basic types shared by every engine module.
 *
 * Squares are numbered a1=0 .. h8=63 (rank-major, little-endian rank-file).
 * A Piece packs colour and type: piece = colour * 8 + type, so WHITE pieces
 * are 1..6 and BLACK pieces are 9..14; NO_PIECE is 0.
 * A Move is 16 bits: from (0-5) | to (6-11) | kind (12-13) | promo (14-15).
 * Castling is encoded internally as "king takes own rook" (to = rook square),
 * which handles standard chess and Chess960 alike; only the UCI text layer
 * (notation.h) knows the e1g1 convention.
 */
#ifndef PB_TYPES_H
#define PB_TYPES_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

typedef uint64_t Bitboard;
typedef uint16_t Move;

enum { WHITE = 0, BLACK = 1 };
enum { PAWN = 1, KNIGHT, BISHOP, ROOK, QUEEN, KING };
enum { NO_PIECE = 0 };
enum { SQ_NONE = 64 };

enum {
    MOVE_NORMAL = 0, MOVE_PROMO = 1, MOVE_EP = 2, MOVE_CASTLE = 3
};

/* Antichess has no castling: there the castling kind is a promotion to a king. */
enum { MOVE_KING_PROMO = MOVE_CASTLE };

#define MOVE_NONE ((Move)0)
#define MOVE_NULL ((Move)65) /* from=1,to=1: never a legal move */

/* The rule set of a Board (variant.h names them). Standard is 0 so that
 * one test of `variant` sends every other rule set off the hot paths. The
 * numbers are written in files (a v3 net's header, datagen's v2 records:
 * docs/nnue.md): never renumber them. */
enum {
    VAR_STANDARD = 0, VAR_KOTH, VAR_THREECHECK, VAR_RACINGKINGS, VAR_HORDE,
    VAR_ANTICHESS, VAR_ATOMIC, VAR_CRAZYHOUSE, VAR_COUNT
};

/* Crazyhouse needs more than standard's 218: drops to every empty square of
 * up to five piece types on top of the board moves. Many drops need many
 * empty squares, many board moves many men: with at most 32 men (board and
 * pockets, as board_set_fen_variant checks) 3000 random positions with
 * all five types in hand and up to 9 white men gave at most 341 (e.g.
 * K7/8/1R4Q1/8/3Q2Bk/6R1/2N5/8[QRBNPppp] w); not proven below 512. So the drop
 * generator also stops at the list's end: no position can overrun it (one
 * past 512 moves would get an incomplete list, never a crash). The search's
 * arrays (move picker, quiet moves) have this size too: callgrind counts the
 * same instructions as with 256 (docs/benchmarks.md). */
#define MAX_MOVES 512
#define MAX_PLY 128

static inline int make_piece(int c, int t) { return c * 8 + t; }
static inline int piece_type(int p) { return p & 7; }
static inline int piece_color(int p) { return p >> 3; }

static inline Move move_make(int from, int to, int kind, int promo_type) {
    /* promo_type is KNIGHT..QUEEN; stored as 0..3 */
    int pr = kind == MOVE_PROMO ? promo_type - KNIGHT : 0;
    return (Move)(from | (to << 6) | (kind << 12) | (pr << 14));
}
static inline int move_from(Move m) { return m & 63; }
static inline int move_to(Move m) { return (m >> 6) & 63; }
static inline int move_kind(Move m) { return (m >> 12) & 3; }
static inline int move_promo(Move m) { return ((m >> 14) & 3) + KNIGHT; }

/* Crazyhouse drops have from == to, which no board move has: a pawn drop is
 * MOVE_NORMAL, a piece drop MOVE_PROMO with the piece in the promo field.
 * MOVE_NONE and MOVE_NULL read as pawn drops on a1 and b1: never legal. */
static inline bool move_is_drop(Move m) { return move_from(m) == move_to(m); }
static inline int move_drop_type(Move m) { return move_kind(m) == MOVE_PROMO ? move_promo(m) : PAWN; }
static inline Move move_make_drop(int sq, int type) {
    return type == PAWN ? move_make(sq, sq, MOVE_NORMAL, 0) : move_make(sq, sq, MOVE_PROMO, type);
}

static inline int sq_file(int sq) { return sq & 7; }
static inline int sq_rank(int sq) { return sq >> 3; }
static inline int make_sq(int file, int rank) { return rank * 8 + file; }
static inline int relative_rank(int c, int sq) { return c == WHITE ? sq_rank(sq) : 7 - sq_rank(sq); }

typedef struct {
    Move moves[MAX_MOVES];
    int count;
} MoveList;

/* Error codes returned by every fallible library call (0 = success). */
enum {
    PB_OK = 0,
    PB_ERR_FEN = -1,      /* malformed FEN */
    PB_ERR_MOVE = -2,     /* malformed or illegal move */
    PB_ERR_NOMEM = -3,    /* allocation failed */
    PB_ERR_ARG = -4,      /* argument out of range */
    PB_ERR_BUSY = -5,     /* engine is searching */
    PB_ERR_HISTORY = -6,  /* game history too long */
    PB_ERR_THREAD = -7,   /* thread creation failed */
    PB_ERR_NET_MAGIC = -8,    /* NNUE file: not a .pbnn file (bad magic) */
    PB_ERR_NET_VERSION = -9,  /* NNUE file: unsupported format version */
    PB_ERR_NET_FORMAT = -10,  /* NNUE file: other dims/activation/quantisation, weights out of range */
    PB_ERR_NET_SIZE = -11,    /* NNUE file: wrong size (truncated or trailing bytes) */
    PB_ERR_NET_CHECKSUM = -12,/* NNUE file: checksum mismatch (corrupt) */
    PB_ERR_IO = -13,          /* a file could not be read */
    PB_ERR_VARIANT = -14      /* unknown variant, or one whose rules are not built in */
};

#endif
