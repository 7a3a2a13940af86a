/* variant_search.h — rules of the variants' copy of the search (search.c
 * compiles the search twice; these are called only where its `var` is
 * true, so standard chess never reaches them). Pure functions of the board.
 */
#ifndef PB_VARIANT_SEARCH_H
#define PB_VARIANT_SEARCH_H

#include "board.h"

/* Three-check: a check is a third of the game, so an eval is worth less
 * the fewer checks are left to either side: futility margins (reverse
 * futility, futility of quiets) grow to 1.5x with two checks left and 2x
 * with one. */
static inline int threecheck_margin(const Board *b, int margin) {
    int left = b->checks_left[WHITE] < b->checks_left[BLACK] ? b->checks_left[WHITE] : b->checks_left[BLACK];
    return left >= 3 ? margin : margin * (5 - left) / 2;
}

/* A futility margin of the variant copy. */
static inline int variant_margin(const Board *b, int margin) {
    return b->variant == VAR_THREECHECK ? threecheck_margin(b, margin) : margin;
}

/* Reverse futility pruning in the variants, as Fairy-Stockfish's
 * (src/search.cpp step 7): antichess's margin is 4x (captures are forced,
 * so an eval says little of what they will make of the position), and
 * atomic prunes only up to depth 5 (one capture can blow up a king's
 * neighbourhood). */
enum { ANTICHESS_RFP_FACTOR = 4, ATOMIC_RFP_MAX_DEPTH = 5 };
static inline bool variant_rfp_usable(const Board *b, int depth) {
    return b->variant != VAR_ATOMIC || depth <= ATOMIC_RFP_MAX_DEPTH;
}
static inline int variant_rfp_margin(const Board *b, int margin) {
    return b->variant == VAR_ANTICHESS ? margin * ANTICHESS_RFP_FACTOR : variant_margin(b, margin);
}

/* Three-check: does the quiescence search at this node add the quiet
 * checks (after the captures)? At its first ply (`first`: called by the
 * main search) only. (With one check left to give, a check wins the game:
 * the search ends such a node before, variant_wins_in_one in search.c.) */
static inline bool threecheck_qs_checks(const Board *b, bool first) {
    return b->variant == VAR_THREECHECK && first;
}

#endif
