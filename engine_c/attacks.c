/* attacks.c — leaper tables, slider tables (PEXT or magic), line tables. */
#include "attacks.h"
#include "bitboard.h"

#include <threads.h>

Bitboard PawnAttacks[2][64];
Bitboard KnightAttacks[64];
Bitboard KingAttacks[64];
Bitboard BetweenBB[64][64];
Bitboard LineBB[64][64];
SliderEntry BishopTable[64];
SliderEntry RookTable[64];

static Bitboard RookData[0x19000];   /* 102400: sum of 2^bits over squares */
static Bitboard BishopData[0x1480];  /* 5248 */

static const int RookDirs[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
static const int BishopDirs[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};

Bitboard attacks_slider_slow(int sq, Bitboard occ, bool bishop) {
    const int (*dirs)[2] = bishop ? BishopDirs : RookDirs;
    Bitboard att = 0;
    for (int d = 0; d < 4; d++) {
        int f = sq_file(sq) + dirs[d][0], r = sq_rank(sq) + dirs[d][1];
        while (f >= 0 && f < 8 && r >= 0 && r < 8) {
            int s = make_sq(f, r);
            att |= sq_bb(s);
            if (occ & sq_bb(s)) break;
            f += dirs[d][0];
            r += dirs[d][1];
        }
    }
    return att;
}

/* Relevant occupancy: the ray squares except the board edge at each ray's end. */
static Bitboard relevant_mask(int sq, bool bishop) {
    Bitboard edges = ((RANK_1_BB | RANK_8_BB) & ~rank_bb(sq)) | ((FILE_A_BB | FILE_H_BB) & ~file_bb(sq));
    return attacks_slider_slow(sq, 0, bishop) & ~edges;
}

#ifndef PB_USE_PEXT
/* xorshift64* PRNG with fixed seeds per rank (as in Stockfish) so the magic
 * search is deterministic and fast. */
static uint64_t prng_next(uint64_t *s) {
    *s ^= *s >> 12; *s ^= *s << 25; *s ^= *s >> 27;
    return *s * 2685821657736338717ULL;
}
static uint64_t prng_sparse(uint64_t *s) { return prng_next(s) & prng_next(s) & prng_next(s); }

static const uint64_t MagicSeeds[8] = {728, 10316, 55013, 32803, 12281, 15100, 16645, 255};
#endif

static void init_slider(SliderEntry *table, Bitboard *data, bool bishop) {
    static Bitboard occs[4096], refs[4096];
#ifndef PB_USE_PEXT
    static int epoch[4096];
    int cur_epoch = 0;
#endif
    Bitboard *next = data;
    for (int sq = 0; sq < 64; sq++) {
        SliderEntry *e = &table[sq];
        e->mask = relevant_mask(sq, bishop);
        int bits = popcount(e->mask);
        e->shift = 64 - bits;
        e->attacks = next;
        int size = 0;
        Bitboard b = 0;
        do { /* carry-rippler: every subset of the mask */
            occs[size] = b;
            refs[size] = attacks_slider_slow(sq, b, bishop);
            size++;
            b = (b - e->mask) & e->mask;
        } while (b);
        next += size;
#ifdef PB_USE_PEXT
        e->magic = 0;
        for (int i = 0; i < size; i++)
            e->attacks[slider_index(e, occs[i])] = refs[i];
#else
        uint64_t seed = MagicSeeds[sq_rank(sq)];
        for (int i = 0; i < size;) {
            do e->magic = prng_sparse(&seed);
            while (popcount((e->magic * e->mask) >> 56) < 6);
            cur_epoch++;
            for (i = 0; i < size; i++) {
                unsigned idx = slider_index(e, occs[i]);
                if (epoch[idx] < cur_epoch) {
                    epoch[idx] = cur_epoch;
                    e->attacks[idx] = refs[i];
                } else if (e->attacks[idx] != refs[i]) {
                    break;
                }
            }
        }
#endif
    }
}

static void init_all(void) {
    for (int sq = 0; sq < 64; sq++) {
        Bitboard b = sq_bb(sq);
        PawnAttacks[WHITE][sq] = shift_east(shift_north(b)) | shift_west(shift_north(b));
        PawnAttacks[BLACK][sq] = shift_east(shift_south(b)) | shift_west(shift_south(b));
        static const int kn[8][2] = {{1, 2}, {2, 1}, {2, -1}, {1, -2}, {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}};
        static const int kg[8][2] = {{1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}, {0, -1}, {1, -1}};
        KnightAttacks[sq] = KingAttacks[sq] = 0;
        for (int i = 0; i < 8; i++) {
            int f = sq_file(sq) + kn[i][0], r = sq_rank(sq) + kn[i][1];
            if (f >= 0 && f < 8 && r >= 0 && r < 8) KnightAttacks[sq] |= sq_bb(make_sq(f, r));
            f = sq_file(sq) + kg[i][0]; r = sq_rank(sq) + kg[i][1];
            if (f >= 0 && f < 8 && r >= 0 && r < 8) KingAttacks[sq] |= sq_bb(make_sq(f, r));
        }
    }
    init_slider(RookTable, RookData, false);
    init_slider(BishopTable, BishopData, true);
    for (int a = 0; a < 64; a++) {
        for (int b = 0; b < 64; b++) {
            BetweenBB[a][b] = LineBB[a][b] = 0;
            if (a == b) continue;
            for (int bishop = 0; bishop < 2; bishop++) {
                if (attacks_slider_slow(a, 0, bishop) & sq_bb(b)) {
                    LineBB[a][b] = (attacks_slider_slow(a, 0, bishop) & attacks_slider_slow(b, 0, bishop))
                                   | sq_bb(a) | sq_bb(b);
                    BetweenBB[a][b] = attacks_slider_slow(a, sq_bb(b), bishop) & attacks_slider_slow(b, sq_bb(a), bishop);
                }
            }
        }
    }
}

static once_flag attacks_once = ONCE_FLAG_INIT;

void attacks_init(void) { call_once(&attacks_once, init_all); }

const char *attacks_backend(void) {
#ifdef PB_USE_PEXT
    return "pext";
#else
    return "magic";
#endif
}

int attacks_selftest(int samples) {
    attacks_init();
    uint64_t s = 0x9E3779B97F4A7C15ULL;
    int bad = 0;
    for (int sq = 0; sq < 64; sq++) {
        for (int i = 0; i < samples; i++) {
            s ^= s >> 12; s ^= s << 25; s ^= s >> 27;
            uint64_t r1 = s * 2685821657736338717ULL;
            s ^= s >> 12; s ^= s << 25; s ^= s >> 27;
            Bitboard occ = r1 & (s * 2685821657736338717ULL);
            if (rook_attacks(sq, occ) != attacks_slider_slow(sq, occ, false)) bad++;
            if (bishop_attacks(sq, occ) != attacks_slider_slow(sq, occ, true)) bad++;
        }
    }
    return bad;
}
