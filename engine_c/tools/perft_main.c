/* perft_main.c — standalone C driver for CI variants (magic, PEXT, sanitizer,
 * aarch64 under qemu) that do not go through Python.
 *   pibot-perft perft DEPTH [FEN...]   prints "Nodes searched: N"
 *   pibot-perft suite FILE [960]      lines "FEN ;D1 n ;D2 n ..." (depth capped by PERFT_MAX_DEPTH)
 *   pibot-perft fuzz                  reads lines "FEN|move move ..." and must never crash
 *   pibot-perft selftest              slider tables vs the slow reference
 * PERFT_VARIANT=NAME (kingofthehill, 3check, atomic, ...) makes perft and fuzz
 * read their FENs as positions of that variant (perft's default FEN: its start).
 */
#include "../attacks.h"
#include "../board.h"
#include "../movegen.h"
#include "../notation.h"
#include "../perft.h"
#include "../variant.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static Board board;
static int variant = VAR_STANDARD;   /* PERFT_VARIANT */

static int cmd_perft(int depth, const char *fen) {
    char err[256];
    if (board_set_fen_variant(&board, fen, variant, getenv("PERFT_960") != NULL, err, sizeof err)) {
        fprintf(stderr, "bad FEN: %s\n", err);
        return 2;
    }
    double t0 = now_s();
    uint64_t n = perft(&board, depth);
    double dt = now_s() - t0;
    printf("backend: %s\nNodes searched: %llu\nTime: %.3f s\nNodes/second: %.0f\n", attacks_backend(),
           (unsigned long long)n, dt, dt > 0 ? n / dt : 0.0);
    return 0;
}

static int cmd_suite(const char *path, int max_depth, bool c960) {
    FILE *f = fopen(path, "r");
    if (!f) { perror(path); return 2; }
    char line[1024];
    int failures = 0, checked = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        if (!line[0] || line[0] == '#') continue;
        char *semi = strchr(line, ';');
        if (!semi) continue;
        *semi = 0;
        char err[256];
        if (board_set_fen(&board, line, c960, err, sizeof err)) {
            printf("FAIL bad FEN %s: %s\n", line, err);
            failures++;
            continue;
        }
        for (char *tok = strtok(semi + 1, ";"); tok; tok = strtok(NULL, ";")) {
            int d;
            unsigned long long expect;
            if (sscanf(tok, " D%d %llu", &d, &expect) != 2 || d > max_depth) continue;
            uint64_t got = perft(&board, d);
            checked++;
            if (got != expect) {
                printf("FAIL %s depth %d: got %llu expected %llu\n", line, d, (unsigned long long)got, expect);
                failures++;
            }
        }
    }
    fclose(f);
    printf("suite: %d checks, %d failures (%s)\n", checked, failures, attacks_backend());
    return failures ? 1 : 0;
}

/* Fuzz: arbitrary FEN text, then arbitrary move strings. Must not crash. */
static int cmd_fuzz(void) {
    char line[4096];
    long lines = 0, ok_fens = 0, ok_moves = 0;
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = 0;
        lines++;
        char *bar = strchr(line, '|');
        if (bar) *bar = 0;
        char err[128];
        if (board_set_fen_variant(&board, line, variant, lines % 2, err, sizeof err)) continue;
        ok_fens++;
        if (!bar) continue;
        for (char *tok = strtok(bar + 1, " "); tok; tok = strtok(NULL, " ")) {
            if (notation_push_uci(&board, tok) == PB_OK) ok_moves++;
            char fen[256];
            board_get_fen(&board, fen, sizeof fen);
            movegen_count(&board);
        }
        perft(&board, 2);
    }
    printf("fuzz: %ld lines, %ld valid FENs, %ld legal moves applied\n", lines, ok_fens, ok_moves);
    return 0;
}

int main(int argc, char **argv) {
    board_init_tables();
    const char *vname = getenv("PERFT_VARIANT");
    variant = variant_from_name(vname);
    if (variant < 0 || !board_variant_supported(variant)) {
        fprintf(stderr, "unknown or unsupported variant '%s'\n", vname);
        return 2;
    }
    if (argc >= 3 && !strcmp(argv[1], "perft")) {
        const char *fen = argc >= 4 ? argv[3] : variant_start_fen(variant);
        return cmd_perft(atoi(argv[2]), fen);
    }
    if (argc >= 3 && !strcmp(argv[1], "suite")) {
        const char *md = getenv("PERFT_MAX_DEPTH");
        return cmd_suite(argv[2], md ? atoi(md) : 99, argc >= 4 && !strcmp(argv[3], "960"));
    }
    if (argc >= 2 && !strcmp(argv[1], "fuzz")) return cmd_fuzz();
    if (argc >= 2 && !strcmp(argv[1], "selftest")) {
        int bad = attacks_selftest(2000);
        printf("selftest (%s): %d mismatches\n", attacks_backend(), bad);
        return bad ? 1 : 0;
    }
    fprintf(stderr, "usage: %s perft DEPTH [FEN] | suite FILE [960] | fuzz < lines | selftest\n", argv[0]);
    return 2;
}
