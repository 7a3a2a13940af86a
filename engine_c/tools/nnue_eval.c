/* nnue_eval.c — the embedded net's evaluation of each FEN read from stdin, one
 * centipawn number per line (side to move's view), or a net file's with
 * `nnue_eval NET.pbnn`. Tests compare it with tools/nnue/reference.py for
 * builds of other hidden widths (make NET=...), which the Python extension
 * is not. A bad FEN is one line on stderr and exit status 2.
 */
#include <stdint.h>
#include <stddef.h>
#include "../pibot_api.h"
#include "../pibot_engine_api.h"
#include "../pibot_nnue_api.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    char err[256] = "";
    pb_init();
    if (pb_nnue_default_status() != 0) {
        fprintf(stderr, "nnue_eval: the embedded net: %s\n",
                pb_strerror(pb_nnue_default_status()));
        return 1;
    }
    PbEngine *e = pb_engine_new(1, 1, &(int){0});
    if (!e) { fprintf(stderr, "nnue_eval: out of memory\n"); return 1; }
    if (pb_engine_set_eval(e, PB_EVAL_NNUE) ||
        (argc > 1 && pb_engine_load_net(e, argv[1], err, sizeof err))) {
        fprintf(stderr, "nnue_eval: %s\n", err[0] ? err : "cannot use the NNUE");
        return 1;
    }
    char line[512];
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (!line[0]) continue;
        int cp = 0;
        if (pb_engine_set_position(e, line, "", 0, err, sizeof err) ||
            pb_engine_eval(e, &cp)) {
            fprintf(stderr, "nnue_eval: %s: %s\n", line, err[0] ? err : "cannot evaluate");
            return 2;
        }
        printf("%d\n", cp);
    }
    pb_engine_free(e);
    return 0;
}
