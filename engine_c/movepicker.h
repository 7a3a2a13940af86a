/* movepicker.h — the search's move ordering: a staged, lazy selection sort.
 *
 * Data: one MovePicker per node, on the search's C stack: the position and
 * the history tables it reads (history.h, never the search), the legal moves
 * (MoveList), a score per move and a "SEE not yet known" flag per move,
 * kept in three parallel arrays that are swapped together, and `next`, the
 * number of moves already handed out (they sit in [0, next)).
 * Stages:
 *   MP_STAGE_TT    quiescence only: the TT move, checked with
 *                  movegen_is_legal(_noisy), is handed out before any move is
 *                  generated (a cutoff on it saves the generation);
 *   MP_STAGE_PICK  the list is generated and scored; each call selects the
 *                  first move of highest score among those left and swaps
 *                  it to `next`. A capture's static exchange is computed
 *                  only when the capture could be that move.
 * The order is exactly the one of scoring every move up front (SEE
 * included) and running the same selection sort: see movepicker.c.
 */
#ifndef PB_MOVEPICKER_H
#define PB_MOVEPICKER_H

#include "board.h"
#include "history.h"

/* Move scores. Their ranges do not overlap: a good capture or queen
 * promotion scores SC_GOOD_CAP + MVV-LVA (< SC_TT), killers and the
 * countermove sit just below, quiet moves score their history sum (far
 * inside +-SC_COUNTER) and losing captures SC_BAD_CAP + MVV-LVA. The search
 * reads them back: SC_TT, SC_GOOD_CAP and SC_COUNTER are its thresholds. */
enum { SC_TT = 30000000, SC_GOOD_CAP = 20000000, SC_KILLER1 = 19000000, SC_KILLER2 = 18999999,
       SC_COUNTER = 18000000, SC_BAD_CAP = -20000000 };

enum { MP_STAGE_TT = 0, MP_STAGE_PICK = 1 };
enum { MP_TT_SENT = -2 };

/* Victim values of the MVV-LVA score (by piece type); qsearch's delta
 * pruning uses them too. */
extern const int MpMvvValue[8];

typedef struct {
    MoveList list;
    int scores[MAX_MOVES];
    uint8_t see_pending[MAX_MOVES];  /* 1: scored as a good capture, SEE not done */
    int next;                        /* moves handed out so far */
    int stage;
    int tt_index;                    /* the TT move's index in the list, -1 if not in
                                        it, MP_TT_SENT before the deferred generation */
    Move tt_move;                    /* legal TT move, or MOVE_NONE */
    int noisy_left;                  /* captures and queen promotions in [next, count) */
    int gen;                         /* GEN_ALL or GEN_NOISY */
    const Board *board;              /* the node's position */
    const History *hist;             /* the tables that score its quiet moves */
    const HistNode *node;            /* ... as seen from this node (the caller's;
                                        NULL when only noisy moves are generated) */
} MovePicker;

static inline bool mp_is_capture(const Board *b, Move m) {
    int k = move_kind(m);
    if (k == MOVE_EP) return true;
    if (k == MOVE_CASTLE) return false;  /* encoded as king takes own rook */
    return board_piece_on(b, move_to(m)) != NO_PIECE;
}

/* (A crazyhouse queen drop, from == to, passes for a queen promotion here:
 * the picker scores drops as quiet moves and the search asks move_is_drop
 * in its variant copy, so standard chess pays no test for it.) */
static inline bool mp_is_noisy(const Board *b, Move m) {
    return mp_is_capture(b, m) || (move_kind(m) == MOVE_PROMO && move_promo(m) == QUEEN);
}

static inline int mp_captured_type(const Board *b, Move m) {
    return move_kind(m) == MOVE_EP ? PAWN : piece_type(board_piece_on(b, move_to(m)));
}

/* negamax: every legal move, scored at once (the history tables the quiet
 * moves are scored with change while the first move's subtree is searched,
 * so scoring later would change the order). */
void mp_init_main(MovePicker *p, const Board *b, const History *h, const HistNode *n, Move tt_move);
/* qsearch: captures and queen promotions, or every move when in check (n
 * may be NULL when not in check: no quiet move is scored then). The
 * TT move (if legal and of that kind) comes first without generation: a
 * quiescence subtree writes no history, killer or countermove, so the list
 * scored after it is the one that would have been scored before. */
void mp_init_qsearch(MovePicker *p, const Board *b, const History *h, const HistNode *n, Move tt_move,
                     bool in_check);
/* True if the node has no legal move (mp_init_main only: it generated). */
static inline bool mp_no_moves(const MovePicker *p) { return p->list.count == 0; }
/* Next move in score order, or MOVE_NONE. Writes its score to *score.
 * Scores never increase from one move to the next. */
Move mp_next(MovePicker *p, int *score);
/* Are captures or queen promotions (mp_is_noisy) still to come? After the
 * first move (only then is the list generated). */
static inline bool mp_noisy_left(const MovePicker *p) { return p->noisy_left > 0; }

#endif
