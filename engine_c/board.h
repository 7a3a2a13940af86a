/* board.h — position representation, FEN, make/unmake, repetition.
 *
 * Layout: one bitboard per piece type (by_type[PAWN..KING], by_type[0] =
 * all pieces) and per colour, plus a 64-square mailbox of Piece codes.
 * Castling rights are 4 bits (WK=1, WQ=2, BK=4, BQ=8); castle_rook[] holds the
 * rook square of each right, so Chess960 and standard share one code path.
 * The history stack `hist` holds one Undo per ply played from the root of the
 * game (moves given with the position plus search plies); hist[i].key is the
 * key of the position *before* move i, which is all repetition needs.
 */
#ifndef PB_BOARD_H
#define PB_BOARD_H

#include "types.h"

enum { CASTLE_WK = 1, CASTLE_WQ = 2, CASTLE_BK = 4, CASTLE_BQ = 8 };

/* The start position of standard chess (the engine's "startpos"). */
#define BOARD_START_FEN "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


#define HIST_MAX 1280   /* game plies + search plies; see board_compact_history */
/* History entries kept free above the game for one search: it stops at
 * MAX_PLY - 1 plies (null moves included) from its root; the rest is slack
 * for the ponder-move lookup after it. */
#define HIST_SEARCH_ROOM (MAX_PLY + 16)
/* A game history longer than this is compacted before it is searched. */
#define HIST_COMPACT_AT (HIST_MAX - HIST_SEARCH_ROOM)
/* Compaction keeps at most HIST_MAX / 2 entries (those since the last
 * irreversible move): that must hold a whole fifty-move window and still
 * leave room for a search. */
_Static_assert(HIST_MAX / 2 >= 100, "compaction must keep a whole fifty-move window");
_Static_assert(HIST_MAX / 2 <= HIST_COMPACT_AT, "a compacted history must leave a search room");
_Static_assert(HIST_SEARCH_ROOM > MAX_PLY, "the search needs MAX_PLY history entries");

typedef struct {
    uint64_t key;        /* key before the move */
    uint64_t pawn_key;
    Bitboard checkers;
    Move move;
    uint8_t captured;    /* captured piece or NO_PIECE */
    uint8_t castling;
    uint8_t ep;
    uint16_t rule50;
} Undo;

typedef struct Board {
    Bitboard by_type[7];   /* [0] = all occupied */
    Bitboard by_color[2];
    uint8_t squares[64];
    int side;
    int ep;                /* en-passant target square, or SQ_NONE; set only if a capture is possible */
    int castling;
    int rule50;
    int fullmove_start;    /* fullmove number of the FEN */
    int ply;               /* plies played since the FEN (index into hist) */
    uint64_t key;
    uint64_t pawn_key;
    Bitboard checkers;
    bool chess960;
    uint8_t variant;            /* VAR_* (types.h); VAR_STANDARD = 0 */
    uint8_t checks_left[2];     /* three-check: checks each side still has to give */
    uint8_t castle_rook[4];     /* rook square for WK, WQ, BK, BQ (SQ_NONE if none) */
    uint8_t castle_mask[64];    /* rights kept when a move touches the square */
    Bitboard castle_path[4];    /* squares that must be empty (except king and rook) */
    Undo hist[HIST_MAX];
    /* Atomic: what the explosion of the capture at hist[i] took, so that
     * unmake can put it back: [0] the capturing piece as it stood on the
     * target square, [1..8] the pieces on the squares around it in
     * ascending order (NO_PIECE for an empty square or a pawn). */
    uint8_t blast[HIST_MAX][9];
    /* Crazyhouse, after everything standard chess reads: the pieces in hand
     * per colour and type, the pieces that were pawns (a captured one goes
     * to the pocket as a pawn), and `promoted` as it was before the move at
     * hist[i], for unmake. */
    uint8_t pocket[2][8];
    Bitboard promoted;
    Bitboard promoted_before[HIST_MAX];
} Board;

/* Zobrist keys (initialised once by board_init_tables). */
extern uint64_t ZobPiece[16][64];
extern uint64_t ZobCastle[16];
extern uint64_t ZobEp[8];
extern uint64_t ZobSide;
extern uint64_t ZobChecks[2][4];   /* three-check: [side][checks left] */
/* Crazyhouse: [colour][type][count in hand] (count 0 is 0) and a promoted mark. */
#define POCKET_MAX 32
extern uint64_t ZobPocket[2][8][POCKET_MAX + 1];
extern uint64_t ZobPromoted[64];
/* The rule set, 0 for standard chess: one table shared by games of several
 * variants (an engine reused from game to game) never mixes their entries. */
extern uint64_t ZobVariant[VAR_COUNT];

/* One-time init of attack tables and Zobrist keys; thread-safe. */
void board_init_tables(void);

/* Parse a FEN (standard castling KQkq, X-FEN, or Shredder-FEN files).
 * On failure returns PB_ERR_FEN, writes a message to err (if non-NULL) and
 * leaves *b unchanged. chess960 selects the UCI castling convention. */
int board_set_fen(Board *b, const char *fen, bool chess960, char *err, size_t errlen);
/* The same for a variant's position (VAR_*; PB_ERR_VARIANT if its rules are
 * not built in): three-check takes its check counts as python-chess writes
 * them ("3+3" after the en-passant field: checks left) or as Lichess does
 * ("+0+0" after the fullmove number: checks given). */
int board_set_fen_variant(Board *b, const char *fen, int variant, bool chess960, char *err, size_t errlen);
/* Are the rules of this VAR_* built in (move generation, game end)? */
bool board_variant_supported(int variant);
void board_set_startpos(Board *b);
/* Writes the FEN (Shredder/X-FEN castling when chess960 needs it). */
void board_get_fen(const Board *b, char *out, size_t outlen);

static inline Bitboard board_pieces(const Board *b, int c, int t) { return b->by_color[c] & b->by_type[t]; }
static inline int board_king_sq(const Board *b, int c) { return __builtin_ctzll(board_pieces(b, c, KING)); }
static inline int board_piece_on(const Board *b, int sq) { return b->squares[sq]; }
static inline bool board_in_check(const Board *b) { return b->checkers != 0; }

/* Attackers of `sq` from both colours with the given occupancy. */
Bitboard board_attackers_to(const Board *b, int sq, Bitboard occ);
bool board_sq_attacked(const Board *b, int sq, int by_color, Bitboard occ);

/* Make a legal move / undo it. board_make_move does not check legality.
 * Returns false (and does nothing) if the history is full. */
bool board_make_move(Board *b, Move m);
void board_unmake_move(Board *b);
/* b->key after board_make_move(b, m), for a legal m, without making it. */
uint64_t board_key_after(const Board *b, Move m);
void board_make_null(Board *b);
void board_unmake_null(Board *b);

/* Drop history entries before the last irreversible move so long games fit
 * (only the keys since then matter for repetition). */
void board_compact_history(Board *b);

/* Draw by repetition (a position repeated strictly after `search_root_ply`,
 * the root, or a threefold overall counting the root and the game history),
 * or insufficient material. The fifty-move rule needs the legal moves: rules.h. */
bool board_is_repetition(const Board *b, int search_root_ply);
int board_fullmove(const Board *b);      /* the FEN's fullmove number of the position */
bool board_insufficient_material(const Board *b);

/* Recompute keys from scratch (for debugging/self-tests). */
uint64_t board_compute_key(const Board *b);

#endif
