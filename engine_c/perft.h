/* perft.h — move path enumeration, with bulk counting at the last ply. */
#ifndef PB_PERFT_H
#define PB_PERFT_H

#include "board.h"

#include <stdatomic.h>

/* Leaf paths `depth` plies deep (perft(0) = 1). When `stop` is not NULL it is
 * polled at every interior node; once it is non-zero the walk unwinds at once
 * (the board is restored) and the partial count returned means nothing. */
uint64_t perft_stoppable(Board *b, int depth, const atomic_int *stop);
uint64_t perft(Board *b, int depth);

#endif
