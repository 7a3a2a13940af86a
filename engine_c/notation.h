/* notation.h — moves as UCI text ("e2e4", "e7e8q").
 *
 * Inside the engine castling is "king takes own rook"; only this layer knows
 * the e1g1 convention of standard chess. It sits above move generation: a
 * text move is read by matching it against the legal moves of the position.
 */
#ifndef PB_NOTATION_H
#define PB_NOTATION_H

#include "board.h"

/* Parse UCI text to a legal move of this position (both castling styles are
 * accepted: e1g1 and e1h1). Returns MOVE_NONE if not legal or malformed. */
Move notation_parse_uci(Board *b, const char *uci);
/* Apply a UCI move string after checking legality: PB_ERR_MOVE if illegal,
 * PB_ERR_HISTORY if the history is full. Compacts a long history first. */
int notation_push_uci(Board *b, const char *uci);
/* Writes the move as UCI text (e1g1 in standard, king-takes-rook in 960);
 * MOVE_NONE is "0000". */
void notation_move_to_uci(const Board *b, Move m, char out[6]);

#endif
