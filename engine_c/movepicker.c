/* movepicker.c — staged and one-list move ordering (see movepicker.h).
 *
 * The one list. Why its order is exactly that of the eager picker it
 * replaced (which
 * scored every move, SEE included, then selection-sorted: pick the FIRST
 * index of maximal score among those left, swap it with `next`):
 *
 * Lazy SEE. A capture (or queen promotion) whose SEE is not known yet
 * carries the score it has if the SEE is good, its noisy score + SC_GOOD_CAP,
 * which is >= its true score (a losing one scores it + SC_BAD_CAP).
 * So every entry's provisional score is >= its true score, and equal for
 * every resolved entry. mp_next scans for the first index of maximal
 * provisional score. If that entry is resolved (or its SEE turns out good,
 * so its provisional score was its true one), call it b with score S:
 * every index i has true(i) <= prov(i) <= S, and every i < b has
 * true(i) <= prov(i) < S (b is the first maximum), so b is also the first
 * index of maximal TRUE score: the eager pick. If its SEE turns out bad,
 * its score drops to the true one in place and the scan is repeated; each
 * repeat resolves one entry, so it ends. Moves are swapped exactly as the
 * eager picker swapped them (the flag travels with its move), so the
 * arrays agree index for index after every pick, ties included, and the
 * score handed back is the true one. SEE reads only the board, which is
 * the same whenever it is called.
 *
 * TT move first. SC_TT is the unique maximum, so the eager picker's first
 * pick was the TT move's index j, swapped with index 0: the lists here are
 * generated and scored the same way and then get that one swap.
 */
#include "movepicker.h"
#include "movegen.h"
#include "see.h"

/* Quiet moves score a sum of three history entries: far from both capture
 * ranges (and below SC_COUNTER), so a score tells a capture from a quiet move;
 * a capture's offset (noisy_score) stays inside +-MP_NOISY_SPAN. */
enum { MP_NOISY_SPAN = MP_MVV_SCALE * 2 * 900 + HIST_GRAVITY / MP_CAPHIST_DIV };
_Static_assert(3 * HIST_GRAVITY < SC_COUNTER && 3 * HIST_GRAVITY < -(SC_BAD_CAP / 2) &&
                   SC_BAD_CAP + MP_NOISY_SPAN < SC_BAD_CAP / 2 && SC_GOOD_CAP - MP_NOISY_SPAN > SC_KILLER1 &&
                   SC_GOOD_CAP + MP_NOISY_SPAN < SC_TT,
               "quiet and capture score ranges must not meet");
_Static_assert(SC_GOOD_CAP + 16 * SEE_ATOMIC_WIN < SC_TT && SC_BAD_CAP + 16 * 10000 < SC_BAD_CAP / 2,
               "atomic_scores' ranges must stay inside the capture ranges");

const int MpMvvValue[8] = {0, 100, 300, 310, 500, 900, 0, 0};

/* A capture's or queen promotion's order: the victim's value (MVV; a
 * promotion adds a queen's) plus what capture history learned of this man
 * taking this victim on this square, which stands in for LVA and more. */
static inline int noisy_score(const Board *b, const History *h, Move m) {
    int victim = mp_is_capture(b, m) ? MpMvvValue[mp_captured_type(b, m)] : 0;
    if (move_kind(m) == MOVE_PROMO) victim += MpMvvValue[QUEEN];
    return victim * MP_MVV_SCALE + hist_capture_score(h, b, m) / MP_CAPHIST_DIV;
}

static inline void swap_to_next(MovePicker *p, int i) {
    int n = p->next;
    Move m = p->list.moves[i];
    int s = p->scores[i];
    uint8_t f = p->see_pending[i];
    p->list.moves[i] = p->list.moves[n];
    p->scores[i] = p->scores[n];
    p->see_pending[i] = p->see_pending[n];
    p->list.moves[n] = m;
    p->scores[n] = s;
    p->see_pending[n] = f;
}

/* Score the whole list; captures get their optimistic score, SEE pending. */
static void score_moves(MovePicker *p) {
    const Board *b = p->board;
    const History *h = p->hist;
    const HistNode *n = p->node;
    /* A noisy-only list (n == NULL) scores no move as killer, countermove
     * or by history: every move takes the noisy branch below. */
    Move k1 = MOVE_NONE, k2 = MOVE_NONE, cm = MOVE_NONE;
    const ContHist *c1 = NULL, *c2 = NULL;
    if (n) {
        k1 = h->killers[n->ply][0];
        k2 = h->killers[n->ply][1];
        if (n->counter) cm = *n->counter;
        c1 = n->cont1;
        c2 = n->cont2;
    }
    p->tt_index = -1;
    int noisy = 0;
    for (int i = 0; i < p->list.count; i++) {
        Move m = p->list.moves[i];
        int s;
        p->see_pending[i] = 0;
        if (m == p->tt_move) {
            s = SC_TT;
            p->tt_index = i;
            noisy += mp_is_noisy(b, m);
        } else if (mp_is_noisy(b, m)) {
            noisy++;
            s = noisy_score(b, h, m) + SC_GOOD_CAP;
            p->see_pending[i] = 1;
        } else if (m == k1) s = SC_KILLER1;
        else if (m == k2) s = SC_KILLER2;
        else if (m == cm) s = SC_COUNTER;
        else s = hist_quiet_score(h, c1, c2, b->side, hist_piece(b, m), m);
        p->scores[i] = s;
    }
    p->noisy_left = noisy;
}

/* Move the TT move (already handed out) to index 0, as the first pick did. */
static void tt_move_first(MovePicker *p) {
    swap_to_next(p, p->tt_index);
    p->next = 1;
    p->noisy_left -= mp_is_noisy(p->board, p->tt_move);
}

/* Atomic: a capture (or queen promotion) ordered by what its explosion
 * wins (see_atomic_gain), the enemy king's first; one that loses material
 * is a bad capture (the quiescence search leaves it out). */
static void atomic_scores(MovePicker *p) {
    for (int i = 0; i < p->list.count; i++) {
        if (!p->see_pending[i]) continue;
        p->see_pending[i] = 0;
        int g = see_atomic_gain(p->board, p->list.moves[i]);
        g = g < -9999 ? -9999 : g;
        p->scores[i] = g >= 0 ? SC_GOOD_CAP + 16 * g : SC_BAD_CAP + 16 * (g + 10000);
    }
}

/* The variants' scores, after score_moves. Atomic: atomic_scores.
 * Antichess: SEE cannot judge its forced captures, so every capture keeps
 * its noisy score as a good one. Crazyhouse: a queen drop (which
 * mp_is_noisy takes for a queen promotion) is scored as the quiet move it
 * is. */
static __attribute__((noinline)) void variant_scores(MovePicker *p) {
    const Board *b = p->board;
    if (b->variant == VAR_ATOMIC) {
        atomic_scores(p);
    } else if (b->variant == VAR_ANTICHESS) {
        for (int i = 0; i < p->list.count; i++) p->see_pending[i] = 0;
    } else if (b->variant == VAR_CRAZYHOUSE) {
        const History *h = p->hist;
        const HistNode *n = p->node;
        for (int i = 0; i < p->list.count; i++) {
            Move m = p->list.moves[i];
            if (!move_is_drop(m) || m == p->tt_move) continue;
            if (p->see_pending[i]) {   /* a queen drop, scored as a promotion */
                p->see_pending[i] = 0;
                p->noisy_left--;
            }
            if (!n) { p->scores[i] = 0; continue; }
            /* A drop's history is its man's (history.h), not the empty from square's. */
            p->scores[i] = m == h->killers[n->ply][0] ? SC_KILLER1 : m == h->killers[n->ply][1] ? SC_KILLER2
                         : n->counter && m == *n->counter ? SC_COUNTER
                         : hist_quiet_score(h, n->cont1, n->cont2, b->side, hist_piece(b, m), m);
        }
    }
}

static void generate(MovePicker *p) {
    p->list.count = 0;
    p->next = 0;
    movegen_legal(p->board, &p->list, p->gen);
    score_moves(p);
    if (__builtin_expect(p->board->variant != VAR_STANDARD, 0)) variant_scores(p);
    p->stage = MP_STAGE_PICK;
}

/* ---------- staged: standard chess's main search ---------- */

/* Drop entry i (a move already handed out in an earlier stage). */
static inline void drop_entry(MovePicker *p, int i) {
    p->list.count--;
    p->list.moves[i] = p->list.moves[p->list.count];
}

/* Index of the first maximal score in [from, to). */
static inline int best_index(const MovePicker *p, int from, int to) {
    int best = from;
    for (int i = from + 1; i < to; i++)
        if (p->scores[i] > p->scores[best]) best = i;
    return best;
}

/* Take the first move of highest score in [next, to): the move at `next`
 * moves into its slot, and `next` passes on (slots below it are spent). */
static inline Move take_best(MovePicker *p, int to, int *score) {
    int i = best_index(p, p->next, to), n = p->next++;
    Move m = p->list.moves[i];
    *score = p->scores[i];
    p->list.moves[i] = p->list.moves[n];
    p->scores[i] = p->scores[n];
    return m;
}

static void gen_noisy(MovePicker *p) {
    const Board *b = p->board;
    p->list.count = 0;
    movegen_legal(b, &p->list, GEN_NOISY);
    for (int i = 0; i < p->list.count;) {
        if (p->list.moves[i] == p->tt_move) { drop_entry(p, i); continue; }
        p->scores[i] = noisy_score(b, p->hist, p->list.moves[i]);
        i++;
    }
    p->noisy_end = p->list.count;
    p->next = p->bad_end = 0;
}

/* The killers and the countermove worth a search here: legal, quiet (a
 * capture came with the captures), not the TT move, each once. */
static void pick_refutations(MovePicker *p) {
    const Board *b = p->board;
    const History *h = p->hist;
    const HistNode *n = p->node;
    Move cand[3] = {h->killers[n->ply][0], h->killers[n->ply][1], n->counter ? *n->counter : MOVE_NONE};
    static const int score[3] = {SC_KILLER1, SC_KILLER2, SC_COUNTER};
    p->refute_count = 0;
    for (int k = 0; k < 3; k++) {
        Move m = cand[k];
        if (m == MOVE_NONE || m == p->tt_move) continue;
        bool seen = false;
        for (int j = 0; j < p->refute_count; j++) seen |= p->refute[j] == m;
        if (seen || !movegen_is_legal(b, m)) continue;
        /* (a crazyhouse queen drop is quiet: mp_is_noisy takes it for a promotion) */
        if (mp_is_noisy(b, m) && !move_is_drop(m)) continue;
        p->refute[p->refute_count] = m;
        p->refute_score[p->refute_count++] = score[k];
    }
    p->next = 0;
}

static void gen_quiet(MovePicker *p) {
    const Board *b = p->board;
    const History *h = p->hist;
    const ContHist *c1 = p->node->cont1, *c2 = p->node->cont2;
    p->list.count = p->noisy_end;
    movegen_legal(b, &p->list, GEN_QUIET);
    for (int i = p->noisy_end; i < p->list.count;) {
        Move m = p->list.moves[i];
        bool sent = m == p->tt_move;
        for (int j = 0; j < p->refute_count; j++) sent |= p->refute[j] == m;
        if (sent) { drop_entry(p, i); continue; }
        p->scores[i] = hist_quiet_score(h, c1, c2, b->side, hist_piece(b, m), m);
        i++;
    }
    p->next = p->noisy_end;
}

static Move next_staged(MovePicker *p, int *score) {
    switch (p->stage) {
    case MP_MAIN_TT:
        p->stage = MP_GEN_NOISY;
        if (p->tt_move != MOVE_NONE) {
            *score = SC_TT;
            return p->tt_move;
        }
        /* fall through */
    case MP_GEN_NOISY:
        gen_noisy(p);
        p->stage = MP_GOOD_NOISY;
        /* fall through */
    case MP_GOOD_NOISY:
        while (p->next < p->noisy_end) {
            int s;
            Move m = take_best(p, p->noisy_end, &s);
            if (!see_ge(p->board, m, 0)) {
                /* Slots below `next` are spent: the loser waits there. */
                p->list.moves[p->bad_end] = m;
                p->scores[p->bad_end++] = s;
                continue;
            }
            *score = SC_GOOD_CAP + s;
            return m;
        }
        pick_refutations(p);
        p->stage = MP_REFUTE;
        /* fall through */
    case MP_REFUTE:
        if (!p->skip_quiets && p->next < p->refute_count) {
            *score = p->refute_score[p->next];
            return p->refute[p->next++];
        }
        p->stage = MP_GEN_QUIET;
        /* fall through */
    case MP_GEN_QUIET:
        if (!p->skip_quiets) gen_quiet(p);
        p->stage = MP_QUIET;
        /* fall through */
    case MP_QUIET:
        if (!p->skip_quiets && p->next < p->list.count) return take_best(p, p->list.count, score);
        p->next = 0;
        p->stage = MP_BAD_NOISY;
        /* fall through */
    case MP_BAD_NOISY:
        if (p->next < p->bad_end) {
            *score = SC_BAD_CAP + p->scores[p->next];
            return p->list.moves[p->next++];
        }
        p->stage = MP_DONE;
        /* fall through */
    default:
        return MOVE_NONE;
    }
}

void mp_init_main(MovePicker *p, const Board *b, const History *h, const HistNode *n, Move tt_move) {
    p->board = b;
    p->hist = h;
    p->node = n;
    p->gen = GEN_ALL;
    p->handed = 0;
    p->skip_quiets = false;
    /* Crazyhouse too: its legality test of a killer or drop does not generate. */
    if (b->variant == VAR_STANDARD || b->variant == VAR_CRAZYHOUSE) {
        p->tt_move = movegen_is_legal(b, tt_move) ? tt_move : MOVE_NONE;
        p->stage = MP_MAIN_TT;
        return;
    }
    p->tt_move = tt_move;
    generate(p);
}

void mp_init_qsearch(MovePicker *p, const Board *b, const History *h, const HistNode *n, Move tt_move,
                     bool in_check) {
    p->board = b;
    p->hist = h;
    p->node = n;
    p->gen = in_check ? GEN_ALL : GEN_NOISY;
    p->handed = 0;
    p->skip_quiets = false;
    p->list.count = 0;
    p->next = 0;
    bool legal = in_check ? movegen_is_legal(b, tt_move) : movegen_is_legal_noisy(b, tt_move);
    p->tt_move = legal ? tt_move : MOVE_NONE;
    if (p->tt_move != MOVE_NONE)
        p->stage = MP_STAGE_TT;
    else
        generate(p);
}

/* ---------- one list ---------- */

static Move next_one_list(MovePicker *p, int *score) {
    if (p->stage == MP_STAGE_TT) {
        p->stage = MP_STAGE_PICK;
        p->tt_index = MP_TT_SENT;  /* generate on the next call */
        *score = SC_TT;
        return p->tt_move;
    }
    if (p->tt_index == MP_TT_SENT) {
        /* The TT move went out first: the state after the eager first pick. */
        generate(p);
        if (p->tt_index >= 0) tt_move_first(p);  /* always: the move was checked legal */
    } else if (p->next == 0 && p->tt_index >= 0) {
        /* SC_TT is the unique maximum: no scan needed for the first pick. */
        tt_move_first(p);
        *score = SC_TT;
        return p->tt_move;
    }
    const Board *b = p->board;
    for (;;) {
        int n = p->next, count = p->list.count;
        if (n >= count) return MOVE_NONE;
        if (p->skip_quiets && p->noisy_left == 0) return MOVE_NONE;
        int best = best_index(p, n, count);
        if (p->see_pending[best]) {
            p->see_pending[best] = 0;
            if (!see_ge(b, p->list.moves[best], 0)) {
                p->scores[best] += SC_BAD_CAP - SC_GOOD_CAP;  /* its true score; look again */
                continue;
            }
        }
        Move m = p->list.moves[best];
        int s = p->scores[best];
        swap_to_next(p, best);
        p->next++;
        bool capture_range = s > SC_KILLER1 || s < SC_BAD_CAP / 2;
        p->noisy_left -= capture_range;
        if (p->skip_quiets && !capture_range) continue;  /* a quiet move, killers included: skipped */
        *score = s;
        return m;
    }
}

Move mp_next(MovePicker *p, int *score) {
    Move m = p->stage >= MP_MAIN_TT ? next_staged(p, score) : next_one_list(p, score);
    p->handed += m != MOVE_NONE;
    return m;
}
