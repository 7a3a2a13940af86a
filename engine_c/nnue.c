/* nnue.c — NNUE net parsing/validation, accumulators, evaluation. */
#include "nnue.h"
#include "bitboard.h"
#include "variant.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

/* aarch64 (the Pi) runs the accumulator update and the output layer in NEON
 * intrinsics; every other target keeps the portable loops, which gcc
 * vectorises (docs/benchmarks.md, "NNUE on the Pi's core"). */
#if defined(__aarch64__) && defined(__ARM_NEON)
#define NNUE_NEON 1
#include <arm_neon.h>
#else
#define NNUE_NEON 0
#endif

/* ---------- file format ---------- */

#define STR_(x) #x
#define STR(x) STR_(x)
/* the v1 file size as a literal, for the error text */
#define NNUE_V1_BYTES (48 + 768 * 2 * PB_NNUE_HIDDEN + 2 * PB_NNUE_HIDDEN + 4 * PB_NNUE_HIDDEN + 4)

static const uint8_t Magic[8] = {'P', 'I', 'B', 'O', 'T', 'N', 'N', 0};

uint64_t nnue_fnv1a(const uint8_t *data, size_t len) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < len; i++) h = (h ^ data[i]) * 0x100000001b3ULL;
    return h;
}

static uint32_t rd32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t rd64(const uint8_t *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }
static int16_t rd16(const uint8_t *p) { return (int16_t)(uint16_t)(p[0] | p[1] << 8); }

/* Bytes of a file of this version (header size), inputs and buckets. */
static size_t file_bytes(uint32_t version, uint32_t inputs, uint32_t buckets) {
    size_t header = version == NNUE_VERSION_VARIANT ? NNUE_V3_HEADER_BYTES : NNUE_HEADER_BYTES;
    return header + (size_t)inputs * NNUE_HIDDEN * 2 + NNUE_HIDDEN * 2 + (size_t)buckets * NNUE_BUCKET_BYTES;
}

int nnue_variant_inputs(int variant) {
    if (variant < 0 || variant >= VAR_COUNT || variant == VAR_ATOMIC) return 0;
    return variant == VAR_CRAZYHOUSE ? NNUE_MAX_INPUTS : NNUE_INPUTS;
}

/* A crazyhouse man is on the board or in a pocket (32 in all); the horde has
 * up to 36 white men (board_set_fen_variant checks both, as python-chess). */
int nnue_variant_max_men(int variant) { return variant == VAR_HORDE ? 52 : 32; }

int nnue_parse_why(NnueNet *net, const uint8_t *data, size_t len, char *why, size_t whylen) {
    if (why && whylen) why[0] = '\0';
    if (len < 8 || memcmp(data, Magic, 8) != 0) return PB_ERR_NET_MAGIC;
    if (len < NNUE_HEADER_BYTES) return PB_ERR_NET_SIZE;
    uint32_t version = rd32(data + 8);
    if (version != NNUE_VERSION && version != NNUE_VERSION_BUCKETS && version != NNUE_VERSION_VARIANT)
        return PB_ERR_NET_VERSION;
    /* v3 names its variant and flags after the v2 header; its inputs follow
     * from the variant. */
    int variant = VAR_STANDARD;
    uint32_t inputs = NNUE_INPUTS, flags = 0;
    if (version == NNUE_VERSION_VARIANT) {
        if (len < NNUE_V3_HEADER_BYTES) return PB_ERR_NET_SIZE;
        uint32_t v = rd32(data + 48);
        flags = rd32(data + 52);
        if (v >= VAR_COUNT || !nnue_variant_inputs((int)v)) {
            if (why && whylen)
                snprintf(why, whylen, "the v3 header names variant %u (%s), which no net of this "
                         "engine serves", (unsigned)v, v < VAR_COUNT ? variant_name((int)v) : "unknown");
            return PB_ERR_NET_FORMAT;
        }
        if (flags & ~(uint32_t)NNUE_FLAG_MIRRORED) {
            if (why && whylen)
                snprintf(why, whylen, "unknown flags 0x%x in the v3 header (bit 0 = mirrored "
                         "inputs; the other bits must be zero)", (unsigned)flags);
            return PB_ERR_NET_FORMAT;
        }
        for (int i = 56; i < NNUE_V3_HEADER_BYTES; i++)
            if (data[i]) {
                if (why && whylen) snprintf(why, whylen, "bytes 56..63 of a v3 header must be zero");
                return PB_ERR_NET_FORMAT;
            }
        /* The mirror follows each side's one king: the horde (no white king)
         * and antichess (none, or several) have no such king. */
        if ((flags & NNUE_FLAG_MIRRORED) && (v == VAR_HORDE || v == VAR_ANTICHESS)) {
            if (why && whylen)
                snprintf(why, whylen, "a mirrored net follows each side's king, and %s does not "
                         "keep exactly one a side: no mirrored %s net", variant_name((int)v),
                         variant_name((int)v));
            return PB_ERR_NET_FORMAT;
        }
        variant = (int)v;
        inputs = (uint32_t)nnue_variant_inputs(variant);
    }
    if (rd32(data + 12) == inputs && rd32(data + 16) != NNUE_HIDDEN) {
        if (why && whylen)
            snprintf(why, whylen, "the net's hidden layer is %u wide, this engine was built "
                     "for %d (an engine built with this net embedded takes its width)",
                     (unsigned)rd32(data + 16), NNUE_HIDDEN);
        return PB_ERR_NET_FORMAT;
    }
    if (rd32(data + 12) != inputs && version == NNUE_VERSION_VARIANT) {
        if (why && whylen)
            snprintf(why, whylen, "a %s net has %u inputs, the header says %u",
                     variant_name(variant), (unsigned)inputs, (unsigned)rd32(data + 12));
        return PB_ERR_NET_FORMAT;
    }
    if (rd32(data + 12) != inputs || rd32(data + 16) != NNUE_HIDDEN ||
        rd32(data + 20) != NNUE_ACT_SCRELU || (int32_t)rd32(data + 24) != NNUE_QA ||
        (int32_t)rd32(data + 28) != NNUE_QB || (int32_t)rd32(data + 32) != NNUE_SCALE)
        return PB_ERR_NET_FORMAT;
    /* v1: the reserved word is ignored (one bucket); v2, v3: it is the bucket count. */
    uint32_t buckets = version == NNUE_VERSION ? 1 : rd32(data + 36);
    if (buckets < 1 || buckets > NNUE_MAX_BUCKETS) {
        if (why && whylen)
            snprintf(why, whylen, "bad output bucket count %u in the v%u header (1..%d allowed)",
                     (unsigned)buckets, (unsigned)version, NNUE_MAX_BUCKETS);
        return PB_ERR_NET_FORMAT;
    }
    size_t want = file_bytes(version, inputs, buckets);
    if (len != want) {
        if (why && whylen && version != NNUE_VERSION)
            snprintf(why, whylen, "wrong file size (a v%u net with %u output buckets is %zu "
                     "bytes; truncated, extra bytes or a wrong bucket count)",
                     (unsigned)version, (unsigned)buckets, want);
        return PB_ERR_NET_SIZE;
    }
    /* The checksum covers everything after the 48-byte header (v3's variant too). */
    uint64_t sum = rd64(data + 40);
    if (nnue_fnv1a(data + NNUE_HEADER_BYTES, len - NNUE_HEADER_BYTES) != sum)
        return PB_ERR_NET_CHECKSUM;
    const uint8_t *p = data + (version == NNUE_VERSION_VARIANT ? NNUE_V3_HEADER_BYTES : NNUE_HEADER_BYTES);
    int max_w = 0, max_b = 0;
    for (int i = 0; i < (int)inputs * NNUE_HIDDEN; i++, p += 2) {
        net->ft_weight[i] = rd16(p);
        int a = abs(net->ft_weight[i]);
        if (a > max_w) max_w = a;
    }
    /* Rows past the net's inputs read as zero (a pocket row of chess's net
     * on a crazyhouse board adds nothing, whichever update runs). */
    memset(net->ft_weight + (size_t)inputs * NNUE_HIDDEN, 0,
           (size_t)(NNUE_MAX_INPUTS - (int)inputs) * NNUE_HIDDEN * sizeof net->ft_weight[0]);
    for (int i = 0; i < NNUE_HIDDEN; i++, p += 2) {
        net->ft_bias[i] = rd16(p);
        int a = abs(net->ft_bias[i]);
        if (a > max_b) max_b = a;
    }
    net->buckets = (int)buckets;
    net->inputs = (int)inputs;
    net->variant = variant;
    net->mirrored = (flags & NNUE_FLAG_MIRRORED) != 0;
    memset(net->out_weight, 0, sizeof net->out_weight);
    memset(net->out_bias, 0, sizeof net->out_bias);
    for (int k = 0; k < net->buckets; k++)      /* bucket-major: each bucket's 2H weights */
        for (int i = 0; i < 2 * NNUE_HIDDEN; i++, p += 2) {
            net->out_weight[k][i] = rd16(p);
            if (abs(net->out_weight[k][i]) > NNUE_MAX_OUT_WEIGHT) return PB_ERR_NET_FORMAT;
        }
    for (int k = 0; k < net->buckets; k++, p += 4) net->out_bias[k] = (int32_t)rd32(p);
    /* int16 accumulators must not overflow: one active feature per man (a
     * pocket man's count features saturate), at most the variant's men. */
    if (max_b + nnue_variant_max_men(variant) * max_w > INT16_MAX) {
        if (why && whylen)
            snprintf(why, whylen, "weights too large: max|ft_bias| %d + %d men x max|ft_weight| %d "
                     "> 32767 (the int16 accumulators could overflow)", max_b,
                     nnue_variant_max_men(variant), max_w);
        return PB_ERR_NET_FORMAT;
    }
    net->checksum = sum;
    snprintf(net->name, sizeof net->name, "pbnn-%08x", (unsigned)(sum >> 32));
    return PB_OK;
}

int nnue_parse(NnueNet *net, const uint8_t *data, size_t len) {
    return nnue_parse_why(net, data, len, NULL, 0);
}

const char *nnue_strerror(int code) {
    switch (code) {
    case PB_ERR_NET_MAGIC: return "not a pibot NNUE file (bad magic; expected a .pbnn file)";
    case PB_ERR_NET_VERSION:
        return "unsupported .pbnn format version (this engine reads versions 1, 2 and 3)";
    case PB_ERR_NET_FORMAT:
        return "unsupported net shape (expected 768 (+60 in crazyhouse)->" STR(PB_NNUE_HIDDEN) "x2->1 SCReLU, "
               "1..8 output buckets, QA 255, QB 64, scale 400, |out weight| <= 127, "
               "accumulators within int16)";
    case PB_ERR_NET_SIZE:
        return "wrong file size (truncated or extra bytes; a v1 net of this width is "
               STR(NNUE_V1_BYTES) " bytes)";
    case PB_ERR_NET_CHECKSUM: return "checksum mismatch (the file is corrupt)";
    case PB_ERR_IO: return "cannot read the file";
    case PB_ERR_NOMEM: return "out of memory";
    default: return "unknown error";
    }
}

static NnueNet *alloc_net(void) {
    size_t size = (sizeof(NnueNet) + 63) / 64 * 64;  /* aligned_alloc wants a multiple */
    return aligned_alloc(64, size);
}

void nnue_free(NnueNet *net) { free(net); }

int nnue_load_file(const char *path, NnueNet **out, char *err, size_t errlen) {
    *out = NULL;
    char why[256] = "";
    if (err && errlen) err[0] = '\0';
    FILE *f = path ? fopen(path, "rb") : NULL;
    if (!f) {
        if (err && errlen) snprintf(err, errlen, "%s: %s", path ? path : "(null)", nnue_strerror(PB_ERR_IO));
        return PB_ERR_IO;
    }
    /* Read at most one byte more than the largest net: enough to tell "too long". */
    uint8_t *buf = malloc(NNUE_MAX_FILE_BYTES + 1);
    NnueNet *net = alloc_net();
    int rc = PB_OK;
    if (!buf || !net) {
        rc = PB_ERR_NOMEM;
    } else {
        size_t n = fread(buf, 1, NNUE_MAX_FILE_BYTES + 1, f);
        if (ferror(f)) rc = PB_ERR_IO;
        else rc = nnue_parse_why(net, buf, n, why, sizeof why);
    }
    fclose(f);
    free(buf);
    if (rc != PB_OK) {
        free(net);
        if (err && errlen) snprintf(err, errlen, "%s: %s", path, why[0] ? why : nnue_strerror(rc));
        return rc;
    }
    *out = net;
    return PB_OK;
}

/* The embedded file (nnue_embed.c) and its parsed form, built once. */
extern const uint8_t pb_nnue_blob[], pb_nnue_blob_end[];
static NnueNet DefaultNet;
static int DefaultStatus;
static once_flag default_once = ONCE_FLAG_INIT;

static void init_default(void) {
    DefaultStatus = nnue_parse(&DefaultNet, pb_nnue_blob, (size_t)(pb_nnue_blob_end - pb_nnue_blob));
}

const NnueNet *nnue_default(int *err) {
    call_once(&default_once, init_default);
    if (err) *err = DefaultStatus;
    return DefaultStatus == PB_OK ? &DefaultNet : NULL;
}

/* ---------- accumulators ---------- */

/* `m`: the view's mirror XOR (NnueAcc.m; 0 for a net that does not mirror). */
static inline int feature(int persp, int pc, int sq, int m) {
    int c = piece_color(pc), t = piece_type(pc) - 1;
    return (c == persp ? 0 : 384) + 64 * t + ((persp == WHITE ? sq : sq ^ 56) ^ m);
}

static inline const int16_t *row(const NnueNet *net, int persp, int pc, int sq, int m) {
    return net->ft_weight + (size_t)feature(persp, pc, sq, m) * NNUE_HIDDEN;
}

/* The k-th (0-based) pocket feature of a piece of pc's colour and type (a
 * pocket has no squares: never mirrored). */
static inline int pocket_feature(int persp, int pc, int k) {
    return NNUE_INPUTS + (piece_color(pc) == persp ? 0 : NNUE_POCKET_INPUTS / 2) +
           NnuePocketBase[piece_type(pc)] + k;
}

/* A delta's (piece, square) row: a square of 64 + k is pocket feature k. */
static inline const int16_t *row_any(const NnueNet *net, int persp, int pc, int sq, int m) {
    int f = sq < 64 ? feature(persp, pc, sq, m) : pocket_feature(persp, pc, sq - 64);
    return net->ft_weight + (size_t)f * NNUE_HIDDEN;
}

/* A mirrored net's XOR for a view whose king stands on `king_sq`: with the
 * king on files e..h (bit 2 of the square set), the view's every square is
 * mirrored a<->h, so the king is seen on d..a. */
static inline uint8_t mirror_of(int king_sq) { return (king_sq & 4) ? 7 : 0; }

/* View p's accumulator and mirror from scratch. */
static void refresh_view(const NnueNet *net, NnueAcc *a, const Board *b, int p) {
    /* Only a mirrored net asks for the king: the horde's White has none
     * (nnue_parse refuses a mirrored horde or antichess net). */
    const int m = net->mirrored ? mirror_of(board_king_sq(b, p)) : 0;
    /* A local sum: the compiler knows it aliases no weight row. */
    int16_t acc[NNUE_HIDDEN];
    memcpy(acc, net->ft_bias, sizeof acc);
    Bitboard occ = b->by_type[0];
    while (occ) {
        int sq = __builtin_ctzll(occ);
        occ &= occ - 1;
        const int16_t *w = row(net, p, b->squares[sq], sq, m);
        for (int i = 0; i < NNUE_HIDDEN; i++) acc[i] = (int16_t)(acc[i] + w[i]);
    }
    if (net->inputs > NNUE_INPUTS)      /* crazyhouse: the pockets, counts capped */
        for (int c = 0; c < 2; c++)
            for (int t = PAWN; t < KING; t++)
                for (int k = 0; k < b->pocket[c][t] && k < NnuePocketCap[t]; k++) {
                    const int16_t *w = net->ft_weight +
                        (size_t)pocket_feature(p, make_piece(c, t), k) * NNUE_HIDDEN;
                    for (int i = 0; i < NNUE_HIDDEN; i++) acc[i] = (int16_t)(acc[i] + w[i]);
                }
    memcpy(a->acc[p], acc, sizeof acc);
    a->m[p] = (uint8_t)m;
}

void nnue_refresh(const NnueNet *net, NnueAcc *a, const Board *b) {
    for (int p = 0; p < 2; p++) refresh_view(net, a, b, p);
    a->board = b;
    a->computed = true;
}

void nnue_push_move(NnueAcc *stack, int ply, const Board *b, Move m) {
    NnueAcc *a = &stack[ply + 1];
    int from = move_from(m), to = move_to(m), kind = move_kind(m);
    int pc = b->squares[from];
    a->computed = false;
    if (kind == MOVE_CASTLE) {
        /* king takes own rook: both leave, both land */
        int rank = sq_rank(from);
        bool king_side = to > from;
        a->nsub = 2; a->nadd = 2;
        a->sub_pc[0] = (uint8_t)pc; a->sub_sq[0] = (uint8_t)from;
        a->sub_pc[1] = b->squares[to]; a->sub_sq[1] = (uint8_t)to;
        a->add_pc[0] = (uint8_t)pc; a->add_sq[0] = (uint8_t)make_sq(king_side ? 6 : 2, rank);
        a->add_pc[1] = b->squares[to]; a->add_sq[1] = (uint8_t)make_sq(king_side ? 5 : 3, rank);
        return;
    }
    a->nsub = 1; a->nadd = 1;
    a->sub_pc[0] = (uint8_t)pc; a->sub_sq[0] = (uint8_t)from;
    a->add_pc[0] = kind == MOVE_PROMO ? (uint8_t)make_piece(piece_color(pc), move_promo(m)) : (uint8_t)pc;
    a->add_sq[0] = (uint8_t)to;
    int cap_sq = kind == MOVE_EP ? (piece_color(pc) == WHITE ? to - 8 : to + 8) : to;
    if (b->squares[cap_sq] != NO_PIECE) {
        a->nsub = 2;
        a->sub_pc[1] = b->squares[cap_sq]; a->sub_sq[1] = (uint8_t)cap_sq;
    }
}

/* Crazyhouse: a drop takes the piece's last pocket feature and puts it on
 * the board; a capture adds the captured man (a pawn if it was promoted) to
 * the mover's pocket, as board.c's make does. Counts above the cap change
 * no feature. */
static void push_move_zh(NnueAcc *stack, int ply, const Board *b, Move m) {
    NnueAcc *a = &stack[ply + 1];
    int us = b->side, to = move_to(m), kind = move_kind(m);
    if (move_is_drop(m)) {
        int t = move_drop_type(m), pc = make_piece(us, t), n = b->pocket[us][t];
        a->computed = false;
        a->nadd = 1;
        a->add_pc[0] = (uint8_t)pc; a->add_sq[0] = (uint8_t)to;
        a->nsub = 0;
        if (n >= 1 && n <= NnuePocketCap[t]) {
            a->nsub = 1;
            a->sub_pc[0] = (uint8_t)pc; a->sub_sq[0] = (uint8_t)(64 + n - 1);
        }
        return;
    }
    nnue_push_move(stack, ply, b, m);
    if (kind == MOVE_CASTLE) return;
    int cap_sq = kind == MOVE_EP ? (us == WHITE ? to - 8 : to + 8) : to;
    if (b->squares[cap_sq] == NO_PIECE) return;
    int t = (b->promoted & sq_bb(cap_sq)) ? PAWN : piece_type(b->squares[cap_sq]);
    int n = b->pocket[us][t];
    if (n < NnuePocketCap[t]) {
        a->add_pc[a->nadd] = (uint8_t)make_piece(us, t);
        a->add_sq[a->nadd] = (uint8_t)(64 + n);
        a->nadd++;
    }
}

void nnue_push_move_variant(NnueAcc *stack, int ply, const Board *b, Move m) {
    if (b->variant == VAR_CRAZYHOUSE) {
        push_move_zh(stack, ply, b, m);
    } else if (b->variant == VAR_ANTICHESS && move_kind(m) == MOVE_KING_PROMO) {
        /* no castling there: this kind is a pawn promoted to a king */
        NnueAcc *a = &stack[ply + 1];
        int from = move_from(m), to = move_to(m), pc = b->squares[from];
        a->computed = false;
        a->nadd = 1;
        a->add_pc[0] = (uint8_t)make_piece(piece_color(pc), KING); a->add_sq[0] = (uint8_t)to;
        a->nsub = 1;
        a->sub_pc[0] = (uint8_t)pc; a->sub_sq[0] = (uint8_t)from;
        if (b->squares[to] != NO_PIECE) {
            a->nsub = 2;
            a->sub_pc[1] = b->squares[to]; a->sub_sq[1] = (uint8_t)to;
        }
    } else {
        nnue_push_move(stack, ply, b, m);
    }
}

void nnue_push_null(NnueAcc *stack, int ply) {
    NnueAcc *a = &stack[ply + 1];
    a->nadd = a->nsub = 0;
    a->computed = false;
}

#if NNUE_NEON
/* out = in + a0 (+ a1) - s0 (- s1) in one pass, na and ns (0..2) the rows
 * given: 32 lanes a step, each row read with one 4-register load and the
 * sum kept in registers. int16 adds wrap as the portable loop's (int16_t)
 * cast does, in any order. Inlined with constant na and ns for the common
 * shapes; the rest (null move: a copy; crazyhouse's pocket shapes) share one
 * copy. Pointers are stepped, not indexed: ld1/st1 take no register offset. */
static inline __attribute__((always_inline)) void delta_neon(int16_t *restrict out,
        const int16_t *restrict in, const int16_t *a0, const int16_t *a1, const int16_t *s0,
        const int16_t *s1, const int na, const int ns) {
    for (const int16_t *end = in + NNUE_HIDDEN; in < end; in += 32, out += 32) {
        int16x8x4_t v = vld1q_s16_x4(in);
        if (na >= 1) {
            int16x8x4_t x = vld1q_s16_x4(a0);
            a0 += 32;
            for (int r = 0; r < 4; r++) v.val[r] = vaddq_s16(v.val[r], x.val[r]);
        }
        if (ns >= 1) {
            int16x8x4_t x = vld1q_s16_x4(s0);
            s0 += 32;
            for (int r = 0; r < 4; r++) v.val[r] = vsubq_s16(v.val[r], x.val[r]);
        }
        if (na == 2) {
            int16x8x4_t x = vld1q_s16_x4(a1);
            a1 += 32;
            for (int r = 0; r < 4; r++) v.val[r] = vaddq_s16(v.val[r], x.val[r]);
        }
        if (ns == 2) {
            int16x8x4_t x = vld1q_s16_x4(s1);
            s1 += 32;
            for (int r = 0; r < 4; r++) v.val[r] = vsubq_s16(v.val[r], x.val[r]);
        }
        vst1q_s16_x4(out, v);
    }
}
#endif

/* out = in + add[0..na) - sub[0..ns): the common shapes get one fused pass.
 * Inlined into each update_impl copy: called from two of them, gcc would
 * otherwise keep it out of line, a call per perspective (+0.6% of a
 * standard bench's instructions, measured with callgrind). */
static inline __attribute__((always_inline)) void apply_delta(int16_t *restrict out,
        const int16_t *restrict in, const int16_t *const *add, int na, const int16_t *const *sub, int ns) {
#if NNUE_NEON
    /* A delta holds at most 2 rows each way (NnueAcc). */
    const int16_t *a0 = na > 0 ? add[0] : NULL, *a1 = na > 1 ? add[1] : NULL;
    const int16_t *s0 = ns > 0 ? sub[0] : NULL, *s1 = ns > 1 ? sub[1] : NULL;
    if (na == 1 && ns == 1) delta_neon(out, in, a0, NULL, s0, NULL, 1, 1);
    else if (na == 1 && ns == 2) delta_neon(out, in, a0, NULL, s0, s1, 1, 2);
    else if (na == 2 && ns == 2) delta_neon(out, in, a0, a1, s0, s1, 2, 2);
    else delta_neon(out, in, a0, a1, s0, s1, na, ns);
#else
    if (na == 1 && ns == 1) {
        const int16_t *a0 = add[0], *s0 = sub[0];
        for (int i = 0; i < NNUE_HIDDEN; i++) out[i] = (int16_t)(in[i] + a0[i] - s0[i]);
    } else if (na == 1 && ns == 2) {
        const int16_t *a0 = add[0], *s0 = sub[0], *s1 = sub[1];
        for (int i = 0; i < NNUE_HIDDEN; i++) out[i] = (int16_t)(in[i] + a0[i] - s0[i] - s1[i]);
    } else if (na == 2 && ns == 2) {
        const int16_t *a0 = add[0], *a1 = add[1], *s0 = sub[0], *s1 = sub[1];
        for (int i = 0; i < NNUE_HIDDEN; i++)
            out[i] = (int16_t)(in[i] + a0[i] + a1[i] - s0[i] - s1[i]);
    } else {
        memcpy(out, in, NNUE_HIDDEN * sizeof *out);
        for (int k = 0; k < na; k++)
            for (int i = 0; i < NNUE_HIDDEN; i++) out[i] = (int16_t)(out[i] + add[k][i]);
        for (int k = 0; k < ns; k++)
            for (int i = 0; i < NNUE_HIDDEN; i++) out[i] = (int16_t)(out[i] - sub[k][i]);
    }
#endif
}

/* Where delta `a` puts colour c's king, or -1 if it does not move it. */
static inline int king_to(const NnueAcc *a, int c) {
    for (int k = 0; k < a->nadd; k++)
        if (a->add_pc[k] == make_piece(c, KING)) return a->add_sq[k];
    return -1;
}

/* The lazy update; `pockets` (a constant) lets deltas name pocket features;
 * `board_only` (a constant: chess's net on a crazyhouse board) leaves them out.
 * `mirrored` (a constant, the net's flag) follows each view's mirror: a view
 * whose king crossed the d/e line since the last computed entry is `stale`
 * (its features all change), is refreshed at `ply` from the stack's board
 * (stack[0].board, at `ply` now), and leaves the entries between not
 * computed. The copies for a net that does not mirror are the plain walk. */
static inline __attribute__((always_inline)) void update_impl(const NnueNet *net, NnueAcc *stack,
        int ply, const bool pockets, const bool board_only, const bool mirrored) {
    int j = ply;
    while (!stack[j].computed) j--;   /* stack[0] is always computed */
    bool stale[2] = {false, false};
    for (j++; j <= ply; j++) {
        NnueAcc *a = &stack[j];
        for (int p = 0; p < 2; p++) {
            int m = 0;
            if (mirrored) {
                int ksq = king_to(a, p);
                a->m[p] = ksq < 0 ? stack[j - 1].m[p] : mirror_of(ksq);
                stale[p] |= a->m[p] != stack[j - 1].m[p];
                if (stale[p]) continue;
                m = a->m[p];
            }
            const int16_t *add[2], *sub[2];
            int na = 0, ns = 0;
            for (int k = 0; k < a->nadd; k++) {
                if (board_only && a->add_sq[k] >= 64) continue;
                add[na++] = pockets ? row_any(net, p, a->add_pc[k], a->add_sq[k], m)
                                    : row(net, p, a->add_pc[k], a->add_sq[k], m);
            }
            for (int k = 0; k < a->nsub; k++) {
                if (board_only && a->sub_sq[k] >= 64) continue;
                sub[ns++] = pockets ? row_any(net, p, a->sub_pc[k], a->sub_sq[k], m)
                                    : row(net, p, a->sub_pc[k], a->sub_sq[k], m);
            }
            apply_delta(a->acc[p], stack[j - 1].acc[p], add, na, sub, ns);
        }
        a->computed = !stale[WHITE] && !stale[BLACK];
    }
    if (mirrored) {
        for (int p = 0; p < 2; p++)
            if (stale[p]) refresh_view(net, &stack[ply], stack[0].board, p);
        stack[ply].computed = true;
    }
}

/* One test of the net's flag a call, outside the walk: a net that does not
 * mirror runs the plain copy (the board stays in the stack, not an argument:
 * passing it cost the search ~1 instruction an eval, callgrind). */
void nnue_update(const NnueNet *net, NnueAcc *stack, int ply) {
    if (net->mirrored) update_impl(net, stack, ply, false, false, true);
    else update_impl(net, stack, ply, false, false, false);
}

void nnue_update_variant(const NnueNet *net, NnueAcc *stack, int ply) {
    if (net->mirrored) update_impl(net, stack, ply, true, false, true);
    else update_impl(net, stack, ply, true, false, false);
}

void nnue_update_board_only(const NnueNet *net, NnueAcc *stack, int ply) {
    if (net->mirrored) update_impl(net, stack, ply, false, true, true);
    else update_impl(net, stack, ply, false, true, false);
}

/* ---------- output layer ---------- */

/* Portable loops on x86: gcc -O3 vectorises them (SSE2/AVX2). AVX2
 * intrinsics for this dot product were measured slower than gcc's own AVX2
 * code (docs/benchmarks.md, "NNUE evaluation cost"), so none; aarch64 has
 * screlu_dot_pair's NEON below (fewer instructions than gcc's NEON).
 *
 * sum_i clamp(acc[i], 0, QA)^2 * w[i], exactly. With |w| <= 127, v * w fits
 * int16 (|.| <= 32385) and every term <= 65025 * 127, so a block of 256 terms
 * stays below 2^31 (2,114,012,800): each block is summed in int32, the
 * blocks in int64 (a 256-wide net is one block, as before). */
#if !NNUE_NEON
static int64_t screlu_dot(const int16_t *acc, const int16_t *w) {
    int64_t total = 0;
    for (int base = 0; base < NNUE_HIDDEN; base += NNUE_DOT_BLOCK) {
        int n = NNUE_HIDDEN - base < NNUE_DOT_BLOCK ? NNUE_HIDDEN - base : NNUE_DOT_BLOCK;
        int32_t sum = 0;
        for (int i = base; i < base + n; i++) {
            int16_t v = acc[i] < 0 ? 0 : acc[i] > NNUE_QA ? NNUE_QA : acc[i];
            int16_t vw = (int16_t)(v * w[i]);
            sum += (int32_t)v * vw;
        }
        total += sum;
    }
    return total;
}
#else
/* screlu_dot(us, w) + screlu_dot(them, w + H) in one pass, 32 lanes of each
 * side a step: clamp (smax, smin), v * w in int16 (mul), v * vw widened into
 * int32 (smlal, smlal2) over four accumulators, so that no multiply-add waits
 * for the one before. A lane of an accumulator gets 4 terms a step (low and
 * high half, both sides), H/32 steps: H/8 terms of at most 65025 x 127, exact
 * in int32 up to the widest net; the lanes are added in int64. The same
 * integer as the portable blocks, which are exact too. */
_Static_assert((int64_t)(NNUE_HIDDEN / 8) * NNUE_QA * NNUE_QA * NNUE_MAX_OUT_WEIGHT <= INT32_MAX,
               "screlu_dot_pair's int32 lanes could overflow at this width");
static int64_t screlu_dot_pair(const int16_t *us, const int16_t *them, const int16_t *w) {
    const int16x8_t zero = vdupq_n_s16(0), qa = vdupq_n_s16(NNUE_QA);
    int32x4_t sum[4] = {vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0)};
    for (int i = 0; i < NNUE_HIDDEN; i += 32) {
        for (int side = 0; side < 2; side++) {
            int16x8x4_t v = vld1q_s16_x4((side ? them : us) + i);
            int16x8x4_t x = vld1q_s16_x4(w + side * NNUE_HIDDEN + i);
            for (int r = 0; r < 4; r++) {
                int16x8_t c = vminq_s16(vmaxq_s16(v.val[r], zero), qa);
                int16x8_t cw = vmulq_s16(c, x.val[r]);
                sum[r] = vmlal_s16(sum[r], vget_low_s16(c), vget_low_s16(cw));
                sum[r] = vmlal_high_s16(sum[r], c, cw);
            }
        }
    }
    int64x2_t total = vpaddlq_s32(sum[0]);
    for (int r = 1; r < 4; r++) total = vpadalq_s32(total, sum[r]);
    return vaddvq_s64(total);
}
#endif

int nnue_output(const NnueNet *net, const NnueAcc *a, const Board *b) {
    int side = b->side;
    int k = nnue_bucket(__builtin_popcountll(b->by_type[0]), net->buckets);
    const int16_t *w = net->out_weight[k];
#if NNUE_NEON
    int64_t sum = screlu_dot_pair(a->acc[side], a->acc[!side], w);
#else
    int64_t sum = screlu_dot(a->acc[side], w) + screlu_dot(a->acc[!side], w + NNUE_HIDDEN);
#endif
    int64_t v = sum / NNUE_QA + net->out_bias[k];       /* C division truncates toward 0 */
    return (int)(v * NNUE_SCALE / (NNUE_QA * NNUE_QB));
}
