/* eval_api.c — the pibot_eval_api.h entry points (thin wrappers over eval.c). */
#include <stdlib.h>

#include "eval.h"
#include "pibot_eval_api.h"

int pb_eval_fen_detail(const char *fen, int *out, int *phase, int *scale) {
    if (!fen || !out) return PB_ERR_ARG;
    board_init_tables();
    /* a Board carries its whole history stack: too big for small stacks */
    Board *b = malloc(sizeof(*b));
    if (!b) return PB_ERR_NOMEM;
    int rc = board_set_fen(b, fen, false, NULL, 0);
    if (rc == PB_OK) {
        EvalTrace *t = (phase || scale) ? malloc(sizeof(*t)) : NULL;
        if ((phase || scale) && !t) {
            rc = PB_ERR_NOMEM;
        } else {
            *out = eval_evaluate_with(b, &EvalDefaultParams, t);
            if (t) {
                if (phase) *phase = t->phase;
                if (scale) *scale = t->scale;
                free(t);
            }
        }
    }
    free(b);
    return rc;
}

int pb_eval_fen(const char *fen, int *out) { return pb_eval_fen_detail(fen, out, NULL, NULL); }

int pb_eval_nparams(void) { return EVAL_NPARAMS; }
