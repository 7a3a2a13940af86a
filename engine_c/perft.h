/* perft.h — move path enumeration, with bulk counting at the last ply. */
#ifndef PB_PERFT_H
#define PB_PERFT_H

#include "board.h"

uint64_t perft(Board *b, int depth);

#endif
