/* api.c — the board half of the cffi API (pibot_api.h): handles, text I/O. */
#include "board.h"  /* first: pibot_api.h relies on <stdint.h>/<stddef.h> */
#include "pibot_api.h"
#include "attacks.h"
#include "movegen.h"
#include "notation.h"
#include "perft.h"
#include "variant.h"
#include "nnue.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct PbBoard { Board b; };

void pb_init(void) { board_init_tables(); }
const char *pb_backend(void) { return attacks_backend(); }
int pb_attacks_selftest(int samples) { return attacks_selftest(samples); }

const char *pb_strerror(int code) {
    switch (code) {
    case PB_OK: return "ok";
    case PB_ERR_FEN: return "malformed FEN";
    case PB_ERR_MOVE: return "illegal or malformed move";
    case PB_ERR_NOMEM: return "out of memory";
    case PB_ERR_ARG: return "argument out of range";
    case PB_ERR_BUSY: return "engine is busy searching";
    case PB_ERR_HISTORY: return "game history too long";
    case PB_ERR_THREAD: return "could not start a thread";
    case PB_ERR_VARIANT: return "unknown or unsupported variant";
    case PB_ERR_NET_MAGIC: case PB_ERR_NET_VERSION: case PB_ERR_NET_FORMAT:
    case PB_ERR_NET_SIZE: case PB_ERR_NET_CHECKSUM: case PB_ERR_IO:
        return nnue_strerror(code);
    default: return "unknown error";
    }
}

PbBoard *pb_board_new(void) {
    pb_init();
    PbBoard *p = malloc(sizeof *p);
    if (p) board_set_startpos(&p->b);
    return p;
}

void pb_board_free(PbBoard *p) { free(p); }

PbBoard *pb_board_copy(const PbBoard *src) {
    PbBoard *p = malloc(sizeof *p);
    if (p) memcpy(p, src, sizeof *p);
    return p;
}

int pb_board_set_fen(PbBoard *p, const char *fen, int chess960, char *err, size_t errlen) {
    return board_set_fen(&p->b, fen, chess960 != 0, err, errlen);
}

int pb_board_set_variant_fen(PbBoard *p, const char *variant, const char *fen, int chess960,
                             char *err, size_t errlen) {
    int v = variant_from_name(variant);
    if (v < 0 || !board_variant_supported(v)) {
        if (err && errlen) snprintf(err, errlen, "unknown or unsupported variant '%s'", variant ? variant : "");
        return PB_ERR_VARIANT;
    }
    if (!fen || !*fen) fen = variant_start_fen(v);
    return board_set_fen_variant(&p->b, fen, v, chess960 != 0, err, errlen);
}

const char *pb_board_variant(const PbBoard *p) { return variant_name(p->b.variant); }

int pb_board_get_fen(const PbBoard *p, char *out, size_t outlen) {
    if (outlen < 100) return PB_ERR_ARG;
    board_get_fen(&p->b, out, outlen);
    return PB_OK;
}

int pb_board_push_uci(PbBoard *p, const char *uci) { return notation_push_uci(&p->b, uci); }

int pb_board_pop(PbBoard *p) {
    if (p->b.ply == 0) return PB_ERR_ARG;
    if (p->b.hist[p->b.ply - 1].move == MOVE_NULL) board_unmake_null(&p->b);
    else board_unmake_move(&p->b);
    return PB_OK;
}

int pb_board_legal_moves(PbBoard *p, char *out, size_t outlen) {
    MoveList list;
    list.count = 0;
    int n = movegen_legal(&p->b, &list, GEN_ALL);
    if (outlen < (size_t)n * 6 + 1) return PB_ERR_ARG;
    size_t pos = 0;
    for (int i = 0; i < n; i++) {
        char uci[6];
        notation_move_to_uci(&p->b, list.moves[i], uci);
        size_t l = strlen(uci);
        if (i) out[pos++] = ' ';
        memcpy(out + pos, uci, l);
        pos += l;
    }
    out[pos] = 0;
    return n;
}

int pb_board_side_to_move(const PbBoard *p) { return p->b.side; }
int pb_board_in_check(const PbBoard *p) { return p->b.checkers != 0; }
uint64_t pb_board_key(const PbBoard *p) { return p->b.key; }
uint64_t pb_board_compute_key(const PbBoard *p) { return board_compute_key(&p->b); }

int pb_board_status(PbBoard *p) {
    const Board *b = &p->b;
    if (b->variant != VAR_STANDARD && movegen_variant_end(b)) return 6;
    if (movegen_count(b) == 0) return b->checkers ? 1 : 2;
    if (b->variant == VAR_CRAZYHOUSE) {
        /* No fifty-move rule; a capture is not irreversible (the piece comes
         * back from the pocket): a threefold over the whole history, as
         * python-chess's CrazyhouseBoard (the key covers pockets and marks). */
        int count = 1;
        for (int i = b->ply - 1, back = 1; i >= 0 && b->hist[i].move != MOVE_NULL; i--, back++)
            if (back % 2 == 0 && b->hist[i].key == b->key && ++count == 3) return 4;
        return 0;
    }
    if (b->rule50 >= 100) return 3;
    if (board_is_repetition(b, b->ply + 1)) return 4;
    if (board_insufficient_material(b)) return 5;
    return 0;
}

uint64_t pb_perft(PbBoard *p, int depth) {
    if (depth < 0) return 0;
    return perft(&p->b, depth);
}

struct PbPerftStop { atomic_int flag; };

PbPerftStop *pb_perft_stop_new(void) {
    PbPerftStop *s = malloc(sizeof *s);
    if (s) atomic_init(&s->flag, 0);
    return s;
}

void pb_perft_stop_free(PbPerftStop *s) { free(s); }

void pb_perft_stop_set(PbPerftStop *s) {
    if (s) atomic_store_explicit(&s->flag, 1, memory_order_relaxed);
}

int pb_perft_run(PbBoard *p, int depth, PbPerftStop *stop, uint64_t *nodes) {
    if (depth < 0 || depth > 63 || !nodes) return PB_ERR_ARG;
    const atomic_int *flag = stop ? &stop->flag : NULL;
    *nodes = perft_stoppable(&p->b, depth, flag);
    return flag && atomic_load_explicit(flag, memory_order_relaxed) ? 1 : 0;
}
