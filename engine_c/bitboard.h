/* bitboard.h — bit tricks over 64-bit boards (bit n = square n, a1 = bit 0). */
#ifndef PB_BITBOARD_H
#define PB_BITBOARD_H

#include "types.h"

#define FILE_A_BB 0x0101010101010101ULL
#define FILE_H_BB (FILE_A_BB << 7)
#define RANK_1_BB 0xFFULL
#define RANK_8_BB (RANK_1_BB << 56)

static inline Bitboard sq_bb(int sq) { return 1ULL << sq; }
static inline int popcount(Bitboard b) { return __builtin_popcountll(b); }
static inline int lsb(Bitboard b) { return __builtin_ctzll(b); }
static inline int msb(Bitboard b) { return 63 - __builtin_clzll(b); }
static inline int pop_lsb(Bitboard *b) { int s = lsb(*b); *b &= *b - 1; return s; }
static inline bool more_than_one(Bitboard b) { return (b & (b - 1)) != 0; }
static inline Bitboard file_bb(int sq) { return FILE_A_BB << sq_file(sq); }
static inline Bitboard rank_bb(int sq) { return RANK_1_BB << (8 * sq_rank(sq)); }

static inline Bitboard shift_north(Bitboard b) { return b << 8; }
static inline Bitboard shift_south(Bitboard b) { return b >> 8; }
static inline Bitboard shift_east(Bitboard b) { return (b & ~FILE_H_BB) << 1; }
static inline Bitboard shift_west(Bitboard b) { return (b & ~FILE_A_BB) >> 1; }
static inline Bitboard pawn_push(int c, Bitboard b) { return c == WHITE ? b << 8 : b >> 8; }

#endif
