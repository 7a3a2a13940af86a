/* search.c — iterative deepening, aspiration windows, PVS, quiescence,
 * pruning/reductions; Lazy SMP thread driver. Move ordering: movepicker.c. */
#include "search.h"
#include "search_params.h"
#include "search_tune.h"
#include "attacks.h"
#include "bitboard.h"
#include "eval.h"
#include "movegen.h"
#include "rules.h"
#include "movepicker.h"
#include "see.h"
#include "tt.h"
#include "variant_eval.h"
#include "variant_search.h"

#include <math.h>
#include <string.h>
#include <time.h>

/* ---------- tables initialised once ---------- */

static int Reductions[64][64];
static pthread_once_t search_once = PTHREAD_ONCE_INIT;

static void init_tables(void) {
#ifdef PB_TUNE
    search_tune_load_env();  /* before the tables that depend on the constants */
#endif
    for (int d = 1; d < 64; d++)
        for (int m = 1; m < 64; m++)
            Reductions[d][m] = (int)(LMR_BASE_X100 / 100.0 +
                                     log((double)d) * log((double)m) / (LMR_DIVISOR_X100 / 100.0));
}

void search_init(void) { pthread_once(&search_once, init_tables); }

void search_clear_thread(SearchThread *t) {
    hist_clear(&t->hist);
}

uint64_t search_nodes(const SearchShared *sh) {
    uint64_t n = 0;
    for (int i = 0; i < sh->nthreads; i++)
        n += atomic_load_explicit(&sh->threads[i].nodes, memory_order_relaxed);
    return n;
}

/* ---------- helpers ---------- */

/* Main thread only: after a ponderhit our clock runs from the moment the
 * ponderhit arrived (stamped by pb_engine_ponderhit), not from when this
 * thread noticed it, and the time pondered counts against the budgets
 * (tm_ponderhit). Returns true while still pondering. */
static bool sync_ponder(SearchShared *sh) {
    if (atomic_load(&sh->pondering)) return true;
    if (sh->was_pondering) {
        sh->was_pondering = false;
        int64_t at = atomic_load(&sh->ponderhit_us);
        tm_ponderhit(&sh->tm, at > 0 ? at : tm_now_us());
    }
    return false;
}

/* Main thread only: turn time/node limits into the stop flag. */
static void check_limits(SearchThread *t) {
    SearchShared *sh = t->sh;
    if (sync_ponder(sh)) return;
    if (sh->node_limit && search_nodes(sh) >= sh->node_limit)
        atomic_store(&sh->stop, true);
    else if (tm_hard_expired(&sh->tm))
        atomic_store(&sh->stop, true);
}

/* Count a node and turn limits into the stop flag. The node limit is checked
 * on every node of every thread against that thread's own count, so with one
 * thread `go nodes N` searches exactly N nodes (the search unwinds without
 * counting more) and is reproducible. With several threads every thread also
 * checks the total every LIMIT_CHECK_INTERVAL of its own nodes (the main
 * thread with the clock), so the total stops within N + threads x interval
 * however the threads are scheduled: a main thread descheduled on a busy
 * machine no longer lets a helper run on to its own N. */
static inline void count_node(SearchThread *t) {
    uint64_t n = atomic_load_explicit(&t->nodes, memory_order_relaxed) + 1;
    atomic_store_explicit(&t->nodes, n, memory_order_relaxed);
    SearchShared *sh = t->sh;
    bool pondering = atomic_load_explicit(&sh->pondering, memory_order_relaxed);
    if (sh->node_limit && n >= sh->node_limit && (!pondering || sh->node_limit_pondering))
        atomic_store_explicit(&sh->stop, true, memory_order_relaxed);
    if ((n & (LIMIT_CHECK_INTERVAL - 1)) == 0) {
        if (t->id == 0)
            check_limits(t);
        else if (sh->node_limit && !pondering && search_nodes(sh) >= sh->node_limit)
            atomic_store_explicit(&sh->stop, true, memory_order_relaxed);
    }
}

static inline bool stopped(const SearchThread *t) {
    return atomic_load_explicit(&t->sh->stop, memory_order_relaxed);
}

static inline bool has_non_pawn_material(const Board *b, int side) {
    return (b->by_color[side] & ~(b->by_type[PAWN] | b->by_type[KING])) != 0;
}

/* A static eval kept out of the mate range. */
static inline int clamp_eval(int v) {
    return v > NNUE_EVAL_LIMIT ? NNUE_EVAL_LIMIT : v < -NNUE_EVAL_LIMIT ? -NNUE_EVAL_LIMIT : v;
}

/* ---------- variants ----------
 * The search is compiled twice from one body: negamax_std / qsearch_std for
 * standard chess and Chess960, negamax_var / qsearch_var for the variants
 * (iterate picks one by the root's b->variant). The bodies are always_inline
 * functions whose `var` argument is a compile-time constant in each copy,
 * so every `var && ...` below is gone from the standard one: standard chess
 * pays nothing for the variants (docs/benchmarks.md). */
#define SEARCH_BODY static inline __attribute__((always_inline))

static int negamax_std(SearchThread *t, int alpha, int beta, int depth, int ply, bool cut_node);
static int negamax_var(SearchThread *t, int alpha, int beta, int depth, int ply, bool cut_node);
static int qsearch_std(SearchThread *t, int alpha, int beta, int ply);
static int qsearch_var(SearchThread *t, int alpha, int beta, int ply);
#define NEGAMAX(var) ((var) ? negamax_var : negamax_std)
#define QSEARCH(var) ((var) ? qsearch_var : qsearch_std)
/* The main search's call into the quiescence search: in the variant copy,
 * its first ply (where three-check adds the quiet checks). */
static int qsearch_var_first(SearchThread *t, int alpha, int beta, int ply);
#define QSEARCH_ENTRY(var) ((var) ? qsearch_var_first : qsearch_std)

/* The score of a game a variant rule has ended (movegen_variant_end), for
 * the side to move at `ply`: won, lost or drawn, won and lost as mates are. */
static inline int variant_end_score(const Board *b, int ply) {
    int w = movegen_variant_winner(b);
    return w < 0 ? 0 : w == b->side ? MATE - ply : -MATE + ply;
}

/* No legal move (in a game no variant rule has ended): checkmate or
 * stalemate; in antichess the side that cannot move wins. */
static inline int no_moves_score(const Board *b, int ply, bool var) {
    if (var && b->variant == VAR_ANTICHESS) return MATE - ply;
    return board_in_check(b) ? -MATE + ply : 0;
}

/* Can SEE judge this position's exchanges? Not antichess's (captures are
 * forced and losing material is the aim). Atomic's and crazyhouse's drops
 * have their own (see_ge_variant). */
static inline bool see_usable(const Board *b, bool var) {
    return !var || b->variant != VAR_ANTICHESS;
}

/* SEE in the copy of the search at hand. */
static inline bool search_see_ge(const Board *b, Move m, int threshold, bool var) {
    return var ? see_ge_variant(b, m, threshold) : see_ge(b, m, threshold);
}

/* Null move: not in antichess, where being made to move (and capture) is
 * the whole game. */
static inline bool null_move_usable(const Board *b, bool var) {
    return !var || b->variant != VAR_ANTICHESS;
}

/* Could m give check? A cheap superset, before the move is made: a man
 * (dropped or moved) that attacks the enemy king from its target, a move
 * off a line through that king (a discovered check), any special move. */
static inline bool may_give_check(const Board *b, Move m) {
    int ksq = board_king_sq(b, !b->side), to = move_to(m), t;
    Bitboard occ = b->by_type[0];
    if (move_is_drop(m)) {
        t = move_drop_type(m);
    } else {
        int from = move_from(m);
        if (move_kind(m) != MOVE_NORMAL || line_bb(from, ksq)) return true;
        t = piece_type(board_piece_on(b, from));
        occ ^= sq_bb(from);
    }
    Bitboard a = t == PAWN ? PawnAttacks[b->side][to] : t == KNIGHT ? KnightAttacks[to]
               : t == BISHOP ? bishop_attacks(to, occ) : t == ROOK ? rook_attacks(to, occ)
               : t == QUEEN ? queen_attacks(to, occ) : 0;
    return (a & sq_bb(ksq)) != 0;
}

/* May m, if it gives check, be extended for it? In crazyhouse, drops make
 * checks cheap: only a check whose man is not simply lost (SEE >= 0). The
 * SEE runs only for a move that may check (the answer matters for no other). */
static inline bool check_ext_usable(const Board *b, Move m) {
    return b->variant != VAR_CRAZYHOUSE || !may_give_check(b, m) || see_ge_variant(b, m, 0);
}

/* Antichess: is the node's one legal move a capture (the only capture
 * there is, so forced)? Such lines are searched a ply deeper.
 * (Antichess's picker, one list, has generated every move at init.) */
static inline bool antichess_forced_capture(const MovePicker *p, const Board *b) {
    return b->variant == VAR_ANTICHESS && p->list.count == 1 && mp_is_capture(b, p->list.moves[0]);
}

/* mp_is_noisy, less the crazyhouse queen drops it takes for promotions. */
static inline bool is_noisy(const Board *b, Move m, bool var) {
    return mp_is_noisy(b, m) && !(var && move_is_drop(m));
}

/* Static eval of the thread's board at `ply`, from the side to move's view.
 * The NNUE output is kept out of the mate range whatever the net; a variant
 * uses its own net when one is loaded (sh->net), chess's net under its own
 * terms where sh->net is chess's (variant_on_chess: king of the hill,
 * three-check, crazyhouse), else its hand-crafted eval (variant_eval.h). */
SEARCH_BODY int evaluate(SearchThread *t, int ply, bool var) {
    const NnueNet *net = t->sh->net;
    if (var) {
        const Board *b = &t->board;
        if (!net) return clamp_eval(variant_eval(b));
        if (net->variant != b->variant)
            return clamp_eval(variant_eval_on_chess(b, nnue_evaluate_board_only(net, t->nnue, ply, b)));
        return clamp_eval(nnue_evaluate_variant(net, t->nnue, ply, b));
    }
    if (!net) return eval_evaluate(&t->board);
    return clamp_eval(nnue_evaluate(net, t->nnue, ply, &t->board));
}

/* The correction-history entries of the thread's board at `ply`: its
 * pieces' keys and the two moves before it (SearchStack: piece x 64 + to;
 * 0 for none, before the root, or a null move). */
static inline int corr_move(const SearchThread *t, int ply, int back) {
    if (ply < back) return 0;
    const SearchStack *s = &t->stack[ply - back];
    return s->move == MOVE_NONE || s->move == MOVE_NULL ? 0 : s->piece * 64 + move_to(s->move);
}
static inline CorrSlots corr_slots(SearchThread *t, int ply) {
    return hist_corr_slots(&t->hist, &t->board, corr_move(t, ply, 2), corr_move(t, ply, 1));
}

/* The static eval corrected by what searches found it to be off by in
 * positions with the same pawns, the same other men of one color, ..., or
 * reached by the same two moves (a per-thread running average per table;
 * c: the position's entries, corr_slots). */
static inline int corrected_eval(int raw, const CorrSlots *c) {
    return clamp_eval(raw + hist_correction(c));
}

/* The history tables as seen from the node at `ply`: the continuation rows
 * of the moves 1 and 2 plies back and the previous move's countermove slot. */
static inline HistNode hist_node(SearchThread *t, int ply) {
    HistNode n = {search_cont_row(t, ply, 1), search_cont_row(t, ply, 2), NULL, ply};
    if (ply > 0) {
        const SearchStack *prev = &t->stack[ply - 1];
        if (prev->move != MOVE_NONE && prev->move != MOVE_NULL)
            n.counter = &t->hist.counter[prev->piece][move_to(prev->move)];
    }
    return n;
}

/* Record the move about to be made at `ply` (MOVE_NULL for a null move):
 * the plies below read it for the countermove and continuation history. */
static inline void stack_push(SearchThread *t, int ply, Move m, int piece) {
    SearchStack *s = &t->stack[ply];
    s->move = m;
    s->piece = piece;
    s->cont = m == MOVE_NULL ? hist_no_move_row(&t->hist) : hist_cont_row(&t->hist, piece, move_to(m));
}

/* Does the TT entry's bound make its score this node's result for the window? */
static inline bool tt_bound_cuts(const TTHit *h, int alpha, int beta) {
    return h->bound == BOUND_EXACT || (h->bound == BOUND_LOWER && h->score >= beta) ||
           (h->bound == BOUND_UPPER && h->score <= alpha);
}

/* Is the TT score a better guess than the static eval v (its bound points past v)? */
static inline bool tt_refines(const TTHit *h, int v) {
    return (h->bound == BOUND_LOWER && h->score > v) || (h->bound == BOUND_UPPER && h->score < v);
}

/* board_make_move plus the NNUE delta for the child's accumulator. */
SEARCH_BODY bool make_move(SearchThread *t, int ply, Move m, bool var) {
    if (t->sh->net) {
        if (var) nnue_push_move_variant(t->nnue, ply, &t->board, m);
        else nnue_push_move(t->nnue, ply, &t->board, m);
    }
    return board_make_move(&t->board, m);
}

/* ---------- quiescence ---------- */

/* Atomic delta pruning: skip the capture m when even what its explosion
 * wins leaves the stand-pat score below alpha. A capture that blows up the
 * enemy king is never skipped (whatever alpha is, a mate score included);
 * a skipped one raises *best to its optimistic score, so the upper bound
 * stored for the node covers it. */
static inline bool atomic_delta_prunes(const Board *b, Move m, int stand, int alpha, int *best) {
    int gain = see_atomic_gain(b, m);
    if (gain >= SEE_ATOMIC_WIN) return false;
    int optimistic = stand + gain + QS_DELTA_MARGIN;
    if (optimistic > alpha) return false;
    if (optimistic > *best) *best = optimistic;
    return true;
}

/* Does m give check? (Made and taken back: for the variants' rare uses,
 * after may_give_check, which rules out most moves cheaply.) */
static inline bool gives_check_slow(Board *b, Move m) {
    if (!board_make_move(b, m)) return false;
    bool check = board_in_check(b);
    board_unmake_move(b);
    return check;
}

/* Three-check with one check left to give: does any legal move check? It
 * wins the game at once, whatever it loses (so neither SEE nor a quiet
 * move's pruning may hide it). Out of line: a rare case. */
static __attribute__((noinline)) bool threecheck_wins_in_one(Board *b) {
    MoveList list;
    list.count = 0;
    movegen_legal(b, &list, GEN_ALL);
    for (int i = 0; i < list.count; i++)
        if (may_give_check(b, list.moves[i]) && gives_check_slow(b, list.moves[i])) return true;
    return false;
}

/* The variant copy's early end of a node that is won in one (the side to
 * move gives its third check): true, with the score the child's end would
 * give it (variant_end_score at ply + 1). */
static inline bool variant_wins_in_one(Board *b, int ply, int *score) {
    if (b->variant != VAR_THREECHECK || b->checks_left[b->side] != 1 || !threecheck_wins_in_one(b)) return false;
    *score = MATE - (ply + 1);
    return true;
}

/* Three-check's quiet checks in the quiescence search (variant copy, after
 * the captures failed to reach beta): every quiet move that gives check
 * and passes SEE, searched as the captures are. */
static void qsearch_quiet_checks(SearchThread *t, int ply, int *alpha, int beta, int *best, Move *best_move) {
    Board *b = &t->board;
    MoveList list;
    list.count = 0;
    movegen_legal(b, &list, GEN_QUIET);
    for (int i = 0; i < list.count; i++) {
        Move m = list.moves[i];
        if (!may_give_check(b, m) || !see_ge_variant(b, m, 0) || !gives_check_slow(b, m)) continue;
        stack_push(t, ply, m, hist_piece(b, m));
        if (!make_move(t, ply, m, true)) continue;
        int score = -qsearch_var(t, -beta, -*alpha, ply + 1);
        board_unmake_move(b);
        if (stopped(t)) return;
        if (score > *best) {
            *best = score;
            if (score > *alpha) {
                *best_move = m;
                *alpha = score;
                if (score >= beta) return;
            }
        }
    }
}

SEARCH_BODY int qsearch_impl(SearchThread *t, int alpha, int beta, int ply, const bool var, const bool first) {
    Board *b = &t->board;
    count_node(t);
    if (stopped(t)) return 0;
    if (ply > t->seldepth) t->seldepth = ply;
    t->pv_len[ply] = 0;

    if (var && movegen_variant_end(b)) return variant_end_score(b, ply);
    if (board_is_repetition(b, t->root_ply) || rules_is_draw_50(b) || board_insufficient_material(b))
        return 0;
    /* Antichess stands pat too, though a side that can capture must: searching
     * every capture chain to its end, as evasions are in check, took 2.2M
     * nodes to reach depth 6 from the start position (91k to depth 10 with a
     * stand pat; Fairy-Stockfish's quiescence has no case for it either,
     * src/search.cpp qsearch). */
    bool in_check = board_in_check(b);
    if (ply >= MAX_PLY - 1) return in_check ? 0 : evaluate(t, ply, var);
    int won;
    if (var && variant_wins_in_one(b, ply, &won)) return won;

    TTHit hit;
    bool found = tt_probe(t->sh->tt, b->key, ply, &hit);
    /* As in negamax: the key ignores the fifty-move counter, so near a
     * fifty-move draw a stored score may be a win that can no longer be had. */
    bool tt_score_ok = found && b->rule50 < TT_CUT_MAX_RULE50;
    /* Three-check's first ply searches the quiet checks too, deeper plies
     * do not, and both store at depth 0: here only a lower bound (more
     * moves only raise it) or a main-search entry (depth > 0, every move)
     * may be used. */
    if (tt_score_ok && var && first && b->variant == VAR_THREECHECK && hit.depth <= 0 && hit.bound != BOUND_LOWER)
        tt_score_ok = false;
    if (tt_score_ok && tt_bound_cuts(&hit, alpha, beta)) return hit.score;

    int best = -SCORE_INF, stand = SCORE_NONE, raw_eval = SCORE_NONE;
    if (!in_check) {
        raw_eval = found && hit.eval != SCORE_NONE ? hit.eval : evaluate(t, ply, var);
        CorrSlots corr = corr_slots(t, ply);
        stand = corrected_eval(raw_eval, &corr);
        best = stand;
        if (tt_score_ok && tt_refines(&hit, stand)) best = hit.score;
        if (best >= beta) return best;
        if (best > alpha) alpha = best;
    }

    MovePicker p;
    HistNode hn;   /* only a list with quiet moves (in check) reads the history */
    if (in_check) hn = hist_node(t, ply);
    /* (movegen_is_legal_noisy takes a crazyhouse queen drop, from == to, for a promotion) */
    Move qs_tt = found && !(var && !in_check && move_is_drop(hit.move)) ? hit.move : MOVE_NONE;
    mp_init_qsearch(&p, b, &t->hist, in_check ? &hn : NULL, qs_tt, in_check);
    Move m, best_move = MOVE_NONE;
    int sc, legal = 0, old_alpha = alpha;
    while ((m = mp_next(&p, &sc)) != MOVE_NONE) {
        legal++;
        if (!in_check) {
            /* Losing captures cannot raise a quiet stand-pat score. */
            /* Scores only fall from here: every move left is one too. */
            if (sc < SC_GOOD_CAP - QS_BAD_CAPTURE_SLACK && sc != SC_TT) break;
            if (sc == SC_TT && see_usable(b, var) && !search_see_ge(b, m, 0, var)) continue;
            /* Delta pruning: even winning the piece leaves us far below alpha
             * (atomic: what the explosion wins, never the enemy king's; not in
             * antichess, where taking a man is no gain). */
            if (var && b->variant == VAR_ATOMIC) {
                if (atomic_delta_prunes(b, m, stand, alpha, &best)) continue;
            } else if (!(var && b->variant == VAR_ANTICHESS) && move_kind(m) != MOVE_PROMO &&
                       stand + MpMvvValue[mp_captured_type(b, m)] + QS_DELTA_MARGIN <= alpha) continue;
        }
        /* Most captures here are pruned above, so the prefetch waits for
         * them; the child's TT bucket still loads during make_move. */
        tt_prefetch(t->sh->tt, board_key_after(b, m));
        stack_push(t, ply, m, hist_piece(b, m));
        if (!make_move(t, ply, m, var)) continue;
        int score = -QSEARCH(var)(t, -beta, -alpha, ply + 1);
        board_unmake_move(b);
        if (stopped(t)) return 0;
        if (score > best) {
            best = score;
            if (score > alpha) {
                best_move = m;
                alpha = score;
                if (score >= beta) break;
            }
        }
    }
    if (var && !in_check && best < beta && threecheck_qs_checks(b, first)) {
        qsearch_quiet_checks(t, ply, &alpha, beta, &best, &best_move);
        if (stopped(t)) return 0;
    }
    if (in_check && legal == 0) return var ? no_moves_score(b, ply, var) : -MATE + ply;
    int bound = best >= beta ? BOUND_LOWER : alpha > old_alpha ? BOUND_EXACT : BOUND_UPPER;
    tt_store(t->sh->tt, b->key, ply, best_move, best, raw_eval, 0, bound);
    return best;
}

static int qsearch_std(SearchThread *t, int alpha, int beta, int ply) {
    return qsearch_impl(t, alpha, beta, ply, false, false);
}
static __attribute__((noinline)) int qsearch_var(SearchThread *t, int alpha, int beta, int ply) {
    return qsearch_impl(t, alpha, beta, ply, true, false);
}
static __attribute__((noinline)) int qsearch_var_first(SearchThread *t, int alpha, int beta, int ply) {
    return qsearch_impl(t, alpha, beta, ply, true, true);
}

/* ---------- main search ----------
 * negamax_impl is the node; the SEARCH_BODY steps before it are its parts,
 * in the order they run. All are inlined into negamax_std/negamax_var, so a
 * Node lives in registers as the locals it replaces would. */

/* One node: its window (which the move loop raises), depth and kind, what
 * the TT and the static eval said of it, and the move loop's tally. */
typedef struct {
    int alpha, beta, old_alpha, depth, ply;
    bool pv_node, root, in_check, cut_node;
    /* A singular-extension search of this node leaves the TT move out, with
     * no TT cutoff, no node-level pruning (reverse futility, null move) and
     * no TT store (it asks another question); move pruning still applies. */
    Move excluded;
    Move tt_move;
    bool tt_score_ok;     /* the TT entry's score may be used (not near a fifty-move draw) */
    int eval, raw_eval;   /* corrected and raw static eval; SCORE_NONE in check */
    CorrSlots corr;       /* the correction-history entries (set with a raw eval) */
    int adj_eval;         /* the eval, or the TT score where its bound refines it */
    bool improving;
    int base_doubles;     /* double extensions on the line to this node */
    int best, moves, quiets_tried, caps_tried;
    Move best_move;
    bool no_check_ext;    /* variants: the move in hand gets no check extension */
    bool forced_ext;      /* variants: the node's one legal move is forced: extend it */
    bool must_capture;    /* antichess: the side to move must capture (every move is one) */
} Node;

/* Early exits of a non-root node: a variant's end, a draw, the ply limit,
 * and mate distance pruning (no line here can beat a shorter mate), which
 * narrows the window. True, with the node's score, if one ends the node. */
SEARCH_BODY bool early_exit(SearchThread *t, Node *n, bool var, int *score) {
    Board *b = &t->board;
    int ply = n->ply;
    *score = 0;
    if (var && movegen_variant_end(b)) { *score = variant_end_score(b, ply); return true; }
    if (board_is_repetition(b, t->root_ply) || rules_is_draw_50(b) || board_insufficient_material(b))
        return true;
    if (ply >= MAX_PLY - 1) { *score = n->in_check ? 0 : evaluate(t, ply, var); return true; }
    if (var && variant_wins_in_one(b, ply, score)) return true;
    n->alpha = n->alpha > -MATE + ply ? n->alpha : -MATE + ply;
    n->beta = n->beta < MATE - ply - 1 ? n->beta : MATE - ply - 1;
    *score = n->alpha;
    return n->alpha >= n->beta;
}

/* Probe the transposition table: its move and whether its score may be
 * used; true for a TT cutoff (a non-PV node whose window the entry's bound
 * settles at enough depth: its score, hit->score, is the node's). */
SEARCH_BODY bool probe_tt(SearchThread *t, Node *n, TTHit *hit, bool *found) {
    *found = tt_probe(t->sh->tt, t->board.key, n->ply, hit);
    n->tt_move = *found ? hit->move : MOVE_NONE;
    /* The key ignores the fifty-move counter: near the draw, no TT score. */
    n->tt_score_ok = *found && t->board.rule50 < TT_CUT_MAX_RULE50;
    return n->tt_score_ok && !n->pv_node && !n->excluded && hit->depth >= n->depth &&
           tt_bound_cuts(hit, n->alpha, n->beta);
}

/* Static eval and improving; the ply's stack entry for the plies below
 * (eval, double extensions so far) and its children's killers cleared. */
SEARCH_BODY void static_eval(SearchThread *t, Node *n, const TTHit *hit, bool found, bool var) {
    int ply = n->ply;
    /* The TT keeps the raw eval; the correction is applied afresh. */
    if (n->excluded) {
        n->eval = t->stack[ply].eval;
        n->raw_eval = SCORE_NONE;
    } else if (n->in_check) {
        n->eval = n->raw_eval = SCORE_NONE;
    } else {
        n->raw_eval = found && hit->eval != SCORE_NONE ? hit->eval : evaluate(t, ply, var);
        n->corr = corr_slots(t, ply);
        n->eval = corrected_eval(n->raw_eval, &n->corr);
    }
    t->stack[ply].eval = n->eval;
    n->base_doubles = ply > 0 ? t->stack[ply - 1].doubles : 0;
    t->stack[ply].doubles = n->base_doubles;   /* the null move's subtree; each move sets its own */
    t->hist.killers[ply + 1][0] = t->hist.killers[ply + 1][1] = MOVE_NONE;
    /* "Improving": our eval rose since our previous move; prune less if so. */
    n->improving = !n->in_check && ply >= 2 && t->stack[ply - 2].eval != SCORE_NONE &&
                   n->eval > t->stack[ply - 2].eval;
    /* The TT score refines the static eval when its bound points the right way. */
    n->adj_eval = !n->in_check && n->tt_score_ok && tt_refines(hit, n->eval) ? hit->score : n->eval;
}

/* Reverse futility pruning: far above beta at low depth, assume a cutoff. */
static inline bool reverse_futility_prunes(const Node *n) {
    return n->depth <= RFP_MAX_DEPTH && n->adj_eval - RFP_MARGIN * (n->depth - n->improving) >= n->beta &&
           n->adj_eval < MATE_IN_MAX;
}

/* The variant copy's second look at a reverse futility cut: with its
 * variant's margin and depth limit (variant_rfp_margin, variant_rfp_usable). */
static inline bool variant_rfp_prunes(const Board *b, const Node *n) {
    return variant_rfp_usable(b, n->depth) &&
           n->adj_eval - variant_rfp_margin(b, RFP_MARGIN * (n->depth - n->improving)) >= n->beta;
}

/* Null move pruning: give the opponent a free move; if a reduced search
 * still reaches beta, this node fails high. True with the node's score if
 * so (or 0 when the search was stopped). */
SEARCH_BODY bool null_move_prunes(SearchThread *t, const Node *n, bool var, int *score) {
    Board *b = &t->board;
    int ply = n->ply, beta = n->beta, adj_eval = n->adj_eval;
    if (!(n->depth >= NMP_MIN_DEPTH && adj_eval >= beta && ply > 0 && t->stack[ply - 1].move != MOVE_NULL &&
          has_non_pawn_material(b, b->side) && beta > -MATE_IN_MAX && null_move_usable(b, var)))
        return false;
    int r = NMP_BASE_R + n->depth / NMP_DEPTH_DIV +
            ((adj_eval - beta) / NMP_EVAL_DIV < NMP_EVAL_MAX_R ? (adj_eval - beta) / NMP_EVAL_DIV : NMP_EVAL_MAX_R);
    stack_push(t, ply, MOVE_NULL, 0);
    if (t->sh->net) nnue_push_null(t->nnue, ply);
    board_make_null(b);
    int s = -NEGAMAX(var)(t, -beta, -beta + 1, n->depth - 1 - r, ply + 1, !n->cut_node);
    board_unmake_null(b);
    if (stopped(t)) { *score = 0; return true; }
    *score = s >= MATE_IN_MAX ? beta : s;
    return s >= beta;
}

/* ProbCut: a capture that wins enough material to stay above beta + margin
 * in a quiescence search, and then in a search PROBCUT_REDUCTION plies
 * shallower, makes this node fail high. True with the node's score if so
 * (or 0 when the search was stopped). Not inlined: its picker would
 * otherwise take stack space in every node's frame. */
static __attribute__((noinline)) bool probcut_prunes(SearchThread *t, const Node *n, const TTHit *hit, bool var,
                                                     int *score) {
    Board *b = &t->board;
    int ply = n->ply, depth = n->depth, pc_beta = n->beta + PROBCUT_MARGIN;
    /* Not in antichess (SEE cannot judge its captures, see_usable) nor, as
     * issue 50 left it, in atomic: its explosion-aware SEE (see_ge_variant)
     * would serve, but ProbCut there is not yet judged by games. */
    if (!(depth >= PROBCUT_MIN_DEPTH && n->beta > -MATE_IN_MAX && pc_beta < MATE_IN_MAX && see_usable(b, var) &&
          !(var && b->variant == VAR_ATOMIC)))
        return false;
    /* A TT entry of nearly this depth scored below pc_beta: ProbCut is
     * unlikely to succeed (the usual bound-less test, as Stockfish's; only
     * an upper or exact bound would say this node stays below). */
    if (n->tt_score_ok && hit->depth >= depth - PROBCUT_REDUCTION + 1 && hit->score < pc_beta) return false;
    /* The child is searched at pc_depth: at least 1, else the second search
     * would repeat the quiescence search; the TT answer is one ply more. */
    int pc_depth = depth - PROBCUT_REDUCTION;
    int see_margin = pc_beta - n->eval;   /* the material a capture must win */
    MovePicker p;
    /* (movegen_is_legal_noisy takes a crazyhouse queen drop for a promotion) */
    Move tt = var && move_is_drop(n->tt_move) ? MOVE_NONE : n->tt_move;
    mp_init_qsearch(&p, b, &t->hist, NULL, tt, false);
    Move m;
    int sc;
    while ((m = mp_next(&p, &sc)) != MOVE_NONE) {
        if (!is_noisy(b, m, var) || !search_see_ge(b, m, see_margin, var)) continue;
        tt_prefetch(t->sh->tt, board_key_after(b, m));
        stack_push(t, ply, m, hist_piece(b, m));
        if (!make_move(t, ply, m, var)) continue;
        int s = -QSEARCH(var)(t, -pc_beta, -pc_beta + 1, ply + 1);
        if (s >= pc_beta && pc_depth >= 1 && !stopped(t))
            s = -NEGAMAX(var)(t, -pc_beta, -pc_beta + 1, pc_depth, ply + 1, !n->cut_node);
        board_unmake_move(b);
        if (stopped(t)) { *score = 0; return true; }
        if (s >= pc_beta) {
            tt_store(t->sh->tt, b->key, ply, m, s, n->raw_eval, pc_depth >= 1 ? pc_depth + 1 : 1, BOUND_LOWER);
            *score = s;
            return true;
        }
    }
    return false;
}

/* MultiPV: is m the move of one of the lines already searched at this depth? */
static bool root_excluded(const SearchThread *t, Move m) {
    for (int i = 0; i < t->root_excl; i++)
        if (t->sh->lines[i].move == m) return true;
    return false;
}

/* Late move or futility pruning of the quiet move m: the quiets left are
 * skipped with it, except in three-check, where a quiet check is a third
 * of the game: there only m is pruned, unless it gives check. */
SEARCH_BODY bool skip_quiets(SearchThread *t, MovePicker *p, Move m, bool var) {
    if (var && t->board.variant == VAR_THREECHECK) return !may_give_check(&t->board, m) || !gives_check_slow(&t->board, m);
    mp_skip_quiets(p);
    return true;
}

/* Move pruning once we have a non-losing line: late move pruning and
 * futility pruning of quiet moves (which skip the quiets left), history
 * pruning of single quiet moves, SEE pruning of quiet and noisy ones; at the
 * root, only the moves of earlier MultiPV lines are left out. True if the
 * move is not searched. */
SEARCH_BODY bool prune_move(SearchThread *t, const Node *n, MovePicker *p, Move m, int sc, bool noisy, bool var) {
    const Board *b = &t->board;
    int depth = n->depth;
    if (n->root) return t->root_excl && root_excluded(t, m);   /* MultiPV: an earlier line's move */
    if (n->best <= -MATE_IN_MAX || !has_non_pawn_material(b, b->side)) return false;
    if (noisy) return depth <= SEE_MAX_DEPTH && see_usable(b, var) && !search_see_ge(b, m, -SEE_NOISY_PER_PLY * depth, var);
    /* Antichess: a man put where the opponent must take it forces the reply;
     * such a move is searched (Fairy-Stockfish's rule for must-capture
     * variants, src/search.cpp step 13). */
    if (var && b->variant == VAR_ANTICHESS && board_sq_attacked(b, move_to(m), !b->side, b->by_type[0]))
        return false;
    int lmp = (LMP_BASE + depth * depth) / (2 - n->improving);
    if (depth <= LMP_MAX_DEPTH && n->quiets_tried >= lmp) return skip_quiets(t, p, m, var);
    int fut = FUT_BASE + FUT_PER_PLY * depth;
    if (var) fut = variant_margin(b, fut);
    if (!n->in_check && depth <= FUT_MAX_DEPTH && n->eval != SCORE_NONE &&
        n->eval + fut <= n->alpha && sc < SC_COUNTER) return skip_quiets(t, p, m, var);
    /* History pruning: a quiet move whose history (butterfly and both
     * continuation rows, its picker score) has gone this bad is not worth a
     * shallow search. Not in three-check, where a quiet check can win
     * (and whether a move checks is known only once it is made). */
    if (!n->pv_node && !n->in_check && depth <= HP_MAX_DEPTH && sc < -HP_MARGIN * depth &&
        !(var && b->variant == VAR_THREECHECK))
        return true;
    return depth <= SEE_MAX_DEPTH && see_usable(b, var) && !search_see_ge(b, m, -SEE_QUIET_PER_PLY * depth, var);
}

/* Singular extension: if every other move fails well below the TT score,
 * the TT move is the only good one here: search it deeper (*ext 1, or 2
 * when far below). If the others reach beta too, this node fails high
 * (multi-cut); if they only reach singular beta, the TT move is searched
 * shallower (*ext -2 or -1). True, with the node's score, if the node ends
 * here (a multi-cut, or 0 when the search was stopped). */
SEARCH_BODY bool singular_extension(SearchThread *t, const Node *n, const TTHit *hit, Move m, bool var,
                                    int *ext, int *score) {
    int depth = n->depth, ply = n->ply;
    *ext = 0;
    /* Only a TT score that may be used (tt_score_ok: not near a fifty-move
     * draw, as for RFP and ProbCut) builds singular beta and picks the
     * negative extension. */
    if (!(!n->root && m == n->tt_move && !n->excluded && n->tt_score_ok && depth >= SE_MIN_DEPTH &&
          hit->depth >= depth - SE_TT_DEPTH_SLACK && (hit->bound & BOUND_LOWER) &&
          hit->score > -MATE_IN_MAX && hit->score < MATE_IN_MAX && ply < CHECK_EXT_MAX_PLY))
        return false;
    int s_beta = hit->score - SE_MARGIN_PER_PLY * depth;
    t->stack[ply].excluded = m;
    int s = NEGAMAX(var)(t, s_beta - 1, s_beta, (depth - 1) / 2, ply, n->cut_node);
    t->stack[ply].excluded = MOVE_NONE;
    t->pv_len[ply] = 0;
    if (stopped(t)) { *score = 0; return true; }
    if (s < s_beta) {
        *ext = !n->pv_node && s < s_beta - SE_DOUBLE_MARGIN && n->base_doubles < SE_MAX_DOUBLES ? 2 : 1;
        return false;
    }
    /* Multi-cut: another move reaches singular beta, and that is above beta. */
    if (s_beta >= n->beta) { *score = s_beta; return true; }
    /* Negative extension: the TT move is not the only good move, and its
     * score (>= beta) or the node's kind (a cut node) says a cutoff will
     * come without it searched at full depth. */
    *ext = hit->score >= n->beta ? -2 : n->cut_node ? -1 : 0;
    return false;
}

/* Late move reductions: how much shallower a move searched late is first
 * searched (with a null window). A capture or queen promotion is reduced
 * only by its capture history (cap_hist): 1 ply at 0, none from
 * CAP_LMR_HIST_DIV up, up to 3 plies for a poor one. */
static inline int lmr_reduction(const Node *n, int sc, bool noisy, int cap_hist, bool gives_check, int new_depth) {
    int depth = n->depth, moves = n->moves;
    if (depth < LMR_MIN_DEPTH || moves <= 1 + n->pv_node) return 0;
    int r;
    if (noisy) {
        r = 1 - cap_hist / CAP_LMR_HIST_DIV;
        r = r > 3 ? 3 : r;
        r -= gives_check + n->pv_node;
        if (r < 0) r = 0;
        if (r > new_depth - 1) r = new_depth - 1 > 0 ? new_depth - 1 : 0;
        return r;
    }
    r = Reductions[depth < 64 ? depth : 63][moves < 64 ? moves : 63];
    r -= n->pv_node;
    r += !n->improving;
    r += n->cut_node;
    if (sc >= SC_COUNTER) r--;  /* killers and countermove */
    else {
        int h = sc / LMR_HISTORY_DIVISOR;     /* history + continuation history, at most 2 plies */
        r -= h > 2 ? 2 : h < -2 ? -2 : h;
    }
    if (gives_check) r--;
    if (r < 0) r = 0;
    if (r > new_depth - 1) r = new_depth - 1 > 0 ? new_depth - 1 : 0;
    return r;
}

/* Principal variation search of the move just made, extended by se_ext or
 * for giving check: the first move with the whole window, the others with a
 * null window (reduced first), searched again when they beat alpha. */
SEARCH_BODY int search_move(SearchThread *t, const Node *n, int se_ext, int sc, bool noisy, int cap_hist,
                            bool var) {
    int alpha = n->alpha, beta = n->beta, ply = n->ply;
    bool gives_check = board_in_check(&t->board);
    /* A singular extension replaces the check extension (and a variant's
     * forced-move extension, which counts as one); a negative one does not
     * (the check still earns its ply). */
    int check_ext = ((gives_check && !(var && n->no_check_ext)) || (var && n->forced_ext)) && ply < CHECK_EXT_MAX_PLY;
    int ext = se_ext > 0 ? se_ext : se_ext + check_ext;
    int new_depth = n->depth - 1 + ext;
    /* Node types as in Stockfish: the first child of a cut node is an
     * expected all node and vice versa; PV children are neither. */
    if (n->moves == 1) return -NEGAMAX(var)(t, -beta, -alpha, new_depth, ply + 1, !n->pv_node && !n->cut_node);
    /* (Antichess: no reduction among forced captures.) */
    int r = var && n->must_capture ? 0 : lmr_reduction(n, sc, noisy, cap_hist, gives_check, new_depth);
    int reduced = new_depth - r;
    int score = -NEGAMAX(var)(t, -alpha - 1, -alpha, reduced, ply + 1, true);
    /* No re-search once stopped: the 0 a stopped child returns means nothing. */
    if (score > alpha && r > 0 && !stopped(t)) {
        /* The reduced search beat alpha: search again at full depth, one ply
         * deeper if it beat the best so far by far, one shallower if barely
         * (and not again at all if that is no deeper than the first). The
         * deeper ply never takes the child past this node's depth: with the
         * check extension it would, and a line of checks would then grow
         * deeper at every ply (three-check). */
        new_depth += (score > n->best + LMR_DEEPER_MARGIN && new_depth < n->depth) -
                     (score < n->best + LMR_SHALLOWER_MARGIN);
        if (new_depth > reduced)
            score = -NEGAMAX(var)(t, -alpha - 1, -alpha, new_depth, ply + 1, !n->cut_node);
    }
    if (score > alpha && n->pv_node && !stopped(t))
        score = -NEGAMAX(var)(t, -beta, -alpha, new_depth, ply + 1, false);
    return score;
}

/* A searched move's score: a new best, and above alpha a new PV (the
 * triangular table; at the root, the answer so far). True on a beta cutoff. */
SEARCH_BODY bool update_best(SearchThread *t, Node *n, Move m, int score) {
    if (score <= n->best) return false;
    n->best = score;
    if (score <= n->alpha) return false;
    int ply = n->ply;
    n->best_move = m;
    n->alpha = score;
    t->pv[ply][0] = m;
    memcpy(&t->pv[ply][1], t->pv[ply + 1], (size_t)t->pv_len[ply + 1] * sizeof(Move));
    t->pv_len[ply] = t->pv_len[ply + 1] + 1;
    if (n->root) { t->root_best = m; t->root_score = score; }
    return score >= n->beta;
}

/* The root: count the nodes just searched under root move m (its slot in
 * the root's move list) for the time manager's node share. */
static void root_add_nodes(SearchThread *t, Move m, uint64_t nodes) {
    for (int i = 0; i < t->root_moves.count; i++)
        if (t->root_moves.moves[i] == m) { t->root_nodes[i] += nodes; return; }
}

/* The best root move's share of the nodes searched under the root's moves
 * so far in this search; -1 before any. */
static double root_best_share(const SearchThread *t) {
    uint64_t total = 0, best = 0;
    for (int i = 0; i < t->root_moves.count; i++) {
        total += t->root_nodes[i];
        if (t->root_moves.moves[i] == t->root_best) best = t->root_nodes[i];
    }
    return total ? (double)best / (double)total : -1.0;
}

/* The score of a node that searched no move. */
SEARCH_BODY int no_move_searched(const SearchThread *t, const Node *n, const MovePicker *p, bool var) {
    int ply = n->ply;
    /* No legal move: mate or stalemate (or a variant's own end). */
    if (mp_handed_out(p) == 0) return var ? no_moves_score(&t->board, ply, var) : n->in_check ? -MATE + ply : 0;
    /* Left out the only move: the singular search fails low. */
    if (n->excluded) return n->alpha;
    /* Every legal move was pruned: fall back to a quiet static score. */
    return n->in_check ? -MATE + ply : (n->eval != SCORE_NONE ? n->eval : 0);
}

/* The node's result into the correction history and the TT. */
SEARCH_BODY void store_node(SearchThread *t, const Node *n, bool var) {
    const Board *b = &t->board;
    int best = n->best, eval = n->eval;
    int bound = best >= n->beta ? BOUND_LOWER : n->alpha > n->old_alpha ? BOUND_EXACT : BOUND_UPPER;
    /* Teach the correction history what the search found, where the bound
     * says which way the eval was off and no capture explains the gap. */
    if (!n->in_check && (n->best_move == MOVE_NONE || !is_noisy(b, n->best_move, var)) &&
        !(bound == BOUND_LOWER && best <= eval) && !(bound == BOUND_UPPER && best >= eval) &&
        best > -MATE_IN_MAX && best < MATE_IN_MAX)
        hist_update_correction(&n->corr, n->depth, best - eval);
    tt_store(t->sh->tt, b->key, n->ply, n->best_move, best, n->raw_eval, n->depth, bound);
}

SEARCH_BODY int negamax_impl(SearchThread *t, int alpha, int beta, int depth, int ply, bool cut_node,
                             const bool var) {
    Board *b = &t->board;
    bool in_check = board_in_check(b);

    if (depth <= 0 && !in_check) return QSEARCH_ENTRY(var)(t, alpha, beta, ply);
    if (depth < 0) depth = 0;

    count_node(t);
    if (stopped(t)) return 0;
    if (ply > t->seldepth) t->seldepth = ply;
    t->pv_len[ply] = 0;

    Node n = {.alpha = alpha, .beta = beta, .depth = depth, .ply = ply, .pv_node = beta - alpha > 1,
              .root = ply == 0, .in_check = in_check, .cut_node = cut_node,
              .excluded = t->stack[ply].excluded, .best = -SCORE_INF, .best_move = MOVE_NONE};
    int score;
    if (!n.root && early_exit(t, &n, var, &score)) return score;

    TTHit hit;
    bool found;
    if (probe_tt(t, &n, &hit, &found)) return hit.score;
    static_eval(t, &n, &hit, found, var);
    /* Internal iterative reduction: no TT move where one is expected (a PV
     * or cut node, deep enough): this node was not searched before, or its
     * move failed; search it a ply shallower, which is cheap and fills the
     * TT for the next iteration. */
    if (!n.root && !in_check && !n.excluded && n.depth >= IIR_MIN_DEPTH && n.tt_move == MOVE_NONE &&
        (n.pv_node || n.cut_node))
        n.depth--;
    /* Antichess: a side that must capture has no quiet move to stand on, so
     * its eval cannot cut the node short (nor could a null move, which
     * antichess never uses). */
    if (var && b->variant == VAR_ANTICHESS) n.must_capture = movegen_must_capture(b);
    if (!n.pv_node && !in_check && !n.excluded && !n.must_capture) {
        if (reverse_futility_prunes(&n) && (!var || variant_rfp_prunes(b, &n))) return n.adj_eval;
        if (null_move_prunes(t, &n, var, &score)) return score;
        if (probcut_prunes(t, &n, &hit, var, &score)) return score;
    }

    MovePicker p;
    HistNode hn = hist_node(t, ply);
    mp_init_main(&p, b, &t->hist, &hn, n.tt_move);
    /* (Not past twice the iteration's depth: chains of forced captures.) */
    if (var) n.forced_ext = antichess_forced_capture(&p, b) && ply < 2 * (t->completed_depth + 1);
    n.old_alpha = n.alpha;
    Move quiets[MAX_MOVES], caps[HIST_MAX_CAPS_TRIED], m;
    int sc;
    while ((m = mp_next(&p, &sc)) != MOVE_NONE) {
        if (m == n.excluded) continue;
        bool noisy = is_noisy(b, m, var);
        /* The child's TT bucket starts loading now, while the pruning, the
         * singular search and the NNUE update run. */
        tt_prefetch(t->sh->tt, board_key_after(b, m));
        if (prune_move(t, &n, &p, m, sc, noisy, var)) continue;
        int se_ext;
        if (singular_extension(t, &n, &hit, m, var, &se_ext, &score)) return score;

        if (var) n.no_check_ext = !check_ext_usable(b, m);
        int cap_hist = noisy ? hist_capture_score(&t->hist, b, m) : 0;   /* read before the move is made */
        t->stack[ply].doubles = n.base_doubles + (se_ext == 2);  /* for this move's subtree */
        stack_push(t, ply, m, hist_piece(b, m));
        if (!make_move(t, ply, m, var)) continue;
        n.moves++;
        if (!noisy && n.quiets_tried < MAX_MOVES) quiets[n.quiets_tried++] = m;
        else if (noisy && n.caps_tried < HIST_MAX_CAPS_TRIED) caps[n.caps_tried++] = m;
        uint64_t nodes_before = n.root ? atomic_load_explicit(&t->nodes, memory_order_relaxed) : 0;
        score = search_move(t, &n, se_ext, sc, noisy, cap_hist, var);
        if (n.root) root_add_nodes(t, m, atomic_load_explicit(&t->nodes, memory_order_relaxed) - nodes_before);
        board_unmake_move(b);
        if (stopped(t)) return 0;
        if (update_best(t, &n, m, score)) break;
    }

    if (n.moves == 0) return no_move_searched(t, &n, &p, var);
    /* A cutoff teaches the history: the quiet tables when a quiet move cut
     * off, the capture table always (its moves' bonus or malus). */
    if (n.best >= n.beta && n.best_move != MOVE_NONE) {
        bool best_noisy = is_noisy(b, n.best_move, var);
        if (!best_noisy)
            hist_update_quiets(&t->hist, &hn, b, n.depth, n.best_move, quiets, n.quiets_tried);
        hist_update_captures(&t->hist, b, n.depth, best_noisy ? n.best_move : MOVE_NONE, caps, n.caps_tried);
    }
    if (!n.excluded) store_node(t, &n, var);
    return n.best;
}

static int negamax_std(SearchThread *t, int alpha, int beta, int depth, int ply, bool cut_node) {
    return negamax_impl(t, alpha, beta, depth, ply, cut_node, false);
}
static __attribute__((noinline)) int negamax_var(SearchThread *t, int alpha, int beta, int depth, int ply,
                                                 bool cut_node) {
    return negamax_impl(t, alpha, beta, depth, ply, cut_node, true);
}

/* ---------- iterative deepening ---------- */

static void publish(SearchThread *t, int k) {
    SearchShared *sh = t->sh;
    if (!sh->report) return;
    const RootLine *l = &sh->lines[k];
    SearchReport r = {
        .multipv = k + 1, .depth = l->depth, .seldepth = l->seldepth, .score = l->score,
        .bound = BOUND_EXACT, .nodes = search_nodes(sh), .time_ms = tm_elapsed_ms(&sh->tm),
        .pv = l->pv, .pv_len = l->pv_len, .root = &t->board,
    };
    sh->report(sh->report_ctx, &r);
}

int search_line_count(const SearchShared *sh) {
    int n = 0;
    while (n < sh->multipv && sh->lines[n].depth > 0) n++;
    return n;
}

/* Line k (thread 0) is now this PV at this depth. The lines stay a set of
 * distinct moves: a later slot holding the same move from the last depth
 * trades places with line k's old content first. */
static void store_line(SearchThread *t, int k, int multipv, int depth, int score, const Move *pv, int pv_len) {
    RootLine *lines = t->sh->lines;
    for (int j = k + 1; j < multipv && lines[j].depth > 0; j++) {
        if (lines[j].move != pv[0]) continue;
        RootLine tmp = lines[k];
        lines[k] = lines[j];
        lines[j] = tmp;
        break;
    }
    RootLine *l = &lines[k];
    l->move = pv[0];
    l->score = score;
    l->depth = depth;
    l->seldepth = t->seldepth;
    l->pv_len = pv_len;
    memcpy(l->pv, pv, (size_t)pv_len * sizeof(Move));
}

/* One root search of `depth` in an aspiration window around `prev`, widened
 * until the score falls inside it (or the search is stopped). */
static int aspiration(SearchThread *t, int depth, int prev) {
    Board *b = &t->board;
    int delta = ASP_DELTA, alpha = -SCORE_INF, beta = SCORE_INF, score;
    if (depth >= ASP_MIN_DEPTH) {
        alpha = prev - delta > -SCORE_INF ? prev - delta : -SCORE_INF;
        beta = prev + delta < SCORE_INF ? prev + delta : SCORE_INF;
    }
    t->seldepth = 0;
    for (;;) {
        score = b->variant == VAR_STANDARD ? negamax_std(t, alpha, beta, depth, 0, false)
                                           : negamax_var(t, alpha, beta, depth, 0, false);
        if (stopped(t)) break;
        if (score <= alpha) {
            beta = (alpha + beta) / 2;
            alpha = score - delta > -SCORE_INF ? score - delta : -SCORE_INF;
        } else if (score >= beta) {
            beta = score + delta < SCORE_INF ? score + delta : SCORE_INF;
        } else {
            break;
        }
        delta += delta / 2 + ASP_WIDEN_ADD;
    }
    return score;
}

/* The answer so far is the best line's. */
static void best_from_line0(SearchThread *t) {
    const RootLine *l = &t->sh->lines[0];
    t->best_score = l->score;
    memcpy(t->best_pv, l->pv, (size_t)l->pv_len * sizeof(Move));
    t->best_pv_len = l->pv_len;
    t->root_best = l->move;
}

/* MultiPV, lines 1..multipv-1 of this depth (line 0 is done): line k
 * searches the root without the moves of lines 0..k-1, in a window around
 * its own last score. The root then asks another question, as a singular
 * search does: its `excluded` is set (MOVE_NULL, never a move), so it
 * stores nothing in the TT. After each, line k is sorted into 0..k and the
 * best line is the answer. False if stopped: the lines not reached keep the
 * last depth's. */
static bool search_lines(SearchThread *t, int depth, int multipv) {
    RootLine *lines = t->sh->lines;
    for (int k = 1; k < multipv; k++) {
        int prev = lines[k].depth > 0 ? lines[k].score : lines[k - 1].score;
        t->root_excl = k;
        t->stack[0].excluded = MOVE_NULL;
        int score = aspiration(t, depth, prev);
        t->stack[0].excluded = MOVE_NONE;
        t->root_excl = 0;
        if (stopped(t) || t->pv_len[0] == 0) return false;
        store_line(t, k, multipv, depth, score, t->pv[0], t->pv_len[0]);
        for (int i = k; i > 0 && lines[i].score > lines[i - 1].score; i--) {
            RootLine tmp = lines[i];
            lines[i] = lines[i - 1];
            lines[i - 1] = tmp;
        }
        best_from_line0(t);
    }
    return true;
}

static void iterate(SearchThread *t) {
    SearchShared *sh = t->sh;
    Board *b = &t->board;
    t->root_ply = b->ply;
    t->seldepth = 0;
    t->completed_depth = 0;
    t->best_pv_len = 0;
    t->best_score = 0;
    t->best_bound = BOUND_EXACT;
    t->root_excl = 0;
    memset(t->stack, 0, sizeof t->stack);
    hist_clear_killers(&t->hist);
    if (sh->net) nnue_refresh(sh->net, &t->nnue[0], b);

    /* A legal move before anything is searched, so a stop at any moment still
     * answers with a legal move: the TT move if legal, else the first one. */
    MoveList *root_moves = &t->root_moves;
    root_moves->count = 0;
    movegen_legal(b, root_moves, GEN_ALL);
    memset(t->root_nodes, 0, sizeof t->root_nodes);
    t->root_best = MOVE_NONE;
    for (int k = 0; t->id == 0 && k < sh->multipv; k++) sh->lines[k].depth = 0;
    int multipv = t->id == 0 ? sh->multipv : 1;
    if (multipv > root_moves->count) multipv = root_moves->count;
    if (root_moves->count == 0) return;
    TTHit hit;
    if (tt_probe(sh->tt, b->key, 0, &hit) && hit.move && movegen_is_legal(b, hit.move))
        t->root_best = hit.move;
    else
        t->root_best = root_moves->moves[0];
    t->best_pv[0] = t->root_best;
    t->best_pv_len = 1;

    int prev_score = 0, stable = 0;
    Move prev_best = MOVE_NONE;
    for (int depth = 1; depth <= sh->depth_limit; depth++) {
        /* Helpers skip some depths so threads spread over different depths. */
        if (t->id > 0 && depth > 1 && ((depth + t->id) % SMP_SKIP_CYCLE == 0)) continue;
        int score = aspiration(t, depth, prev_score);
        if (stopped(t)) {
            /* A root move that finished this iteration above the previous
             * best's score is trustworthy even though the iteration is not.
             * (With several lines the answer stays the best line's.) */
            if (multipv > 1)
                t->root_best = t->best_pv[0];
            else if (t->root_best != t->best_pv[0] && t->pv_len[0] > 0 && t->pv[0][0] == t->root_best) {
                memcpy(t->best_pv, t->pv[0], (size_t)t->pv_len[0] * sizeof(Move));
                t->best_pv_len = t->pv_len[0];
            }
            break;
        }
        t->completed_depth = depth;
        t->best_score = score;
        t->best_bound = BOUND_EXACT;
        if (t->pv_len[0] > 0) {
            memcpy(t->best_pv, t->pv[0], (size_t)t->pv_len[0] * sizeof(Move));
            t->best_pv_len = t->pv_len[0];
        }
        t->root_best = t->best_pv[0];
        if (t->id == 0) store_line(t, 0, multipv, depth, score, t->best_pv, t->best_pv_len);
        if (multipv > 1) {
            if (!search_lines(t, depth, multipv)) {
                t->root_best = t->best_pv[0];
                break;
            }
            score = t->best_score;
        }
        int drop = prev_score - score;
        prev_score = score;  /* every thread centres its next aspiration window here */
        if (t->id != 0) continue;

        for (int k = 0; k < multipv; k++) publish(t, k);
        stable = t->root_best == prev_best ? stable + 1 : 0;
        prev_best = t->root_best;
        /* A strength level's node budget: no iteration it cannot pay for
         * (the next one costs about what all before it did). */
        if (sh->iter_nodes && search_nodes(sh) >= sh->iter_nodes) break;
        if (sync_ponder(sh) || sh->infinite) continue;
        if (root_moves->count == 1 && sh->tm.limited && depth >= SINGLE_REPLY_DEPTH) break;
        double share = multipv == 1 ? root_best_share(t) : -1.0;
        if (tm_should_stop_iter(&sh->tm, stable, depth > 1 ? drop : 0, share)) break;
        if (score >= MATE_IN_MAX && MATE - score <= depth && sh->tm.limited) break;
    }
    /* A partial iteration's move (above) is line 0 too. */
    if (t->id == 0 && multipv == 1 && t->completed_depth > 0 && t->best_pv[0] != sh->lines[0].move)
        store_line(t, 0, 1, t->completed_depth, t->best_score, t->best_pv, t->best_pv_len);
}

static void *helper_main(void *arg) {
    iterate((SearchThread *)arg);
    return NULL;
}

int search_run(SearchShared *sh) {
    search_init();
    int rc = PB_OK;
    int started = 1;
    for (int i = 0; i < sh->nthreads; i++) {
        SearchThread *t = &sh->threads[i];
        t->sh = sh;
        t->id = i;
        atomic_store(&t->nodes, 0);
    }
    for (int i = 1; i < sh->nthreads; i++) {
        if (pthread_create(&sh->threads[i].handle, NULL, helper_main, &sh->threads[i]) != 0) {
            rc = PB_ERR_THREAD;
            break;
        }
        started++;
    }
    SearchThread *main_t = &sh->threads[0];
    iterate(main_t);
    /* UCI: while pondering or in an infinite search, the answer waits for
     * ponderhit/stop even if the search itself is finished. */
    while (!atomic_load(&sh->stop) && (sh->infinite || atomic_load(&sh->pondering))) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    sync_ponder(sh);  /* a ponderhit after the last iteration still starts our clock */
    atomic_store(&sh->stop, true);
    for (int i = 1; i < started; i++) pthread_join(sh->threads[i].handle, NULL);
    return rc;
}
