/* strength.c — a level's parameters, its choice among the root lines and its
 * think time (strength.h says how a level plays). */
#include "strength.h"

#include <math.h>

typedef struct { int elo, nodes, depth, multipv, spread, max_loss, think; } Anchor;

#define STRENGTH_ROW(elo, nodes, depth, multipv, spread, max_loss, think) \
    {elo, nodes, depth, multipv, spread, max_loss, think},
static const Anchor Anchors[] = {STRENGTH_ANCHORS(STRENGTH_ROW)};
#undef STRENGTH_ROW
enum { NANCHORS = (int)(sizeof Anchors / sizeof Anchors[0]) };

#define STRENGTH_CHECK(elo, nodes, depth, multipv, spread, max_loss, think)                      \
    _Static_assert((elo) >= PB_STRENGTH_MIN_ELO, "anchor in range");                                \
    _Static_assert((multipv) >= 1 && (multipv) <= SEARCH_MAX_MULTIPV, "candidates");             \
    _Static_assert((max_loss) >= 0 && (think) <= STRENGTH_THINK_MAX_PCT, "bounded choice and time");
STRENGTH_ANCHORS(STRENGTH_CHECK)
#undef STRENGTH_CHECK

int strength_clamp(int elo) {
    if (elo <= 0) return 0;
    return elo < PB_STRENGTH_MIN_ELO ? PB_STRENGTH_MIN_ELO : elo > PB_STRENGTH_MAX_ELO ? PB_STRENGTH_MAX_ELO : elo;
}

static int lerp(int a, int b, double f) { return (int)lround(a + (b - a) * f); }

typedef struct { int elo, shift; } Shift;
#define SHIFT_ROW(elo, shift) {elo, shift},
static const Shift Shifts[] = {STRENGTH_SHIFTS(SHIFT_ROW)};
#undef SHIFT_ROW
enum { NSHIFTS = (int)(sizeof Shifts / sizeof Shifts[0]) };
#define SHIFT_CHECK(elo, shift) \
    _Static_assert((elo) >= PB_STRENGTH_MIN_ELO && (elo) <= PB_STRENGTH_MAX_ELO, "shift row in range");
STRENGTH_SHIFTS(SHIFT_CHECK)
#undef SHIFT_CHECK

/* The Elo whose anchor parameters level `elo` plays (its calibration shift added). */
static int shifted_elo(int elo) {
    int i = 0;
    while (i + 2 < NSHIFTS && Shifts[i + 1].elo <= elo) i++;
    const Shift *a = &Shifts[i], *b = &Shifts[i + 1];
    double f = elo <= a->elo ? 0.0 : elo >= b->elo ? 1.0 : (double)(elo - a->elo) / (b->elo - a->elo);
    int played = elo + lerp(a->shift, b->shift, f), top = Anchors[NANCHORS - 1].elo;
    return played < PB_STRENGTH_MIN_ELO ? PB_STRENGTH_MIN_ELO : played > top ? top : played;
}

void strength_params(int elo, PbStrengthParams *out) {
    elo = strength_clamp(elo);
    if (elo == 0) elo = PB_STRENGTH_MAX_ELO;
    out->elo = elo;
    elo = shifted_elo(elo);
    /* The rows cover the range: the first at or below elo, and the next. */
    int i = 0;
    while (i + 2 < NANCHORS && Anchors[i + 1].elo <= elo) i++;
    const Anchor *a = &Anchors[i], *b = &Anchors[i + 1];
    double f = elo <= a->elo ? 0.0 : elo >= b->elo ? 1.0 : (double)(elo - a->elo) / (b->elo - a->elo);
    out->nodes = (uint64_t)llround(a->nodes * pow((double)b->nodes / a->nodes, f));
    out->depth = lerp(a->depth, b->depth, f);
    out->multipv = lerp(a->multipv, b->multipv, f);
    out->spread_cp = lerp(a->spread, b->spread, f);
    out->max_loss_cp = lerp(a->max_loss, b->max_loss, f);
    out->think_pct = lerp(a->think, b->think, f);
}

uint64_t strength_seed(uint64_t seed) {
    uint64_t z = seed + 0x9e3779b97f4a7c15ULL;   /* splitmix64: any seed, 0 too */
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return z ? z : 0x9e3779b97f4a7c15ULL;        /* xorshift's state is never 0 */
}

uint64_t strength_rand(uint64_t *s) {
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545f4914f6cdd1dULL;
}

/* Uniform in 0..n (n >= 0). */
static int rand_upto(uint64_t *rng, int n) { return (int)((strength_rand(rng) >> 11) % (uint64_t)(n + 1)); }

int strength_pick(const PbStrengthParams *p, const RootLine *lines, int n, uint64_t *rng) {
    int k = n < p->multipv ? n : p->multipv;
    int best = 0, best_value = 0;
    for (int i = 0; i < k; i++) {
        /* Sorted best first: once one is too far below, so are the rest
         * (a mate against us, or a lost mate for us, always is). */
        int loss = lines[0].score - lines[i].score;
        if (loss > p->max_loss_cp) break;
        int value = rand_upto(rng, p->spread_cp) - loss;
        if (i == 0 || value > best_value) { best = i; best_value = value; }
    }
    return best;
}

int64_t strength_think_ms(const PbStrengthParams *p, const RootLine *lines, int n, int legal,
                          int64_t soft_ms, uint64_t *rng) {
    if (soft_ms <= 0) return 0;
    int factor = STRENGTH_THINK_FORCED_PCT;
    if (legal > 1 && n > 1) {
        int gap = lines[0].score - lines[1].score;
        if (gap <= STRENGTH_THINK_CLOSE_CP) factor = STRENGTH_THINK_CLOSE_PCT;
        else if (gap >= STRENGTH_THINK_CLEAR_CP) factor = STRENGTH_THINK_CLEAR_PCT;
        else factor = STRENGTH_THINK_CLOSE_PCT - (STRENGTH_THINK_CLOSE_PCT - STRENGTH_THINK_CLEAR_PCT) *
                      (gap - STRENGTH_THINK_CLOSE_CP) / (STRENGTH_THINK_CLEAR_CP - STRENGTH_THINK_CLOSE_CP);
    } else if (legal > 1) {
        factor = 100;
    }
    int jitter = 100 - STRENGTH_THINK_JITTER_PCT + rand_upto(rng, 2 * STRENGTH_THINK_JITTER_PCT);
    int64_t ms = soft_ms * p->think_pct / 100 * factor / 100 * jitter / 100;
    int64_t cap = soft_ms * STRENGTH_THINK_MAX_PCT / 100;
    return ms < cap ? ms : cap;
}
