/* rules.h — game rules that need move generation, a layer above movegen:
 * whether such a rule ends the game depends on the legal moves left. */
#ifndef PB_RULES_H
#define PB_RULES_H

#include "board.h"

/* With rule50 >= 100: a draw unless the side to move is checkmated. */
bool rules_draw_50_unless_mated(const Board *b);

/* Draw by the fifty-move rule: rule50 >= 100 and not checkmated (a mate on
 * the 100th ply wins). The common case is decided inline: the search asks
 * at every node. */
static inline bool rules_is_draw_50(const Board *b) {
    return b->rule50 >= 100 && rules_draw_50_unless_mated(b);
}

#endif
