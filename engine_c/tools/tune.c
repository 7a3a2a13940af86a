/* tune.c — Texel tuner for the evaluation weights (EvalParams), and with
 * --variant NAME for one variant's weights (VariantParams, variant_eval.h;
 * the local search of tune_variant below, on datagen --variant's records).
 *
 * Reads the position records of engine_c/tools/datagen.c (one or more files,
 * e.g. the chunks of tools/nnue/datastore.py; the format is documented at the
 * top of datagen.c and in tools/nnue/posdata.py) and uses of each record the
 * position and the game result (White's view); the search score is not used.
 * datagen keeps only quiet positions (side to move not in check, the
 * engine's best move neither a capture nor a promotion, no mate score), which
 * is the filter Texel tuning needs: the static eval of a quiet position is
 * what the search would trust. For each position it records the coefficient
 * trace of eval_evaluate_with() (sparse: weight index, white-minus-black
 * count), the game phase and the endgame scale, then
 *   1. fits the logistic constant K with the starting weights
 *      (minimise mean (result - sigmoid(K * eval / 400))^2),
 *   2. minimises the same error over all weights (mg and eg halves
 *      separately) by full-batch gradient descent with momentum on the exact
 *      linear model of the eval, then rescales to centipawn units,
 *   3. writes the rounded weights as an evalparams.h.
 * The games whose number (record byte 31, mod 256) is 9 mod 10 are held out
 * to report validation error (overfitting shows as it rising while training
 * falls): whole games, the same ones the NNUE trainer holds out.
 *
 * usage: tune DATA... --out HEADER [--epochs N] [--lr X] [--limit N] [--k K] [--l2 X]
 *            [--freeze name,name,...]   (EvalParams fields kept as they are)
 *            [--keep-last 1]
 *        tune --variant NAME DATA... --out HEADER [--epochs N] [--step N] [--limit N] [--k K]
 *            [--freeze name,...] [--keep-last 1] [--base net|hce]   (HEADER: a variant_params.h)
 *        tune --variant NAME DATA... --evals 1 [--base net|hce]
 *            (each record as "<FEN> | <eval>", White's view, the build's weights: for checks)
 *        tune --variant horde|atomic --hce 1 DATA... --out HEADER [the first form's options]
 *            (that variant's own set of chess's weights, HordeEvalParams or AtomicEvalParams: the
 *            gradient fit of the first form on its records, its own terms a fixed offset)
 *        tune --fens DATA...   (each record as "<FEN> | <result>", for checks)
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../eval.h"
#include "../nnue.h"
#include "../variant.h"
#include "../variant_eval.h"

typedef struct {
    int16_t idx;
    int16_t coef;
} Entry;

typedef struct {
    int first, n;        /* slice of the entry array */
    float phase_mg;      /* phase/24 * scale/128 */
    float phase_eg;      /* (24-phase)/24 * scale/128 */
    float result;
    float offset;        /* --hce: the variant's own terms (White's view), fixed */
    int eval;            /* the engine's own integer eval, White's view */
    bool val;            /* held out (validation) */
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
    return mg * p->phase_mg + eg * p->phase_eg + p->offset;
}

/* The weight set a run fits (--hce: a variant's own; else chess's), and how
 * its header is written. */
typedef struct {
    int variant;              /* VAR_STANDARD: chess's */
    const EvalParams *start;
    const char *symbol, *file;
} HceSet;

static const HceSet HceSets[] = {
    {VAR_STANDARD, &EvalDefaultParams, "EvalDefaultParams", "evalparams.h"},
    {VAR_HORDE, &HordeEvalParams, "HordeEvalParams", "evalparams_horde.h"},
    {VAR_ATOMIC, &AtomicEvalParams, "AtomicEvalParams", "evalparams_atomic.h"},
};
static const HceSet *hce_set = &HceSets[0];

enum {
    REC_SIZE = 32, HEADER_SIZE = 32, REC_VERSION = 1,               /* standard chess */
    REC_SIZE_VAR = 64, HEADER_SIZE_VAR = 64, REC_VERSION_VAR = 2,   /* a variant (datagen --variant) */
    VAL_EVERY = 10
};

/* The records the run reads: VAR_STANDARD (version 1) unless --variant NAME;
 * -1 (--fens): any file, each read as its header says. */
static int want_variant = VAR_STANDARD;
static const char MAGIC[8] = {'P', 'I', 'B', 'O', 'T', 'P', 'O', 'S'};

static uint32_t le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* One record -> FEN (written into fen) and result 0/1/2; false if the bytes
 * cannot be a record (the Board parser checks the rest). A castling right is
 * K/Q/k/q for a corner rook beside an e-file king, else the rook's file
 * (Shredder-FEN), and then *chess960 is set: the parser accepts those only in
 * Chess960 mode. */
static bool record_fen(const uint8_t *r, int variant, char *fen, size_t len, bool *chess960, int *result) {
    uint64_t occ = 0;
    for (int i = 7; i >= 0; i--) occ = occ << 8 | r[i];
    if ((variant == VAR_STANDARD && __builtin_popcountll(occ) > 32) || r[30] > 2) return false;
    int code[64];
    bool promoted[64] = {false};
    uint32_t marks = 0;
    if (variant != VAR_STANDARD) memcpy(&marks, r + 60, 4);
    int n = 0;
    for (int sq = 0; sq < 64; sq++) {
        code[sq] = -1;
        if (!(occ >> sq & 1)) continue;
        /* pieces 1..32 in bytes 8..23, a variant's 33..64 in bytes 32..47 */
        int c = r[(n < 32 ? 8 : 16) + n / 2] >> (4 * (n & 1)) & 15;
        if ((c & 7) == 7) return false;
        code[sq] = c;
        promoted[sq] = n < 32 && (marks >> n & 1);
        n++;
    }
    size_t k = 0;
    for (int rank = 7; rank >= 0; rank--) {
        int empty = 0;
        for (int file = 0; file < 8; file++) {
            int c = code[rank * 8 + file];
            if (c < 0) { empty++; continue; }
            if (empty) fen[k++] = (char)('0' + empty);
            empty = 0;
            char ch = "pnbrqkr"[c & 7];
            fen[k++] = c & 8 ? ch : (char)(ch - 32);
            if (promoted[rank * 8 + file]) fen[k++] = '~';
        }
        if (empty) fen[k++] = (char)('0' + empty);
        if (rank) fen[k++] = '/';
    }
    if (variant == VAR_CRAZYHOUSE) {   /* the pockets, as board_get_fen writes them */
        fen[k++] = '[';
        for (int c = 0; c < 2; c++)
            for (int t = 4; t >= 0; t--) {
                if (r[49 + 5 * c + t] > 32) return false;
                for (int i = 0; i < r[49 + 5 * c + t]; i++) fen[k++] = "PNBRQ"[t] + (char)(32 * c);
            }
        fen[k++] = ']';
    }
    int stm = r[24] >> 7, ep = r[24] & 127;
    if (ep > 64) return false;
    fen[k++] = ' ';
    fen[k++] = stm ? 'b' : 'w';
    fen[k++] = ' ';
    size_t rights = k;
    *chess960 = false;
    for (int colour = 0; colour < 2; colour++) {
        int king = -1;
        for (int sq = 0; sq < 64; sq++)
            if (code[sq] == (5 | colour << 3)) king = sq;
        int rooks = 0;
        for (int sq = 63; sq >= 0; sq--) {   /* king side first: KQkq, HAha */
            if (code[sq] != (6 | colour << 3)) continue;
            /* a right needs the king on the back rank beside the rook: at most two */
            if (king < 0 || sq / 8 != 7 * colour || king / 8 != sq / 8 || sq == king ||
                ++rooks > 2)
                return false;
            bool corner = king % 8 == 4 && (sq % 8 == 0 || sq % 8 == 7);
            char ch = corner ? (sq % 8 ? 'K' : 'Q') : (char)('A' + sq % 8);
            fen[k++] = colour ? (char)(ch + 32) : ch;
            *chess960 |= !corner;
        }
    }
    if (k == rights) fen[k++] = '-';
    fen[k] = '\0';
    unsigned fullmove = (unsigned)r[26] | (unsigned)r[27] << 8;
    char ep_field[3] = "-", checks[8] = "";
    if (ep < 64) snprintf(ep_field, sizeof ep_field, "%c%c", 'a' + ep % 8, '1' + ep / 8);
    if (variant == VAR_THREECHECK) {   /* checks left, as board_get_fen writes them */
        if ((r[59] & 15) > 3 || r[59] >> 4 > 3) return false;
        snprintf(checks, sizeof checks, " %d+%d", r[59] & 15, r[59] >> 4);
    }
    snprintf(fen + k, len - k, " %s%s %u %u", ep_field, checks, r[25], fullmove);
    *result = r[30];
    return true;
}

/* Opens a datagen file and checks its header; NULL (and one line on stderr
 * naming the file) if it is not one this run reads (want_variant): a
 * standard-chess file (version 1) without --variant, a version 2 file of
 * that variant with it. *count: whole records; *variant, *rec_size: the
 * file's. */
static FILE *open_records(const char *path, long *count, int *variant, int *rec_size) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "tune: cannot open %s: %s\n", path, strerror(errno));
        return NULL;
    }
    uint8_t h[HEADER_SIZE];
    if (fread(h, 1, HEADER_SIZE, f) != HEADER_SIZE || memcmp(h, MAGIC, 8)) {
        fprintf(stderr, "tune: %s is not a datagen record file (no PIBOTPOS header; make it "
                        "with engine_c/tools/datagen.c)\n", path);
        fclose(f);
        return NULL;
    }
    uint8_t hv[HEADER_SIZE_VAR - HEADER_SIZE];
    bool v1 = le32(h + 8) == REC_VERSION && le32(h + 12) == REC_SIZE;
    bool v2 = le32(h + 8) == REC_VERSION_VAR && le32(h + 12) == REC_SIZE_VAR &&
              fread(hv, 1, sizeof hv, f) == sizeof hv && le32(hv) > VAR_STANDARD && le32(hv) < VAR_COUNT;
    if (!v1 && !v2) {
        fprintf(stderr, "tune: %s: datagen format version %u with %u-byte records; this tuner "
                        "reads version %d (%d bytes) and a variant's version %d (%d bytes)\n", path,
                le32(h + 8), le32(h + 12), REC_VERSION, REC_SIZE, REC_VERSION_VAR, REC_SIZE_VAR);
        fclose(f);
        return NULL;
    }
    *variant = v1 ? VAR_STANDARD : (int)le32(hv);
    *rec_size = v1 ? REC_SIZE : REC_SIZE_VAR;
    if (want_variant >= 0 && *variant != want_variant) {
        if (want_variant == VAR_STANDARD)
            fprintf(stderr, "tune: %s: records of %s (datagen --variant): tune them with --variant %s\n",
                    path, variant_name(*variant), variant_name(*variant));
        else if (*variant == VAR_STANDARD)
            fprintf(stderr, "tune: %s: standard-chess records; --variant %s needs the records of datagen --variant %s\n",
                    path, variant_name(want_variant), variant_name(want_variant));
        else
            fprintf(stderr, "tune: %s: records of %s, not %s\n", path, variant_name(*variant),
                    variant_name(want_variant));
        fclose(f);
        return NULL;
    }
    int header = v1 ? HEADER_SIZE : HEADER_SIZE_VAR;
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (size < 0 || fseek(f, header, SEEK_SET)) {
        fprintf(stderr, "tune: cannot read %s: %s\n", path, strerror(errno));
        fclose(f);
        return NULL;
    }
    *count = (size - header) / *rec_size;
    if ((size - header) % *rec_size)   /* a run killed mid-write */
        fprintf(stderr, "tune: %s: ignoring a torn last record (%ld bytes)\n", path,
                (size - header) % *rec_size);
    return f;
}

/* Calls fn(fen, variant, chess960, result, game, ctx) for each record of
 * path (at most limit in all when limit > 0, counted by *seen); -1 after one
 * error line. A variant file's records must all be of its variant. */
typedef int (*RecordFn)(const char *fen, int variant, bool chess960, int result, int game, void *ctx);

static int each_record(const char *path, long limit, long *seen, RecordFn fn, void *ctx) {
    long count;
    int variant, rec_size;
    FILE *f = open_records(path, &count, &variant, &rec_size);
    if (!f) return -1;
    static uint8_t buf[256 * REC_SIZE_VAR];
    int rc = 0;
    for (long i = 0; i < count && !rc && (limit <= 0 || *seen < limit);) {
        size_t want = (size_t)(count - i < 256 ? count - i : 256);
        if (fread(buf, (size_t)rec_size, want, f) != want) {
            fprintf(stderr, "tune: cannot read %s: %s\n", path, ferror(f) ? strerror(errno)
                                                                          : "file shrank");
            rc = -1;
            break;
        }
        for (size_t j = 0; j < want && !rc && (limit <= 0 || *seen < limit); j++, i++) {
            char fen[256];
            bool c960;
            int result;
            const uint8_t *r = buf + j * (size_t)rec_size;
            if (variant != VAR_STANDARD && r[48] != variant) {
                fprintf(stderr, "tune: %s: record %ld is of %s, not %s as the file says\n", path, i,
                        r[48] < VAR_COUNT ? variant_name(r[48]) : "no variant", variant_name(variant));
                rc = -1;
                break;
            }
            if (!record_fen(r, variant, fen, sizeof fen, &c960, &result)) {
                fprintf(stderr, "tune: %s: record %ld is not a datagen position record\n",
                        path, i);
                rc = -1;
                break;
            }
            rc = fn(fen, variant, c960, result, r[31], ctx);
            if (rc) fprintf(stderr, "tune: %s: record %ld: %s\n", path, i,
                            rc == -2 ? "out of memory" : "not a legal position");
            (*seen)++;
        }
    }
    fclose(f);
    return rc ? -1 : 0;
}

typedef struct {
    Data *d;
    Board *b;
    EvalTrace *t;
} LoadCtx;

/* Does path exist and start with the datagen magic? */
static bool is_records(const char *path) {
    FILE *f = fopen(path, "rb");
    char magic[sizeof MAGIC];
    bool yes = f && fread(magic, 1, sizeof magic, f) == sizeof magic && !memcmp(magic, MAGIC, 8);
    if (f) fclose(f);
    return yes;
}

static int load_one(const char *fen, int variant, bool chess960, int result, int game, void *ctx) {
    LoadCtx *c = ctx;
    Data *d = c->d;
    if (board_set_fen_variant(c->b, fen, variant, chess960, NULL, 0) != PB_OK) return -1;
    eval_evaluate_with(c->b, hce_set->start, c->t);
    /* the variant's eval is chess's (these weights) plus its own terms */
    int full = variant == VAR_STANDARD ? 0 : variant_eval(c->b);
    int offset = variant == VAR_STANDARD ? 0 : (c->b->side == WHITE ? full : -full) - c->t->eval;
    if (d->npos == d->cap_pos) {
        int cap = d->cap_pos ? d->cap_pos * 2 : 1 << 16;
        void *p = realloc(d->pos, (size_t)cap * sizeof(Pos));
        if (!p) return -2;
        d->pos = p;
        d->cap_pos = cap;
    }
    if (d->nent + EVAL_NPARAMS > d->cap_ent) {
        int cap = d->cap_ent ? d->cap_ent * 2 : 1 << 22;
        void *p = realloc(d->ent, (size_t)cap * sizeof(Entry));
        if (!p) return -2;
        d->ent = p;
        d->cap_ent = cap;
    }
    const EvalTrace *t = c->t;
    Pos *p = &d->pos[d->npos++];
    p->first = d->nent;
    p->n = 0;
    for (int i = 0; i < EVAL_NPARAMS; i++) {
        int coef = t->coef[i][WHITE] - t->coef[i][BLACK];
        if (coef) {
            d->ent[d->nent].idx = (int16_t)i;
            d->ent[d->nent].coef = (int16_t)coef;
            d->nent++;
            p->n++;
        }
    }
    p->phase_mg = (float)(t->phase / 24.0 * t->scale / 128.0);
    p->phase_eg = (float)((24 - t->phase) / 24.0 * t->scale / 128.0);
    p->result = (float)(result / 2.0);
    p->offset = (float)offset;
    p->eval = t->eval + offset;
    /* Whole games: positions of one game share a result and are too alike to
     * tell fitting from overfitting. */
    p->val = game % VAL_EVERY == VAL_EVERY - 1;
    return 0;
}

static int load(char **paths, int npaths, Data *d, long limit) {
    LoadCtx c = {d, malloc(sizeof(Board)), malloc(sizeof(EvalTrace))};
    long seen = 0;
    int rc = c.b && c.t ? 0 : -1;
    if (rc) fprintf(stderr, "tune: out of memory\n");
    for (int i = 0; i < npaths && !rc && (limit <= 0 || seen < limit); i++)
        rc = each_record(paths[i], limit, &seen, load_one, &c);
    free(c.b);
    free(c.t);
    return rc;
}

/* --fens: the position as the engine's parser read it (board_get_fen), so a
 * check against another reader covers the tuner's whole decoding. */
static int print_one(const char *fen, int variant, bool chess960, int result, int game, void *ctx) {
    (void)game;
    char out[256];
    if (board_set_fen_variant(ctx, fen, variant, chess960, NULL, 0) != PB_OK) return -1;
    board_get_fen(ctx, out, sizeof out);
    printf("%s | %s\n", out, result == 2 ? "1.0" : result == 1 ? "0.5" : "0.0");
    return 0;
}

static double mse(const Data *d, double k, double (*w)[2], int want_val) {
    double sum = 0;
    long n = 0;
    for (int i = 0; i < d->npos; i++) {
        if (d->pos[i].val != want_val) continue;
        double s = sigmoid(k, w ? lin_eval(&d->pos[i], d->ent, w) : d->pos[i].eval);
        double e = d->pos[i].result - s;
        sum += e * e;
        n++;
    }
    return n ? sum / n : 0;
}

/* The K that minimises err(ctx, K), by golden-section search: the error is
 * unimodal in K. */
static double golden_k(double (*err)(const void *ctx, double k), const void *ctx) {
    double lo = 0.05, hi = 5.0, g = (sqrt(5.0) - 1) / 2;
    double a = hi - g * (hi - lo), b = lo + g * (hi - lo);
    double fa = err(ctx, a), fb = err(ctx, b);
    for (int it = 0; it < 60; it++) {
        if (fa < fb) { hi = b; b = a; fb = fa; a = hi - g * (hi - lo); fa = err(ctx, a); }
        else { lo = a; a = b; fa = fb; b = lo + g * (hi - lo); fb = err(ctx, b); }
    }
    return (lo + hi) / 2;
}

typedef struct { const Data *d; double (*w)[2]; } FitCtx;

static double fit_err(const void *ctx, double k) {
    const FitCtx *c = ctx;
    return mse(c->d, k, c->w, 0);
}

static double fit_k(const Data *d, double (*w)[2]) {
    FitCtx c = {d, w};
    return golden_k(fit_err, &c);
}

/* Sum over N, B, R, Q of material plus the mean piece-square value, mg and
 * eg averaged: the overall scale of the eval in pawn-ish units. */
static double piece_scale(double (*w)[2]) {
    const EvalParams *layout = hce_set->start;
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
        fprintf(stderr, "tune: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (hce_set->variant == VAR_STANDARD)
        fprintf(f, "/* evalparams.h — evaluation weights, S(mg, eg); included only by eval.c.\n"
                   " * Generated by tools/tune/initial_params.py (untuned starting point) or by\n"
                   " * engine_c/tools/tune.c (Texel-tuned); see docs/tuning.md. Do not edit by hand.\n"
                   " * %s */\n", note);
    else
        fprintf(f, "/* %s — %s's own set of chess's hand-crafted weights (EvalParams, S(mg, eg));\n"
                   " * included only by eval.c. Written by engine_c/tools/tune.c --variant %s --hce (the\n"
                   " * weights fitted on %s games, the variant's own terms a fixed offset; docs/tuning.md).\n"
                   " * Do not edit by hand.\n"
                   " * %s */\n", hce_set->file, variant_name(hce_set->variant),
                variant_name(hce_set->variant), variant_name(hce_set->variant), note);
    fprintf(f, "const EvalParams %s = {\n", hce_set->symbol);
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

/* ---- --variant NAME: the variant's weights (VariantParams, variant_eval.h) ----
 *
 * The variant eval is not linear in its weights (a capped king danger, the
 * win-in-one returns, divisions), so instead of the gradient on a trace this
 * is Texel's local search on the eval itself: for each of the variant's
 * weights in turn try w + step, then w - step, and keep a change that lowers
 * the training error; a pass that keeps none halves the step; stop at
 * --epochs passes or when a pass at step 1 keeps none. K is fitted once, with
 * the starting weights, and held: the standard weights (which four of the
 * variants' evals add to) stay fixed and anchor the scale, so there is no
 * rescale, and nothing outside the variant's group is written differently.
 * King of the hill, three-check and crazyhouse play on chess's net (the
 * built-in one) plus their terms (variant_on_chess), so their terms are fitted
 * on that base by default (--base net: the net's score of each position,
 * computed once at load); --base hce fits them on the standard HCE, as they
 * play with UseNNUE off. */

typedef struct {
    int variant, epochs, step;
    double kfix;
    long limit;
    const char *freeze;
    bool keep_last;
    bool hce_base;     /* a variant on chess: the standard HCE under the terms, not the net */
    bool evals;        /* print each position's eval and stop (--evals 1) */
} VarOpts;

typedef struct {
    char (*fen)[256];
    float *result;
    bool *val;
    int *base;         /* chess's net's eval of each board (side to move's view), or NULL */
    int n, cap;
    int variant;
    Board *b;
    const NnueNet *net;   /* the base's net, or NULL: the terms on the HCE or no chess base */
    NnueAcc *acc;
} VarData;

static int load_var_one(const char *fen, int variant, bool chess960, int result, int game, void *ctx) {
    VarData *d = ctx;
    if (chess960 || board_set_fen_variant(d->b, fen, variant, false, NULL, 0) != PB_OK) return -1;
    if (d->n == d->cap) {
        int cap = d->cap ? d->cap * 2 : 1 << 12;
        void *f = realloc(d->fen, (size_t)cap * sizeof *d->fen), *r = f ? realloc(d->result, (size_t)cap * sizeof(float)) : NULL,
             *v = r ? realloc(d->val, (size_t)cap * sizeof(bool)) : NULL,
             *e = v ? realloc(d->base, (size_t)cap * sizeof(int)) : NULL;
        if (f) d->fen = f;
        if (r) d->result = r;
        if (v) d->val = v;
        if (!e) return -2;
        d->base = e;
        d->cap = cap;
    }
    if (d->net) {
        nnue_refresh(d->net, d->acc, d->b);
        d->base[d->n] = nnue_output(d->net, d->acc, d->b);
    }
    snprintf(d->fen[d->n], sizeof d->fen[0], "%s", fen);
    d->result[d->n] = (float)(result / 2.0);
    d->val[d->n] = game % VAL_EVERY == VAL_EVERY - 1;
    d->n++;
    return 0;
}

/* Every position's eval (White's view) with weights w. */
static void var_evals(VarData *d, const VariantParams *w, int *out) {
    for (int i = 0; i < d->n; i++) {
        board_set_fen_variant(d->b, d->fen[i], d->variant, false, NULL, 0);
        int v = d->net ? variant_eval_on_chess_with(d->b, w, d->base[i]) : variant_eval_with(d->b, w);
        out[i] = d->b->side == WHITE ? v : -v;
    }
}

static double var_mse(const VarData *d, const int *ev, double k, int want_val) {
    double sum = 0;
    long n = 0;
    for (int i = 0; i < d->n; i++) {
        if (d->val[i] != want_val) continue;
        double e = d->result[i] - sigmoid(k, ev[i]);
        sum += e * e;
        n++;
    }
    return n ? sum / n : 0;
}

typedef struct { const VarData *d; const int *ev; } VarFitCtx;

static double var_fit_err(const void *ctx, double k) {
    const VarFitCtx *c = ctx;
    return var_mse(c->d, c->ev, k, 0);
}

static double var_fit_k(const VarData *d, const int *ev) {
    VarFitCtx c = {d, ev};
    return golden_k(var_fit_err, &c);
}

/* The group notes ("    / * NAME: note * /" lines) of an existing header at
 * path, so that rewriting one variant's group keeps the others' words. */
static void read_notes(const char *path, char notes[VAR_COUNT][256]) {
    for (int v = 0; v < VAR_COUNT; v++) snprintf(notes[v], sizeof notes[v], "as built");
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "    /* ", 7)) continue;
        char *colon = strstr(line, ": "), *end = strstr(line, " */");
        if (!colon || !end || end < colon) continue;
        *colon = 0;
        int v = variant_from_name(line + 7);
        if (v <= VAR_STANDARD || v >= VAR_COUNT) continue;
        *end = 0;
        snprintf(notes[v], sizeof notes[v], "%s", colon + 2);
    }
    fclose(f);
}

static int write_variant_header(const char *path, const int *w, int variant, const char *note) {
    char notes[VAR_COUNT][256];
    read_notes(path, notes);
    snprintf(notes[variant], sizeof notes[variant], "%s", note);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "tune: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    fputs("/* variant_params.h — the variants' evaluation weights (VariantParams, variant_eval.h);\n"
          " * included only by variant_eval.c. Set by hand, or written by engine_c/tools/tune.c\n"
          " * --variant NAME (Texel-tuned, one variant's group at a time, the others copied);\n"
          " * see docs/tuning.md \"The variants' weights\". Do not edit by hand. */\n"
          "const VariantParams VariantDefaultParams = {\n", f);
    int group = -1;
    for (int t = 0; t < VariantParamTableCount; t++) {
        const VariantParamInfo *p = &VariantParamTable[t];
        if (p->variant != group) {
            group = p->variant;
            fprintf(f, "    /* %s: %s */\n", variant_name(group), notes[group]);
        }
        fprintf(f, "    .%s = ", p->name);
        if (p->count == 1) {
            fprintf(f, "%d", w[p->offset]);
        } else {
            fputc('{', f);
            for (int i = 0; i < p->count; i++) fprintf(f, i ? ", %d" : "%d", w[p->offset + i]);
            fputc('}', f);
        }
        fputs(",\n", f);
    }
    fputs("};\n", f);
    return fclose(f) == 0 ? 0 : -1;
}

static void var_data_free(VarData *d) {
    free(d->fen);
    free(d->result);
    free(d->val);
    free(d->base);
    free(d->b);
}

/* --evals 1: each position as "<FEN> | <eval>" (White's view, the build's weights) on stdout. */
static int print_var_evals(const VarData *d, const int *ev) {
    for (int i = 0; i < d->n; i++) printf("%s | %d\n", d->fen[i], ev[i]);
    return fflush(stdout) ? 1 : 0;
}

static int tune_variant(char **data, int ndata, const char *out, const VarOpts *o) {
    const int variant = o->variant;
    const char *freeze = o->freeze;
    int step = o->step;
    /* the variant's weights the search may move: its group, less the
     * untuned fields and --freeze's (checked before the data is read) */
    VariantParams w = VariantDefaultParams;
    int *wi = (int *)&w;
    int idx[VARIANT_NPARAMS], nidx = 0;
    bool frozen[VARIANT_NPARAMS] = {false};
    for (const char *f = freeze; *f;) {
        size_t len = strcspn(f, ",");
        char tok[64];
        snprintf(tok, sizeof(tok), "%.*s", (int)(len < 63 ? len : 63), f);
        f += len + (f[len] == ',');
        int t = 0;
        while (t < VariantParamTableCount && (strcmp(VariantParamTable[t].name, tok) ||
                                              VariantParamTable[t].variant != variant)) t++;
        if (t == VariantParamTableCount) {
            fprintf(stderr, "--freeze: unknown weight '%s' (use a VariantParams field of %s's)\n", tok,
                    variant_name(variant));
            return 2;
        }
        for (int i = 0; i < VariantParamTable[t].count; i++) frozen[VariantParamTable[t].offset + i] = true;
    }
    for (int t = 0; t < VariantParamTableCount; t++) {
        const VariantParamInfo *p = &VariantParamTable[t];
        if (p->variant != variant || !p->tuned) continue;
        for (int i = 0; i < p->count; i++)
            if (!frozen[p->offset + i]) idx[nidx++] = p->offset + i;
    }
    VarData d = {.variant = variant, .b = malloc(sizeof(Board))};
    if (variant_on_chess(variant) && !o->hce_base) {
        int err = 0;
        d.net = nnue_default(&err);
        if (!d.net) {
            fprintf(stderr, "tune: the built-in net: %s (rebuild it, or tune on --base hce)\n",
                    nnue_strerror(err));
            return 1;
        }
        d.acc = aligned_alloc(64, sizeof(NnueAcc));
    }
    long seen = 0;
    int rc = d.b && (!d.net || d.acc) ? 0 : -1;
    if (rc) fprintf(stderr, "tune: out of memory\n");
    for (int i = 0; i < ndata && !rc && (o->limit <= 0 || seen < o->limit); i++)
        rc = each_record(data[i], o->limit, &seen, load_var_one, &d);
    free(d.acc);
    if (rc) return 1;
    const char *base = !variant_on_chess(variant) ? "" : d.net ? ", on chess's net" : ", on the HCE";
    long nval = 0;
    for (int i = 0; i < d.n; i++) nval += d.val[i];
    int *ev = malloc((size_t)(d.n ? d.n : 1) * sizeof(int));
    if (!ev) {
        fprintf(stderr, "tune: out of memory\n");
        return 1;
    }
    var_evals(&d, &w, ev);
    if (o->evals) {
        rc = print_var_evals(&d, ev);
        free(ev);
        var_data_free(&d);
        return rc;
    }
    if (d.n < 100 || nval == 0) {
        fprintf(stderr, "tune: %d positions, %ld of them held out (games 9 mod 10): generate "
                        "more games first\n", d.n, nval);
        return 1;
    }
    double k = o->kfix > 0 ? o->kfix : var_fit_k(&d, ev);
    double best = var_mse(&d, ev, k, 0), best_val = var_mse(&d, ev, k, 1);
    fprintf(stderr, "variant %s%s: positions %d (%ld held out), %d weights to tune\n", variant_name(variant),
            base, d.n, nval, nidx);
    fprintf(stderr, "K = %.4f  train mse %.6f  val mse %.6f\n", k, best, best_val);
    VariantParams best_w = w;
    int best_epoch = 0, ep = 0, kept_total = 0;
    const int epochs = o->epochs;
    for (ep = 1; ep <= epochs; ep++) {
        int kept = 0;
        for (int j = 0; j < nidx; j++) {
            /* a small weight (a king-attack unit of 1) moves by at most a quarter of its start */
            int i = idx[j], start = wi[i], base = abs(((const int *)&VariantDefaultParams)[i]);
            int s = base / 4 < step ? (base / 4 > 1 ? base / 4 : 1) : step;
            for (int sign = 1; sign >= -1; sign -= 2) {
                wi[i] = start + sign * s;
                var_evals(&d, &w, ev);
                double e = var_mse(&d, ev, k, 0);
                if (e < best) {
                    best = e;
                    kept++;
                    break;
                }
                wi[i] = start;
            }
        }
        kept_total += kept;
        var_evals(&d, &w, ev);
        double val = var_mse(&d, ev, k, 1);
        fprintf(stderr, "epoch %d  step %d  kept %d  train mse %.6f  val mse %.6f\n", ep, step, kept, best, val);
        /* early stopping: keep the weights with the best held-out error */
        if (val < best_val) {
            best_val = val;
            best_epoch = ep;
            best_w = w;
        }
        if (!kept) {
            if (step == 1) break;
            step /= 2;
        }
    }
    fprintf(stderr, "best val mse %.6f at epoch %d (%d changes kept in all)%s\n", best_val, best_epoch, kept_total,
            o->keep_last ? " (ignored: --keep-last)" : "");
    if (o->keep_last) {
        best_w = w;
        best_epoch = ep > epochs ? epochs : ep;
    }
    char note[256], more[32] = "";
    const char *name = strrchr(data[0], '/') ? strrchr(data[0], '/') + 1 : data[0];
    if (ndata > 1) snprintf(more, sizeof more, " and %d more file(s)", ndata - 1);
    snprintf(note, sizeof(note), "tuned on %d positions (%.60s%s)%s, K=%.4f, epoch %d of %d", d.n, name, more,
             base, k, best_epoch, ep > epochs ? epochs : ep);
    if (write_variant_header(out, (const int *)&best_w, variant, note) != 0) return 1;
    fprintf(stderr, "wrote %s\n", out);
    free(ev);
    var_data_free(&d);
    return 0;
}

static const char USAGE[] =
    "usage: tune DATA... --out HEADER [--epochs N] [--lr X] [--limit N] [--k K] [--l2 X]\n"
    "            [--freeze name,name,...] [--keep-last 1]\n"
    "       tune --variant NAME DATA... --out HEADER [--epochs N] [--step N] [--limit N] [--k K]\n"
    "            [--freeze name,name,...] [--keep-last 1] [--base net|hce]\n"
    "            (a variant's weights: HEADER a variant_params.h; --base: what king of the hill's,\n"
    "            three-check's and crazyhouse's terms sit on, chess's built-in net by default)\n"
    "       tune --variant NAME DATA... --evals 1 [--base net|hce]   (each position's eval)\n"
    "       tune --variant horde|atomic --hce 1 DATA... --out HEADER [the first form's options]\n"
    "            (that variant's own set of chess's weights: HEADER an evalparams_horde.h or _atomic.h)\n"
    "       tune --fens DATA...\n"
    "DATA: position records of engine_c/tools/datagen.c (a variant's: datagen --variant NAME)\n";

int main(int argc, char **argv) {
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        fputs(USAGE, stdout);
        return 0;
    }
    board_init_tables();
    if (argc > 1 && !strcmp(argv[1], "--fens")) {
        long seen = 0;
        want_variant = -1;
        if (argc < 3) {
            fprintf(stderr, "tune: --fens needs one or more datagen files\n");
            return 2;
        }
        Board *b = malloc(sizeof *b);
        int rc = b ? 0 : 1;
        for (int i = 2; i < argc && !rc; i++)
            rc = each_record(argv[i], 0, &seen, print_one, b) ? 1 : 0;
        free(b);
        return fflush(stdout) || rc ? 1 : 0;
    }
    int epochs = -1, step = 0;   /* -1: the default, 1000 (--variant: 20 passes) */
    const char *variant = NULL, *base = NULL;
    bool evals = false, hce = false;
    double lr = 10000.0, kfix = 0, l2 = 0;
    const char *freeze = "", *out = NULL;
    bool keep_last = false;   /* write the last epoch, not the best validated one */
    long limit = 0;
    /* the data files, in order (argv outlives them) */
    char **data = malloc((size_t)argc * sizeof *data);
    int ndata = 0;
    if (!data) {
        fprintf(stderr, "tune: out of memory\n");
        return 1;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "--", 2)) {
            data[ndata++] = argv[i];
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "tune: %s needs a value (tune --help)\n", a);
            return 2;
        }
        const char *v = argv[++i];
        if (!strcmp(a, "--out")) out = v;
        else if (!strcmp(a, "--epochs")) epochs = atoi(v);
        else if (!strcmp(a, "--lr")) lr = atof(v);
        else if (!strcmp(a, "--limit")) limit = atol(v);
        else if (!strcmp(a, "--k")) kfix = atof(v);
        else if (!strcmp(a, "--l2")) l2 = atof(v);
        else if (!strcmp(a, "--freeze")) freeze = v;
        else if (!strcmp(a, "--keep-last")) keep_last = atoi(v) != 0;
        else if (!strcmp(a, "--variant")) variant = v;
        else if (!strcmp(a, "--step")) step = atoi(v);
        else if (!strcmp(a, "--base")) base = v;
        else if (!strcmp(a, "--evals")) evals = atoi(v) != 0;
        else if (!strcmp(a, "--hce")) hce = atoi(v) != 0;
        else {
            fprintf(stderr, "tune: unknown option %s (expected --out, --epochs, --lr, --limit, "
                            "--k, --l2, --freeze, --keep-last, --variant, --step, --base, --evals "
                            "or --hce)\n", a);
            return 2;
        }
    }
    if ((base || evals || hce) && !variant) {
        fprintf(stderr, "tune: --base, --evals and --hce are for --variant NAME\n");
        return 2;
    }
    if (!ndata || (!out && !evals)) {
        fprintf(stderr, "tune: %s (tune --help)\n", !ndata ? "no data files given"
                                                           : "--out HEADER is required");
        return 2;
    }
    /* A slip of the arguments must not overwrite data that took hours to make. */
    if (out && is_records(out)) {
        fprintf(stderr, "tune: --out %s holds datagen records: not overwriting it\n", out);
        return 2;
    }
    if (variant && hce) {
        int var = variant_from_name(variant);
        for (size_t i = 1; i < sizeof HceSets / sizeof HceSets[0]; i++)
            if (HceSets[i].variant == var) hce_set = &HceSets[i];
        if (hce_set->variant == VAR_STANDARD || step || base || evals) {
            fprintf(stderr, "tune: --hce fits the horde's or atomic's own set of chess's weights "
                            "(--variant horde or atomic; not with --step, --base or --evals)\n");
            return 2;
        }
        want_variant = var;
    } else if (variant) {
        int var = variant_from_name(variant);
        if (var <= VAR_STANDARD || !board_variant_supported(var)) {
            fprintf(stderr, "tune: --variant %s: not a variant (kingofthehill, 3check, crazyhouse, atomic, "
                            "antichess, racingkings, horde)\n", variant);
            return 2;
        }
        if (step < 0 || epochs == 0 || epochs < -1) {
            fprintf(stderr, "tune: --step and --epochs must be positive\n");
            return 2;
        }
        if (base && strcmp(base, "net") && strcmp(base, "hce")) {
            fprintf(stderr, "tune: --base %s: expected net (chess's built-in net) or hce\n", base);
            return 2;
        }
        if (base && !variant_on_chess(var)) {
            fprintf(stderr, "tune: --base: %s's eval is its own; --base is for kingofthehill, 3check and "
                            "crazyhouse, whose terms sit on chess's eval\n", variant);
            return 2;
        }
        want_variant = var;
        VarOpts o = {.variant = var, .epochs = epochs > 0 ? epochs : 20, .step = step ? step : 8,
                     .kfix = kfix, .limit = limit, .freeze = freeze, .keep_last = keep_last,
                     .hce_base = base && !strcmp(base, "hce"), .evals = evals};
        int rc = tune_variant(data, ndata, out, &o);
        free(data);
        return rc;
    }
    if (step) {
        fprintf(stderr, "tune: --step is for --variant's local search\n");
        return 2;
    }
    if (epochs < 0) epochs = 1000;
    Data d = {0};
    if (load(data, ndata, &d, limit) != 0) return 1;
    long nval = 0;
    for (int i = 0; i < d.npos; i++) nval += d.pos[i].val;
    if (d.npos < 100 || nval == 0) {
        fprintf(stderr, "tune: %d positions, %ld of them held out (games 9 mod 10): generate "
                        "more games first\n", d.npos, nval);
        return 1;
    }
    static double best_w[EVAL_NPARAMS][2], init_w[EVAL_NPARAMS][2], w[EVAL_NPARAMS][2], m[EVAL_NPARAMS][2], g[EVAL_NPARAMS][2];
    const Score *init = (const Score *)hce_set->start;
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
    for (int i = 0; i < d.npos; i++) ntrain += !d.pos[i].val;
    for (int ep = 1; ep <= epochs; ep++) {
        memset(g, 0, sizeof(g));
        for (int i = 0; i < d.npos; i++) {
            if (d.pos[i].val) continue;
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
     * search margins assume (a low K otherwise inflates every weight). A
     * variant's fixed terms break that invariance and anchor the scale
     * themselves: no rescale there. */
    double before = piece_scale(init_w), after = piece_scale(w);
    double c = hce_set->variant == VAR_STANDARD ? before / after : 1.0;
    for (int i = 0; i < EVAL_NPARAMS; i++) {
        w[i][0] *= c;
        w[i][1] *= c;
    }
    fprintf(stderr, "normalised by %.3f (effective K %.4f): val mse %.6f\n", c, k / c,
            mse(&d, k / c, w, 1));
    k /= c;
    char note[320], more[32] = "";
    const char *name = strrchr(data[0], '/') ? strrchr(data[0], '/') + 1 : data[0];
    if (ndata > 1) snprintf(more, sizeof more, " and %d more file(s)", ndata - 1);
    snprintf(note, sizeof(note), "Tuned on %d positions (%.100s%s), K=%.4f, lr %g, l2 %g, epoch %d of %d.",
             d.npos, name, more, k, lr, l2, best_epoch, epochs);
    if (write_header(out, w, note) != 0) return 1;
    fprintf(stderr, "wrote %s\n", out);
    for (int pt = PAWN; pt <= QUEEN; pt++)
        fprintf(stderr, "material[%d] %+.0f %+.0f\n", pt, w[pt][0], w[pt][1]);
    free(d.pos);
    free(d.ent);
    free(data);
    return 0;
}
