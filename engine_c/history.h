/* history.h — the search's learned move-ordering and eval-correction tables.
 *
 * Data: one History per search thread (inside SearchThread, ~2.2 MB: the
 * reason that lives on the heap), cleared for a new game:
 *   killers[ply][2]            the two latest quiet moves that cut off at ply
 *   butterfly[side][from][to]  quiet-move history
 *   counter[piece][to]         the quiet move that last refuted `piece` to `to`
 *   cont[piece][to]            continuation history: a ContHist row, indexed
 *                              [piece][to] of the move that follows `piece`
 *                              to `to`; cont[0][0] is the row of "no move"
 *                              (before the root, after a null move)
 *   pawn_corr[side][pawn key]  static-eval correction, cp x CORR_GRAIN
 *   drops[side][type][to]      crazyhouse: the butterfly entry of a drop
 *                              (from == to, so butterfly has one slot a
 *                              square for all men: drops keep their own)
 * History values saturate at +-HIST_GRAVITY (search_params.h, with every
 * other constant here); a quiet move scores butterfly + the rows of the
 * moves 1 and 2 plies back (hist_quiet_score).
 * The search hands the picker and the updates a HistNode: the two
 * continuation rows and the countermove slot of its node, so neither the
 * picker nor this module needs the search's stack.
 */
#ifndef PB_HISTORY_H
#define PB_HISTORY_H

#include "board.h"
#include "search_params.h"

typedef int16_t ContHist[16][64];

typedef struct {
    Move killers[MAX_PLY + 4][2];
    int16_t butterfly[2][64][64];
    Move counter[16][64];
    ContHist cont[16][64];
    int16_t pawn_corr[2][CORR_SIZE];
    int16_t drops[2][8][64];
} History;

/* One node's view of the tables (see the top comment). */
typedef struct {
    ContHist *cont1, *cont2;        /* rows of the moves 1 and 2 plies back */
    Move *counter;                  /* countermove slot of the previous move;
                                       NULL after no move or a null move */
    int ply;
} HistNode;

/* A new game: every table to zero. */
void hist_clear(History *h);
/* A new search: the killers only (the rest carries over between moves). */
void hist_clear_killers(History *h);

/* The continuation row of the move `piece` to `to`, and of "no move". */
static inline ContHist *hist_cont_row(History *h, int piece, int to) { return &h->cont[piece][to]; }
static inline ContHist *hist_no_move_row(History *h) { return &h->cont[0][0]; }

/* Ordering score of a quiet move (not a killer or countermove) of `piece`
 * for `side`, c1/c2 the node's continuation rows (HistNode: the caller keeps
 * them in locals, so a loop over the moves does not re-read them). */
static inline int hist_quiet_score(const History *h, const ContHist *c1, const ContHist *c2, int side,
                                   int piece, Move m) {
    int to = move_to(m);
    return h->butterfly[side][move_from(m)][to] + (*c1)[piece][to] + (*c2)[piece][to];
}

/* ---- the variants (the search's variant copy and the picker's variant
 * scoring call these; standard chess keeps the functions above) ----
 * A crazyhouse drop is made by the dropped man: its continuation and
 * countermove slots are that man's, its butterfly entry drops[][][]. */
static inline int hist_moved_piece(const Board *b, Move m) {
    return move_is_drop(m) ? make_piece(b->side, move_drop_type(m)) : board_piece_on(b, move_from(m));
}
static inline int16_t *hist_butterfly_entry(History *h, int side, Move m) {
    return move_is_drop(m) ? &h->drops[side][move_drop_type(m)][move_to(m)]
                           : &h->butterfly[side][move_from(m)][move_to(m)];
}
static inline int hist_quiet_score_variant(const History *h, const ContHist *c1, const ContHist *c2,
                                           const Board *b, Move m) {
    int to = move_to(m), pc = hist_moved_piece(b, m);
    int bf = move_is_drop(m) ? h->drops[b->side][move_drop_type(m)][to] : h->butterfly[b->side][move_from(m)][to];
    return bf + (*c1)[pc][to] + (*c2)[pc][to];
}

/* The correction-history entry of b (side to move, pawn structure). */
static inline int16_t *hist_corr_entry(History *h, const Board *b) {
    return &h->pawn_corr[b->side][b->pawn_key & (CORR_SIZE - 1)];
}
/* Centipawns to add to b's static eval. */
static inline int hist_correction(History *h, const Board *b) { return *hist_corr_entry(h, b) / CORR_GRAIN; }

/* The updates are inline: they run at every cutoff (search.c). */

/* Gravity: entries saturate at +-HIST_GRAVITY and old values decay. */
static inline void hist_update_entry(int16_t *e, int bonus) {
    int v = *e;
    v += bonus - v * (bonus < 0 ? -bonus : bonus) / HIST_GRAVITY;
    *e = (int16_t)v;
}

/* The quiet move `best` cut off at this node after the quiet moves
 * quiets[0..count) (best among them) were tried: it becomes a killer and the
 * countermove, is rewarded and the others punished by depth^2 (capped). */
static inline void hist_update_quiets(History *h, const HistNode *n, const Board *b, int depth, Move best,
                                      const Move *quiets, int count) {
    int bonus = depth * depth > HIST_BONUS_MAX ? HIST_BONUS_MAX : depth * depth;
    Move *k = h->killers[n->ply];
    if (k[0] != best) {
        k[1] = k[0];
        k[0] = best;
    }
    if (n->counter) *n->counter = best;
    /* Locals: the entries written below must not make these be re-read. */
    ContHist *c1 = n->cont1, *c2 = n->cont2;
    int16_t (*bf)[64] = h->butterfly[b->side];
    for (int i = 0; i < count; i++) {
        Move q = quiets[i];
        int v = q == best ? bonus * HIST_BONUS_SCALE : -bonus * HIST_BONUS_SCALE;
        int pc = board_piece_on(b, move_from(q)), to = move_to(q);
        hist_update_entry(&bf[move_from(q)][to], v);
        hist_update_entry(&(*c1)[pc][to], v);
        hist_update_entry(&(*c2)[pc][to], v);
    }
}

/* Crazyhouse: hist_update_quiets' rewards and punishments for drops (by
 * their man, above), without the killers and countermove, which
 * hist_update_quiets sets for a drop too. Out of line (history.c). */
void hist_update_drops(History *h, const HistNode *n, const Board *b, int depth, Move best, const Move *drops,
                       int count);

/* hist_update_correction's sums: |diff| < 2 x SCORE_NONE, so they fit an int. */
_Static_assert(2LL * SCORE_NONE * CORR_GRAIN * CORR_WEIGHT_MAX +
                   (long long)CORR_MAX * CORR_WEIGHT_SCALE <= 2147483647LL,
               "hist_update_correction's sums must fit an int");

/* A search of depth `depth` found b's static eval off by diff (score - eval),
 * |diff| < 2 x SCORE_NONE. */
static inline __attribute__((always_inline)) void hist_update_correction(History *h, const Board *b, int depth,
                                                                    int diff) {
    int16_t *e = hist_corr_entry(h, b);
    int w = depth * depth + 2 * depth + 1;
    if (w > CORR_WEIGHT_MAX) w = CORR_WEIGHT_MAX;
    int v = (*e * (CORR_WEIGHT_SCALE - w) + diff * CORR_GRAIN * w) / CORR_WEIGHT_SCALE;
    *e = (int16_t)(v > CORR_MAX ? CORR_MAX : v < -CORR_MAX ? -CORR_MAX : v);
}

#endif
