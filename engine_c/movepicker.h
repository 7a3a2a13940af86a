/* movepicker.h — the search's move ordering, generated and sorted in stages.
 *
 * Data: one MovePicker per node, on the search's C stack: the position and
 * the history tables it reads (history.h, never the search), the moves
 * generated so far (MoveList), a score per move and a "SEE not yet known"
 * flag per move, kept in parallel arrays that are swapped together, and
 * `next`, the cursor of the stage in hand.
 *
 * Standard chess's and crazyhouse's main search (mp_init_main) generates in steps, so a
 * cutoff early in the list saves the generation and scoring of the rest:
 *   MP_MAIN_TT      the TT move, checked with movegen_is_legal, before any
 *                   move is generated;
 *   MP_GOOD_NOISY   captures and queen promotions (GEN_NOISY), best
 *                   MVV + capture history first; one whose static exchange loses is set
 *                   aside at the front of the list [0, bad_end);
 *   MP_REFUTE       the two killers and the countermove, each checked legal
 *                   and quiet;
 *   MP_QUIET        the other moves (GEN_QUIET: quiet moves, under-
 *                   promotions, capturing ones included), scored by history
 *                   only now, after the captures' subtrees have taught it;
 *   MP_BAD_NOISY    the captures set aside, in the order they were found.
 * mp_skip_quiets ends the two quiet stages (the quiet list is then never
 * generated if it was not yet).
 * (Crazyhouse's drops come with the quiet moves, scored by the dropped
 * man's history; a queen drop is never a noisy move or a bad capture.)
 * qsearch, and every node of the other variants, generate their list at once
 * (MP_STAGE_PICK, after an optional MP_STAGE_TT in qsearch): a lazy
 * selection sort in which a capture's static exchange is computed only
 * when the capture could be the next pick; movepicker.c says why that order
 * is the one of scoring everything first.
 */
#ifndef PB_MOVEPICKER_H
#define PB_MOVEPICKER_H

#include "board.h"
#include "history.h"

/* Move scores. Their ranges do not overlap: a good capture or queen
 * promotion scores SC_GOOD_CAP + MVV + capture history (< SC_TT), killers and the
 * countermove sit just below, quiet moves score their history sum (far
 * inside +-SC_COUNTER) and losing captures SC_BAD_CAP + the same. The search
 * reads them back: SC_TT, SC_GOOD_CAP and SC_COUNTER are its thresholds. */
enum { SC_TT = 30000000, SC_GOOD_CAP = 20000000, SC_KILLER1 = 19000000, SC_KILLER2 = 18999999,
       SC_COUNTER = 18000000, SC_BAD_CAP = -20000000 };

enum {
    MP_STAGE_TT, MP_STAGE_PICK,                          /* one list */
    MP_MAIN_TT, MP_GEN_NOISY, MP_GOOD_NOISY, MP_REFUTE,  /* staged */
    MP_GEN_QUIET, MP_QUIET, MP_BAD_NOISY, MP_DONE
};
enum { MP_TT_SENT = -2 };

/* Victim values of the capture order (MVV) (by piece type); qsearch's delta
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
    int noisy_left;                  /* one list: captures and queen promotions in [next, count) */
    int gen;                         /* one list: GEN_ALL or GEN_NOISY */
    int bad_end;                     /* staged: losing captures sit in [0, bad_end) */
    int noisy_end;                   /* staged: the quiet list starts here */
    Move refute[3];                  /* staged: killers and countermove that passed */
    int refute_score[3];
    int refute_count;
    int handed;                      /* moves handed out */
    bool skip_quiets;
    const Board *board;              /* the node's position */
    const History *hist;             /* the tables that score its quiet moves */
    const HistNode *node;            /* ... as seen from this node (the caller's;
                                        NULL when only noisy moves are generated) */
} MovePicker;

static inline bool mp_is_capture(const Board *b, Move m) {
    int k = move_kind(m);
    if (k == MOVE_EP) return true;
    /* Castling is encoded as king takes own rook; in antichess the same kind
     * is a promotion to a king (MOVE_KING_PROMO), which may capture. */
    if (k == MOVE_CASTLE) return b->variant == VAR_ANTICHESS && board_piece_on(b, move_to(m)) != NO_PIECE;
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

/* negamax: staged in standard chess and crazyhouse, one list in the other
 * variants (whose legality test of a killer would generate the whole list
 * anyway). tt_move may be
 * any move: an illegal one is never handed out. */
void mp_init_main(MovePicker *p, const Board *b, const History *h, const HistNode *n, Move tt_move);
/* qsearch: captures and queen promotions, or every move when in check (n
 * may be NULL when not in check: no quiet move is scored then). The
 * TT move (if legal and of that kind) comes first without generation: a
 * quiescence subtree writes no history, killer or countermove, so in
 * qsearch the list scored after it is the one that would have been scored
 * before. ProbCut's list may differ (it searches the TT capture with a
 * negamax, which writes capture history): the order only, harmlessly. */
void mp_init_qsearch(MovePicker *p, const Board *b, const History *h, const HistNode *n, Move tt_move,
                     bool in_check);
/* Next move, or MOVE_NONE. Writes its score to *score: SC_TT, a capture's
 * range, SC_KILLER1/2, SC_COUNTER or a quiet move's history sum. */
Move mp_next(MovePicker *p, int *score);
/* From now on, no move scored as a quiet one (history sum, killer or
 * countermove still to come) is handed out: the captures left still are. */
static inline void mp_skip_quiets(MovePicker *p) { p->skip_quiets = true; }
/* How many moves mp_next has handed out: none at the end means the node
 * has no legal move. */
static inline int mp_handed_out(const MovePicker *p) { return p->handed; }

#endif
