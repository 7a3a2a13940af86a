/* engine.c — PbEngine: lifecycle, options, position, search entry, info. */
#include "engine.h"
#include "pibot_nnue_api.h"
#include "eval.h"
#include "movegen.h"
#include "notation.h"
#include "strength.h"
#include "variant.h"
#include "variant_eval.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

_Static_assert((int)PB_ENGINE_MAX_MULTIPV == (int)SEARCH_MAX_MULTIPV, "one MultiPV ceiling");


static SearchThread *alloc_threads(int n) {
    /* SearchThread holds a Board, the PV table and its History (~4.7 MiB in
     * all, History ~4.4 MiB; history.h): heap, not stack;
     * 64-byte aligned for its NNUE accumulators (vector loads). */
    size_t size = ((size_t)n * sizeof(SearchThread) + 63) / 64 * 64;
    SearchThread *t = aligned_alloc(64, size);
    if (t) memset(t, 0, size);
    return t;
}

static void free_lines(PbEngine *e) {
    free(e->lines);
    free(e->root_lines);
}

PbEngine *pb_engine_new(int hash_mb, int threads, int *err) {
    int dummy;
    if (!err) err = &dummy;
    *err = PB_OK;
    if (hash_mb < 1 || hash_mb > PB_ENGINE_MAX_HASH_MB || threads < 1 ||
        threads > PB_ENGINE_MAX_THREADS) {
        *err = PB_ERR_ARG;
        return NULL;
    }
    pb_init();
    search_init();
    /* The embedded net is verified (checksum) once, before any engine runs. */
    const NnueNet *net = nnue_default(err);
    if (!net) return NULL;
    PbEngine *e = calloc(1, sizeof *e);
    if (!e) { *err = PB_ERR_NOMEM; return NULL; }
    /* The MultiPV buffers: ~0.6 MB untouched but for the lines in use. */
    e->lines = calloc(PB_ENGINE_MAX_MULTIPV, sizeof *e->lines);
    e->root_lines = calloc(SEARCH_MAX_MULTIPV, sizeof *e->root_lines);
    if (!e->lines || !e->root_lines) { free_lines(e); free(e); *err = PB_ERR_NOMEM; return NULL; }
    int rc = tt_init(&e->tt, (size_t)hash_mb);
    if (rc) { free_lines(e); free(e); *err = rc; return NULL; }
    e->threads = alloc_threads(threads);
    if (!e->threads) { tt_free(&e->tt); free_lines(e); free(e); *err = PB_ERR_NOMEM; return NULL; }
    if (pthread_mutex_init(&e->info_lock, NULL) != 0) {
        free(e->threads); tt_free(&e->tt); free_lines(e); free(e); *err = PB_ERR_THREAD; return NULL;
    }
    if (pthread_mutex_init(&e->ctl_lock, NULL) != 0) {
        pthread_mutex_destroy(&e->info_lock);
        free(e->threads); tt_free(&e->tt); free_lines(e); free(e); *err = PB_ERR_THREAD; return NULL;
    }
    if (pthread_cond_init(&e->idle, NULL) != 0) {
        pthread_mutex_destroy(&e->ctl_lock);
        pthread_mutex_destroy(&e->info_lock);
        free(e->threads); tt_free(&e->tt); free_lines(e); free(e); *err = PB_ERR_THREAD; return NULL;
    }
    e->nthreads = threads;
    e->multipv = 1;
    e->rng = strength_seed((uint64_t)tm_now_us() ^ (uint64_t)(uintptr_t)e);
    e->overhead_ms = 50;
    e->net = net;
    e->use_nnue = PB_EVAL_DEFAULT == PB_EVAL_NNUE;
    board_set_startpos(&e->root);
    atomic_init(&e->searching, false);
    atomic_init(&e->clear_hurry, false);
    atomic_init(&e->stop_asked, false);
    atomic_init(&e->sh.stop, false);
    atomic_init(&e->sh.pondering, false);
    atomic_init(&e->sh.ponderhit_us, 0);
    atomic_init(&e->info_seq, 0);
    return e;
}

int engine_lock_idle(PbEngine *e) {
    pthread_mutex_lock(&e->ctl_lock);
    if (atomic_load(&e->searching)) {
        pthread_mutex_unlock(&e->ctl_lock);
        return PB_ERR_BUSY;
    }
    return PB_OK;
}

void pb_engine_free(PbEngine *e) {
    if (!e) return;
    /* A search running in another thread is stopped and waited for: it
     * uses the threads, the table and the result buffers freed below. */
    pthread_mutex_lock(&e->ctl_lock);
    while (atomic_load(&e->searching)) {
        atomic_store(&e->sh.stop, true);
        atomic_store(&e->stop_asked, true);
        pthread_cond_wait(&e->idle, &e->ctl_lock);
    }
    pthread_mutex_unlock(&e->ctl_lock);
    tt_free(&e->tt);
    free(e->threads);
    free_lines(e);
    nnue_free(e->own_net);
    for (int v = 0; v < VAR_COUNT; v++) nnue_free(e->variant_net[v]);
    pthread_cond_destroy(&e->idle);
    pthread_mutex_destroy(&e->ctl_lock);
    pthread_mutex_destroy(&e->info_lock);
    free(e);
}

int pb_engine_set_hash(PbEngine *e, int hash_mb) {
    if (hash_mb < 1 || hash_mb > PB_ENGINE_MAX_HASH_MB) return PB_ERR_ARG;
    int rc = engine_lock_idle(e);
    if (rc) return rc;
    rc = tt_resize(&e->tt, (size_t)hash_mb);
    pthread_mutex_unlock(&e->ctl_lock);
    return rc;
}

int pb_engine_set_threads(PbEngine *e, int threads) {
    if (threads < 1 || threads > PB_ENGINE_MAX_THREADS) return PB_ERR_ARG;
    int rc = engine_lock_idle(e);
    if (rc) return rc;
    if (threads != e->nthreads) {
        SearchThread *t = alloc_threads(threads);
        if (!t) {
            rc = PB_ERR_NOMEM;
        } else {
            free(e->threads);
            e->threads = t;
            e->nthreads = threads;
        }
    }
    pthread_mutex_unlock(&e->ctl_lock);
    return rc;
}

int pb_engine_set_move_overhead(PbEngine *e, int ms) {
    if (ms < 0 || ms > 60000) return PB_ERR_ARG;
    /* Allowed during a search: it applies from the next one. */
    pthread_mutex_lock(&e->ctl_lock);
    e->overhead_ms = ms;
    pthread_mutex_unlock(&e->ctl_lock);
    return PB_OK;
}

int pb_engine_set_multipv(PbEngine *e, int lines) {
    if (lines < 1 || lines > PB_ENGINE_MAX_MULTIPV) return PB_ERR_ARG;
    pthread_mutex_lock(&e->ctl_lock);   /* allowed during a search: from the next one */
    e->multipv = lines;
    pthread_mutex_unlock(&e->ctl_lock);
    return PB_OK;
}

int pb_engine_set_strength(PbEngine *e, int elo) {
    pthread_mutex_lock(&e->ctl_lock);
    e->elo = strength_clamp(elo);
    elo = e->elo;
    pthread_mutex_unlock(&e->ctl_lock);
    return elo;
}

int pb_engine_get_strength(PbEngine *e) {
    pthread_mutex_lock(&e->ctl_lock);
    int elo = e->elo;
    pthread_mutex_unlock(&e->ctl_lock);
    return elo;
}

void pb_engine_set_seed(PbEngine *e, uint64_t seed) {
    pthread_mutex_lock(&e->ctl_lock);
    e->rng = strength_seed(seed);
    pthread_mutex_unlock(&e->ctl_lock);
}

void pb_strength_params(int elo, PbStrengthParams *out) {
    if (out) strength_params(elo, out);
}

int pb_engine_clear(PbEngine *e) {
    int rc = engine_lock_idle(e);
    if (rc) return rc;
    tt_clear(&e->tt, e->nthreads, &e->clear_hurry);
    for (int i = 0; i < e->nthreads; i++) search_clear_thread(&e->threads[i]);
    pthread_mutex_unlock(&e->ctl_lock);
    return PB_OK;
}

void pb_engine_hurry_clear(PbEngine *e, int on) {
    /* No lock: the clear it hurries holds ctl_lock for its whole length. */
    atomic_store(&e->clear_hurry, on != 0);
}

int pb_engine_set_position(PbEngine *e, const char *fen, const char *moves, int chess960,
                           char *err, size_t errlen) {
    return pb_engine_set_variant_position(e, NULL, fen, moves, chess960, err, errlen);
}

int pb_engine_set_variant_position(PbEngine *e, const char *variant, const char *fen, const char *moves,
                                   int chess960, char *err, size_t errlen) {
    if (err && errlen) err[0] = '\0';
    int v = variant_from_name(variant);
    if (v < 0 || !board_variant_supported(v)) {
        if (err && errlen) snprintf(err, errlen, "unknown or unsupported variant '%s'", variant);
        return PB_ERR_VARIANT;
    }
    /* Parsed into a private board first: the root changes only on success. */
    Board *b = malloc(sizeof *b);
    if (!b) return PB_ERR_NOMEM;
    if (!fen || !fen[0] || strcmp(fen, "startpos") == 0) fen = variant_start_fen(v);
    int rc = board_set_fen_variant(b, fen, v, chess960 != 0, err, errlen);
    if (rc) { free(b); return rc; }
    if (moves) {
        const char *p = moves;
        int n = 0;
        while (*p) {
            while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
            if (!*p) break;
            const char *q = p;
            while (*q && *q != ' ' && *q != '\t' && *q != '\n' && *q != '\r') q++;
            char tok[16];
            size_t len = (size_t)(q - p);
            n++;
            if (len >= sizeof tok) {
                if (err && errlen) snprintf(err, errlen, "move %d is not a UCI move (too long)", n);
                free(b);
                return PB_ERR_MOVE;
            }
            memcpy(tok, p, len);
            tok[len] = '\0';
            rc = notation_push_uci(b, tok);
            if (rc) {
                if (err && errlen)
                    snprintf(err, errlen, "move %d '%s' is %s in this position", n, tok,
                             rc == PB_ERR_MOVE ? "illegal or malformed" : "not playable");
                free(b);
                return rc;
            }
            p = q;
        }
    }
    /* Leave room for the search plies on top of the game history. */
    if (b->ply > HIST_COMPACT_AT) board_compact_history(b);
    if (engine_lock_idle(e) != PB_OK) {
        free(b);
        if (err && errlen) snprintf(err, errlen, "cannot change the position while searching");
        return PB_ERR_BUSY;
    }
    memcpy(&e->root, b, sizeof *b);
    pthread_mutex_unlock(&e->ctl_lock);
    free(b);
    return PB_OK;
}

static void score_to_info(int score, int *cp, int *mate, int *is_mate) {
    if (score >= MATE_IN_MAX) {
        *is_mate = 1; *mate = (MATE - score + 1) / 2; *cp = score;
    } else if (score <= -MATE_IN_MAX) {
        *is_mate = 1; *mate = -((MATE + score) / 2); *cp = score;
    } else {
        *is_mate = 0; *mate = 0; *cp = score;
    }
}

static void pv_text(const Board *root, const Move *pv, int n, char *out, size_t outlen) {
    size_t pos = 0;
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        char mv[6];
        notation_move_to_uci(root, pv[i], mv);
        size_t l = strlen(mv);
        if (pos + l + 2 >= outlen) break;
        if (pos) out[pos++] = ' ';
        memcpy(out + pos, mv, l);
        pos += l;
        out[pos] = '\0';
    }
}

/* Called by the main search thread after each iteration, once per line. */
static void on_report(void *ctx, const SearchReport *r) {
    PbEngine *e = ctx;
    PbInfo info;
    memset(&info, 0, sizeof info);
    info.multipv = r->multipv;
    info.depth = r->depth;
    info.seldepth = r->seldepth;
    score_to_info(r->score, &info.score_cp, &info.mate, &info.is_mate);
    info.bound = r->bound == BOUND_LOWER ? 2 : r->bound == BOUND_UPPER ? 1 : 0;
    info.nodes = r->nodes;
    info.time_ms = r->time_ms;
    info.nps = r->time_ms > 0 ? r->nodes * 1000 / (uint64_t)r->time_ms : r->nodes * 1000;
    info.hashfull = tt_hashfull(&e->tt);
    pv_text(r->root, r->pv, r->pv_len, info.pv, sizeof info.pv);
    pthread_mutex_lock(&e->info_lock);
    info.seq = atomic_fetch_add(&e->info_seq, 1) + 1;
    e->info = info;
    if (r->multipv >= 1 && r->multipv <= e->nlines) e->lines[r->multipv - 1] = info;
    pthread_mutex_unlock(&e->info_lock);
}

uint64_t pb_engine_get_info(PbEngine *e, PbInfo *out) {
    pthread_mutex_lock(&e->info_lock);
    if (out) *out = e->info;
    uint64_t seq = atomic_load(&e->info_seq);
    pthread_mutex_unlock(&e->info_lock);
    return seq;
}

int pb_engine_get_lines(PbEngine *e, PbInfo *out, int max) {
    pthread_mutex_lock(&e->info_lock);
    int n = 0;
    while (n < e->nlines && e->lines[n].depth > 0) n++;
    for (int i = 0; out && i < n && i < max; i++) out[i] = e->lines[i];
    pthread_mutex_unlock(&e->info_lock);
    return n;
}

/* Ponder move: second PV move, else the TT move of the position after ours. */
static Move find_ponder(PbEngine *e, SearchThread *t, Move best) {
    Board *b = &t->board;
    Move ponder = MOVE_NONE;
    if (!board_make_move(b, best)) return MOVE_NONE;
    TTHit hit;
    /* Validate even the PV move: a ponder move the GUI rejects costs a game. */
    if (t->best_pv_len >= 2 && t->best_pv[0] == best && movegen_is_legal(b, t->best_pv[1]))
        ponder = t->best_pv[1];
    else if (tt_probe(&e->tt, b->key, 1, &hit) && hit.move && movegen_is_legal(b, hit.move))
        ponder = hit.move;
    board_unmake_move(b);
    return ponder;
}

static TimeInput time_input(const PbLimits *lim, int moves_played) {
    TimeInput ti = {
        .wtime = lim->wtime, .btime = lim->btime, .winc = lim->winc, .binc = lim->binc,
        .movestogo = lim->movestogo > 0 ? lim->movestogo : 0, .movetime = lim->movetime,
        .moves_played = moves_played,
    };
    if (lim->infinite) ti.wtime = ti.btime = ti.winc = ti.binc = ti.movetime = -1;
    return ti;
}

int pb_engine_time_budget(const PbLimits *lim, int side, int overhead_ms, int moves_played,
                          int64_t *soft_ms, int64_t *hard_ms) {
    if (!lim || !soft_ms || !hard_ms || (side != 0 && side != 1) || moves_played < 0)
        return PB_ERR_ARG;
    TimeInput ti = time_input(lim, moves_played);
    TimeMan tm;
    tm_init(&tm, &ti, side, overhead_ms);
    *soft_ms = tm.limited ? tm.soft_ms : 0;
    *hard_ms = tm.limited ? tm.hard_ms : 0;
    return PB_OK;
}

const NnueNet *engine_net_for(const PbEngine *e, int variant) {
    if (variant == VAR_STANDARD) return e->net;
    if (e->variant_net[variant]) return e->variant_net[variant];
    return variant_on_chess(variant) ? e->net : NULL;
}

/* The net a search of the root evaluates with (none with UseNNUE off). */
static const NnueNet *search_net(const PbEngine *e) {
    return e->use_nnue ? engine_net_for(e, e->root.variant) : NULL;
}

/* The score of a root without a legal move: mated, stalemated, or a game a
 * variant rule has ended (won, lost, drawn for the side to move). */
static int root_end_score(const Board *b) {
    if (b->variant != VAR_STANDARD && movegen_variant_end(b)) {
        int w = movegen_variant_winner(b);
        return w < 0 ? 0 : w == b->side ? MATE : -MATE;
    }
    if (b->variant == VAR_ANTICHESS) return MATE;   /* stalemated: a win */
    return board_in_check(b) ? -MATE : 0;
}

/* The lines to search (MultiPV, and a level's candidates, never more than
 * the legal moves) and a level's budget on top of the limits: its node
 * budget, which holds while pondering too, and its depth cap. Under ctl_lock. */
static void plan_lines(PbEngine *e, SearchShared *sh, const PbStrengthParams *lv) {
    sh->multipv = e->multipv;
    sh->node_limit_pondering = false;
    sh->iter_nodes = 0;
    if (lv) {
        uint64_t hard = lv->nodes * STRENGTH_HARD_NODES_X;
        if (!sh->node_limit || sh->node_limit > hard) sh->node_limit = hard;
        sh->node_limit_pondering = true;
        sh->iter_nodes = lv->nodes / 2;
        if (sh->depth_limit > lv->depth) sh->depth_limit = lv->depth;
        if (sh->multipv < lv->multipv) sh->multipv = lv->multipv;
    }
    if (sh->multipv > 1) {
        int legal = movegen_count(&e->root);
        if (sh->multipv > legal) sh->multipv = legal > 0 ? legal : 1;
    }
    sh->lines = e->root_lines;
    pthread_mutex_lock(&e->info_lock);
    e->nlines = sh->multipv;
    for (int k = 0; k < e->nlines; k++) e->lines[k].depth = 0;
    pthread_mutex_unlock(&e->info_lock);
}

/* A level's move: the line strength_pick chooses becomes the answer; then
 * its think time is waited out (pb_engine_stop ends the wait at once). */
static void play_level(PbEngine *e, const PbStrengthParams *lv) {
    SearchShared *sh = &e->sh;
    SearchThread *t = &e->threads[0];
    int n = search_line_count(sh), legal = movegen_count(&e->root);
    pthread_mutex_lock(&e->ctl_lock);   /* the random stream: pb_engine_set_seed may run now */
    int c = n > 0 ? strength_pick(lv, sh->lines, n, &e->rng) : 0;
    int64_t think = strength_think_ms(lv, sh->lines, n, legal, sh->tm.limited ? sh->tm.soft_ms : 0, &e->rng);
    pthread_mutex_unlock(&e->ctl_lock);
    if (n > 0) {
        const RootLine *l = &sh->lines[c];
        t->root_best = l->move;
        t->best_score = l->score;
        memcpy(t->best_pv, l->pv, (size_t)l->pv_len * sizeof(Move));
        t->best_pv_len = l->pv_len;
    }
    for (;;) {
        int64_t left = think - tm_thought_ms(&sh->tm);
        if (left <= 0 || atomic_load(&e->stop_asked)) break;
        struct timespec ts = {0, (long)(left < 5 ? left : 5) * 1000000L};
        nanosleep(&ts, NULL);
    }
}

/* Final report so pollers see the last node count and time: every line
 * with several, else the answer's. */
static void final_report(PbEngine *e, const PbResult *out, Move best) {
    SearchShared *sh = &e->sh;
    SearchThread *t = &e->threads[0];
    int n = sh->multipv > 1 ? search_line_count(sh) : 0;
    for (int k = 0; k < n; k++) {
        const RootLine *l = &sh->lines[k];
        SearchReport r = {
            .multipv = k + 1, .depth = l->depth, .seldepth = l->seldepth, .score = l->score,
            .bound = BOUND_EXACT, .nodes = out->nodes, .time_ms = out->time_ms,
            .pv = l->pv, .pv_len = l->pv_len, .root = &e->root,
        };
        on_report(e, &r);
    }
    if (n > 0) return;
    SearchReport r = {
        .multipv = 1, .depth = out->depth > 0 ? out->depth : 1, .seldepth = out->seldepth,
        .score = t->best_score, .bound = BOUND_EXACT, .nodes = out->nodes,
        .time_ms = out->time_ms, .pv = t->best_pv,
        .pv_len = t->best_pv_len > 0 && t->best_pv[0] == best ? t->best_pv_len : 0,
        .root = &e->root,
    };
    if (r.pv_len == 0) { r.pv = &best; r.pv_len = 1; }
    on_report(e, &r);
}

int pb_engine_search(PbEngine *e, const PbLimits *lim, PbResult *out) {
    if (!lim || !out) return PB_ERR_ARG;
    /* Under ctl_lock: a stop or ponderhit from another thread either comes
     * before this (and is ignored: no search was running) or after the
     * flags below are reset (and is acted on); never in between. */
    if (engine_lock_idle(e) != PB_OK) return PB_ERR_BUSY;
    atomic_store(&e->searching, true);
    memset(out, 0, sizeof *out);

    SearchShared *sh = &e->sh;
    sh->tt = &e->tt;
    sh->threads = e->threads;
    sh->nthreads = e->nthreads;
    sh->infinite = lim->infinite != 0;
    sh->depth_limit = lim->depth > 0 && lim->depth < MAX_PLY - 1 ? lim->depth : MAX_PLY - 2;
    sh->node_limit = lim->nodes;
    sh->net = search_net(e);
    sh->report = on_report;
    sh->report_ctx = e;
    sh->was_pondering = lim->ponder != 0;
    atomic_store(&sh->ponderhit_us, 0);
    atomic_store(&sh->pondering, lim->ponder != 0);
    atomic_store(&sh->stop, false);
    atomic_store(&e->stop_asked, false);
    PbStrengthParams level;
    if (e->elo) strength_params(e->elo, &level);
    plan_lines(e, sh, e->elo ? &level : NULL);
    out->elo = e->elo;
    TimeInput ti = time_input(lim, board_fullmove(&e->root) - 1);
    tm_init(&sh->tm, &ti, e->root.side, e->overhead_ms);
    /* Latency between the command and this point counts against our clock. */
    int64_t now = sh->tm.start_us;
    if (lim->start_us > 0 && lim->start_us <= now && now - lim->start_us < 10000000)
        sh->tm.start_us = lim->start_us;
    tt_new_search(&e->tt);
    for (int i = 0; i < e->nthreads; i++) memcpy(&e->threads[i].board, &e->root, sizeof e->root);
    pthread_mutex_unlock(&e->ctl_lock);

    int rc = search_run(sh);
    if (out->elo) play_level(e, &level);

    SearchThread *t = &e->threads[0];
    Move best = t->root_best;
    out->nodes = search_nodes(sh);
    out->time_ms = tm_elapsed_ms(&sh->tm);
    out->depth = t->completed_depth;
    out->seldepth = t->seldepth;
    score_to_info(t->best_score, &out->score_cp, &out->mate, &out->is_mate);
    if (best == MOVE_NONE) {
        strcpy(out->bestmove, "0000");
        score_to_info(root_end_score(&e->root), &out->score_cp, &out->mate, &out->is_mate);
    } else {
        notation_move_to_uci(&e->root, best, out->bestmove);
        Move ponder = find_ponder(e, t, best);
        if (ponder) {
            /* The ponder move is written from the position after `best`. */
            Board *b = &t->board;
            if (board_make_move(b, best)) {
                notation_move_to_uci(b, ponder, out->ponder);
                board_unmake_move(b);
            }
        }
        if (t->best_pv_len > 0 && t->best_pv[0] == best)
            pv_text(&e->root, t->best_pv, t->best_pv_len, out->pv, sizeof out->pv);
        else
            pv_text(&e->root, &best, 1, out->pv, sizeof out->pv);
    }
    if (best != MOVE_NONE) final_report(e, out, best);
    /* Last touch of *e: pb_engine_free may free it as soon as we unlock. */
    pthread_mutex_lock(&e->ctl_lock);
    atomic_store(&e->searching, false);
    pthread_cond_broadcast(&e->idle);
    pthread_mutex_unlock(&e->ctl_lock);
    return rc == PB_ERR_THREAD ? PB_OK : rc;  /* fewer threads still gave a move */
}

void pb_engine_stop(PbEngine *e) {
    pthread_mutex_lock(&e->ctl_lock);
    if (atomic_load(&e->searching)) {
        atomic_store(&e->sh.stop, true);
        atomic_store(&e->stop_asked, true);
    }
    pthread_mutex_unlock(&e->ctl_lock);
}

void pb_engine_ponderhit(PbEngine *e) {
    /* The clock starts now, not when the search thread next looks. */
    int64_t now = tm_now_us();
    pthread_mutex_lock(&e->ctl_lock);
    if (atomic_load(&e->searching) && atomic_load(&e->sh.pondering)) {
        atomic_store(&e->sh.ponderhit_us, now);
        atomic_store(&e->sh.pondering, false);
    }
    pthread_mutex_unlock(&e->ctl_lock);
}

int pb_engine_hashfull(PbEngine *e) { return tt_hashfull(&e->tt); }

int pb_engine_is_searching(PbEngine *e) { return atomic_load(&e->searching) ? 1 : 0; }

/* The readers below take ctl_lock so a concurrent set_position cannot hand
 * them a half-copied root (a running search never writes the root). */
int pb_engine_get_fen(PbEngine *e, char *out, size_t outlen) {
    if (!out || outlen < 100) return PB_ERR_ARG;
    pthread_mutex_lock(&e->ctl_lock);
    board_get_fen(&e->root, out, outlen);
    pthread_mutex_unlock(&e->ctl_lock);
    return PB_OK;
}

int pb_engine_eval(PbEngine *e, int *out) {
    if (!out) return PB_ERR_ARG;
    pthread_mutex_lock(&e->ctl_lock);
    const NnueNet *net = search_net(e);
    if (e->root.variant != VAR_STANDARD && (!net || movegen_variant_end(&e->root))) {
        /* A game over has no eval to ask for: the result, as a clamped score. */
        int end = movegen_variant_end(&e->root) ? root_end_score(&e->root) : 0;
        *out = end > 0 ? NNUE_EVAL_LIMIT : end < 0 ? -NNUE_EVAL_LIMIT
             : movegen_variant_end(&e->root) ? 0 : variant_eval(&e->root);
    } else if (net) {
        NnueAcc *a = aligned_alloc(64, sizeof *a);
        if (!a) { pthread_mutex_unlock(&e->ctl_lock); return PB_ERR_NOMEM; }
        nnue_refresh(net, a, &e->root);
        int v = nnue_output(net, a, &e->root);
        /* chess's net under the variant's own terms (variant_on_chess) */
        if (net->variant != e->root.variant) v = variant_eval_on_chess(&e->root, v);
        *out = v > NNUE_EVAL_LIMIT ? NNUE_EVAL_LIMIT : v < -NNUE_EVAL_LIMIT ? -NNUE_EVAL_LIMIT : v;
        free(a);
    } else {
        *out = eval_evaluate(&e->root);
    }
    pthread_mutex_unlock(&e->ctl_lock);
    return PB_OK;
}

int64_t pb_engine_now_us(void) { return tm_now_us(); }

int pb_engine_legal_moves(PbEngine *e, char *out, size_t outlen) {
    MoveList list;
    list.count = 0;
    pthread_mutex_lock(&e->ctl_lock);
    movegen_legal(&e->root, &list, GEN_ALL);
    if (out && outlen) pv_text(&e->root, list.moves, list.count, out, outlen);
    pthread_mutex_unlock(&e->ctl_lock);
    return list.count;
}
