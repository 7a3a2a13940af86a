/* timeman.c — soft/hard budgets from the clock, stability and node-share scaling. */
#include "timeman.h"
#include <time.h>

int64_t tm_now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

void tm_init(TimeMan *tm, const TimeInput *in, int side, int64_t overhead_ms) {
    tm->start_us = tm_now_us();
    tm->credit_ms = 0;
    tm->soft_ms = tm->hard_ms = 0;
    tm->limited = false;
    tm->fixed = false;
    if (overhead_ms < 0) overhead_ms = 0;
    if (in->movetime >= 0) {
        int64_t t = max64(1, in->movetime - overhead_ms);
        tm->soft_ms = tm->hard_ms = t;
        tm->limited = true;
        tm->fixed = true;
        return;
    }
    int64_t time = side == 0 ? in->wtime : in->btime;
    int64_t inc = side == 0 ? in->winc : in->binc;
    if (time < 0) {
        /* No clock at all: no time limit. But a clock given for the other
         * side (or an increment) means ours was left out: that is an empty
         * clock, not an unlimited search. */
        if (in->wtime < 0 && in->btime < 0 && in->winc < 0 && in->binc < 0) return;
        time = 0;
    }
    if (inc < 0) inc = 0;
    tm->limited = true;
    /* What we can spend without flagging: the clock minus the overhead for
     * every move still to play before the next time control (up to a few),
     * so latency spikes on consecutive moves cannot add up to a loss. */
    int mtg = in->movestogo > 0 ? (in->movestogo < 40 ? in->movestogo : 40) : TM_INC_MOVES_TO_GO;
    int64_t reserve = overhead_ms * (mtg < 5 ? mtg : 5);
    int64_t usable = max64(1, time - reserve);
    int64_t soft = usable / mtg + inc * 3 / 4;
    int64_t hard = usable / TM_HARD_CLOCK_DIV + inc;
    /* Never plan to use more than what is really there. */
    int64_t cap = max64(1, time - overhead_ms);
    if (in->movestogo == 1) cap = max64(1, time - 2 * overhead_ms);
    soft = min64(soft, cap * 6 / 10);
    hard = min64(hard, cap * 8 / 10);
    /* Clock down to the overhead reserve: spend well under the increment so
     * the real per-move latency (GUI, network, a busy CPU) cannot drain what
     * is left; the clock then climbs back above the reserve. */
    if (time < reserve + inc) {
        soft = min64(soft, inc / 3);
        hard = min64(hard, inc * 2 / 3);
    }
    /* Without an increment the clock never climbs back, and the formulas
     * above give ~1 ms once it nears the reserve: a won ending would be
     * played at depth 1 to the end. Spend a small fraction of what is left
     * after this move's overhead instead (a geometric series); in sudden
     * death, of what is left beyond the latency of the moves to come
     * (timeman.h: TM_LATENCY_MOVES). */
    if (inc == 0 && in->movestogo > 0) {
        int64_t left = max64(0, time - overhead_ms);
        soft = max64(soft, min64(left / TM_NOINC_SOFT_DIV, cap * 6 / 10));
        hard = max64(hard, min64(left / TM_NOINC_HARD_DIV, cap * 8 / 10));
    } else if (inc == 0) {
        /* Sudden death: the latency of the moves to come is spoken for. */
        int64_t left = max64(0, time - overhead_ms);
        int64_t to_come = TM_LATENCY_MOVES +
                          TM_LATENCY_GROWTH * max64(0, in->moves_played - TM_LATENCY_FROM);
        int64_t ahead = max64(0, left - overhead_ms * to_come);
        soft = max64(ahead / TM_NOINC_SOFT_DIV,
                     left / (TM_NOINC_SOFT_DIV * TM_NOINC_TAIL_SCALE));
        hard = max64(ahead / TM_NOINC_HARD_DIV,
                     left / (TM_NOINC_HARD_DIV * TM_NOINC_TAIL_SCALE));
        soft = min64(soft, cap * 6 / 10);
        hard = min64(hard, cap * 8 / 10);
    }
    tm->soft_ms = max64(1, soft);
    hard = min64(hard, tm->soft_ms * TM_HARD_SOFT_MAX);
    tm->hard_ms = max64(1, max64(hard, tm->soft_ms));
}

void tm_ponderhit(TimeMan *tm, int64_t at_us) {
    if (!tm->fixed && at_us > tm->start_us) tm->credit_ms += (at_us - tm->start_us) / 1000;
    tm->start_us = at_us;
}

int64_t tm_elapsed_ms(const TimeMan *tm) { return (tm_now_us() - tm->start_us) / 1000; }

int64_t tm_thought_ms(const TimeMan *tm) { return tm_elapsed_ms(tm) + tm->credit_ms; }

double tm_iter_scale(int stable, int score_drop, double node_share) {
    /* A best move that keeps changing, or a falling score, earns more time;
     * a move that has been best for many iterations earns less. */
    double scale = 1.0;
    if (stable == 0) scale = 1.6;
    else if (stable == 1) scale = 1.25;
    else if (stable >= 6) scale = 0.6;
    else if (stable >= 4) scale = 0.8;
    if (score_drop > 40) scale *= 1.4;
    else if (score_drop > 15) scale *= 1.15;
    if (node_share >= 0.0) {
        double f = (TM_NODE_BASE_X100 / 100.0 - node_share) * (TM_NODE_SCALE_X100 / 100.0);
        if (f > TM_NODE_MAX_X100 / 100.0) f = TM_NODE_MAX_X100 / 100.0;
        scale *= f;
    }
    /* Clamped, so an iteration that starts can finish before the hard limit. */
    return scale > TM_SCALE_MAX_X100 / 100.0 ? TM_SCALE_MAX_X100 / 100.0 : scale;
}

bool tm_should_stop_iter(const TimeMan *tm, int stable, int score_drop, double node_share) {
    if (!tm->limited || tm->fixed) return false;
    double budget = (double)tm->soft_ms * tm_iter_scale(stable, score_drop, node_share);
    if (budget > (double)tm->hard_ms) budget = (double)tm->hard_ms;
    /* Starting an iteration we cannot finish wastes the time: the next one
     * typically takes ~2x the previous, so stop once half the budget is gone. */
    return (double)tm_thought_ms(tm) >= budget * 0.55;
}

bool tm_hard_expired(const TimeMan *tm) {
    return tm->limited && tm_thought_ms(tm) >= tm->hard_ms;
}
