/* eval_speed.c — ns per evaluation on this build (bench/eval_speed.py builds it
 * with several flag sets): HCE, NNUE output layer, NNUE incremental update of
 * one move (both perspectives), NNUE refresh from scratch.
 *   eval_speed [ITERS] [RUNS] [FEN]   best of RUNS (3) runs of ITERS calls per kind
 */
#include <stdint.h>
#include <stddef.h>
#include "../pibot_api.h"
#include "../pibot_nnue_api.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int iters = argc > 1 ? atoi(argv[1]) : 2000000;
    int runs = argc > 2 ? atoi(argv[2]) : 3;
    const char *fen = argc > 3 ? argv[3]
        : "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 10";
    pb_init();
    PbEvalSpeed best = {1e18, 1e18, 1e18, 1e18};
    for (int run = 0; run < runs; run++) {
        PbEvalSpeed s;
        int rc = pb_eval_speed(fen, iters, &s);
        if (rc) { fprintf(stderr, "eval_speed: %s\n", pb_strerror(rc)); return 1; }
        if (s.hce_ns < best.hce_ns) best.hce_ns = s.hce_ns;
        if (s.nnue_output_ns < best.nnue_output_ns) best.nnue_output_ns = s.nnue_output_ns;
        if (s.nnue_update_ns < best.nnue_update_ns) best.nnue_update_ns = s.nnue_update_ns;
        if (s.nnue_refresh_ns < best.nnue_refresh_ns) best.nnue_refresh_ns = s.nnue_refresh_ns;
    }
    printf("hce_ns %.1f nnue_output_ns %.1f nnue_update_ns %.1f nnue_refresh_ns %.1f\n",
           best.hce_ns, best.nnue_output_ns, best.nnue_update_ns, best.nnue_refresh_ns);
    return 0;
}
