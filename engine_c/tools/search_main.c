/* search_main.c — standalone search driver (bench/debug without Python).
 *   search_main go DEPTH [FEN]        search to DEPTH, print info + bestmove
 *   search_main movetime MS [FEN]     search for MS milliseconds (FEN: or "VARIANT: FEN")
 *   search_main bench DEPTH FILE [nnue]  one FEN per line; total nodes (as pibot bench),
 *                                     with the hand-crafted eval or the embedded NNUE;
 *                                     "VARIANT: FEN" searches a variant's position
 */
#include <stdint.h>
#include <stddef.h>
#include "../pibot_api.h"
#include "../pibot_engine_api.h"
#include "../pibot_nnue_api.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s go DEPTH [FEN] | movetime MS [FEN]\n", argv[0]);
        return 2;
    }
    int err = 0;
    PbEngine *e = pb_engine_new(strcmp(argv[1], "bench") == 0 ? 16 : 64, 1, &err);
    if (!e) { fprintf(stderr, "engine: %s\n", pb_strerror(err)); return 1; }
    char msg[256];
    if (strcmp(argv[1], "bench") == 0 && argc > 3) {
        int eval = argc > 4 && strcmp(argv[4], "nnue") == 0 ? PB_EVAL_NNUE : PB_EVAL_HCE;
        if (pb_engine_set_eval(e, eval)) { fprintf(stderr, "cannot set the eval\n"); return 1; }
        FILE *f = fopen(argv[3], "r");
        if (!f) { perror(argv[3]); return 2; }
        char line[512];
        uint64_t total = 0;
        int64_t ms = 0;
        while (fgets(line, sizeof line, f)) {
            line[strcspn(line, "\r\n")] = '\0';
            if (!line[0]) continue;
            char *fen = line, *variant = NULL, *colon = strchr(line, ':');
            if (colon) { *colon = '\0'; variant = line; fen = colon + 1 + (colon[1] == ' '); }
            if (pb_engine_set_variant_position(e, variant, fen, "", 0, msg, sizeof msg)) {
                fprintf(stderr, "%s\n", msg);
                fclose(f);
                pb_engine_free(e);
                return 2;
            }
            PbLimits bl = {-1, -1, -1, -1, 0, -1, atoi(argv[2]), 0, 0, 0, 0};
            PbResult br;
            pb_engine_search(e, &bl, &br);
            total += br.nodes;
            ms += br.time_ms;
        }
        fclose(f);
        printf("Nodes searched: %" PRIu64 "\nTime: %" PRId64 " ms\nNodes/second: %" PRIu64 "\n", total, ms,
               ms > 0 ? total * 1000 / (uint64_t)ms : total);
        pb_engine_free(e);
        return 0;
    }
    /* "VARIANT: FEN" as in a bench file searches a variant's position */
    char *fen = argc > 3 ? argv[3] : NULL, *variant = NULL, *colon = fen ? strchr(fen, ':') : NULL;
    if (colon) { *colon = '\0'; variant = fen; fen = colon + 1 + (colon[1] == ' '); }
    if (fen && pb_engine_set_variant_position(e, variant, fen, "", 0, msg, sizeof msg)) {
        fprintf(stderr, "bad FEN: %s\n", msg);
        return 2;
    }
    PbLimits lim = {-1, -1, -1, -1, 0, -1, 0, 0, 0, 0, 0};
    if (strcmp(argv[1], "go") == 0) lim.depth = atoi(argv[2]);
    else lim.movetime = atoll(argv[2]);
    PbResult res;
    int rc = pb_engine_search(e, &lim, &res);
    PbInfo info;
    pb_engine_get_info(e, &info);
    printf("rc %d depth %d seldepth %d score %s %d nodes %" PRIu64 " time %" PRId64 " nps %" PRIu64 " pv %s\n",
           rc, res.depth, res.seldepth, res.is_mate ? "mate" : "cp", res.is_mate ? res.mate : res.score_cp,
           res.nodes, res.time_ms, info.nps, res.pv);
    printf("bestmove %s ponder %s\n", res.bestmove, res.ponder);
    pb_engine_free(e);
    return 0;
}
