/* tt.c — transposition table storage, probe/store, replacement, hashfull. */
#include "tt.h"
#include "search_params.h"   /* MATE bounds for score adjustment */

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

size_t tt_page_size(void) {
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

size_t tt_huge_page_size(void) {
    /* The Pi 5 kernel uses 16 KB base pages, so the THP size differs from
     * x86's 2 MB: read it instead of assuming. */
    size_t hp = 0;
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "r");
    if (f) {
        unsigned long long v = 0;
        if (fscanf(f, "%llu", &v) == 1) hp = (size_t)v;
        fclose(f);
    }
    return hp;
}

/* Map `bytes` aligned to `align` (a power of two): over-map, trim the ends. */
static void *map_aligned(size_t bytes, size_t align, size_t *map_bytes) {
    size_t page = tt_page_size();
    if (align < page) align = page;
    size_t want = bytes + align;
    unsigned char *raw = mmap(NULL, want, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (raw == MAP_FAILED) return NULL;
    uintptr_t start = ((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1);
    size_t head = start - (uintptr_t)raw;
    size_t tail = want - head - bytes;
    if (head) munmap(raw, head);
    if (tail) munmap((unsigned char *)start + bytes, tail);
    *map_bytes = bytes;
    return (void *)start;
}

static int tt_alloc(TT *tt, size_t mb) {
    if (mb < 1 || mb > ((size_t)1 << 20)) return PB_ERR_ARG;
    size_t bytes = mb << 20;
    /* MAP_NORESERVE would happily hand out more than the machine has and the
     * OOM killer would strike mid-game once the pages get touched: refuse
     * tables larger than physical RAM up front. */
    long pages = sysconf(_SC_PHYS_PAGES);
    if (pages > 0 && bytes > (size_t)pages * tt_page_size()) return PB_ERR_NOMEM;
    size_t hp = tt_huge_page_size();
    size_t align = hp && (hp & (hp - 1)) == 0 ? hp : tt_page_size();
    bytes = (bytes + align - 1) & ~(align - 1);
    size_t mapped = 0;
    void *mem = map_aligned(bytes, align, &mapped);
    if (!mem) return PB_ERR_NOMEM;
#ifdef MADV_HUGEPAGE
    if (hp) madvise(mem, mapped, MADV_HUGEPAGE);  /* advisory: failure is fine */
#endif
    tt->buckets = mem;
    tt->nbuckets = (mb << 20) / sizeof(TTBucket);
    tt->map_bytes = mapped;
    tt->age = 0;
    tt->used = false;
    return PB_OK;
}

int tt_init(TT *tt, size_t mb) {
    memset(tt, 0, sizeof *tt);
    return tt_alloc(tt, mb);
}

void tt_free(TT *tt) {
    if (tt->buckets) munmap(tt->buckets, tt->map_bytes);
    tt->buckets = NULL;
    tt->nbuckets = 0;
}

int tt_resize(TT *tt, size_t mb) {
    TT fresh;
    int rc = tt_init(&fresh, mb);
    if (rc) return rc;
    tt_free(tt);
    *tt = fresh;
    return PB_OK;
}

typedef struct {
    unsigned char *start;
    size_t len;
    bool fresh;            /* no entry written since the mapping was made */
    const atomic_bool *hurry;
} ClearChunk;

/* A clear works through its chunk in slices, so a hurry request is seen
 * within milliseconds. */
#define CLEAR_SLICE ((size_t)32 << 20)

static void *clear_chunk(void *arg) {
    ClearChunk *c = arg;
    size_t page = tt_page_size();
    for (size_t done = 0; done < c->len; done += CLEAR_SLICE) {
        unsigned char *p = c->start + done;
        size_t n = c->len - done < CLEAR_SLICE ? c->len - done : CLEAR_SLICE;
        if (c->hurry && atomic_load_explicit(c->hurry, memory_order_relaxed)) {
            /* Untouched pages read as zeros already; written ones are handed
             * back, and the kernel zero-fills them on first touch: empty
             * either way, the faults are paid by the searches instead. */
            if (!c->fresh && madvise(p, c->len - done, MADV_DONTNEED) != 0)
                memset(p, 0, c->len - done);
            return NULL;
        }
        if (c->fresh) {
            /* Untouched pages read as zeros already: fault them in with one
             * store each rather than rewrite them. Not MADV_POPULATE_WRITE:
             * it holds the process's memory-map lock, and every mmap/munmap
             * of another thread (CPython's allocator: the event loop) waited
             * for it -- seconds over a multi-GB table. Page faults don't. */
            for (size_t off = 0; off < n; off += page) ((volatile unsigned char *)p)[off] = 0;
        } else {
            memset(p, 0, n);
        }
    }
    return NULL;
}

void tt_clear(TT *tt, int nthreads, const atomic_bool *hurry) {
    /* Zero in place, not MADV_DONTNEED: dropped pages would be faulted back
     * in by the next search (a huge page zeroed per fault), stalling the
     * first moves of a game past their time budget with a big table. The
     * clear is where that cost belongs: before the clock runs -- unless a
     * game needs the table first (`hurry`, see clear_chunk). An all-zero
     * entry is empty (BOUND_NONE), so probes miss until it is written. */
    enum { MAX_CLEAR_THREADS = 64 };
    size_t min_chunk = (size_t)64 << 20;
    if (nthreads > MAX_CLEAR_THREADS) nthreads = MAX_CLEAR_THREADS;
    if (nthreads < 1 || tt->map_bytes / min_chunk < 2) nthreads = 1;
    else if ((size_t)nthreads > tt->map_bytes / min_chunk) nthreads = (int)(tt->map_bytes / min_chunk);
    size_t page = tt_page_size();
    size_t step = (tt->map_bytes / (size_t)nthreads + page - 1) & ~(page - 1);
    ClearChunk chunks[MAX_CLEAR_THREADS];
    pthread_t handles[MAX_CLEAR_THREADS];
    bool started[MAX_CLEAR_THREADS] = {false};
    unsigned char *base = (unsigned char *)tt->buckets;
    for (int i = 0; i < nthreads; i++) {
        size_t off = step * (size_t)i;
        chunks[i].start = base + off;
        chunks[i].fresh = !tt->used;
        chunks[i].hurry = hurry;
        size_t left = off < tt->map_bytes ? tt->map_bytes - off : 0;
        chunks[i].len = left < step ? left : step;
        /* Chunk 0 is ours; a helper that cannot start is done inline. */
        if (i > 0 && pthread_create(&handles[i], NULL, clear_chunk, &chunks[i]) == 0)
            started[i] = true;
    }
    clear_chunk(&chunks[0]);
    for (int i = 1; i < nthreads; i++) {
        if (started[i]) pthread_join(handles[i], NULL);
        else clear_chunk(&chunks[i]);
    }
    tt->age = 0;
    tt->used = false;
}

void tt_new_search(TT *tt) {
    tt->age = (uint8_t)((tt->age + 1) & 63);
    tt->used = true;
}

int tt_score_to(int score, int ply) {
    if (score >= MATE_IN_MAX) return score + ply;
    if (score <= -MATE_IN_MAX) return score - ply;
    return score;
}

int tt_score_from(int score, int ply) {
    if (score >= MATE_IN_MAX) return score - ply;
    if (score <= -MATE_IN_MAX) return score + ply;
    return score;
}

static inline uint64_t pack(Move move, int score, int eval, int depth, int age, int bound) {
    return (uint64_t)move | ((uint64_t)(uint16_t)(int16_t)score << 16) |
           ((uint64_t)(uint16_t)(int16_t)eval << 32) | ((uint64_t)(uint8_t)depth << 48) |
           ((uint64_t)((age << 2) | bound) << 56);
}
static inline Move d_move(uint64_t d) { return (Move)(d & 0xFFFF); }
static inline int d_score(uint64_t d) { return (int16_t)(uint16_t)(d >> 16); }
static inline int d_eval(uint64_t d) { return (int16_t)(uint16_t)(d >> 32); }
static inline int d_depth(uint64_t d) { return (uint8_t)(d >> 48); }
static inline int d_age(uint64_t d) { return (int)(d >> 58); }
static inline int d_bound(uint64_t d) { return (int)((d >> 56) & 3); }

/* The age is left out of the check word, so that a probe can refresh it
 * with one write of the data word (tt.h). */
#define AGE_MASK ((uint64_t)63 << 58)
static inline uint64_t checked(uint64_t d) { return d & ~AGE_MASK; }

static inline TTBucket *bucket_of(const TT *tt, uint64_t key) {
    return &tt->buckets[(uint64_t)(((__uint128_t)key * tt->nbuckets) >> 64)];
}

bool tt_probe(TT *tt, uint64_t key, int ply, TTHit *out) {
    TTBucket *bk = bucket_of(tt, key);
    for (int i = 0; i < TT_BUCKET_ENTRIES; i++) {
        uint64_t data = atomic_load_explicit(&bk->e[i].data, memory_order_relaxed);
        uint64_t check = atomic_load_explicit(&bk->e[i].check, memory_order_relaxed);
        if ((check ^ checked(data)) != key || d_bound(data) == BOUND_NONE) continue;
        if (d_age(data) != tt->age) {
            /* A hit means the entry is still useful to this search: refresh
             * its age so replacement does not treat it as stale. One
             * compare-and-swap of the data word, which fails if another
             * thread has written the slot since we read it: two plain stores
             * (data, then check) could put this old entry back over one that
             * thread had just stored, or tear both into a miss. */
            uint64_t expected = data;
            uint64_t fresh = (data & ~AGE_MASK) | ((uint64_t)tt->age << 58);
            atomic_compare_exchange_strong_explicit(&bk->e[i].data, &expected, fresh,
                                                    memory_order_relaxed, memory_order_relaxed);
        }
        out->move = d_move(data);
        out->score = tt_score_from(d_score(data), ply);
        out->eval = d_eval(data);
        out->depth = d_depth(data);
        out->bound = d_bound(data);
        return true;
    }
    return false;
}

void tt_store(TT *tt, uint64_t key, int ply, Move move, int score, int eval, int depth, int bound) {
    TTBucket *bk = bucket_of(tt, key);
    TTEntry *victim = NULL;
    int victim_worth = 1 << 30;
    for (int i = 0; i < TT_BUCKET_ENTRIES; i++) {
        TTEntry *e = &bk->e[i];
        uint64_t data = atomic_load_explicit(&e->data, memory_order_relaxed);
        uint64_t check = atomic_load_explicit(&e->check, memory_order_relaxed);
        bool same = (check ^ checked(data)) == key;
        if (same || d_bound(data) == BOUND_NONE) {
            /* Same position: keep the old move if we have none, and do not let
             * a shallow non-exact result overwrite a much deeper one. */
            if (d_bound(data) != BOUND_NONE && same) {
                if (move == MOVE_NONE) move = d_move(data);
                if (bound != BOUND_EXACT && depth + 3 < d_depth(data) && d_age(data) == tt->age)
                    return;
            }
            victim = e;
            break;
        }
        /* Prefer replacing stale (older search) and shallow entries. */
        int age_gap = (tt->age - d_age(data)) & 63;
        int worth = d_depth(data) - 8 * age_gap;
        if (worth < victim_worth) { victim_worth = worth; victim = e; }
    }
    if (depth < 0) depth = 0;
    if (depth > 255) depth = 255;
    uint64_t data = pack(move, tt_score_to(score, ply), eval, depth, tt->age, bound);
    atomic_store_explicit(&victim->data, data, memory_order_relaxed);
    atomic_store_explicit(&victim->check, key ^ checked(data), memory_order_relaxed);
}

int tt_hashfull(const TT *tt) {
    int used = 0, total = 0;
    for (uint64_t b = 0; b < tt->nbuckets && total < 1000; b++) {
        for (int i = 0; i < TT_BUCKET_ENTRIES && total < 1000; i++, total++) {
            uint64_t data = atomic_load_explicit(&tt->buckets[b].e[i].data, memory_order_relaxed);
            if (d_bound(data) != BOUND_NONE && d_age(data) == tt->age) used++;
        }
    }
    return total ? used * 1000 / total : 0;
}
