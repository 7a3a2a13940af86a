/* engine.h — the PbEngine context behind pibot_engine_api.h.
 *
 * Data: one PbEngine per game. It owns the root Board (with the game's
 * history for repetition detection), the TT (shared by its own search
 * threads only), an array of SearchThread contexts (heuristics survive
 * between moves of a game, cleared by pb_engine_clear and by a change of
 * eval or net), the SearchShared block whose atomics stop/ponderhit poke from other threads, and the last
 * progress report (PbInfo) guarded by a mutex with a sequence number, and
 * the evaluation choice: `net` is the NNUE net (the read-only embedded one,
 * or `own_net` loaded from a file and owned here), `use_nnue` the switch;
 * `variant_net[v]`, owned, the net of variant v when one is loaded (NULL:
 * that variant searches with its hand-crafted eval; [VAR_STANDARD] unused).
 * MultiPV and strength: `multipv` lines asked for, the search's RootLines
 * (`root_lines`) and their last reports (`lines`, under info_lock), the
 * strength level's Elo (0 = full strength) and its random stream.
 * Nothing is global: several engines can search at once in one process.
 */
#ifndef PB_ENGINE_H
#define PB_ENGINE_H

#include <stdint.h>
#include <stddef.h>
#include "pibot_api.h"
#include "pibot_engine_api.h"
#include "board.h"
#include "search.h"
#include "nnue.h"
#include "tt.h"

struct PbEngine {
    Board root;
    TT tt;
    SearchThread *threads;
    int nthreads;
    int overhead_ms;
    bool use_nnue;
    const NnueNet *net;
    NnueNet *own_net;
    NnueNet *variant_net[VAR_COUNT];
    SearchShared sh;
    /* ctl_lock serialises the search's start and end with every call that
     * changes the engine (setters, position, clear, free) and with
     * stop/ponderhit, so none of them can fall between the `searching` check
     * and the search's use of what it checks; `idle` is signalled when a
     * search ends (pb_engine_free waits on it). */
    pthread_mutex_t ctl_lock;
    pthread_cond_t idle;
    atomic_bool searching;
    atomic_bool clear_hurry;  /* pb_engine_hurry_clear: cut a clear short */
    atomic_bool stop_asked;   /* pb_engine_stop: ends a level's think time too */
    pthread_mutex_t info_lock;
    PbInfo info;
    PbInfo *lines;            /* [PB_ENGINE_MAX_MULTIPV] the last report of each line */
    int nlines;               /* lines of the running or last search */
    _Atomic uint64_t info_seq;
    int multipv;
    RootLine *root_lines;     /* [SEARCH_MAX_MULTIPV], the search's (sh.lines) */
    int elo;                  /* strength level; 0 = full strength */
    uint64_t rng;             /* the level's random stream (strength.h) */
};

/* Take ctl_lock; PB_ERR_BUSY (lock released) while a search runs. Shared by
 * engine.c and nnue_api.c, the two halves of the PbEngine API. */
int engine_lock_idle(PbEngine *e);
/* The net `variant` evaluates with, UseNNUE aside: chess's in chess; the
 * variant's own where one is loaded; chess's in the variants whose eval is
 * chess's plus their own terms (variant_on_chess); else none. */
const NnueNet *engine_net_for(const PbEngine *e, int variant);

#endif
