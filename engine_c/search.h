/* search.h — alpha-beta search (PVS) run by one or more threads.
 *
 * Data: SearchShared is what all threads of one search see (the TT, the
 * limits, the stop/ponder atomics, the time manager owned by the main
 * thread); SearchThread is private to one thread: its own Board copy, node
 * counter (written only by its owner, read relaxed by the main thread),
 * its heuristic tables (History: killers, butterfly and drop history,
 * countermove, continuation and capture history, the eval-correction
 * tables; history.h), the triangular PV table, a per-ply
 * stack and, when the NNUE evaluates, one accumulator per ply (nnue.h).
 * Lazy SMP: every thread runs the same iterative deepening on the same root
 * and they cooperate only through the TT; thread 0 decides time and result.
 * MultiPV: thread 0 searches `multipv` lines per iteration, line k at the
 * root without the moves of lines 0..k-1 (the helpers search line 0 only);
 * the lines, best first, are SearchShared's `lines`.
 */
#ifndef PB_SEARCH_H
#define PB_SEARCH_H

#include "board.h"
#include "history.h"
#include "nnue.h"
#include "search_params.h"
#include "timeman.h"
#include <stdatomic.h>
#include <pthread.h>

struct TT;

typedef struct {
    Move move;        /* move played at this ply (MOVE_NULL for null move) */
    int piece;        /* piece that moved (for countermoves) */
    int eval;         /* static eval, SCORE_NONE in check */
    ContHist *cont;   /* cont[piece][to] of this move; cont[0][0] for none/null */
    Move excluded;    /* singular-extension search: the TT move left out here */
    int doubles;      /* double extensions on the line to this ply */
} SearchStack;

typedef struct SearchShared SearchShared;

typedef struct SearchThread {
    Board board;
    SearchShared *sh;
    int id;
    int root_ply;
    _Atomic uint64_t nodes;
    int seldepth;
    History hist;          /* 4.4 MB (history.h): why SearchThread lives on the heap */
    Move pv[MAX_PLY + 1][MAX_PLY + 1];
    int pv_len[MAX_PLY + 1];
    SearchStack stack[MAX_PLY + 8];
    NnueAcc nnue[NNUE_STACK];   /* used only when sh->net is set; 64-byte aligned */
    /* Root bookkeeping. */
    Move root_best;       /* best fully searched root move so far */
    int root_score;
    int completed_depth;
    Move best_pv[MAX_PLY + 1];
    int best_pv_len;
    int best_score;
    int best_bound;
    int root_excl;        /* MultiPV: the root skips the moves of lines[0..root_excl) */
    MoveList root_moves;  /* the root's legal moves, for this search */
    uint64_t root_nodes[MAX_MOVES]; /* nodes searched under root_moves.moves[i], this search;
                                       by slot, not from/to (drops and promotions differ) */
    pthread_t handle;
} SearchThread;

/* The continuation-history row of the move `back` plies before `ply`, or
 * the row of "no move" before the root (a null move's row is that one too). */
static inline ContHist *search_cont_row(SearchThread *t, int ply, int back) {
    return ply >= back ? t->stack[ply - back].cont : hist_no_move_row(&t->hist);
}

/* One MultiPV line of the root: its move, score and PV at its own depth
 * (0: not searched yet). Lines of one iteration are sorted best first. */
typedef struct {
    Move move;
    int score, depth, seldepth;
    int pv_len;
    Move pv[MAX_PLY + 1];
} RootLine;

/* Progress report of the main thread (copied out by the engine). */
typedef struct {
    int multipv;      /* 1-based line number */
    int depth, seldepth, score, bound;
    uint64_t nodes;
    int64_t time_ms;
    const Move *pv;
    int pv_len;
    const Board *root;
} SearchReport;

struct SearchShared {
    struct TT *tt;
    SearchThread *threads;
    int nthreads;
    atomic_bool stop;        /* end the search now (stop, time, nodes) */
    atomic_bool pondering;   /* true until ponderhit */
    bool was_pondering;      /* main thread's view, to restart the clock once */
    _Atomic int64_t ponderhit_us; /* tm_now_us() of the ponderhit, set before pondering */
    bool infinite;
    int depth_limit;         /* 1..MAX_PLY-1 */
    uint64_t node_limit;     /* 0 = none */
    bool node_limit_pondering; /* the node limit holds while pondering too (a strength level's) */
    uint64_t iter_nodes;     /* 0 = none; else no iteration starts once this many are searched */
    int multipv;             /* lines thread 0 searches, 1..SEARCH_MAX_MULTIPV (and <= legal moves) */
    RootLine *lines;         /* [SEARCH_MAX_MULTIPV], owned by the engine; thread 0 writes */
    TimeMan tm;
    const NnueNet *net;      /* NNUE evaluation; NULL = the hand-crafted eval */
    void (*report)(void *ctx, const SearchReport *r);
    void *report_ctx;
};

/* One-time table init (LMR), thread-safe. */
void search_init(void);
/* Clear the heuristics of a thread (new game). */
void search_clear_thread(SearchThread *t);
/* Run the search on all threads (thread 0 in the calling thread) and return
 * when done. Every thread's board must already hold the root position.
 * Returns PB_OK or PB_ERR_THREAD (then it searched with fewer threads). */
int search_run(SearchShared *sh);
/* Total nodes over all threads. */
uint64_t search_nodes(const SearchShared *sh);
/* Lines of the finished search with a depth (searched at least once). */
int search_line_count(const SearchShared *sh);

#endif
