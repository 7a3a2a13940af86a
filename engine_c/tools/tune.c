/* tune.c — Texel tuner for the evaluation weights (EvalParams).
 *
 * Reads positions labelled with game results ("<FEN> | 1.0", White's view,
 * as written by tune_datagen), records for each the coefficient trace of
 * eval_evaluate_with() (sparse: weight index, white-minus-black count), the
 * game phase and the endgame scale, then
 *   1. fits the logistic constant K with the starting weights
 *      (minimise mean (result - sigmoid(K * eval / 400))^2),
 *   2. minimises the same error over all weights (mg and eg halves
 *      separately) by full-batch gradient descent with momentum on the exact
 *      linear model of the eval, then rescales to centipawn units,
 *   3. writes the rounded weights as engine_c/evalparams.h.
 * Every 5th block of 500 positions (whole games) is held out to report
 * validation error (overfitting shows as it rising while training falls).
 *
 * usage: tune DATA OUT_HEADER [--epochs N] [--lr X] [--limit N] [--k K] [--l2 X]
 *            [--freeze name,name,...]   (EvalParams fields kept as they are)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../eval.h"

typedef struct {
    int16_t idx;
    int16_t coef;
} Entry;

typedef struct {
    int first, n;        /* slice of the entry array */
    float phase_mg;      /* phase/24 * scale/128 */
    float phase_eg;      /* (24-phase)/24 * scale/128 */
    float result;
    int eval;            /* the engine's own integer eval, White's view */
} Pos;

typedef struct {
    Pos *pos;
    Entry *ent;
    int npos, nent, cap_pos, cap_ent;
} Data;

static double sigmoid(double k, double e) { return 1.0 / (1.0 + pow(10.0, -k * e / 400.0)); }

static double lin_eval(const Pos *p, const Entry *ent, double (*w)[2]) {
    double mg = 0, eg = 0;
    for (int j = 0; j < p->n; j++) {
        const Entry *e = &ent[p->first + j];
        mg += e->coef * w[e->idx][0];
        eg += e->coef * w[e->idx][1];
    }
    return mg * p->phase_mg + eg * p->phase_eg;
}

static int load(const char *path, Data *d, long limit) {
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "cannot open data file %s\n", path);
        return -1;
    }
    Board *b = malloc(sizeof(*b));
    EvalTrace *t = malloc(sizeof(*t));
    if (!b || !t) {
        fprintf(stderr, "out of memory\n");
        fclose(f);
        free(b);
        free(t);
        return -1;
    }
    char line[512];
    long lineno = 0, bad = 0;
    while (fgets(line, sizeof(line), f) && (limit <= 0 || d->npos < limit)) {
        lineno++;
        char *bar = strchr(line, '|');
        if (!bar) { bad++; continue; }
        *bar = 0;
        double r = strtod(bar + 1, NULL);
        if (board_set_fen(b, line, false, NULL, 0) != PB_OK || (r != 0.0 && r != 0.5 && r != 1.0)) {
            bad++;
            continue;
        }
        int v = eval_evaluate_with(b, &EvalDefaultParams, t);
        (void)v;
        if (d->npos == d->cap_pos) {
            d->cap_pos = d->cap_pos ? d->cap_pos * 2 : 1 << 16;
            void *p = realloc(d->pos, (size_t)d->cap_pos * sizeof(Pos));
            if (!p) goto oom;
            d->pos = p;
        }
        if (d->nent + EVAL_NPARAMS > d->cap_ent) {
            d->cap_ent = d->cap_ent ? d->cap_ent * 2 : 1 << 22;
            void *p = realloc(d->ent, (size_t)d->cap_ent * sizeof(Entry));
            if (!p) goto oom;
            d->ent = p;
        }
        Pos *p = &d->pos[d->npos++];
        p->first = d->nent;
        p->n = 0;
        for (int i = 0; i < EVAL_NPARAMS; i++) {
            int c = t->coef[i][WHITE] - t->coef[i][BLACK];
            if (c) {
                d->ent[d->nent].idx = (int16_t)i;
                d->ent[d->nent].coef = (int16_t)c;
                d->nent++;
                p->n++;
            }
        }
        p->phase_mg = (float)(t->phase / 24.0 * t->scale / 128.0);
        p->phase_eg = (float)((24 - t->phase) / 24.0 * t->scale / 128.0);
        p->result = (float)r;
        p->eval = t->eval;
    }
    fclose(f);
    free(b);
    free(t);
    if (bad) fprintf(stderr, "skipped %ld malformed lines (expected '<FEN> | 1.0|0.5|0.0')\n", bad);
    return 0;
oom:
    fprintf(stderr, "out of memory at line %ld\n", lineno);
    fclose(f);
    free(b);
    free(t);
    return -1;
}

/* Validation: every 5th block of 500 consecutive positions. The data file
 * holds games in order, so this holds out whole games (positions of one
 * game are too alike to tell fitting from overfitting). */
static inline int is_val(int i) { return (i / 500) % 5 == 2; }

static double mse(const Data *d, double k, double (*w)[2], int want_val) {
    double sum = 0;
    long n = 0;
    for (int i = 0; i < d->npos; i++) {
        if (is_val(i) != want_val) continue;
        double s = sigmoid(k, w ? lin_eval(&d->pos[i], d->ent, w) : d->pos[i].eval);
        double e = d->pos[i].result - s;
        sum += e * e;
        n++;
    }
    return n ? sum / n : 0;
}

static double fit_k(const Data *d, double (*w)[2]) {
    /* golden-section search: the error is unimodal in K */
    double lo = 0.05, hi = 5.0, g = (sqrt(5.0) - 1) / 2;
    double a = hi - g * (hi - lo), b = lo + g * (hi - lo);
    double fa = mse(d, a, w, 0), fb = mse(d, b, w, 0);
    for (int it = 0; it < 60; it++) {
        if (fa < fb) { hi = b; b = a; fb = fa; a = hi - g * (hi - lo); fa = mse(d, a, w, 0); }
        else { lo = a; a = b; fa = fb; b = lo + g * (hi - lo); fb = mse(d, b, w, 0); }
    }
    return (lo + hi) / 2;
}

/* Sum over N, B, R, Q of material plus the mean piece-square value, mg and
 * eg averaged: the overall scale of the eval in pawn-ish units. */
static double piece_scale(double (*w)[2]) {
    const EvalParams *layout = &EvalDefaultParams;
    double sum = 0;
    for (int pt = KNIGHT; pt <= QUEEN; pt++) {
        int mat = (int)(&layout->material[pt] - (const Score *)layout);
        int sq0 = (int)(&layout->psqt[pt][0] - (const Score *)layout);
        double ps = 0;
        for (int sq = 0; sq < 64; sq++) ps += w[sq0 + sq][0] + w[sq0 + sq][1];
        sum += w[mat][0] + w[mat][1] + ps / 64;
    }
    return sum / 2;
}

static void write_score(FILE *f, double *v) {
    fprintf(f, "S(%d, %d)", (int)lround(v[0]), (int)lround(v[1]));
}

static void write_row(FILE *f, double (*w)[2], int off, int n, const char *indent) {
    if (n <= 8) {
        fputc('{', f);
        for (int i = 0; i < n; i++) {
            if (i) fputs(", ", f);
            write_score(f, w[off + i]);
        }
        fputc('}', f);
        return;
    }
    fputs("{\n", f);
    for (int i = 0; i < n; i++) {
        if (i % 8 == 0) fprintf(f, "%s    ", indent);
        write_score(f, w[off + i]);
        fputs(i % 8 == 7 || i == n - 1 ? ",\n" : ", ", f);
    }
    fprintf(f, "%s}", indent);
}

static int write_header(const char *path, double (*w)[2], const char *note) {
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "cannot write %s\n", path);
        return -1;
    }
    fprintf(f, "/* evalparams.h — evaluation weights, S(mg, eg); included only by eval.c.\n"
               " * Generated by tools/tune/initial_params.py (untuned starting point) or by\n"
               " * engine_c/tools/tune.c (Texel-tuned); see docs/tuning.md. Do not edit by hand.\n"
               " * %s */\n"
               "const EvalParams EvalDefaultParams = {\n", note);
    for (int t = 0; t < EvalParamTableCount; t++) {
        const EvalParamInfo *p = &EvalParamTable[t];
        fprintf(f, "    .%s = ", p->name);
        if (p->cols == 0) {
            write_score(f, w[p->offset]);
        } else if (p->cols == 1) {
            write_row(f, w, p->offset, p->rows, "    ");
        } else {
            fputs("{\n", f);
            for (int r = 0; r < p->rows; r++) {
                fputs("        ", f);
                write_row(f, w, p->offset + r * p->cols, p->cols, "        ");
                fputs(",\n", f);
            }
            fputs("    }", f);
        }
        fputs(",\n", f);
    }
    fputs("};\n", f);
    return fclose(f) == 0 ? 0 : -1;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s DATA OUT_HEADER [--epochs N] [--lr X] [--limit N] [--k K] [--l2 X]"
                        " [--freeze name,name,...] [--keep-last 1]\n", argv[0]);
        return 2;
    }
    int epochs = 1000;
    double lr = 10000.0, kfix = 0, l2 = 0;
    const char *freeze = "";
    bool keep_last = false;   /* write the last epoch, not the best validated one */
    long limit = 0;
    for (int i = 3; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--epochs")) epochs = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--lr")) lr = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--limit")) limit = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--k")) kfix = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--l2")) l2 = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--freeze")) freeze = argv[i + 1];
        else if (!strcmp(argv[i], "--keep-last")) keep_last = atoi(argv[i + 1]) != 0;
        else {
            fprintf(stderr, "unknown option %s (expected --epochs, --lr, --limit, --k, --l2, --freeze or --keep-last)\n", argv[i]);
            return 2;
        }
    }
    board_init_tables();
    Data d = {0};
    if (load(argv[1], &d, limit) != 0) return 1;
    if (d.npos < 100) {
        fprintf(stderr, "only %d positions in %s: generate more data first\n", d.npos, argv[1]);
        return 1;
    }
    static double best_w[EVAL_NPARAMS][2], init_w[EVAL_NPARAMS][2], w[EVAL_NPARAMS][2], m[EVAL_NPARAMS][2], g[EVAL_NPARAMS][2];
    const Score *init = (const Score *)&EvalDefaultParams;
    for (int i = 0; i < EVAL_NPARAMS; i++) {
        init_w[i][0] = w[i][0] = score_mg(init[i]);
        init_w[i][1] = w[i][1] = score_eg(init[i]);
    }
    /* frozen tables ("name", or one half: "name:mg" / "name:eg"): fewer
     * free weights when the data is small, and no middlegame value for
     * terms that only mean something in the endgame (and vice versa) */
    static bool frozen[EVAL_NPARAMS][2];
    for (const char *f = freeze; *f;) {
        size_t len = strcspn(f, ",");
        char tok[64];
        snprintf(tok, sizeof(tok), "%.*s", (int)(len < 63 ? len : 63), f);
        f += len + (f[len] == ',');
        char *colon = strchr(tok, ':');
        int half = -1;                      /* -1 both, 0 mg, 1 eg */
        if (colon) {
            *colon = 0;
            if (!strcmp(colon + 1, "mg")) half = 0;
            else if (!strcmp(colon + 1, "eg")) half = 1;
        }
        int t = 0;
        while (t < EvalParamTableCount && strcmp(EvalParamTable[t].name, tok)) t++;
        if (t == EvalParamTableCount || (colon && half < 0)) {
            fprintf(stderr, "--freeze: unknown weight '%s%s%s' (use an EvalParams field name, "
                            "optionally with :mg or :eg)\n", tok, colon ? ":" : "", colon ? colon + 1 : "");
            return 2;
        }
        const EvalParamInfo *p = &EvalParamTable[t];
        int n = p->cols == 0 ? 1 : p->rows * p->cols;
        for (int i = 0; i < n; i++)
            for (int h = 0; h < 2; h++)
                if (half < 0 || half == h) frozen[p->offset + i][h] = true;
        fprintf(stderr, "frozen: %s%s (%d weights)\n", tok, half < 0 ? "" : half ? ":eg" : ":mg", n);
    }
    /* the linear model must reproduce the engine's eval (up to rounding) */
    double diff = 0;
    for (int i = 0; i < d.npos; i++) diff += fabs(lin_eval(&d.pos[i], d.ent, w) - d.pos[i].eval);
    fprintf(stderr, "positions %d, entries %d (%.1f per position), model error %.3f cp\n",
            d.npos, d.nent, (double)d.nent / d.npos, diff / d.npos);

    double k = kfix > 0 ? kfix : fit_k(&d, w);
    fprintf(stderr, "K = %.4f  train mse %.6f  val mse %.6f\n", k, mse(&d, k, w, 0), mse(&d, k, w, 1));

    /* Full-batch gradient descent with momentum on the mean error. Plain
     * (not per-weight adaptive like Adam) on purpose: a weight moves in
     * proportion to how often its term occurs, so rare terms (high mobility
     * counts, exotic threats) stay near their start instead of being fitted
     * to the noise of a handful of positions. */
    const double mom = 0.9, ln10 = log(10.0);
    double best_val = mse(&d, k, w, 1);
    int best_epoch = 0;
    memcpy(best_w, w, sizeof(best_w));
    long ntrain = 0;
    for (int i = 0; i < d.npos; i++) ntrain += !is_val(i);
    for (int ep = 1; ep <= epochs; ep++) {
        memset(g, 0, sizeof(g));
        for (int i = 0; i < d.npos; i++) {
            if (is_val(i)) continue;
            const Pos *p = &d.pos[i];
            double s = sigmoid(k, lin_eval(p, d.ent, w));
            double ge = 2 * (s - p->result) * s * (1 - s) * k * ln10 / 400.0 / ntrain;
            for (int j = 0; j < p->n; j++) {
                const Entry *e = &d.ent[p->first + j];
                g[e->idx][0] += ge * e->coef * p->phase_mg;
                g[e->idx][1] += ge * e->coef * p->phase_eg;
            }
        }
        /* L2 pull toward the starting weights (a prior: move only where the
         * data insists), in units of mse per cp^2 */
        for (int i = 0; i < EVAL_NPARAMS && l2 > 0; i++)
            for (int h = 0; h < 2; h++)
                if (g[i][h] != 0) g[i][h] += 2 * l2 * (w[i][h] - init_w[i][h]);
        /* step decay over the last half of the run */
        double rate = ep > epochs * 3 / 4 ? lr * 0.25 : ep > epochs / 2 ? lr * 0.5 : lr;
        for (int i = 0; i < EVAL_NPARAMS; i++)
            for (int h = 0; h < 2; h++) {
                if (frozen[i][h]) continue;
                m[i][h] = mom * m[i][h] + g[i][h];
                w[i][h] -= rate * m[i][h];
            }
        if (ep % 10 == 0 || ep == epochs) {
            /* early stopping: keep the weights with the best held-out error */
            double val = mse(&d, k, w, 1);
            if (val < best_val) {
                best_val = val;
                best_epoch = ep;
                memcpy(best_w, w, sizeof(best_w));
            }
            if (ep % 100 == 0 || ep == epochs)
                fprintf(stderr, "epoch %d  train mse %.6f  val mse %.6f\n", ep, mse(&d, k, w, 0), val);
        }
    }
    fprintf(stderr, "best val mse %.6f at epoch %d%s\n", best_val, best_epoch,
            keep_last ? " (ignored: --keep-last)" : "");
    if (keep_last) best_epoch = epochs;
    else memcpy(w, best_w, sizeof(best_w));
    /* MSE is invariant under (weights * c, K / c): rescale so the average
     * piece value is what it was, keeping eval in the centipawn units the
     * search margins assume (a low K otherwise inflates every weight). */
    double before = piece_scale(init_w), after = piece_scale(w), c = before / after;
    for (int i = 0; i < EVAL_NPARAMS; i++) {
        w[i][0] *= c;
        w[i][1] *= c;
    }
    fprintf(stderr, "normalised by %.3f (effective K %.4f): val mse %.6f\n", c, k / c,
            mse(&d, k / c, w, 1));
    k /= c;
    char note[160];
    snprintf(note, sizeof(note), "Tuned on %d positions (%s), K=%.4f, lr %g, l2 %g, epoch %d of %d.",
             d.npos, strrchr(argv[1], '/') ? strrchr(argv[1], '/') + 1 : argv[1], k, lr, l2, best_epoch, epochs);
    if (write_header(argv[2], w, note) != 0) return 1;
    fprintf(stderr, "wrote %s\n", argv[2]);
    for (int pt = PAWN; pt <= QUEEN; pt++)
        fprintf(stderr, "material[%d] %+.0f %+.0f\n", pt, w[pt][0], w[pt][1]);
    free(d.pos);
    free(d.ent);
    return 0;
}
