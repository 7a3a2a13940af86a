/* rules.c — game rules decided with the legal moves (rules.h). */
#include "rules.h"
#include "movegen.h"

bool rules_draw_50_unless_mated(const Board *b) {
    if (!b->checkers) return true;
    return movegen_count(b) > 0;
}
