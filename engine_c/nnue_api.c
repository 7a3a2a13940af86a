/* nnue_api.c — the pibot_nnue_api.h entry points: eval switch, nets, checks. */
#include "engine.h"   /* first: the API headers rely on <stdint.h>/<stddef.h> */
#include "pibot_nnue_api.h"
#include "eval.h"
#include "movegen.h"
#include "nnue.h"
#include "variant.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int pb_nnue_default_status(void) {
    int err;
    nnue_default(&err);
    return err;
}

const char *pb_nnue_default_name(void) {
    const NnueNet *net = nnue_default(NULL);
    return net ? net->name : "";
}

int pb_nnue_check_file(const char *path, char *name, size_t namelen, char *err, size_t errlen) {
    NnueNet *net;
    int rc = nnue_load_file(path, &net, err, errlen);
    if (rc) return rc;
    if (name && namelen) snprintf(name, namelen, "%s", net->name);
    nnue_free(net);
    return PB_OK;
}

/* What the engine learnt from searches with the previous eval goes: the TT's
 * scores and the threads' heuristics, above all the correction history,
 * which holds that eval's errors. A table never searched holds nothing (and
 * faulting in gigabytes here would only repeat the next clear). Under
 * ctl_lock with no search running. */
static void forget_eval(PbEngine *e) {
    if (e->tt.used) tt_clear(&e->tt, e->nthreads, NULL);
    for (int i = 0; i < e->nthreads; i++) search_clear_thread(&e->threads[i]);
}

int pb_engine_set_eval(PbEngine *e, int eval) {
    if (eval != PB_EVAL_HCE && eval != PB_EVAL_NNUE) return PB_ERR_ARG;
    int rc = engine_lock_idle(e);
    if (rc) return rc;
    bool nnue = eval == PB_EVAL_NNUE;
    if (nnue != e->use_nnue) {
        e->use_nnue = nnue;
        forget_eval(e);
    }
    pthread_mutex_unlock(&e->ctl_lock);
    return PB_OK;
}

int pb_engine_get_eval(PbEngine *e) {
    pthread_mutex_lock(&e->ctl_lock);
    int eval = e->use_nnue ? PB_EVAL_NNUE : PB_EVAL_HCE;
    pthread_mutex_unlock(&e->ctl_lock);
    return eval;
}

/* A net from `path` that must be one of `variant` (VAR_*): PB_ERR_NET_FORMAT
 * naming both variants when it is another's. */
static int load_for(const char *path, int variant, NnueNet **out, char *err, size_t errlen) {
    int rc = nnue_load_file(path, out, err, errlen);
    if (rc) return rc;
    if ((*out)->variant != variant) {
        if (err && errlen)
            snprintf(err, errlen, "%s: a net for %s, not for %s%s", path, variant_name((*out)->variant),
                     variant_name(variant), variant == VAR_STANDARD ? " (load it as that variant's net)" : "");
        nnue_free(*out);
        *out = NULL;
        return PB_ERR_NET_FORMAT;
    }
    return PB_OK;
}

int pb_nnue_check_file_for(const char *path, const char *variant, char *name, size_t namelen,
                           char *err, size_t errlen) {
    int v = variant_from_name(variant);
    if (v < 0) {
        if (err && errlen) snprintf(err, errlen, "unknown variant '%s'", variant ? variant : "");
        return PB_ERR_VARIANT;
    }
    NnueNet *net;
    int rc = load_for(path, v, &net, err, errlen);
    if (rc) return rc;
    if (name && namelen) snprintf(name, namelen, "%s", net->name);
    nnue_free(net);
    return PB_OK;
}

/* The net of `variant` from `path` (NULL for none when path is empty), and the
 * engine's ctl_lock taken with no search running; on an error neither. */
static int load_locked(PbEngine *e, const char *path, int variant, NnueNet **net, char *err,
                       size_t errlen) {
    *net = NULL;
    if (path && path[0]) {
        int rc = load_for(path, variant, net, err, errlen);
        if (rc) return rc;
    }
    if (engine_lock_idle(e) != PB_OK) {
        nnue_free(*net);
        *net = NULL;
        if (err && errlen) snprintf(err, errlen, "cannot change the net while searching");
        return PB_ERR_BUSY;
    }
    return PB_OK;
}

int pb_engine_load_net(PbEngine *e, const char *path, char *err, size_t errlen) {
    if (err && errlen) err[0] = '\0';
    NnueNet *net;
    int rc = load_locked(e, path, VAR_STANDARD, &net, err, errlen);
    if (rc) return rc;
    nnue_free(e->own_net);
    e->own_net = net;
    e->net = net ? net : nnue_default(NULL);
    if (e->use_nnue) forget_eval(e);
    pthread_mutex_unlock(&e->ctl_lock);
    return PB_OK;
}

int pb_engine_load_variant_net(PbEngine *e, const char *variant, const char *path, char *err,
                               size_t errlen) {
    if (err && errlen) err[0] = '\0';
    int v = variant_from_name(variant);
    if (v <= VAR_STANDARD || !board_variant_supported(v)) {
        if (err && errlen)
            snprintf(err, errlen, "'%s' is not a variant (standard chess's net is the EvalFile one)",
                     variant ? variant : "");
        return PB_ERR_VARIANT;
    }
    NnueNet *net;
    int rc = load_locked(e, path, v, &net, err, errlen);
    if (rc) return rc;
    nnue_free(e->variant_net[v]);
    e->variant_net[v] = net;
    if (e->use_nnue) forget_eval(e);
    pthread_mutex_unlock(&e->ctl_lock);
    return PB_OK;
}

int pb_engine_variant_net_name(PbEngine *e, const char *variant, char *out, size_t outlen) {
    if (!out || outlen < 16) return PB_ERR_ARG;
    int v = variant_from_name(variant);
    if (v <= VAR_STANDARD) return PB_ERR_VARIANT;
    pthread_mutex_lock(&e->ctl_lock);
    snprintf(out, outlen, "%s", e->variant_net[v] ? e->variant_net[v]->name : "");
    pthread_mutex_unlock(&e->ctl_lock);
    return PB_OK;
}

int pb_engine_net_name(PbEngine *e, char *out, size_t outlen) {
    if (!out || outlen < 16) return PB_ERR_ARG;
    pthread_mutex_lock(&e->ctl_lock);
    snprintf(out, outlen, "%s", e->net->name);
    pthread_mutex_unlock(&e->ctl_lock);
    return PB_OK;
}

/* ---------- checks and measurements ---------- */

static uint64_t rng_next(uint64_t *s) {   /* splitmix64 */
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Where move m (not a drop) takes the mover's king, or -1 if the mover is
 * not a king: castling puts it on the g or c file whatever the start. */
static int king_dest(const Board *b, Move m) {
    int from = move_from(m), to = move_to(m);
    if (piece_type(b->squares[from]) != KING) return -1;
    if (move_kind(m) == MOVE_CASTLE) return make_sq(to > from ? 6 : 2, sq_rank(from));
    return to;
}

/* Does m take the mover's king across the d/e line (a mirrored net's refresh)? */
static bool crosses(const Board *b, Move m) {
    if (b->variant == VAR_CRAZYHOUSE && move_is_drop(m)) return false;
    int dest = king_dest(b, m);
    return dest >= 0 && ((dest ^ move_from(m)) & 4);
}

static void count_kind(const Board *b, Move m, PbNnueCheckStats *st) {
    int kind = move_kind(m);
    st->king_crossings += crosses(b, m);
    if (b->variant == VAR_CRAZYHOUSE && move_is_drop(m)) st->drops++;
    else if (kind == MOVE_CASTLE) st->castles++;
    else if (kind == MOVE_EP) { st->en_passants++; st->captures++; }
    else {
        if (kind == MOVE_PROMO) st->promotions++;
        if (b->squares[move_to(m)] != NO_PIECE) st->captures++;
    }
}

/* The walk of pb_nnue_check_walk(_variant): with `var`, the variant's push
 * and update, as the variant search makes them: its own net's (pockets), or,
 * with none loaded, chess's net on its board (variant_on_chess: the pockets'
 * entries left out). */
static int check_walk(PbEngine *e, int variant, const char *fen, int chess960, int steps,
                      uint64_t seed, PbNnueCheckStats *stats) {
    if (!fen || steps < 0 || variant < 0) return PB_ERR_ARG;
    PbNnueCheckStats st;
    memset(&st, 0, sizeof st);
    if (stats) *stats = st;
    /* Held for the whole walk: a concurrent load_net must not free the net. */
    if (engine_lock_idle(e) != PB_OK) return PB_ERR_BUSY;
    const bool var = variant != VAR_STANDARD;
    const NnueNet *net = engine_net_for(e, variant);
    const bool board_only = var && net && net->variant != variant;
    Board *b = malloc(sizeof *b);
    NnueAcc *stack = aligned_alloc(64, sizeof(NnueAcc) * NNUE_STACK);
    NnueAcc *fresh = aligned_alloc(64, sizeof(NnueAcc));
    int rc = PB_OK;
    if (!b || !stack || !fresh) { rc = PB_ERR_NOMEM; goto done; }
    if (!net) { rc = PB_ERR_ARG; goto done; }   /* no net loaded for the variant */
    rc = board_set_fen_variant(b, fen, variant, chess960 != 0, NULL, 0);
    if (rc) goto done;
    nnue_refresh(net, &stack[0], b);
    int ply = 0, mismatches = 0;
    for (int step = 0; step < steps; step++) {
        MoveList list;
        list.count = 0;
        movegen_legal(b, &list, GEN_ALL);
        uint64_t r = rng_next(&seed);
        /* Deeper means likelier to go back: the walk stays within ~40 plies. */
        if (ply > 0 && (list.count == 0 || (int)(r % 48) < ply || ply >= MAX_PLY - 1)) {
            if (b->hist[b->ply - 1].move == MOVE_NULL) board_unmake_null(b);
            else board_unmake_move(b);
            ply--;
            st.unmakes++;
        } else if (list.count == 0) {
            break;   /* mate or stalemate at the start */
        } else if ((r >> 8) % 16 == 0 && !board_in_check(b) &&
                   (b->ply == 0 || b->hist[b->ply - 1].move != MOVE_NULL)) {
            nnue_push_null(stack, ply);
            board_make_null(b);
            ply++;
            st.nulls++;
        } else {
            Move m = list.moves[(r >> 16) % (uint64_t)list.count];
            /* A quarter of the time prefer a rare delta shape when there is
             * one (a capture too in crazyhouse, where drops are most moves;
             * a king across the d/e line, a mirrored net's refresh). */
            if ((r >> 12) % 4 == 0) {
                Move rare[MAX_MOVES];
                int n = 0;
                for (int i = 0; i < list.count; i++) {
                    Move x = list.moves[i];
                    bool zh = b->variant == VAR_CRAZYHOUSE;
                    if ((zh ? !move_is_drop(x) && (move_kind(x) != MOVE_NORMAL ||
                                                   b->squares[move_to(x)] != NO_PIECE)
                            : move_kind(x) != MOVE_NORMAL) || (net->mirrored && crosses(b, x)))
                        rare[n++] = x;
                }
                if (n) m = rare[(r >> 24) % (uint64_t)n];
            }
            count_kind(b, m, &st);
            if (var) nnue_push_move_variant(stack, ply, b, m);
            else nnue_push_move(stack, ply, b, m);
            if (!board_make_move(b, m)) { rc = PB_ERR_HISTORY; goto done; }
            ply++;
            st.makes++;
        }
        /* Evaluate only some plies, so the lazy update also has to catch up
         * over several moves (and unmade ones never get computed). */
        if ((r >> 40) % 3 == 0) continue;
        if (board_only) nnue_update_board_only(net, stack, ply);
        else if (var) nnue_update_variant(net, stack, ply);
        else nnue_update(net, stack, ply);
        nnue_refresh(net, fresh, b);
        st.checked++;
        if (memcmp(stack[ply].acc, fresh->acc, sizeof fresh->acc) != 0 ||
            nnue_output(net, &stack[ply], b) != nnue_output(net, fresh, b))
            mismatches++;
    }
    rc = mismatches;
done:
    pthread_mutex_unlock(&e->ctl_lock);
    free(b);
    free(stack);
    free(fresh);
    if (stats) *stats = st;
    return rc;
}

int pb_nnue_check_walk(PbEngine *e, const char *fen, int chess960, int steps, uint64_t seed,
                       PbNnueCheckStats *stats) {
    return check_walk(e, VAR_STANDARD, fen, chess960, steps, seed, stats);
}

int pb_nnue_check_walk_variant(PbEngine *e, const char *variant, const char *fen, int steps,
                               uint64_t seed, PbNnueCheckStats *stats) {
    int v = variant_from_name(variant);
    if (v <= VAR_STANDARD) return PB_ERR_VARIANT;
    return check_walk(e, v, fen, 0, steps, seed, stats);
}

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

enum { SPEED_POSITIONS = 64 };

int pb_eval_speed(const char *fen, int iters, PbEvalSpeed *out) {
    if (!fen || !out || iters < SPEED_POSITIONS) return PB_ERR_ARG;
    const NnueNet *net = nnue_default(NULL);
    if (!net) return pb_nnue_default_status();
    /* Positions of a seeded random playout from fen (restarting at its end);
     * accs[i] is position i's accumulator, moves[i] the move played from it,
     * after[i] the position it leads to (the update's board). */
    Board *b = malloc(sizeof *b), *boards = malloc(sizeof(Board) * SPEED_POSITIONS);
    Board *after = malloc(sizeof(Board) * SPEED_POSITIONS);
    NnueAcc *accs = aligned_alloc(64, sizeof(NnueAcc) * SPEED_POSITIONS);
    /* upd[2i] = position i's accumulator, upd[2i+1] = the delta of moves[i] */
    NnueAcc *upd = aligned_alloc(64, sizeof(NnueAcc) * (2 * SPEED_POSITIONS + 1));
    NnueAcc *scratch = upd ? &upd[2 * SPEED_POSITIONS] : NULL;
    Move *moves = malloc(sizeof(Move) * SPEED_POSITIONS);
    int rc = PB_OK;
    if (!b || !boards || !after || !accs || !upd || !moves) { rc = PB_ERR_NOMEM; goto done; }
    rc = board_set_fen(b, fen, false, NULL, 0);
    if (rc) goto done;
    uint64_t seed = 12345;
    for (int i = 0; i < SPEED_POSITIONS; i++) {
        MoveList list;
        list.count = 0;
        movegen_legal(b, &list, GEN_ALL);
        if (list.count == 0) { rc = board_set_fen(b, fen, false, NULL, 0); list.count = 0;
                               movegen_legal(b, &list, GEN_ALL); }
        if (list.count == 0) { rc = PB_ERR_ARG; goto done; }
        moves[i] = list.moves[rng_next(&seed) % (uint64_t)list.count];
        memcpy(&boards[i], b, sizeof *b);        /* position before moves[i] */
        nnue_refresh(net, &accs[i], b);
        nnue_push_move(&upd[2 * i], 0, b, moves[i]);
        board_make_move(b, moves[i]);
        memcpy(&after[i], b, sizeof *b);
        upd[2 * i] = accs[i];
        upd[2 * i].board = &after[i];     /* the position its update evaluates */
    }
    volatile int sink = 0;
    int n = iters / SPEED_POSITIONS;
    double t0 = now_ns();
    for (int k = 0; k < n; k++)
        for (int i = 0; i < SPEED_POSITIONS; i++) sink += eval_evaluate(&boards[i]);
    double t1 = now_ns();
    for (int k = 0; k < n; k++)
        for (int i = 0; i < SPEED_POSITIONS; i++) sink += nnue_output(net, &accs[i], &boards[i]);
    double t2 = now_ns();
    for (int k = 0; k < n; k++)
        for (int i = 0; i < SPEED_POSITIONS; i++) {
            upd[2 * i + 1].computed = false;
            nnue_update(net, &upd[2 * i], 1);
            sink += upd[2 * i + 1].acc[0][k & 255];
        }
    double t3 = now_ns();
    for (int k = 0; k < n; k++)
        for (int i = 0; i < SPEED_POSITIONS; i++) {
            nnue_refresh(net, scratch, &boards[i]);
            sink += scratch->acc[1][k & 255];
        }
    double t4 = now_ns();
    (void)sink;
    double calls = (double)n * SPEED_POSITIONS;
    out->hce_ns = (t1 - t0) / calls;
    out->nnue_output_ns = (t2 - t1) / calls;
    out->nnue_update_ns = (t3 - t2) / calls;
    out->nnue_refresh_ns = (t4 - t3) / calls;
done:
    free(b);
    free(boards);
    free(after);
    free(accs);
    free(upd);
    free(moves);
    return rc;
}
