/* attacks.h — attack tables.
 *
 * Leaper attacks (pawn, knight, king) are plain 64-entry tables. Slider
 * attacks use one shared table per piece kind indexed by slider_index():
 * PEXT on x86 with fast BMI2 (compiled with -DPB_USE_PEXT), magic
 * multiplication everywhere else. Only attacks.c knows which one is active.
 * between_bb(a,b) holds the squares strictly between a and b on a line
 * (empty if not aligned); line_bb(a,b) the whole line through both.
 */
#ifndef PB_ATTACKS_H
#define PB_ATTACKS_H

#include "types.h"

typedef struct {
    Bitboard mask;
    Bitboard magic;
    Bitboard *attacks;
    int shift;
} SliderEntry;

extern Bitboard PawnAttacks[2][64];
extern Bitboard KnightAttacks[64];
extern Bitboard KingAttacks[64];
extern Bitboard BetweenBB[64][64];
extern Bitboard LineBB[64][64];
extern SliderEntry BishopTable[64];
extern SliderEntry RookTable[64];

/* Initialise all tables; idempotent and thread-safe (call_once). */
void attacks_init(void);
/* "pext" or "magic". */
const char *attacks_backend(void);

static inline unsigned slider_index(const SliderEntry *e, Bitboard occ) {
#ifdef PB_USE_PEXT
    return (unsigned)__builtin_ia32_pext_di(occ, e->mask);
#else
    return (unsigned)(((occ & e->mask) * e->magic) >> e->shift);
#endif
}

static inline Bitboard bishop_attacks(int sq, Bitboard occ) {
    const SliderEntry *e = &BishopTable[sq];
    return e->attacks[slider_index(e, occ)];
}
static inline Bitboard rook_attacks(int sq, Bitboard occ) {
    const SliderEntry *e = &RookTable[sq];
    return e->attacks[slider_index(e, occ)];
}
static inline Bitboard queen_attacks(int sq, Bitboard occ) {
    return bishop_attacks(sq, occ) | rook_attacks(sq, occ);
}
/* The squares a knight, bishop, rook, queen or king (type t) on sq attacks. */
static inline Bitboard piece_attacks(int t, int sq, Bitboard occ) {
    return t == KNIGHT ? KnightAttacks[sq] : t == BISHOP ? bishop_attacks(sq, occ)
         : t == ROOK ? rook_attacks(sq, occ) : t == QUEEN ? queen_attacks(sq, occ) : KingAttacks[sq];
}
static inline Bitboard between_bb(int a, int b) { return BetweenBB[a][b]; }
static inline Bitboard line_bb(int a, int b) { return LineBB[a][b]; }

/* Slow ray-walking reference, used for table generation and self-tests. */
Bitboard attacks_slider_slow(int sq, Bitboard occ, bool bishop);
/* Compare table lookups against the slow reference for `samples` random
 * occupancies per square; returns the number of mismatches (0 = good). */
int attacks_selftest(int samples);

#endif
