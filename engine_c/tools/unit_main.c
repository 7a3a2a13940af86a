/* unit_main.c — C-level checks of engine internals and of the C API contract
 * that the Python API cannot reach (tests/test_engine_unit.py runs each one,
 * also under ASan/UBSan).
 *
 *   unit_main            run every check
 *   unit_main NAME...    run the named checks
 * Prints "ok NAME" or "FAIL NAME: why" per check; exit status 1 on a failure.
 */
#include "../board.h"
#include "../engine.h"
#include "../movegen.h"
#include "../movepicker.h"
#include "../see.h"
#include "../notation.h"
#include "../search.h"
#include "../timeman.h"
#include "../tt.h"
#include "../nnue.h"
#include "../pibot_nnue_api.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *failure;

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) { failure = #cond; return; }                              \
    } while (0)

static void sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void push_all(Board *b, const char *const *moves, int n) {
    for (int i = 0; i < n; i++)
        if (notation_push_uci(b, moves[i]) != PB_OK) failure = moves[i];
}

/* ---- board: repetition relative to the search root ---- */

static void check_repetition_root(void) {
    static Board b;
    char err[128];
    CHECK(board_set_fen(&b, "7k/p7/8/8/8/8/P7/3Q2K1 w - - 0 1", false, err, sizeof err) == PB_OK);
    int root = b.ply;
    const char *cycle[] = {"d1d2", "h8g8", "d2d1", "g8h8"};
    push_all(&b, cycle, 4);
    CHECK(!failure);
    /* Back at the root for the second time: not a draw yet. */
    CHECK(!board_is_repetition(&b, root));
    push_all(&b, cycle, 1);
    CHECK(!failure);
    /* d1d2 again: that position first occurred after the root: a draw. */
    CHECK(board_is_repetition(&b, root));
    push_all(&b, cycle + 1, 3);
    CHECK(!failure);
    /* The root a third time: threefold. */
    CHECK(board_is_repetition(&b, root));
}

/* ---- TT: a probe hit refreshes the entry's age ---- */

static void check_tt_age_refresh(void) {
    TT tt;
    CHECK(tt_init(&tt, 1) == PB_OK);
    /* Keys whose top bits are 0 all land in bucket 0, the first of the
     * entries tt_hashfull samples. */
    const uint64_t keep = 0x10, fill[] = {0x20, 0x30, 0x40, 0x50};
    tt_new_search(&tt);
    tt_store(&tt, keep, 0, MOVE_NONE, 10, 0, 4, BOUND_EXACT);
    CHECK(tt_hashfull(&tt) == 1);
    tt_new_search(&tt);
    CHECK(tt_hashfull(&tt) == 0);  /* stale until used */
    TTHit hit;
    /* The refresh is one write, of the data word (a compare-and-swap): the
     * check word stays, so it cannot land on another thread's entry. */
    TTEntry *slot = &tt.buckets[0].e[0];
    uint64_t check_before = atomic_load(&slot->check), data_before = atomic_load(&slot->data);
    CHECK(tt_probe(&tt, keep, 0, &hit) && hit.score == 10 && hit.depth == 4);
    CHECK(tt_hashfull(&tt) == 1);  /* the hit made it current */
    CHECK(atomic_load(&slot->check) == check_before);
    CHECK(atomic_load(&slot->data) != data_before);
    CHECK(tt_probe(&tt, keep, 0, &hit) && hit.score == 10);  /* still valid */
    /* Fill the bucket with deeper current entries, then one more: the
     * refreshed entry (depth 4, current) must survive over the shallowest. */
    tt_store(&tt, fill[0], 0, MOVE_NONE, 1, 0, 2, BOUND_EXACT);
    tt_store(&tt, fill[1], 0, MOVE_NONE, 1, 0, 6, BOUND_EXACT);
    tt_store(&tt, fill[2], 0, MOVE_NONE, 1, 0, 6, BOUND_EXACT);
    tt_store(&tt, fill[3], 0, MOVE_NONE, 1, 0, 6, BOUND_EXACT);
    CHECK(tt_probe(&tt, keep, 0, &hit) && hit.score == 10);
    CHECK(!tt_probe(&tt, fill[0], 0, &hit));
    tt_free(&tt);
}

/* ---- C API contract: free, stop and setters against a running search ---- */

typedef struct {
    PbEngine *e;
    PbLimits lim;
    PbResult res;
    int rc;
    int rounds;        /* searches to run back to back */
    int ok_moves;      /* searches that returned a real move */
    atomic_bool done;
} SearchJob;

static void *search_job(void *arg) {
    SearchJob *j = arg;
    for (int i = 0; i < j->rounds; i++) {
        j->rc = pb_engine_search(j->e, &j->lim, &j->res);
        if (j->rc == PB_OK && strlen(j->res.bestmove) >= 4 && strcmp(j->res.bestmove, "0000"))
            j->ok_moves++;
    }
    atomic_store(&j->done, true);
    return NULL;
}

static PbLimits no_limits(void) {
    PbLimits l;
    memset(&l, 0, sizeof l);
    l.wtime = l.btime = l.winc = l.binc = l.movetime = -1;
    return l;
}

/* Wait up to `ms` for the job; false on timeout. */
static bool wait_job(SearchJob *j, int ms) {
    for (int waited = 0; waited < ms; waited++) {
        if (atomic_load(&j->done)) return true;
        sleep_ms(1);
    }
    return atomic_load(&j->done);
}

static void check_api_free_during_search(void) {
    int err = 0;
    PbEngine *e = pb_engine_new(4, 2, &err);
    CHECK(e != NULL);
    SearchJob j = {.e = e, .lim = no_limits(), .rounds = 1};
    j.lim.infinite = 1;
    atomic_init(&j.done, false);
    pthread_t th;
    CHECK(pthread_create(&th, NULL, search_job, &j) == 0);
    while (!pb_engine_is_searching(e) && !atomic_load(&j.done)) sleep_ms(1);
    sleep_ms(20);
    pb_engine_free(e);  /* must stop the search and wait for it (ASan: no use after free) */
    CHECK(wait_job(&j, 10000));
    pthread_join(th, NULL);
    CHECK(j.rc == PB_OK && j.ok_moves == 1);
}

static void check_api_stop_race(void) {
    /* A stop sent as soon as the search reports itself running is never lost. */
    int err = 0;
    PbEngine *e = pb_engine_new(1, 1, &err);
    CHECK(e != NULL);
    pb_engine_stop(e);  /* no search: ignored, must not stop the next one */
    PbLimits d = no_limits();
    d.depth = 3;
    PbResult r;
    CHECK(pb_engine_search(e, &d, &r) == PB_OK && r.depth == 3);
    for (int i = 0; i < 200 && !failure; i++) {
        SearchJob j = {.e = e, .lim = no_limits(), .rounds = 1};
        j.lim.infinite = 1;
        atomic_init(&j.done, false);
        pthread_t th;
        if (pthread_create(&th, NULL, search_job, &j) != 0) { failure = "pthread_create"; break; }
        while (!pb_engine_is_searching(e) && !atomic_load(&j.done)) { /* spin */ }
        pb_engine_stop(e);
        if (!wait_job(&j, 10000)) {
            failure = "a stop sent while pb_engine_is_searching was lost";
            while (!atomic_load(&j.done)) { pb_engine_stop(e); sleep_ms(1); }
        }
        pthread_join(th, NULL);
        if (!failure && j.ok_moves != 1) failure = "stopped search gave no move";
    }
    pb_engine_free(e);
}

static void check_api_setters_race(void) {
    /* Setters hammered while short searches start and end back to back:
     * each either applies before a search starts or returns PB_ERR_BUSY. */
    int err = 0;
    PbEngine *e = pb_engine_new(1, 1, &err);
    CHECK(e != NULL);
    SearchJob j = {.e = e, .lim = no_limits(), .rounds = 300};
    j.lim.depth = 2;
    atomic_init(&j.done, false);
    pthread_t th;
    CHECK(pthread_create(&th, NULL, search_job, &j) == 0);
    int bad = 0;
    for (int i = 0; !atomic_load(&j.done); i++) {
        int rc;
        switch (i % 5) {
        case 0: rc = pb_engine_set_threads(e, 1 + (i / 5) % 3); break;
        case 1: rc = pb_engine_set_hash(e, 1 + (i / 5) % 2); break;
        case 2: rc = pb_engine_set_position(e, "startpos", (i / 5) % 2 ? "e2e4" : "", 0, NULL, 0); break;
        case 3: rc = pb_engine_clear(e); break;
        default: rc = pb_engine_set_move_overhead(e, i % 100); break;
        }
        if (rc != PB_OK && rc != PB_ERR_BUSY) bad++;
    }
    pthread_join(th, NULL);
    pb_engine_free(e);
    CHECK(bad == 0);
    CHECK(j.ok_moves == 300);
}

/* ---- NNUE: accumulators, file validation, a search ---- */

static void check_nnue_walk(void) {
    int err = 0;
    PbEngine *e = pb_engine_new(1, 1, &err);
    CHECK(e != NULL);
    static const char *const fens[] = {
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 10",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    };
    for (int i = 0; i < 3; i++) {
        PbNnueCheckStats st;
        int bad = pb_nnue_check_walk(e, fens[i], i == 2, 3000, (uint64_t)i + 7, &st);
        if (bad != 0) { pb_engine_free(e); failure = fens[i]; return; }
    }
    pb_engine_free(e);
}

static void check_nnue_parse(void) {
    /* Every prefix of a header and single-byte corruptions are clean codes,
     * whatever the built-in net's format (v1, or v2 with B output buckets). */
    static uint8_t blob[NNUE_MAX_FILE_BYTES];
    NnueNet *net = aligned_alloc(64, (sizeof *net + 63) / 64 * 64);
    CHECK(net != NULL);
    FILE *f = fopen("nets/default.pbnn", "rb");
    if (!f) f = fopen("engine_c/nets/default.pbnn", "rb");
    if (!f) { free(net); failure = "cannot open nets/default.pbnn (run from engine_c/)"; return; }
    size_t n = fread(blob, 1, sizeof blob, f);
    fclose(f);
    int rc_ok = nnue_parse(net, blob, n);
    int bad = rc_ok != PB_OK;
    const uint8_t version = blob[8], reserved = blob[36];
    const int buckets = rc_ok == PB_OK ? net->buckets : 1;
    for (size_t len = 0; len < 64; len++) {
        int rc = nnue_parse(net, blob, len);
        bad += rc == PB_OK || rc == PB_ERR_NET_CHECKSUM;
    }
    bad += nnue_parse(net, blob, n - 1) != PB_ERR_NET_SIZE;
    blob[5000] ^= 1;
    bad += nnue_parse(net, blob, n) != PB_ERR_NET_CHECKSUM;
    blob[5000] ^= 1;
    blob[8] = 4;
    bad += nnue_parse(net, blob, n) != PB_ERR_NET_VERSION;
    /* As v3 (a variant's net): the v2 payload sits 16 bytes early, and the
     * word after the header names no variant's input count: never a load. */
    blob[8] = 3;
    bad += nnue_parse(net, blob, n) == PB_OK;
    /* As v2: bucket count 0 or 9 is a format error, a count the size does not
     * fit is a size error, and the file's own count (1 for a v1 payload) loads. */
    blob[8] = 2;
    blob[36] = 0;
    bad += nnue_parse(net, blob, n) != PB_ERR_NET_FORMAT;
    blob[36] = 9;
    bad += nnue_parse(net, blob, n) != PB_ERR_NET_FORMAT;
    blob[36] = (uint8_t)(buckets == NNUE_MAX_BUCKETS ? buckets - 1 : buckets + 1);
    bad += nnue_parse(net, blob, n) != PB_ERR_NET_SIZE;
    blob[36] = (uint8_t)buckets;
    bad += nnue_parse(net, blob, n) != PB_OK;
    blob[36] = reserved;
    blob[8] = version;
    bad += nnue_parse(net, blob, n) != PB_OK;
    blob[0] = 'X';
    bad += nnue_parse(net, blob, n) != PB_ERR_NET_MAGIC;
    free(net);
    CHECK(bad == 0);
}

static void check_nnue_search(void) {
    int err = 0;
    PbEngine *e = pb_engine_new(4, 2, &err);
    CHECK(e != NULL);
    CHECK(pb_engine_set_eval(e, PB_EVAL_NNUE) == PB_OK);
    CHECK(pb_engine_get_eval(e) == PB_EVAL_NNUE);
    static const char *const fens[] = {
        "startpos",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 10",
        "8/P1k5/8/8/8/8/1K4p1/8 w - - 0 1",
    };
    int ok = 0;
    for (int i = 0; i < 3; i++) {
        if (pb_engine_set_position(e, fens[i], "", 0, NULL, 0) != PB_OK) continue;
        PbLimits lim = {-1, -1, -1, -1, 0, -1, 7, 0, 0, 0, 0};
        PbResult res;
        if (pb_engine_search(e, &lim, &res) == PB_OK && strcmp(res.bestmove, "0000") != 0) ok++;
    }
    pb_engine_free(e);
    CHECK(ok == 3);
}

/* A v3 net made from the built-in one, written to `path`: its 768 rows, for
 * crazyhouse 60 pocket rows more copied from rows 8.. (any weights inside
 * the guard do), the variant and flags words, the checksum over bytes 48.. . */
static bool write_v3_net(const char *path, uint32_t variant, uint32_t flags) {
    static uint8_t v2[NNUE_MAX_FILE_BYTES], v3[NNUE_MAX_FILE_BYTES];
    FILE *f = fopen("nets/default.pbnn", "rb");
    if (!f) f = fopen("engine_c/nets/default.pbnn", "rb");
    if (!f) return false;
    size_t n = fread(v2, 1, sizeof v2, f);
    fclose(f);
    if (n < NNUE_HEADER_BYTES || v2[8] != 2) return false;
    const size_t row = 2 * NNUE_HIDDEN, board = (size_t)NNUE_INPUTS * row;
    const size_t pockets = variant == VAR_CRAZYHOUSE ? (size_t)NNUE_POCKET_INPUTS * row : 0;
    memcpy(v3, v2, NNUE_HEADER_BYTES);
    v3[8] = 3;
    uint32_t inputs = variant == VAR_CRAZYHOUSE ? NNUE_MAX_INPUTS : NNUE_INPUTS;
    memcpy(v3 + 12, &inputs, 4);
    memset(v3 + 48, 0, 16);
    memcpy(v3 + 48, &variant, 4);
    memcpy(v3 + 52, &flags, 4);
    uint8_t *p = v3 + NNUE_V3_HEADER_BYTES;
    memcpy(p, v2 + NNUE_HEADER_BYTES, board);
    memcpy(p + board, v2 + NNUE_HEADER_BYTES + 8 * row, pockets);
    size_t rest = n - NNUE_HEADER_BYTES - board;
    memcpy(p + board + pockets, v2 + NNUE_HEADER_BYTES + board, rest);
    size_t len = NNUE_V3_HEADER_BYTES + board + pockets + rest;
    uint64_t sum = nnue_fnv1a(v3 + NNUE_HEADER_BYTES, len - NNUE_HEADER_BYTES);
    memcpy(v3 + 40, &sum, 8);
    f = fopen(path, "wb");
    bool ok = f && fwrite(v3, 1, len, f) == len;
    if (f) ok &= fclose(f) == 0;
    return ok;
}

/* A crazyhouse net: parsed, refused as standard chess's, its accumulators
 * through drops and captures into the pocket equal to a refresh, a search. */
static void check_nnue_crazyhouse(void) {
    char path[] = "/tmp/pibot-unit-zh-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) { failure = "mkstemp"; return; }
    close(fd);
    if (!write_v3_net(path, VAR_CRAZYHOUSE, 0)) { remove(path); failure = "cannot make the crazyhouse net"; return; }
    int err = 0;
    PbEngine *e = pb_engine_new(4, 1, &err);
    CHECK(e != NULL);
    char msg[300];
    int bad = pb_engine_load_net(e, path, msg, sizeof msg) != PB_ERR_NET_FORMAT;
    bad += pb_engine_load_variant_net(e, "crazyhouse", path, msg, sizeof msg) != PB_OK;
    static const char *const fens[] = {
        "r1bqk2r/ppp2ppp/2n5/3np3/1b6/2N2N2/PPPP1PPP/R1BQKB1R[Pp] w KQkq - 0 6",
        "r3k2r/pP3ppp/8/8/8/8/PPP2pPP/R3K2R[QQQnb] w KQkq - 0 20",
        "k7/Q~7/8/8/8/8/8/7K[] b - - 0 1",
    };
    for (int i = 0; i < 3 && !bad; i++) {
        PbNnueCheckStats st;
        bad += pb_nnue_check_walk_variant(e, "crazyhouse", fens[i], 3000, (uint64_t)i + 3, &st) != 0;
        bad += st.drops == 0 && i < 2;
    }
    if (!bad && pb_engine_set_variant_position(e, "crazyhouse", fens[0], "", 0, NULL, 0) == PB_OK) {
        PbLimits lim = {-1, -1, -1, -1, 0, -1, 7, 0, 0, 0, 0};
        PbResult res;
        bad += pb_engine_search(e, &lim, &res) != PB_OK || !strcmp(res.bestmove, "0000");
    } else {
        bad++;
    }
    pb_engine_free(e);
    remove(path);
    CHECK(bad == 0);
}

/* Chess's net on crazyhouse boards (no crazyhouse net loaded): through drops
 * and captures into the pocket, the accumulators, whose deltas name pocket
 * features the net does not have, equal a refresh of the board's men. */
static void check_nnue_chess_on_crazyhouse(void) {
    int err = 0;
    PbEngine *e = pb_engine_new(4, 1, &err);
    CHECK(e != NULL);
    static const char *const fens[] = {
        "r1bqk2r/ppp2ppp/2n5/3np3/1b6/2N2N2/PPPP1PPP/R1BQKB1R[Pp] w KQkq - 0 6",
        "r3k2r/pP3ppp/8/8/8/8/PPP2pPP/R3K2R[QQQnb] w KQkq - 0 20",
    };
    int bad = 0;
    for (int i = 0; i < 2 && !bad; i++) {
        PbNnueCheckStats st;
        bad += pb_nnue_check_walk_variant(e, "crazyhouse", fens[i], 3000, (uint64_t)i + 11, &st) != 0;
        bad += st.drops == 0 || st.checked == 0;
    }
    pb_engine_free(e);
    CHECK(bad == 0);
}

/* Mirrored nets (the v3 flag) made from the built-in weights: through walks
 * whose kings cross the d/e line (standard, castling both ways, Chess960,
 * crazyhouse) the lazy accumulators equal a refresh, a search runs, and a
 * mirrored horde net or an unknown flag is refused. */
static void check_nnue_mirror(void) {
    char path[] = "/tmp/pibot-unit-mirror-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) { failure = "mkstemp"; return; }
    close(fd);
    int err = 0, bad = 0;
    char msg[300];
    PbEngine *e = pb_engine_new(4, 1, &err);
    CHECK(e != NULL);
    bad += !write_v3_net(path, VAR_STANDARD, NNUE_FLAG_MIRRORED) ||
           pb_engine_load_net(e, path, msg, sizeof msg) != PB_OK;
    static const struct { const char *fen; int chess960; } std_fens[] = {
        {"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 10", 0},
        {"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 11", 0},
        {"4k3/pp4pp/8/3K4/8/8/PP4PP/8 w - - 0 1", 0},
        {"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", 1},
        {"1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1", 1},
    };
    uint64_t crossings = 0;
    for (int i = 0; i < 5 && !bad; i++) {
        PbNnueCheckStats st;
        bad += pb_nnue_check_walk(e, std_fens[i].fen, std_fens[i].chess960, 3000,
                                  (uint64_t)i + 11, &st) != 0;
        crossings += st.king_crossings;
    }
    bad += crossings < 100;
    if (!bad && pb_engine_set_eval(e, PB_EVAL_NNUE) == PB_OK &&
        pb_engine_set_position(e, std_fens[0].fen, "", 0, NULL, 0) == PB_OK) {
        PbLimits lim = {-1, -1, -1, -1, 0, -1, 7, 0, 0, 0, 0};
        PbResult res;
        bad += pb_engine_search(e, &lim, &res) != PB_OK || !strcmp(res.bestmove, "0000");
    }
    bad += !write_v3_net(path, VAR_CRAZYHOUSE, NNUE_FLAG_MIRRORED) ||
           pb_engine_load_variant_net(e, "crazyhouse", path, msg, sizeof msg) != PB_OK;
    static const char *const zh_fens[] = {
        "r3k2r/pP3ppp/8/8/8/8/PPP2pPP/R3K2R[QQQnb] w KQkq - 0 20",
        "4k3/8/8/3K4/8/8/8/8[RNPpp] w - - 0 30",
    };
    for (int i = 0; i < 2 && !bad; i++) {
        PbNnueCheckStats st;
        bad += pb_nnue_check_walk_variant(e, "crazyhouse", zh_fens[i], 3000, (uint64_t)i + 5, &st) != 0;
        bad += st.king_crossings == 0;
    }
    bad += !write_v3_net(path, VAR_HORDE, NNUE_FLAG_MIRRORED) ||
           pb_engine_load_variant_net(e, "horde", path, msg, sizeof msg) != PB_ERR_NET_FORMAT;
    bad += !write_v3_net(path, VAR_STANDARD, 2) ||
           pb_engine_load_net(e, path, msg, sizeof msg) != PB_ERR_NET_FORMAT;
    pb_engine_free(e);
    remove(path);
    CHECK(bad == 0);
}

/* ---- board/movegen: what the search computes without making or generating ---- */

/* Positions with castling (standard and Chess960), en passant (also the
 * horizontally pinned kind), promotions with and without capture, checks. */
static const struct { const char *fen; bool chess960; } WalkFens[] = {
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", false},
    {"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", false},
    {"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", false},
    {"r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", false},
    {"rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", false},
    {"rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", false},
    {"n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1", false},
    {"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", true},
};
enum { WALKS_PER_FEN = 4, WALK_PLIES = 30 };

/* Plays a legal move drawn from *seed (an LCG); false when there is none. */
static bool random_step(Board *b, uint64_t *seed) {
    MoveList list;
    list.count = 0;
    movegen_legal(b, &list, GEN_ALL);
    if (list.count == 0) return false;
    *seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
    board_make_move(b, list.moves[(*seed >> 33) % (uint64_t)list.count]);
    return true;
}

/* Calls fn on every position of random games from each WalkFens entry
 * (a fixed seed: the same positions every run). */
static void walk_positions(void (*fn)(Board *b, int ply)) {
    static Board b;
    uint64_t seed = 0x9E3779B97F4A7C15ULL;
    for (size_t f = 0; f < sizeof WalkFens / sizeof WalkFens[0]; f++) {
        for (int w = 0; w < WALKS_PER_FEN; w++) {
            char err[128];
            if (board_set_fen(&b, WalkFens[f].fen, WalkFens[f].chess960, err, sizeof err) != PB_OK) {
                failure = "a walk FEN does not parse";
                return;
            }
            for (int ply = 0; ply < WALK_PLIES && !failure; ply++) {
                fn(&b, ply);
                if (!random_step(&b, &seed)) break;
            }
        }
    }
}

static void key_after_at(Board *b, int ply) {
    MoveList list;
    list.count = 0;
    movegen_legal(b, &list, GEN_ALL);
    for (int i = 0; i < list.count && !failure; i++) {
        uint64_t predicted = board_key_after(b, list.moves[i]);
        board_make_move(b, list.moves[i]);
        if (predicted != b->key) failure = "board_key_after differs from the key after the move";
        board_unmake_move(b);
    }
}

/* The search prefetches the child's TT bucket with board_key_after. */
static void check_key_after(void) { walk_positions(key_after_at); }

static void is_legal_at(Board *b, int ply) {
    if (ply % 2) return;  /* every 16-bit move is 65536 calls: every other position */
    static uint8_t in_list[65536];  /* bit 0: in the GEN_ALL list, bit 1: in GEN_NOISY */
    memset(in_list, 0, sizeof in_list);
    MoveList all, noisy;
    all.count = noisy.count = 0;
    movegen_legal(b, &all, GEN_ALL);
    movegen_legal(b, &noisy, GEN_NOISY);
    for (int i = 0; i < all.count; i++) in_list[all.moves[i]] |= 1;
    for (int i = 0; i < noisy.count; i++) in_list[noisy.moves[i]] |= 2;
    for (int m = 0; m < 65536 && !failure; m++) {
        if (movegen_is_legal(b, (Move)m) != ((in_list[m] & 1) != 0))
            failure = "movegen_is_legal differs from membership in movegen_legal's list";
        else if (movegen_is_legal_noisy(b, (Move)m) != ((in_list[m] & 2) != 0))
            failure = "movegen_is_legal_noisy differs from membership in the GEN_NOISY list";
    }
}

/* Crazyhouse's drops have their own legality test: random games from
 * positions with men in hand (and in check). */
static void is_legal_crazyhouse(void) {
    static const char *F[] = {
        "r3k2r/ppp2ppp/8/8/8/8/PPP2PPP/R3K2R[QRBNPqrbnp] w KQkq - 0 1",
        "r1b1kbnr/pppp1ppp/8/4p3/6Pq/8/PPPPP2P/RNBQKBNR[Pn] w KQkq - 1 3",
        "4k3/8/8/8/8/8/8/R3K2R[NNPPbbpp] b KQ - 0 1",
    };
    static Board b;
    uint64_t seed = 12345;
    for (size_t f = 0; f < sizeof F / sizeof F[0] && !failure; f++) {
        char err[128];
        if (board_set_fen_variant(&b, F[f], VAR_CRAZYHOUSE, false, err, sizeof err) != PB_OK) {
            failure = "a crazyhouse FEN does not parse";
            return;
        }
        for (int ply = 0; ply < 24 && !failure; ply++) {
            if (ply % 3 == 0) is_legal_at(&b, 0);
            if (!random_step(&b, &seed)) break;
        }
    }
}

/* The move picker trusts movegen_is_legal(_noisy) for TT moves, garbage included. */
static void check_is_legal(void) {
    walk_positions(is_legal_at);
    if (!failure) is_legal_crazyhouse();
}

/* ---- move picker: every legal move once, in falling score order ---- */

static uint64_t picker_seed = 0x2545F4914F6CDD1DULL;
static uint32_t picker_rand(void) {
    picker_seed = picker_seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(picker_seed >> 33);
}

/* One run of the main-search picker over b: TT move, killers and
 * countermove drawn from the legal list, from garbage and from nothing;
 * history rows filled at random. With skip_at >= 0, mp_skip_quiets after
 * that many moves. Checks the moves handed out against the GEN_ALL list. */
static void picker_run(Board *b, History *h, int skip_at) {
    static uint8_t seen[65536];
    MoveList all;
    all.count = 0;
    movegen_legal(b, &all, GEN_ALL);
    memset(seen, 0, sizeof seen);
    for (int i = 0; i < all.count; i++) seen[all.moves[i]] = 1;
    Move pick[4];
    for (int k = 0; k < 4; k++) {
        uint32_t r = picker_rand();
        pick[k] = r % 4 == 0 ? MOVE_NONE : r % 4 == 1 ? (Move)(picker_rand() & 0xFFFF)
                : all.count ? all.moves[picker_rand() % (uint32_t)all.count] : MOVE_NONE;
    }
    int ply = 3;
    h->killers[ply][0] = pick[1];
    h->killers[ply][1] = pick[2];
    Move counter = pick[3];
    HistNode n = {hist_cont_row(h, 1 + (int)(picker_rand() % 14), (int)(picker_rand() % 64)),
                  hist_cont_row(h, 1 + (int)(picker_rand() % 14), (int)(picker_rand() % 64)), &counter, ply};
    for (int i = 0; i < 64; i++) {
        h->butterfly[b->side][picker_rand() % 64][picker_rand() % 64] = (int16_t)(picker_rand() % 4001) - 2000;
        (*n.cont1)[picker_rand() % 16][picker_rand() % 64] = (int16_t)(picker_rand() % 4001) - 2000;
        /* capture history over its whole range: the capture scores must stay in theirs */
        h->capture[picker_rand() % 16][picker_rand() % 64][picker_rand() % 8] =
            (int16_t)((int)(picker_rand() % (2 * HIST_GRAVITY + 1)) - HIST_GRAVITY);
        h->drops[b->side][picker_rand() % 8][picker_rand() % 64] = (int16_t)(picker_rand() % 4001) - 2000;
    }
    MovePicker p;
    mp_init_main(&p, b, h, &n, pick[0]);
    int handed = 0, prev = SC_TT + 1, sc;
    bool skipped = false;
    Move m;
    while ((m = mp_next(&p, &sc)) != MOVE_NONE) {
        if (seen[m] != 1) {
            failure = seen[m] ? "the picker handed a move out twice" : "the picker handed out a move not in the legal list";
            return;
        }
        seen[m] = 2;
        if (sc > prev) { failure = "the picker's scores rose"; return; }
        prev = sc;
        if (handed == 0 && movegen_is_legal(b, pick[0]) && (m != pick[0] || sc != SC_TT)) { failure = "a legal TT move did not come first"; return; }
        if (sc == SC_TT && m != pick[0]) { failure = "SC_TT on a move other than the TT move"; return; }
        bool quiet_range = sc < SC_COUNTER && sc > SC_BAD_CAP / 2;
        if (skipped && (quiet_range || (sc >= SC_COUNTER && sc <= SC_KILLER1))) { failure = "a quiet move after mp_skip_quiets"; return; }
        if (b->variant == VAR_STANDARD && sc != SC_TT) {
            if (sc > SC_KILLER1 && !see_ge(b, m, 0)) { failure = "a losing capture scored as a good one"; return; }
            if (sc < SC_BAD_CAP / 2 && see_ge(b, m, 0)) { failure = "a winning capture scored as a losing one"; return; }
            if ((sc > SC_KILLER1 || sc < SC_BAD_CAP / 2) != (mp_is_noisy(b, m) && !(move_kind(m) == MOVE_PROMO && move_promo(m) != QUEEN))) {
                failure = "a capture scored as a quiet move, or the reverse"; return;
            }
            if (sc >= SC_COUNTER && sc <= SC_KILLER1 && m != (sc == SC_KILLER1 ? pick[1] : sc == SC_KILLER2 ? pick[2] : pick[3])) {
                failure = "a killer or countermove score on another move"; return;
            }
        }
        if (++handed == skip_at) { mp_skip_quiets(&p); skipped = true; }
    }
    if (mp_handed_out(&p) != handed) { failure = "mp_handed_out miscounts"; return; }
    for (int i = 0; i < all.count; i++) {
        if (seen[all.moves[i]] == 2) continue;
        if (!skipped) { failure = "a legal move never came out of the picker"; return; }
        /* Skipped: only quiet moves (or, staged, quiet-stage under-promotions) may be missing. */
        Move q = all.moves[i];
        bool staged = b->variant == VAR_STANDARD || b->variant == VAR_CRAZYHOUSE;
        bool quiet_stage = staged && move_kind(q) == MOVE_PROMO && move_promo(q) != QUEEN;
        bool noisy = mp_is_noisy(b, q) && !move_is_drop(q);
        if (noisy && !quiet_stage) { failure = "mp_skip_quiets lost a capture"; return; }
    }
}

static void picker_at(Board *b, int ply) {
    static History h;
    if (ply == 0) hist_clear(&h);
    for (int r = 0; r < 6 && !failure; r++) picker_run(b, &h, r < 3 ? -1 : 1 + (int)(picker_rand() % 6));
}

/* The variants but crazyhouse use the one-list picker (crazyhouse the
 * staged one); a few random games of each. */
static void picker_variants(void) {
    static const struct { int variant; const char *fen; } F[] = {
        {VAR_CRAZYHOUSE, "r1bqk2r/ppp2ppp/2n2n2/2b1p3/2B1P3/2N2N2/PPP2PPP/R1BQK2R[Pp] w KQkq - 0 5"},
        {VAR_ATOMIC, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"},
        {VAR_ANTICHESS, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"},
        {VAR_THREECHECK, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 3+3 0 1"},
        {VAR_HORDE, "rnbqkbnr/pppppppp/8/1PP2PP1/PPPPPPPP/PPPPPPPP/PPPPPPPP/PPPPPPPP w kq - 0 1"},
    };
    static Board b;
    for (size_t f = 0; f < sizeof F / sizeof F[0] && !failure; f++) {
        for (int w = 0; w < 3 && !failure; w++) {
            char err[128];
            if (board_set_fen_variant(&b, F[f].fen, F[f].variant, false, err, sizeof err) != PB_OK) {
                failure = "a variant FEN does not parse";
                return;
            }
            for (int ply = 0; ply < 24 && !failure; ply++) {
                picker_at(&b, ply);
                MoveList list;
                list.count = 0;
                movegen_legal(&b, &list, GEN_ALL);
                if (list.count == 0) break;
                board_make_move(&b, list.moves[picker_rand() % (uint32_t)list.count]);
            }
        }
    }
}

static void check_picker(void) {
    walk_positions(picker_at);
    if (!failure) picker_variants();
}

/* ---- the quiescence search's picker: noisy moves only, no history rows ---- */

/* Outside check the quiescence search's picker has no history rows (node
 * NULL): each move of the GEN_NOISY list must come out once, scored as the
 * noisy move it is. An antichess promotion to a king (the castling kind) that
 * captures was once taken for a quiet move and scored from the missing rows. */
static void check_qsearch_picker(void) {
    static const struct { int variant; const char *fen; } F[] = {
        {VAR_ANTICHESS, "rnbqkbnr/p1pBp2p/8/8/8/1PP5/P2p1P1P/RNBQK1NR b - - 0 8"},
        {VAR_ANTICHESS, "8/8/8/8/8/8/1p6/R1N5 b - - 0 1"},
        {VAR_STANDARD, "r3k2r/1P4P1/8/8/8/8/1p4p1/R3K2R w KQkq - 0 1"},
        {VAR_STANDARD, "r3k2r/1P4P1/8/8/8/8/1p4p1/R3K2R b KQkq - 0 1"},
        {VAR_ATOMIC, "rnbqkb1r/pP3ppp/8/3pp3/8/8/P1PPPPPP/RNBQKBNR w KQkq - 0 5"},
        {VAR_CRAZYHOUSE, "r1bqk2r/pPp2ppp/2n2n2/2b1p3/2B1P3/2N2N2/P1P2PPP/R1BQK2R[QPp] w KQkq - 0 5"},
    };
    static Board b;
    static History h;
    hist_clear(&h);
    for (size_t f = 0; f < sizeof F / sizeof F[0] && !failure; f++) {
        char err[128];
        if (board_set_fen_variant(&b, F[f].fen, F[f].variant, false, err, sizeof err) != PB_OK) {
            failure = "a quiescence picker FEN does not parse";
            return;
        }
        MoveList noisy;
        noisy.count = 0;
        movegen_legal(&b, &noisy, GEN_NOISY);
        MovePicker p;
        mp_init_qsearch(&p, &b, &h, NULL, MOVE_NONE, false);
        int handed = 0, sc;
        Move m;
        while ((m = mp_next(&p, &sc)) != MOVE_NONE) {
            bool listed = false;
            for (int i = 0; i < noisy.count; i++) listed |= noisy.moves[i] == m;
            if (!listed) { failure = "the quiescence picker handed out a move not in the GEN_NOISY list"; return; }
            if (!mp_is_noisy(&b, m)) { failure = "a GEN_NOISY move that mp_is_noisy calls quiet"; return; }
            handed++;
        }
        if (handed != noisy.count) failure = "the quiescence picker lost a GEN_NOISY move";
    }
}

/* ---- correction-history keys: every man's square reaches its slot ---- */

/* Each pair differs by one man moved (the side to move the same): the slot
 * of table `slot` (hist_corr_slots: 1 white's other men, 2 black's, 3 the
 * minor pieces, 4 the major ones) must differ. The last set folded into a
 * key (black's king, black's bishops, black's queen; white's king in its
 * own key) once lost its squares 46..63: the index took only low bits. */
static void check_corr_keys(void) {
    static const struct { const char *a, *b; int slot; } P[] = {
        /* black king e8 -> g8, f8, e7, d7 */
        {"rnbqk2r/pp3ppp/8/2ppp3/2PPP3/8/PP3PPP/RNBQK2R w - - 0 1", "rnbq2kr/pp3ppp/8/2ppp3/2PPP3/8/PP3PPP/RNBQK2R w - - 0 1", 2},
        {"rnbqk2r/pp3ppp/8/2ppp3/2PPP3/8/PP3PPP/RNBQK2R w - - 0 1", "rnbq1k1r/pp3ppp/8/2ppp3/2PPP3/8/PP3PPP/RNBQK2R w - - 0 1", 2},
        {"rnbqkbnr/pp3ppp/8/2ppp3/2PPP3/8/PP3PPP/RNBQKBNR w - - 0 1", "rnbq1bnr/pp2kppp/8/2ppp3/2PPP3/8/PP3PPP/RNBQKBNR w - - 0 1", 2},
        {"rnbqkbnr/pp3ppp/8/2ppp3/2PPP3/8/PP3PPP/RNBQKBNR w - - 0 1", "rnbq1bnr/pp1k1ppp/8/2ppp3/2PPP3/8/PP3PPP/RNBQKBNR w - - 0 1", 2},
        /* black bishops f8 -> e7, c8 -> d7 (the minor key; and black's own) */
        {"rnbqkbnr/pp3ppp/8/2ppp3/2PPP3/8/PP3PPP/RNBQKBNR w - - 0 1", "rnbqk1nr/pp2bppp/8/2ppp3/2PPP3/8/PP3PPP/RNBQKBNR w - - 0 1", 3},
        {"rnbqkbnr/pp3ppp/8/2ppp3/2PPP3/8/PP3PPP/RNBQKBNR w - - 0 1", "rn1qkbnr/pp1b1ppp/8/2ppp3/2PPP3/8/PP3PPP/RNBQKBNR w - - 0 1", 3},
        {"rnbqkbnr/pp3ppp/8/2ppp3/2PPP3/8/PP3PPP/RNBQKBNR w - - 0 1", "rnbqk1nr/pp2bppp/8/2ppp3/2PPP3/8/PP3PPP/RNBQKBNR w - - 0 1", 2},
        /* black queen d8 -> d7, e7, c7 (the major key; and black's own) */
        {"rnbqkbnr/pp3ppp/8/2ppp3/2PPP3/8/PP3PPP/RNBQKBNR w - - 0 1", "rnb1kbnr/pp1q1ppp/8/2ppp3/2PPP3/8/PP3PPP/RNBQKBNR w - - 0 1", 4},
        {"rnbqkbnr/pp3ppp/8/2ppp3/2PPP3/8/PP3PPP/RNBQKBNR w - - 0 1", "rnb1kbnr/pp2qppp/8/2ppp3/2PPP3/8/PP3PPP/RNBQKBNR w - - 0 1", 4},
        {"rnbqkbnr/pp3ppp/8/2ppp3/2PPP3/8/PP3PPP/RNBQKBNR w - - 0 1", "rnb1kbnr/ppq2ppp/8/2ppp3/2PPP3/8/PP3PPP/RNBQKBNR w - - 0 1", 4},
        {"rnbqkbnr/pp3ppp/8/2ppp3/2PPP3/8/PP3PPP/RNBQKBNR w - - 0 1", "rnb1kbnr/pp2qppp/8/2ppp3/2PPP3/8/PP3PPP/RNBQKBNR w - - 0 1", 2},
        /* white likewise: king e1 -> g1, e2; bishops f1 -> e2, c1 -> d2; queen d1 -> d2 */
        {"rnbqk2r/pp3ppp/8/2ppp3/2PPP3/8/PP3PPP/RNBQK2R w - - 0 1", "rnbqk2r/pp3ppp/8/2ppp3/2PPP3/8/PP3PPP/RNBQ2KR w - - 0 1", 1},
        {"rnbqkbnr/pp3ppp/8/2ppp3/2PPP3/8/PP3PPP/RNBQKBNR w - - 0 1", "rnbqkbnr/pp3ppp/8/2ppp3/2PPP3/8/PP2KPPP/RNBQ1BNR w - - 0 1", 1},
        {"rnbqkbnr/pp3ppp/8/2ppp3/2PPP3/8/PP3PPP/RNBQKBNR w - - 0 1", "rnbqkbnr/pp3ppp/8/2ppp3/2PPP3/8/PP2BPPP/RNBQK1NR w - - 0 1", 3},
        {"rnbqkbnr/pp3ppp/8/2ppp3/2PPP3/8/PP3PPP/RNBQKBNR w - - 0 1", "rnbqkbnr/pp3ppp/8/2ppp3/2PPP3/8/PP1B1PPP/RN1QKBNR w - - 0 1", 3},
        {"rnbqkbnr/pp3ppp/8/2ppp3/2PPP3/8/PP3PPP/RNBQKBNR w - - 0 1", "rnbqkbnr/pp3ppp/8/2ppp3/2PPP3/8/PP1Q1PPP/RNB1KBNR w - - 0 1", 4},
        /* white's king on the high squares (the last of white's own key) */
        {"8/6K1/8/8/8/8/8/k7 w - - 0 1", "7K/8/8/8/8/8/8/k7 w - - 0 1", 1},
        {"8/6K1/8/8/8/8/8/k7 w - - 0 1", "8/7K/8/8/8/8/8/k7 w - - 0 1", 1},
        {"8/8/6K1/8/8/8/8/k7 w - - 0 1", "8/8/7K/8/8/8/8/k7 w - - 0 1", 1},
        /* black's king in a bare ending: g8, h7, f6 */
        {"6k1/8/8/8/8/8/8/K7 b - - 0 1", "8/7k/8/8/8/8/8/K7 b - - 0 1", 2},
        {"6k1/8/8/8/8/8/8/K7 b - - 0 1", "8/8/5k2/8/8/8/8/K7 b - - 0 1", 2},
    };
    static History h;
    static Board a, b;
    char err[128];
    for (size_t i = 0; i < sizeof P / sizeof P[0]; i++) {
        CHECK(board_set_fen(&a, P[i].a, false, err, sizeof err) == PB_OK);
        CHECK(board_set_fen(&b, P[i].b, false, err, sizeof err) == PB_OK);
        CorrSlots sa = hist_corr_slots(&h, &a, 0, 0), sb = hist_corr_slots(&h, &b, 0, 0);
        if (sa.e[P[i].slot] == sb.e[P[i].slot]) {
            static char why[160];
            snprintf(why, sizeof why, "pair %d: a man moved, the same slot of table %d", (int)i, P[i].slot);
            failure = why;
            return;
        }
    }
}

/* ---- time manager: the soft budget's scale stays within its clamp ---- */

static bool near(double a, double b) { return a - b < 1e-9 && b - a < 1e-9; }

static void check_timeman_scale(void) {
    const double max = TM_SCALE_MAX_X100 / 100.0;
    CHECK(near(tm_iter_scale(0, 50, -1.0), 1.6 * 1.4));       /* no node share: the old largest */
    CHECK(near(tm_iter_scale(0, 50, 0.0), max));              /* 1.6 x 1.4 x 1.5 = 3.36, clamped */
    CHECK(near(tm_iter_scale(2, 0, 0.5), 1.35));
    CHECK(near(tm_iter_scale(6, 0, 1.0), 0.6 * 0.675));       /* a share of 1: the node share's least */
    CHECK(near(tm_iter_scale(1, 20, 0.9), 1.25 * 1.15 * 0.81));
    for (int stable = 0; stable <= 8; stable++)
        for (int drop = -20; drop <= 60; drop += 10)
            for (int i = -1; i <= 20; i++) {
                double v = tm_iter_scale(stable, drop, i / 20.0);
                CHECK(v > 0.0 && v <= max + 1e-9);
            }
    /* soft 1000 ms, hard 3000: the largest scale stops at 0.55 x 2240 ms
     * (unclamped it was 0.55 x the hard limit, 1650 ms, too late to finish). */
    TimeMan tm = {.start_us = tm_now_us(), .soft_ms = 1000, .hard_ms = 3000, .limited = true};
    tm.credit_ms = 1150;
    CHECK(!tm_should_stop_iter(&tm, 0, 50, 0.0));
    tm.start_us = tm_now_us();
    tm.credit_ms = 1300;
    CHECK(tm_should_stop_iter(&tm, 0, 50, 0.0));
}

/* ---- registry ---- */

typedef struct {
    const char *name;
    void (*fn)(void);
} Check;

static const Check CHECKS[] = {
    {"repetition_root", check_repetition_root},
    {"tt_age_refresh", check_tt_age_refresh},
    {"api_free_during_search", check_api_free_during_search},
    {"api_stop_race", check_api_stop_race},
    {"api_setters_race", check_api_setters_race},
    {"nnue_walk", check_nnue_walk},
    {"nnue_parse", check_nnue_parse},
    {"nnue_search", check_nnue_search},
    {"nnue_crazyhouse", check_nnue_crazyhouse},
    {"nnue_chess_on_crazyhouse", check_nnue_chess_on_crazyhouse},
    {"nnue_mirror", check_nnue_mirror},
    {"key_after", check_key_after},
    {"is_legal", check_is_legal},
    {"picker", check_picker},
    {"qsearch_picker", check_qsearch_picker},
    {"corr_keys", check_corr_keys},
    {"timeman_scale", check_timeman_scale},
};

int main(int argc, char **argv) {
    pb_init();
    search_init();
    int n = (int)(sizeof CHECKS / sizeof CHECKS[0]), failed = 0, ran = 0;
    for (int i = 0; i < n; i++) {
        bool wanted = argc < 2;
        for (int a = 1; a < argc; a++) wanted |= strcmp(argv[a], CHECKS[i].name) == 0;
        if (!wanted) continue;
        failure = NULL;
        CHECKS[i].fn();
        ran++;
        if (failure) { failed++; printf("FAIL %s: %s\n", CHECKS[i].name, failure); }
        else printf("ok %s\n", CHECKS[i].name);
    }
    if (ran == 0) { fprintf(stderr, "no such check\n"); return 2; }
    return failed ? 1 : 0;
}
