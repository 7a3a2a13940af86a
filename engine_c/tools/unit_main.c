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
#include "../search.h"
#include "../tt.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static const char *failure;

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) { failure = #cond; return; }                              \
    } while (0)

static inline void sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void push_all(Board *b, const char *const *moves, int n) {
    for (int i = 0; i < n; i++)
        if (board_push_uci(b, moves[i]) != PB_OK) failure = moves[i];
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
    CHECK(tt_probe(&tt, keep, 0, &hit) && hit.score == 10 && hit.depth == 4);
    CHECK(tt_hashfull(&tt) == 1);  /* the hit made it current */
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

/* ---- registry ---- */

typedef struct {
    const char *name;
    void (*fn)(void);
} Check;

static const Check CHECKS[] = {
    {"repetition_root", check_repetition_root},
    {"tt_age_refresh", check_tt_age_refresh},
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
