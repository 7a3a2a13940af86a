/* tune_match.c — fixed-node eval A/B match with the tuning mini-search.
 *
 * Engine A uses the weights compiled into the engine (engine_c/evalparams.h),
 * engine B the weights of another evalparams-format header chosen at build
 * time (tools/tune/build.sh OLD_HEADER -> -DTUNE_OLD_PARAMS="path"). Both
 * play each opening once with each colour; the search and node budget are
 * identical, so the score measures the evaluation alone. Prints W/D/L from
 * A's view and the Elo difference with a 95% error bar.
 *
 * usage: tune_match OPENINGS [--first N] [--games N (pairs x2)] [--nodes N]
 */
#include <math.h>

#include "tune_minisearch.h"

#ifdef TUNE_OLD_PARAMS
#define EvalDefaultParams EvalOldParams
#include TUNE_OLD_PARAMS
#undef EvalDefaultParams
#else
#define EvalOldParams EvalDefaultParams
#endif

static double elo(double score) { return -400.0 * log10(1.0 / score - 1.0); }

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s OPENINGS [--first N] [--games N] [--nodes N]\n", argv[0]);
        return 2;
    }
    long first = 0, games = 100;
    unsigned long long nodes = 5000;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--first")) first = strtol(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--games")) games = strtol(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--nodes")) nodes = strtoull(argv[i + 1], NULL, 10);
        else {
            fprintf(stderr, "unknown option %s (expected --first, --games or --nodes)\n", argv[i]);
            return 2;
        }
    }
    FILE *in = fopen(argv[1], "r");
    if (!in) {
        fprintf(stderr, "cannot open openings file %s\n", argv[1]);
        return 1;
    }
    board_init_tables();
    Board *b = malloc(sizeof(*b));
    if (!b) return 1;
    const EvalParams *A = &EvalDefaultParams, *B = &EvalOldParams;
    char line[256];
    long idx = 0, played = 0, w = 0, d = 0, l = 0;
    while (played < games && fgets(line, sizeof(line), in)) {
        if (idx++ < first) continue;
        line[strcspn(line, "\r\n")] = 0;
        if (!line[0]) continue;
        for (int colour = 0; colour < 2 && played < games; colour++) {
            int r = colour == 0 ? mini_play_game(b, line, nodes, A, B, NULL)
                                : mini_play_game(b, line, nodes, B, A, NULL);
            if (r < 0) break;
            int a = colour == 0 ? r : 2 - r;   /* A's result x2 */
            if (a == 2) w++;
            else if (a == 1) d++;
            else l++;
            played++;
        }
    }
    fclose(in);
    free(b);
    double n = (double)played, score = (w + 0.5 * d) / n;
    /* per-game variance of the score -> 95% interval, mapped to Elo */
    double var = (w * pow(1 - score, 2) + d * pow(0.5 - score, 2) + l * pow(score, 2)) / n;
    double margin = 1.96 * sqrt(var / n);
    double lo = score - margin, hi = score + margin;
    if (lo <= 0) lo = 1e-3;
    if (hi >= 1) hi = 1 - 1e-3;
    double e = score <= 0 ? -999 : score >= 1 ? 999 : elo(score);
    printf("games %ld  A: +%ld =%ld -%ld  score %.3f  Elo %+.1f +/- %.1f  (nodes %llu)\n",
           played, w, d, l, score, e, (elo(hi) - elo(lo)) / 2, nodes);
    return 0;
}
