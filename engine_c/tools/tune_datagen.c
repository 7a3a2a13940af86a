/* tune_datagen.c — labelled positions for Texel tuning from self-play.
 *
 * Plays games of the engine's evaluation against itself from opening FENs
 * (one per line, e.g. from tools/tune/book_fens.py) with a small fixed-node
 * alpha-beta search (iterative deepening, quiescence, MVV-LVA + killers),
 * and writes every quiet position of each game labelled with its final
 * result, White's view:   <FEN> | 1.0   (1.0 / 0.5 / 0.0).
 * Quiet = side to move not in check, quiescence score equals the static
 * eval (no capture gains anything), and the chosen move is not a capture or
 * promotion. The search and game loop are in tune_minisearch.h (no TT, no
 * pruning, so data generation does not depend on the main search's state).
 * Fully deterministic: the same openings and limits give the same file.
 *
 * usage: tune_datagen OPENINGS OUT [--first N] [--count N] [--nodes N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune_minisearch.h"

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s OPENINGS OUT [--first N] [--count N] [--nodes N]\n", argv[0]);
        return 2;
    }
    long first = 0, count = 1000;
    unsigned long long nodes = 3000;
    for (int i = 3; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--first")) first = strtol(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--count")) count = strtol(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--nodes")) nodes = strtoull(argv[i + 1], NULL, 10);
        else {
            fprintf(stderr, "unknown option %s (expected --first, --count or --nodes)\n", argv[i]);
            return 2;
        }
    }
    FILE *in = fopen(argv[1], "r");
    if (!in) {
        fprintf(stderr, "cannot open openings file %s\n", argv[1]);
        return 1;
    }
    FILE *out = fopen(argv[2], "a");
    if (!out) {
        fprintf(stderr, "cannot open output %s\n", argv[2]);
        fclose(in);
        return 1;
    }
    board_init_tables();
    Board *b = malloc(sizeof(*b));
    FenBuf buf = {0};
    if (!b) return 1;
    char line[256];
    long idx = 0, games = 0, positions = 0, results[3] = {0};
    while (fgets(line, sizeof(line), in) && games < count) {
        if (idx++ < first) continue;
        line[strcspn(line, "\r\n")] = 0;
        if (!line[0]) continue;
        int r = mini_play_game(b, line, nodes, NULL, NULL, &buf);
        if (r < 0) {
            fprintf(stderr, "skipping opening %ld: %s\n", idx, line);
            continue;
        }
        const char *label = r == 2 ? "1.0" : r == 1 ? "0.5" : "0.0";
        for (int i = 0; i < buf.count; i++) fprintf(out, "%s | %s\n", buf.fens[i], label);
        fflush(out);
        games++;
        positions += buf.count;
        results[r]++;
        if (games % 50 == 0)
            fprintf(stderr, "games %ld positions %ld (+%ld =%ld -%ld)\n", games, positions,
                    results[2], results[1], results[0]);
    }
    fprintf(stderr, "done: games %ld positions %ld (+%ld =%ld -%ld)\n", games, positions,
            results[2], results[1], results[0]);
    free(buf.fens);
    free(b);
    fclose(in);
    fclose(out);
    return 0;
}
