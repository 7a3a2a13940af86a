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
    if (sh->node_limit && n >= sh->node_limit && !pondering)
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

/* Can SEE judge this position's exchanges? Not atomic's (a capture blows up
 * the capturer and its neighbours) nor antichess's (captures are forced and
 * losing material is the aim). */
static inline bool see_usable(const Board *b, bool var) {
    return !var || (b->variant != VAR_ATOMIC && b->variant != VAR_ANTICHESS);
}

/* Null move: not in antichess, where being made to move (and capture) is
 * the whole game. */
static inline bool null_move_usable(const Board *b, bool var) {
    return !var || b->variant != VAR_ANTICHESS;
}

/* mp_is_noisy, less the crazyhouse queen drops it takes for promotions. */
static inline bool is_noisy(const Board *b, Move m, bool var) {
    return mp_is_noisy(b, m) && !(var && move_is_drop(m));
}

/* Static eval of the thread's board at `ply`, from the side to move's view.
 * The NNUE output is kept out of the mate range whatever the net; a variant
 * has its own hand-crafted eval (variant_eval.h), never the NNUE. */
SEARCH_BODY int evaluate(SearchThread *t, int ply, bool var) {
    if (var) return clamp_eval(variant_eval(&t->board));
    const NnueNet *net = t->sh->net;
    if (!net) return eval_evaluate(&t->board);
    return clamp_eval(nnue_evaluate(net, t->nnue, ply, &t->board));
}

/* The static eval corrected by what searches of positions with the same
 * pawns found it to be off by (a per-thread running average). */
static inline int corrected_eval(SearchThread *t, int raw) {
    return clamp_eval(raw + hist_correction(&t->hist, &t->board));
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
    if (!var && t->sh->net) nnue_push_move(t->nnue, ply, &t->board, m);
    return board_make_move(&t->board, m);
}

/* ---------- quiescence ---------- */

SEARCH_BODY int qsearch_impl(SearchThread *t, int alpha, int beta, int ply, const bool var) {
    Board *b = &t->board;
    count_node(t);
    if (stopped(t)) return 0;
    if (ply > t->seldepth) t->seldepth = ply;
    t->pv_len[ply] = 0;

    if (var && movegen_variant_end(b)) return variant_end_score(b, ply);
    if (board_is_repetition(b, t->root_ply) || rules_is_draw_50(b) || board_insufficient_material(b))
        return 0;
    /* Antichess: a side that can capture must, so it cannot stand pat: its
     * (capturing) moves are all searched, as evasions are in check. */
    bool in_check = board_in_check(b) || (var && b->variant == VAR_ANTICHESS && movegen_must_capture(b));
    if (ply >= MAX_PLY - 1) return in_check ? 0 : evaluate(t, ply, var);

    TTHit hit;
    bool found = tt_probe(t->sh->tt, b->key, ply, &hit);
    /* As in negamax: the key ignores the fifty-move counter, so near a
     * fifty-move draw a stored score may be a win that can no longer be had. */
    bool tt_score_ok = found && b->rule50 < TT_CUT_MAX_RULE50;
    if (tt_score_ok && tt_bound_cuts(&hit, alpha, beta)) return hit.score;

    int best = -SCORE_INF, stand = SCORE_NONE, raw_eval = SCORE_NONE;
    if (!in_check) {
        raw_eval = found && hit.eval != SCORE_NONE ? hit.eval : evaluate(t, ply, var);
        stand = corrected_eval(t, raw_eval);
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
            if (sc == SC_TT && see_usable(b, var) && !see_ge(b, m, 0)) continue;
            /* Delta pruning: even winning the piece leaves us far below alpha
             * (an atomic capture takes more than the piece). */
            if (move_kind(m) != MOVE_PROMO && (!var || b->variant != VAR_ATOMIC) &&
                stand + MpMvvValue[mp_captured_type(b, m)] + QS_DELTA_MARGIN <= alpha) continue;
        }
        /* Most captures here are pruned above, so the prefetch waits for
         * them; the child's TT bucket still loads during make_move. */
        tt_prefetch(t->sh->tt, board_key_after(b, m));
        stack_push(t, ply, m, board_piece_on(b, move_from(m)));
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
    if (in_check && legal == 0) return var ? no_moves_score(b, ply, var) : -MATE + ply;
    int bound = best >= beta ? BOUND_LOWER : alpha > old_alpha ? BOUND_EXACT : BOUND_UPPER;
    tt_store(t->sh->tt, b->key, ply, best_move, best, raw_eval, 0, bound);
    return best;
}

static int qsearch_std(SearchThread *t, int alpha, int beta, int ply) {
    return qsearch_impl(t, alpha, beta, ply, false);
}
static __attribute__((noinline)) int qsearch_var(SearchThread *t, int alpha, int beta, int ply) {
    return qsearch_impl(t, alpha, beta, ply, true);
}

/* ---------- main search ---------- */

SEARCH_BODY int negamax_impl(SearchThread *t, int alpha, int beta, int depth, int ply, bool cut_node,
                             const bool var) {
    Board *b = &t->board;
    bool pv_node = beta - alpha > 1;
    bool root = ply == 0;
    bool in_check = board_in_check(b);

    if (depth <= 0 && !in_check) return QSEARCH(var)(t, alpha, beta, ply);
    if (depth < 0) depth = 0;

    count_node(t);
    if (stopped(t)) return 0;
    if (ply > t->seldepth) t->seldepth = ply;
    t->pv_len[ply] = 0;

    if (!root) {
        if (var && movegen_variant_end(b)) return variant_end_score(b, ply);
        if (board_is_repetition(b, t->root_ply) || rules_is_draw_50(b) ||
            board_insufficient_material(b))
            return 0;
        if (ply >= MAX_PLY - 1) return in_check ? 0 : evaluate(t, ply, var);
        /* Mate distance pruning: no line here can beat a shorter mate. */
        alpha = alpha > -MATE + ply ? alpha : -MATE + ply;
        beta = beta < MATE - ply - 1 ? beta : MATE - ply - 1;
        if (alpha >= beta) return alpha;
    }

    /* A singular-extension search of this node leaves the TT move out, with
     * no TT cutoff, no node-level pruning (reverse futility, null move) and
     * no TT store (it asks another question); move pruning still applies. */
    Move excluded = t->stack[ply].excluded;
    TTHit hit;
    bool found = tt_probe(t->sh->tt, b->key, ply, &hit);
    Move tt_move = found ? hit.move : MOVE_NONE;
    /* The key ignores the fifty-move counter: near the draw, no TT score. */
    bool tt_score_ok = found && b->rule50 < TT_CUT_MAX_RULE50;
    if (tt_score_ok && !pv_node && !excluded && hit.depth >= depth &&
        tt_bound_cuts(&hit, alpha, beta))
        return hit.score;

    /* The TT keeps the raw eval; the correction is applied afresh. */
    int eval, raw_eval;
    if (excluded) {
        eval = t->stack[ply].eval;
        raw_eval = SCORE_NONE;
    } else if (in_check) {
        eval = raw_eval = SCORE_NONE;
    } else {
        raw_eval = found && hit.eval != SCORE_NONE ? hit.eval : evaluate(t, ply, var);
        eval = corrected_eval(t, raw_eval);
    }
    t->stack[ply].eval = eval;
    int base_doubles = ply > 0 ? t->stack[ply - 1].doubles : 0;
    t->stack[ply].doubles = base_doubles;   /* the null move's subtree; each move sets its own */
    t->hist.killers[ply + 1][0] = t->hist.killers[ply + 1][1] = MOVE_NONE;
    /* "Improving": our eval rose since our previous move; prune less if so. */
    bool improving = !in_check && ply >= 2 && t->stack[ply - 2].eval != SCORE_NONE &&
                     eval > t->stack[ply - 2].eval;
    /* The TT score refines the static eval when its bound points the right way. */
    int adj_eval = !in_check && tt_score_ok && tt_refines(&hit, eval) ? hit.score : eval;

    if (!pv_node && !in_check && !excluded) {
        /* Reverse futility: far above beta at low depth, assume a cutoff. */
        if (depth <= RFP_MAX_DEPTH && adj_eval - RFP_MARGIN * (depth - improving) >= beta && adj_eval < MATE_IN_MAX)
            return adj_eval;
        /* Null move: give a free move; if still >= beta, this node fails high. */
        if (depth >= NMP_MIN_DEPTH && adj_eval >= beta && ply > 0 && t->stack[ply - 1].move != MOVE_NULL &&
            has_non_pawn_material(b, b->side) && beta > -MATE_IN_MAX && null_move_usable(b, var)) {
            int r = NMP_BASE_R + depth / NMP_DEPTH_DIV +
                    ((adj_eval - beta) / NMP_EVAL_DIV < NMP_EVAL_MAX_R
                         ? (adj_eval - beta) / NMP_EVAL_DIV : NMP_EVAL_MAX_R);
            stack_push(t, ply, MOVE_NULL, 0);
            if (!var && t->sh->net) nnue_push_null(t->nnue, ply);
            board_make_null(b);
            int score = -NEGAMAX(var)(t, -beta, -beta + 1, depth - 1 - r, ply + 1, !cut_node);
            board_unmake_null(b);
            if (stopped(t)) return 0;
            if (score >= beta) return score >= MATE_IN_MAX ? beta : score;
        }
    }

    MovePicker p;
    HistNode hn = hist_node(t, ply);
    mp_init_main(&p, b, &t->hist, &hn, tt_move);

    int best = -SCORE_INF, old_alpha = alpha, moves = 0, quiets_tried = 0, sc;
    Move best_move = MOVE_NONE, m;
    Move quiets[MAX_MOVES];

    while ((m = mp_next(&p, &sc)) != MOVE_NONE) {
        if (m == excluded) continue;
        bool noisy = is_noisy(b, m, var);
        /* The child's TT bucket starts loading now, while the pruning, the
         * singular search and the NNUE update run. */
        tt_prefetch(t->sh->tt, board_key_after(b, m));
        /* Pruning of late moves once we have a non-losing line. */
        if (!root && best > -MATE_IN_MAX && has_non_pawn_material(b, b->side)) {
            if (!noisy) {
                int lmp = (LMP_BASE + depth * depth) / (2 - improving);
                if (depth <= LMP_MAX_DEPTH && quiets_tried >= lmp) { mp_skip_quiets(&p); continue; }
                if (!in_check && depth <= FUT_MAX_DEPTH && eval != SCORE_NONE &&
                    eval + FUT_BASE + FUT_PER_PLY * depth <= alpha && sc < SC_COUNTER) { mp_skip_quiets(&p); continue; }
                if (depth <= SEE_MAX_DEPTH && see_usable(b, var) && !see_ge(b, m, -SEE_QUIET_PER_PLY * depth))
                    continue;
            } else if (depth <= SEE_MAX_DEPTH && see_usable(b, var) && !see_ge(b, m, -SEE_NOISY_PER_PLY * depth))
                continue;
        }

        /* Singular extension: if every other move fails well below the TT
         * score, the TT move is the only good one here: search it deeper. If
         * the others reach beta too, this node fails high (multi-cut). */
        int se_ext = 0;
        if (!root && m == tt_move && !excluded && depth >= SE_MIN_DEPTH &&
            hit.depth >= depth - SE_TT_DEPTH_SLACK && (hit.bound & BOUND_LOWER) &&
            hit.score > -MATE_IN_MAX && hit.score < MATE_IN_MAX && ply < CHECK_EXT_MAX_PLY) {
            int s_beta = hit.score - SE_MARGIN_PER_PLY * depth;
            t->stack[ply].excluded = m;
            int s = NEGAMAX(var)(t, s_beta - 1, s_beta, (depth - 1) / 2, ply, cut_node);
            t->stack[ply].excluded = MOVE_NONE;
            t->pv_len[ply] = 0;
            if (stopped(t)) return 0;
            if (s < s_beta) {
                se_ext = 1;
                if (!pv_node && s < s_beta - SE_DOUBLE_MARGIN &&
                    base_doubles < SE_MAX_DOUBLES)
                    se_ext = 2;
            } else if (s_beta >= beta) {
                return s_beta;
            }
        }

        t->stack[ply].doubles = base_doubles + (se_ext == 2);  /* for this move's subtree */
        stack_push(t, ply, m, board_piece_on(b, move_from(m)));
        if (!make_move(t, ply, m, var)) continue;
        moves++;
        if (!noisy && quiets_tried < MAX_MOVES) quiets[quiets_tried++] = m;

        bool gives_check = board_in_check(b);
        int ext = se_ext ? se_ext : gives_check && ply < CHECK_EXT_MAX_PLY ? 1 : 0;
        int new_depth = depth - 1 + ext;
        int score;
        if (moves == 1) {
            /* Node types as in Stockfish: the first child of a cut node is an
             * expected all node and vice versa; PV children are neither. */
            score = -NEGAMAX(var)(t, -beta, -alpha, new_depth, ply + 1, !pv_node && !cut_node);
        } else {
            /* Late move reductions for quiet moves searched late. */
            int r = 0;
            if (depth >= LMR_MIN_DEPTH && !noisy && moves > 1 + pv_node) {
                r = Reductions[depth < 64 ? depth : 63][moves < 64 ? moves : 63];
                r -= pv_node;
                r += !improving;
                r += cut_node;
                if (sc >= SC_COUNTER) r--;  /* killers and countermove */
                else r -= sc / LMR_HISTORY_DIVISOR;       /* history + continuation history */
                if (gives_check) r--;
                if (r < 0) r = 0;
                if (r > new_depth - 1) r = new_depth - 1 > 0 ? new_depth - 1 : 0;
            }
            score = -NEGAMAX(var)(t, -alpha - 1, -alpha, new_depth - r, ply + 1, true);
            /* No re-search once stopped: the 0 a stopped child returns means nothing. */
            if (score > alpha && r > 0 && !stopped(t))
                score = -NEGAMAX(var)(t, -alpha - 1, -alpha, new_depth, ply + 1, !cut_node);
            if (score > alpha && pv_node && !stopped(t))
                score = -NEGAMAX(var)(t, -beta, -alpha, new_depth, ply + 1, false);
        }
        board_unmake_move(b);
        if (stopped(t)) return 0;

        if (score > best) {
            best = score;
            if (score > alpha) {
                best_move = m;
                alpha = score;
                /* Triangular PV. */
                t->pv[ply][0] = m;
                memcpy(&t->pv[ply][1], t->pv[ply + 1], (size_t)t->pv_len[ply + 1] * sizeof(Move));
                t->pv_len[ply] = t->pv_len[ply + 1] + 1;
                if (root) { t->root_best = m; t->root_score = score; }
                if (score >= beta) break;
            }
        }
    }

    if (moves == 0) {
        /* No legal move: mate or stalemate (or a variant's own end). */
        if (mp_handed_out(&p) == 0) return var ? no_moves_score(b, ply, var) : in_check ? -MATE + ply : 0;
        /* Left out the only move: the singular search fails low. */
        if (excluded) return alpha;
        /* Every legal move was pruned: fall back to a quiet static score. */
        return in_check ? -MATE + ply : (eval != SCORE_NONE ? eval : 0);
    }

    if (best >= beta && best_move != MOVE_NONE && !is_noisy(b, best_move, var))
        hist_update_quiets(&t->hist, &hn, b, depth, best_move, quiets, quiets_tried);

    if (excluded) return best;
    int bound = best >= beta ? BOUND_LOWER : alpha > old_alpha ? BOUND_EXACT : BOUND_UPPER;
    /* Teach the correction history what the search found, where the bound
     * says which way the eval was off and no capture explains the gap. */
    if (!in_check && (best_move == MOVE_NONE || !is_noisy(b, best_move, var)) &&
        !(bound == BOUND_LOWER && best <= eval) && !(bound == BOUND_UPPER && best >= eval) &&
        best > -MATE_IN_MAX && best < MATE_IN_MAX)
        hist_update_correction(&t->hist, b, depth, best - eval);
    tt_store(t->sh->tt, b->key, ply, best_move, best, raw_eval, depth, bound);
    return best;
}

static int negamax_std(SearchThread *t, int alpha, int beta, int depth, int ply, bool cut_node) {
    return negamax_impl(t, alpha, beta, depth, ply, cut_node, false);
}
static __attribute__((noinline)) int negamax_var(SearchThread *t, int alpha, int beta, int depth, int ply,
                                                 bool cut_node) {
    return negamax_impl(t, alpha, beta, depth, ply, cut_node, true);
}

/* ---------- iterative deepening ---------- */

static void publish(SearchThread *t, int depth, int score, int bound) {
    SearchShared *sh = t->sh;
    if (!sh->report) return;
    SearchReport r = {
        .depth = depth, .seldepth = t->seldepth, .score = score, .bound = bound,
        .nodes = search_nodes(sh), .time_ms = tm_elapsed_ms(&sh->tm),
        .pv = t->best_pv, .pv_len = t->best_pv_len, .root = &t->board,
    };
    sh->report(sh->report_ctx, &r);
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
    memset(t->stack, 0, sizeof t->stack);
    hist_clear_killers(&t->hist);
    if (sh->net) nnue_refresh(sh->net, &t->nnue[0], b);

    /* A legal move before anything is searched, so a stop at any moment still
     * answers with a legal move: the TT move if legal, else the first one. */
    MoveList root_moves;
    root_moves.count = 0;
    movegen_legal(b, &root_moves, GEN_ALL);
    t->root_best = MOVE_NONE;
    if (root_moves.count == 0) return;
    TTHit hit;
    if (tt_probe(sh->tt, b->key, 0, &hit) && hit.move && movegen_is_legal(b, hit.move))
        t->root_best = hit.move;
    else
        t->root_best = root_moves.moves[0];
    t->best_pv[0] = t->root_best;
    t->best_pv_len = 1;

    int prev_score = 0, stable = 0;
    Move prev_best = MOVE_NONE;
    for (int depth = 1; depth <= sh->depth_limit; depth++) {
        /* Helpers skip some depths so threads spread over different depths. */
        if (t->id > 0 && depth > 1 && ((depth + t->id) % SMP_SKIP_CYCLE == 0)) continue;
        int delta = ASP_DELTA, alpha = -SCORE_INF, beta = SCORE_INF, score;
        if (depth >= ASP_MIN_DEPTH) {
            alpha = prev_score - delta > -SCORE_INF ? prev_score - delta : -SCORE_INF;
            beta = prev_score + delta < SCORE_INF ? prev_score + delta : SCORE_INF;
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
        if (stopped(t)) {
            /* A root move that finished this iteration above the previous
             * best's score is trustworthy even though the iteration is not. */
            if (t->root_best != t->best_pv[0] && t->pv_len[0] > 0 && t->pv[0][0] == t->root_best) {
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
        int drop = prev_score - score;
        prev_score = score;  /* every thread centres its next aspiration window here */
        if (t->id != 0) continue;

        publish(t, depth, score, BOUND_EXACT);
        stable = t->root_best == prev_best ? stable + 1 : 0;
        prev_best = t->root_best;
        if (sync_ponder(sh) || sh->infinite) continue;
        if (root_moves.count == 1 && sh->tm.limited && depth >= SINGLE_REPLY_DEPTH) break;
        if (tm_should_stop_iter(&sh->tm, stable, depth > 1 ? drop : 0)) break;
        if (score >= MATE_IN_MAX && MATE - score <= depth && sh->tm.limited) break;
    }
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
