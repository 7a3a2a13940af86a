/* tt.h — shared transposition table (lockless, mmap-backed).
 *
 * Layout: the table is an array of 64-byte buckets (one cache line each),
 * aligned to the huge page size. A bucket holds 4 entries of 16 bytes:
 *     uint64_t check = key ^ data'    (the XOR trick: a torn write by another
 *     uint64_t data                    thread makes check^data' != key, so the
 *                                      entry just looks like a miss)
 * data packs   move:16 | score:16 | eval:16 | depth:8 | age:6 bound:2;
 * data' is data without the age, which only guides replacement: a probe hit
 * refreshes it with one compare-and-swap of the data word (tt.c).
 * Both words are C11 atomics accessed with relaxed ordering: plain loads and
 * stores on x86/ARM, but no data-race undefined behaviour between threads.
 * The bucket index is the high 64 bits of key * nbuckets, so any size works.
 * Memory comes from an anonymous MAP_NORESERVE mapping: creating or
 * resizing even a multi-gigabyte table touches no page. Clearing zeroes it
 * with several threads, which also faults every page in, so searches after
 * a clear (a new game) never stall on page faults.
 */
#ifndef PB_TT_H
#define PB_TT_H

#include "types.h"
#include <stdatomic.h>

enum { BOUND_NONE = 0, BOUND_UPPER = 1, BOUND_LOWER = 2, BOUND_EXACT = 3 };
enum { TT_BUCKET_ENTRIES = 4 };

typedef struct {
    _Atomic uint64_t check;
    _Atomic uint64_t data;
} TTEntry;

typedef struct {
    TTEntry e[TT_BUCKET_ENTRIES];
} TTBucket;

typedef struct TT {
    TTBucket *buckets;
    uint64_t nbuckets;
    size_t map_bytes;      /* length of the mapping (for munmap) */
    uint8_t age;           /* 0..63, bumped once per search */
    bool used;             /* searched since it was mapped or last cleared */
} TT;

/* What a probe hands back (score already adjusted from "mate from here"
 * to "mate from the root" using ply). */
typedef struct {
    Move move;
    int score;
    int eval;
    int depth;
    int bound;
} TTHit;

/* Allocate a table of `mb` megabytes (1 .. 1<<20). PB_ERR_ARG, PB_ERR_NOMEM. */
int tt_init(TT *tt, size_t mb);
void tt_free(TT *tt);
/* Replace with a new size; on failure the old table is kept untouched. */
int tt_resize(TT *tt, size_t mb);
/* Forget everything: zero the table with up to `nthreads` threads (at least
 * 64 MB each), leaving every page resident. Once `*hurry` (may be NULL) is
 * set, the rest is left to the kernel's zero-fill on first touch instead:
 * the table is empty at once, its remaining pages fault in during searches. */
void tt_clear(TT *tt, int nthreads, const atomic_bool *hurry);
/* Start of a new search: entries of older ages become preferred victims. */
void tt_new_search(TT *tt);

/* A hit also refreshes the entry's age to the current search's. */
bool tt_probe(TT *tt, uint64_t key, int ply, TTHit *out);
void tt_store(TT *tt, uint64_t key, int ply, Move move, int score, int eval, int depth, int bound);
static inline void tt_prefetch(const TT *tt, uint64_t key) {
    __builtin_prefetch(&tt->buckets[(uint64_t)(((__uint128_t)key * tt->nbuckets) >> 64)]);
}
/* Per-mille of the first 1000 entries written during the current search. */
int tt_hashfull(const TT *tt);

/* Mate scores are stored relative to the node ("mate in n from here"). */
int tt_score_to(int score, int ply);
int tt_score_from(int score, int ply);

/* System page size and transparent huge page size (0 if unknown). */
size_t tt_page_size(void);
size_t tt_huge_page_size(void);

#endif
