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

/* The variants (the search's variant copy; see_ge is standard chess's):
 * atomic's captures blow up the capturer, the victim and the non-pawns
 * around the target, so an exchange is that one explosion (and a quiet
 * move risks the opponent's best explosion on its square); a crazyhouse
 * drop captures and promotes nothing (see_ge would read a piece drop as a
 * promotion): it risks the dropped man. Otherwise see_ge. */
enum { SEE_ATOMIC_WIN = 20000 };   /* an explosion that takes the enemy king */
bool see_ge_variant(const Board *b, Move m, int threshold);
/* Atomic: the material the side to move wins by m (negative: loses),
 * SEE_ATOMIC_WIN if m explodes the enemy king. */
int see_atomic_gain(const Board *b, Move m);

#endif
