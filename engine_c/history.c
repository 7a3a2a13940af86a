/* history.c — clearing the search's heuristic tables (history.h; the
 * updates, run at every cutoff, are inline there). */
#include "history.h"

#include <string.h>

void hist_clear(History *h) { memset(h, 0, sizeof *h); }

void hist_clear_killers(History *h) { memset(h->killers, 0, sizeof h->killers); }
