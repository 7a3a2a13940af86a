/* movegen.h — legal move generation.
 *
 * Moves are generated fully legal: pins (with the pin ray), single and
 * double check, en passant including the horizontal-pin case, and castling
 * through attacked squares are resolved at generation time, so perft can
 * count the list at the last ply without making the moves. The variants'
 * rules are reached through one test of b->variant at entry.
 */
#ifndef PB_MOVEGEN_H
#define PB_MOVEGEN_H

#include "board.h"

enum { GEN_ALL = 0, GEN_NOISY = 1, GEN_QUIET = 2 };

/* All legal moves (GEN_ALL), or captures + queen promotions (GEN_NOISY),
 * or the rest (GEN_QUIET). Returns the count appended to `list`. */
int movegen_legal(const Board *b, MoveList *list, int kind);
/* Is this (possibly garbage, e.g. from the TT) move legal in b, i.e. in the
 * GEN_ALL list? Decided without generating the list. */
bool movegen_is_legal(const Board *b, Move m);
/* Is m in the GEN_NOISY list? Also without generating. */
bool movegen_is_legal_noisy(const Board *b, Move m);
/* Count of legal moves (no list needed). */
int movegen_count(const Board *b);

/* The moves of standard chess and Chess960 whatever b->variant says: the
 * variants build on them (movegen_variant.c). */
int movegen_chess(const Board *b, MoveList *list, int kind);
/* movegen_legal for b->variant != VAR_STANDARD (movegen_legal sends it
 * there): no moves once the variant's game is over. */
int movegen_variant_legal(const Board *b, MoveList *list, int kind);
/* Has the game ended by a variant rule (a king on the hill, the third check,
 * a king in the goal)? The side to move then has no moves. */
bool movegen_variant_end(const Board *b);

/* Who won the game that movegen_variant_end says is over: WHITE, BLACK,
 * or -1 for a draw (both kings in racing kings' goal). */
int movegen_variant_winner(const Board *b);
/* Antichess: has the side to move a capture, which it must then make? */
bool movegen_must_capture(const Board *b);

#endif
