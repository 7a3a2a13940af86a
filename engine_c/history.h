/* history.h — the search's learned move-ordering and eval-correction tables.
 *
 * Data: one History per search thread (inside SearchThread, ~4.4 MB: the
 * reason that lives on the heap), cleared for a new game:
 *   killers[ply][2]            the two latest quiet moves that cut off at ply
 *   butterfly[side][from][to]  quiet-move history
 *   drops[side][type][to]      crazyhouse: the butterfly of a drop, by the man
 *                              dropped (a drop's from is its to: one slot
 *                              per square would be shared by every man)
 *   counter[piece][to]         the quiet move that last refuted `piece` to `to`
 *   cont[piece][to]            continuation history: a ContHist row, indexed
 *                              [piece][to] of the move that follows `piece`
 *                              to `to`; cont[0][0] is the row of "no move"
 *                              (before the root, after a null move)
 *   capture[piece][to][victim] capture history: the capturing man, the
 *                              square, the type taken (0: a quiet queen
 *                              promotion)
 *   pawn_corr[side][pawn key]  static-eval correction, cp x CORR_GRAIN, by the
 *                              side to move and a key of the pawns
 *   nonpawn_corr[side][color][key]  the same by a key of one color's other
 *                              men (knights to king), one table per color
 *   minor_corr[side][key], major_corr[side][key]  ... by a key of both
 *                              colors' knights and bishops, rooks and queens
 *   cont_corr[move 2 back][move 1 back]  ... by the two moves before the
 *                              node, each as piece x 64 + to (0: none or null)
 * A node's correction is the sum of its CORR_TABLES entries (CorrSlots).
 * History values saturate at +-HIST_GRAVITY (search_params.h, with every
 * other constant here); a quiet move scores butterfly + the rows of the
 * moves 1 and 2 plies back (hist_quiet_score). A drop is indexed by the man
 * dropped everywhere (hist_piece), never by the empty square it lands on.
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
    int16_t drops[2][8][64];
    Move counter[16][64];
    ContHist cont[16][64];
    int16_t capture[16][64][8];
    int16_t pawn_corr[2][CORR_SIZE];
    int16_t nonpawn_corr[2][2][CORR_SIZE];
    int16_t minor_corr[2][CORR_SIZE];
    int16_t major_corr[2][CORR_SIZE];
    int16_t cont_corr[16 * 64][16 * 64];
} History;

/* A node's correction-history entries, one per table (hist_corr_slots). */
typedef struct {
    int16_t *e[CORR_TABLES];
} CorrSlots;

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

/* The man a move moves: for a crazyhouse drop the man dropped (its from
 * square is empty), so drops of different men keep apart. */
static inline int hist_piece(const Board *b, Move m) {
    return move_is_drop(m) ? make_piece(b->side, move_drop_type(m)) : board_piece_on(b, move_from(m));
}

/* The butterfly slot of a quiet move (a drop's own table). */
static inline const int16_t *hist_bf_entry(const History *h, int side, Move m) {
    return move_is_drop(m) ? &h->drops[side][move_drop_type(m)][move_to(m)]
                           : &h->butterfly[side][move_from(m)][move_to(m)];
}

/* Ordering score of a quiet move (not a killer or countermove) of `piece`
 * (hist_piece) for `side`, c1/c2 the node's continuation rows (HistNode: the
 * caller keeps them in locals, so a loop over the moves does not re-read them). */
static inline int hist_quiet_score(const History *h, const ContHist *c1, const ContHist *c2, int side,
                                   int piece, Move m) {
    int to = move_to(m);
    return *hist_bf_entry(h, side, m) + (*c1)[piece][to] + (*c2)[piece][to];
}

/* The type a noisy move takes: en passant a pawn, a quiet promotion none (0). */
static inline int hist_victim(const Board *b, Move m) {
    return move_kind(m) == MOVE_EP ? PAWN : piece_type(board_piece_on(b, move_to(m)));
}

/* The capture-history slot of a noisy move. */
static inline int16_t *hist_capture_entry(History *h, const Board *b, Move m) {
    return &h->capture[board_piece_on(b, move_from(m))][move_to(m)][hist_victim(b, m)];
}
static inline int hist_capture_score(const History *h, const Board *b, Move m) {
    return h->capture[board_piece_on(b, move_from(m))][move_to(m)][hist_victim(b, m)];
}

/* One step of a piece-set key: fold a bitboard in, then mix. The multiply
 * carries each bit only upwards; the shift brings the high half back down
 * for the next set's multiply. The key's low bits do not depend on every
 * square (the last set's squares 46..63 reach only bits 46 and up): the
 * index is taken from the top of a final multiply (hist_corr_index). */
static inline uint64_t hist_key_fold(uint64_t h, uint64_t bb) {
    h = (h ^ bb) * 0x9E3779B97F4A7C15ULL;
    return h ^ (h >> 32);
}

/* A key of color c's men of the types in [from, to], folded onto h. */
static inline uint64_t hist_set_key(const Board *b, uint64_t h, int c, int from, int to) {
    for (int t = from; t <= to; t++) h = hist_key_fold(h, board_pieces(b, c, t));
    return h;
}
/* ... of one color (its own seed: the colors' sets must not meet) or both. */
static inline uint64_t hist_color_key(const Board *b, int c, int from, int to) {
    return hist_set_key(b, (uint64_t)(c + 1) * 0xD6E8FEB86659FD93ULL, c, from, to);
}
static inline uint64_t hist_both_key(const Board *b, int from, int to) {
    return hist_set_key(b, hist_color_key(b, WHITE, from, to), BLACK, from, to);
}

/* A piece-set key's table slot: the top CORR_BITS bits of a final multiply.
 * A product's bit j depends on the key's bits 0..j, so the top bits depend on
 * all 64 (the low bits, once the index, missed the last set's squares
 * 46..63: black's king, bishops or queen on ranks 7 and 8). */
static inline unsigned hist_corr_index(uint64_t key) {
    return (unsigned)((key * 0x9E3779B97F4A7C15ULL) >> (64 - CORR_BITS));
}

/* b's correction-history entries (side to move; pawns, each color's other
 * men, minor pieces, major pieces; the moves 2 and 1 plies back, each
 * piece x 64 + to, 0 for none or a null move). */
static inline CorrSlots hist_corr_slots(History *h, const Board *b, int move2, int move1) {
    int s = b->side;
    CorrSlots c = {{
        &h->pawn_corr[s][b->pawn_key & (CORR_SIZE - 1)],
        &h->nonpawn_corr[s][WHITE][hist_corr_index(hist_color_key(b, WHITE, KNIGHT, KING))],
        &h->nonpawn_corr[s][BLACK][hist_corr_index(hist_color_key(b, BLACK, KNIGHT, KING))],
        &h->minor_corr[s][hist_corr_index(hist_both_key(b, KNIGHT, BISHOP))],
        &h->major_corr[s][hist_corr_index(hist_both_key(b, ROOK, QUEEN))],
        &h->cont_corr[move2][move1],
    }};
    return c;
}
/* Centipawns to add to a static eval: the tables' sum. */
static inline int hist_correction(const CorrSlots *c) {
    int sum = 0;
    for (int i = 0; i < CORR_TABLES; i++) sum += *c->e[i];
    return sum / CORR_GRAIN;
}

/* The updates are inline: they run at every cutoff (search.c). */

/* Gravity: entries saturate at +-HIST_GRAVITY and old values decay. */
static inline void hist_update_entry(int16_t *e, int bonus) {
    int v = *e;
    v += bonus - v * (bonus < 0 ? -bonus : bonus) / HIST_GRAVITY;
    *e = (int16_t)v;
}

/* The size of a cutoff's reward and of the others' punishment: linear in
 * depth (the deeper search is worth more) up to a cap. Never negative (a
 * node in check may search at depth 0). */
static inline int hist_bonus(int depth) {
    int v = HIST_BONUS_PER_PLY * depth - HIST_BONUS_BASE;
    return v < 0 ? 0 : v > HIST_BONUS_MAX ? HIST_BONUS_MAX : v;
}

/* The quiet move `best` cut off at this node after the quiet moves
 * quiets[0..count) (best among them) were tried: it becomes a killer and the
 * countermove, is rewarded and the others punished by the same hist_bonus. */
static inline void hist_update_quiets(History *h, const HistNode *n, const Board *b, int depth, Move best,
                                      const Move *quiets, int count) {
    int bonus = hist_bonus(depth);
    Move *k = h->killers[n->ply];
    if (k[0] != best) {
        k[1] = k[0];
        k[0] = best;
    }
    if (n->counter) *n->counter = best;
    /* Locals: the entries written below must not make these be re-read. */
    ContHist *c1 = n->cont1, *c2 = n->cont2;
    for (int i = 0; i < count; i++) {
        Move q = quiets[i];
        int v = q == best ? bonus : -bonus;
        int pc = hist_piece(b, q), to = move_to(q);
        hist_update_entry((int16_t *)hist_bf_entry(h, b->side, q), v);
        hist_update_entry(&(*c1)[pc][to], v);
        hist_update_entry(&(*c2)[pc][to], v);
    }
}

/* A node cut off after the noisy moves caps[0..count) were tried (the first
 * HIST_MAX_CAPS_TRIED of them): a noisy cutoff move `best` is rewarded
 * whether or not the list holds it (MOVE_NONE when a quiet move cut off),
 * the others in the list punished. */
static inline void hist_update_captures(History *h, const Board *b, int depth, Move best, const Move *caps,
                                        int count) {
    int bonus = hist_bonus(depth);
    if (best != MOVE_NONE) hist_update_entry(hist_capture_entry(h, b, best), bonus);
    for (int i = 0; i < count; i++)
        if (caps[i] != best) hist_update_entry(hist_capture_entry(h, b, caps[i]), -bonus);
}

/* hist_update_correction's sums: |diff| < 2 x SCORE_NONE, so they fit an int. */
_Static_assert(2LL * SCORE_NONE * CORR_GRAIN * CORR_WEIGHT_MAX +
                   (long long)CORR_MAX * CORR_WEIGHT_SCALE <= 2147483647LL,
               "hist_update_correction's sums must fit an int");

/* A search of depth `depth` found a static eval corrected by c off by diff
 * (score - corrected eval), |diff| < 2 x SCORE_NONE: every table moves
 * towards what is left of the error. Each learns the residual, not the
 * whole error, so together they settle at CORR_TABLES / (CORR_TABLES + 1) of
 * a steady error and, within the weight bound (search_params.h), never
 * overshoot it. */
static inline __attribute__((always_inline)) void hist_update_correction(const CorrSlots *c, int depth, int diff) {
    int w = depth * depth + 2 * depth + 1;
    if (w > CORR_WEIGHT_MAX) w = CORR_WEIGHT_MAX;
    for (int i = 0; i < CORR_TABLES; i++) {
        int16_t *e = c->e[i];
        int v = (*e * (CORR_WEIGHT_SCALE - w) + diff * CORR_GRAIN * w) / CORR_WEIGHT_SCALE;
        *e = (int16_t)(v > CORR_MAX ? CORR_MAX : v < -CORR_MAX ? -CORR_MAX : v);
    }
}

#endif
