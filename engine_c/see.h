/* see.h — static exchange evaluation.
 *
 * Data: a fixed piece-value table (SeeValue, by piece type) and the usual
 * swap algorithm over board_attackers_to() with x-ray updates as pieces
 * leave the occupancy. No state: safe from any thread.
 */
#ifndef PB_SEE_H
#define PB_SEE_H

#include "board.h"

extern const int SeeValue[8];

/* Does move m win at least `threshold` centipawns of material after the
 * best sequence of recaptures on its target square? */
bool see_ge(const Board *b, Move m, int threshold);

#endif
