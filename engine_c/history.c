/* history.c — clearing the search's heuristic tables (history.h; the
 * updates, run at every cutoff, are inline there, but crazyhouse's drops'). */
#include "history.h"

#include <string.h>

void hist_clear(History *h) { memset(h, 0, sizeof *h); }

void hist_clear_killers(History *h) { memset(h->killers, 0, sizeof h->killers); }

/* The drops' part of hist_update_quiets (history.h). */
void hist_update_drops(History *h, const HistNode *n, const Board *b, int depth, Move best, const Move *drops,
                       int count) {
    int bonus = depth * depth > HIST_BONUS_MAX ? HIST_BONUS_MAX : depth * depth;
    ContHist *c1 = n->cont1, *c2 = n->cont2;
    for (int i = 0; i < count; i++) {
        Move q = drops[i];
        int v = q == best ? bonus * HIST_BONUS_SCALE : -bonus * HIST_BONUS_SCALE;
        int pc = hist_moved_piece(b, q), to = move_to(q);
        hist_update_entry(hist_butterfly_entry(h, b->side, q), v);
        hist_update_entry(&(*c1)[pc][to], v);
        hist_update_entry(&(*c2)[pc][to], v);
    }
}
