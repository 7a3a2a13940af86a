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

/* ---- registry ---- */

typedef struct {
    const char *name;
    void (*fn)(void);
} Check;

static const Check CHECKS[] = {
    {"repetition_root", check_repetition_root},
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
