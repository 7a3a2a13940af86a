/* timeman.h — time allocation for one search.
 *
 * Data: TimeMan holds the monotonic start time of our clock, the time
 * credited from pondering, and two budgets in ms, both compared with the
 * time thought on the move (our clock plus the credit): `soft` (do not start
 * another iteration past it, scaled by best-move stability, score drop and
 * the best move's node share) and `hard` (abort
 * the running iteration: never exceeded, and always below the remaining
 * clock minus the move overhead). A budget of 0 means "no time limit"
 * (depth/nodes/infinite searches).
 */
#ifndef PB_TIMEMAN_H
#define PB_TIMEMAN_H

#include <stdint.h>
#include <stdbool.h>

/* With an increment and no moves-to-go, plan as if this many moves remained
 * (on top of 3/4 of the increment). With 30, pibot still had 3.8 s of a
 * 10+0.1 clock after move 60 (Ethereal 12: 0.5 s); with 15, 1.1 s
 * (bench/clock_use.py, docs/strength.md). */
enum { TM_INC_MOVES_TO_GO = 15 };
/* The hard limit (abort the iteration) is at most TM_HARD_SOFT_MAX x the soft
 * budget and, with an increment, 1/TM_HARD_CLOCK_DIV of the usable clock plus
 * the increment. It was min(clock/3 + inc, 5 x soft): 3.35 s of a 10+0.1
 * clock on one move, 4.6 x soft. An iteration may only start before 0.55 x
 * TM_SCALE_MAX (2.24) x soft (tm_iter_scale's product is clamped there) and
 * takes ~2x the one before: 3 x soft lets it finish. */
enum { TM_HARD_SOFT_MAX = 3, TM_HARD_CLOCK_DIV = 4 };
/* The largest soft-budget scale, in hundredths: stability (up to 1.6) x
 * score drop (up to 1.4) x node share (up to 1.5) could reach 3.36, and an
 * iteration started at 0.55 x that would end past the hard limit. 2.24 is
 * the two older scales' largest product. */
enum { TM_SCALE_MAX_X100 = 224 };
/* The best move's share of the root's nodes (so far in this search), 0..1,
 * scales the soft budget by (base - share) x scale, in hundredths, at most
 * max: a move that took nearly all the nodes is clear (stop sooner), one
 * that took few was contested by the others (think longer). The form is
 * Patricia's ((1.5 - share) x 1.75 there). With share 1 the budget is
 * 0.675x (the least), 0.9 0.81x, 0.5 1.35x, and 1.5x from ~0.39 down. */
enum { TM_NODE_BASE_X100 = 150, TM_NODE_SCALE_X100 = 135, TM_NODE_MAX_X100 = 150 };
/* Without an increment, plan (clock - overhead) / these per move ... */
enum { TM_NOINC_SOFT_DIV = 40, TM_NOINC_HARD_DIV = 20 };
/* ... but in sudden death without an increment every move still to come
 * costs its latency too (Lichess gives BOTs no lag compensation): plan on
 * the clock less the overhead of the moves still to come, and once the clock
 * is down to that, on 1/TM_NOINC_TAIL_SCALE of the fraction above (never 1 ms
 * searches). The moves still to come: TM_LATENCY_MOVES, plus
 * TM_LATENCY_GROWTH for each move played past move TM_LATENCY_FROM, because
 * the longer a game has gone on, the longer it tends to go on. The realistic
 * soak (docs/bot.md) lost 30+0 games at moves 96 and 99 with 40 moves and a
 * 1/4 tail, and a 60+0 game at move 177 with 60 moves and a 1/16 tail (no
 * growth): a ~190 ms round trip a move is a third of a minute per 100 moves.
 * With growth 2 from move 30 and a 1/32 tail, a 60+0 game at that latency
 * lasts ~25 moves longer, for ~12% less thinking over its first 60 moves
 * (tests/test_timeman.py). */
enum { TM_LATENCY_MOVES = 60, TM_LATENCY_FROM = 30, TM_LATENCY_GROWTH = 2,
       TM_NOINC_TAIL_SCALE = 32 };

typedef struct {
    int64_t wtime, btime, winc, binc;  /* -1 = not given */
    int movestogo;                     /* 0 = sudden death / increment */
    int64_t movetime;                  /* -1 = not given */
    int moves_played;                  /* full moves before this one (FEN fullmove - 1) */
} TimeInput;

typedef struct {
    int64_t start_us;           /* when our clock started (go, or the ponderhit) */
    int64_t credit_ms;          /* thought on this move before start_us (pondering) */
    int64_t soft_ms, hard_ms;   /* 0 = unlimited */
    bool limited;
    bool fixed;       /* movetime: use the whole budget, no early stop */
} TimeMan;

int64_t tm_now_us(void);  /* monotonic clock */
/* side = side to move, overhead = network/GUI latency margin in ms. */
void tm_init(TimeMan *tm, const TimeInput *in, int side, int64_t overhead_ms);
/* Ponderhit at `at_us`: our clock starts there, and the time pondered so far
 * counts against the budgets (the search already holds that thinking), as in
 * Stockfish, whose budgets run from `go ponder`. A movetime is wall time of
 * our clock: no credit. */
void tm_ponderhit(TimeMan *tm, int64_t at_us);
/* Time on our clock: since the start, or since the ponderhit. */
int64_t tm_elapsed_ms(const TimeMan *tm);
/* Time thought on this move: tm_elapsed_ms plus the credited pondering; what
 * the budgets are compared with. */
int64_t tm_thought_ms(const TimeMan *tm);
/* Should iterative deepening stop after a completed iteration?
 * stable = iterations in a row with the same best move; score_drop = cp lost
 * versus the previous iteration (positive = worse); node_share = the best
 * move's share of the nodes searched under the root's moves, 0..1, or
 * negative when it does not apply (MultiPV: each line gets its own search,
 * so the share tells nothing of how clear the best move is). */
bool tm_should_stop_iter(const TimeMan *tm, int stable, int score_drop, double node_share);
/* The soft budget's scale for those (a pure function; at most TM_SCALE_MAX_X100 / 100). */
double tm_iter_scale(int stable, int score_drop, double node_share);
bool tm_hard_expired(const TimeMan *tm);

#endif
