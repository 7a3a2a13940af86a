/* tune_minisearch.h — a small self-contained alpha-beta for the tuning tools
 * (data generation and fixed-node eval matches): iterative deepening under a
 * node budget, quiescence, MVV-LVA + killers, check extension; no TT, no
 * pruning, so it depends only on the core and the evaluation and its
 * strength changes only when the evaluation does.
 * Mini.p selects the evaluation weights (NULL = the engine's built-in ones).
 * Header-only (static functions): each tool is one translation unit.
 */
#ifndef PB_TUNE_MINISEARCH_H
#define PB_TUNE_MINISEARCH_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../eval.h"
#include "../movegen.h"
#include "../rules.h"

enum { INF = 32000, MATE_SCORE = 31000, MAX_GAME_PLY = 400, ADJ_SCORE = 1200, ADJ_PLIES = 8 };

typedef struct {
    Board *b;
    const EvalParams *p;
    uint64_t nodes, limit;
    int root_ply;
    bool stop;
    Move killers[MAX_PLY + 1][2];
} Mini;

/* Captures and promotions (castling is "king takes own rook": not a capture). */
static inline int mini_eval(const Mini *mi) {
    return mi->p ? eval_evaluate_with(mi->b, mi->p, NULL) : eval_evaluate(mi->b);
}

static bool is_noisy(const Board *b, Move m) {
    int kind = move_kind(m);
    if (kind == MOVE_EP || kind == MOVE_PROMO) return true;
    return kind != MOVE_CASTLE && b->squares[move_to(m)] != NO_PIECE;
}

static int move_score(const Mini *mi, const Board *b, Move m, Move first, int ply) {
    if (m == first) return 1 << 20;
    if (is_noisy(b, m)) {
        int victim = move_kind(m) == MOVE_EP ? PAWN : piece_type(b->squares[move_to(m)]);
        int attacker = piece_type(b->squares[move_from(m)]);
        int promo = move_kind(m) == MOVE_PROMO ? move_promo(m) * 10 : 0;
        return (1 << 16) + victim * 100 - attacker + promo;
    }
    if (ply <= MAX_PLY && (m == mi->killers[ply][0] || m == mi->killers[ply][1])) return 1 << 15;
    return 0;
}

/* Selection sort step: bring the best remaining move to index i. */
static void pick(MoveList *l, int *sc, int i) {
    int best = i;
    for (int j = i + 1; j < l->count; j++)
        if (sc[j] > sc[best]) best = j;
    Move tm = l->moves[i]; l->moves[i] = l->moves[best]; l->moves[best] = tm;
    int ts = sc[i]; sc[i] = sc[best]; sc[best] = ts;
}

static int qsearch(Mini *mi, int alpha, int beta, int ply) {
    Board *b = mi->b;
    mi->nodes++;
    bool check = board_in_check(b);
    int stand = check ? -INF : mini_eval(mi);
    if (ply >= MAX_PLY) return check ? 0 : stand;
    if (!check) {
        if (stand >= beta) return stand;
        if (stand > alpha) alpha = stand;
    }
    MoveList l;
    l.count = 0;
    movegen_legal(b, &l, check ? GEN_ALL : GEN_NOISY);
    if (check && l.count == 0) return -MATE_SCORE + ply;
    int sc[MAX_MOVES];
    for (int i = 0; i < l.count; i++) sc[i] = move_score(mi, b, l.moves[i], MOVE_NONE, MAX_PLY + 1);
    int best = stand;
    for (int i = 0; i < l.count; i++) {
        pick(&l, sc, i);
        if (!board_make_move(b, l.moves[i])) continue;
        int v = -qsearch(mi, -beta, -alpha, ply + 1);
        board_unmake_move(b);
        if (v > best) {
            best = v;
            if (v > alpha) alpha = v;
            if (v >= beta) break;
        }
    }
    return best;
}

static int alphabeta(Mini *mi, int depth, int alpha, int beta, int ply, Move first, Move *best_out) {
    Board *b = mi->b;
    if (mi->nodes >= mi->limit) mi->stop = true;
    if (mi->stop) return 0;
    if (ply > 0 && (board_is_repetition(b, mi->root_ply) || rules_is_draw_50(b)
                    || board_insufficient_material(b)))
        return 0;
    if (depth <= 0 || ply >= MAX_PLY - 1) return qsearch(mi, alpha, beta, ply);
    mi->nodes++;
    MoveList l;
    l.count = 0;
    movegen_legal(b, &l, GEN_ALL);
    if (l.count == 0) return board_in_check(b) ? -MATE_SCORE + ply : 0;
    int sc[MAX_MOVES];
    for (int i = 0; i < l.count; i++) sc[i] = move_score(mi, b, l.moves[i], first, ply);
    int best = -INF;
    Move best_move = l.moves[0];
    for (int i = 0; i < l.count; i++) {
        pick(&l, sc, i);
        Move m = l.moves[i];
        if (!board_make_move(b, m)) continue;
        /* check extension keeps short searches from missing mates */
        int ext = board_in_check(b) ? 1 : 0;
        int v = -alphabeta(mi, depth - 1 + ext, -beta, -alpha, ply + 1, MOVE_NONE, NULL);
        board_unmake_move(b);
        if (mi->stop) break;
        if (v > best) {
            best = v;
            best_move = m;
            if (v > alpha) alpha = v;
            if (v >= beta) {
                if (!is_noisy(b, m) && ply <= MAX_PLY && mi->killers[ply][0] != m) {
                    mi->killers[ply][1] = mi->killers[ply][0];
                    mi->killers[ply][0] = m;
                }
                break;
            }
        }
    }
    if (best_out) *best_out = best_move;
    return best;
}

/* Iterative deepening under a node budget; returns the move of the last
 * completed iteration (or the partial one if depth 1 did not finish). */
static Move think(Mini *mi, int *score) {
    mi->nodes = 0;
    mi->stop = false;
    mi->root_ply = mi->b->ply;
    memset(mi->killers, 0, sizeof(mi->killers));
    Move best = MOVE_NONE;
    *score = 0;
    for (int d = 1; d < MAX_PLY - 8; d++) {
        Move m = MOVE_NONE;
        int v = alphabeta(mi, d, -INF, INF, 0, best, &m);
        if (mi->stop && best != MOVE_NONE) break;
        best = m;
        *score = v;
        if (mi->stop) break;
    }
    return best;
}

typedef struct {
    char (*fens)[128];
    int count, cap;
} FenBuf;

static bool fenbuf_push(FenBuf *f, const Board *b) {
    if (f->count == f->cap) {
        int cap = f->cap ? f->cap * 2 : 256;
        void *p = realloc(f->fens, (size_t)cap * sizeof(*f->fens));
        if (!p) return false;
        f->fens = p;
        f->cap = cap;
    }
    board_get_fen(b, f->fens[f->count++], sizeof(f->fens[0]));
    return true;
}

/* Plays one game, White with weights pw and Black with pb (NULL = built-in);
 * if `out` is given, collects the quiet positions (see tune_datagen.c).
 * Returns White's result x2 (2 win, 1 draw, 0 loss), or -1 on an unusable
 * opening / out of memory. */
static int mini_play_game(Board *b, const char *fen, uint64_t nodes, const EvalParams *pw,
                          const EvalParams *pb, FenBuf *out) {
    if (board_set_fen(b, fen, false, NULL, 0) != PB_OK) return -1;
    Mini mi = {.b = b, .limit = nodes};
    int adj_streak = 0, adj_sign = 0;
    if (out) out->count = 0;
    for (int ply = 0; ply < MAX_GAME_PLY; ply++) {
        MoveList l;
        l.count = 0;
        movegen_legal(b, &l, GEN_ALL);
        if (l.count == 0) return board_in_check(b) ? (b->side == WHITE ? 0 : 2) : 1;
        if (rules_is_draw_50(b) || board_insufficient_material(b)
            || board_is_repetition(b, b->ply + 1))
            return 1;
        int score;
        mi.p = b->side == WHITE ? pw : pb;
        Move m = think(&mi, &score);
        if (m == MOVE_NONE) return -1;
        if (out && !board_in_check(b) && !is_noisy(b, m) && abs(score) < ADJ_SCORE) {
            Mini q = {.b = b, .p = mi.p, .limit = ~0ULL};
            if (qsearch(&q, -INF, INF, 0) == mini_eval(&q) && !fenbuf_push(out, b)) return -1;
        }
        /* adjudicate clear wins once both sides' searches agree for a while */
        int white_view = b->side == WHITE ? score : -score;
        int sign = white_view >= ADJ_SCORE ? 1 : white_view <= -ADJ_SCORE ? -1 : 0;
        if (sign != 0 && sign == adj_sign) adj_streak++;
        else adj_streak = sign != 0;
        adj_sign = sign;
        if (adj_streak >= ADJ_PLIES) return sign > 0 ? 2 : 0;
        if (!board_make_move(b, m)) return 1; /* history full: cannot happen under MAX_GAME_PLY */
    }
    return 1;
}

#endif
