/* movegen.h — legal move generation.
 *
 * Moves are generated fully legal: pins (with the pin ray), single and
 * double check, en passant including the horizontal-pin case, and castling
 * through attacked squares are resolved at generation time, so perft can
 * count the list at the last ply without making the moves.
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

#endif
