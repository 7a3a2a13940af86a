/* movegen_emit.h — how movegen.c and movegen_variant.c write moves into a list
 * (module-private, not part of the engine's API).
 *
 * A generator fills a caller's Move array through a cursor: each helper writes
 * at `out` and returns the advanced cursor. Promotions follow the staged
 * generation's split: GEN_NOISY gets the queen promotion, GEN_QUIET the three
 * under-promotions, GEN_ALL all four.
 */
#ifndef PB_MOVEGEN_EMIT_H
#define PB_MOVEGEN_EMIT_H

#include "movegen.h"

static inline Move *mg_add(Move *out, int from, int to, int kind) {
    *out++ = move_make(from, to, kind, 0);
    return out;
}

static inline Move *mg_add_promos(Move *out, int from, int to, int kind) {
    if (kind != GEN_QUIET) *out++ = move_make(from, to, MOVE_PROMO, QUEEN);
    if (kind != GEN_NOISY) {
        *out++ = move_make(from, to, MOVE_PROMO, KNIGHT);
        *out++ = move_make(from, to, MOVE_PROMO, ROOK);
        *out++ = move_make(from, to, MOVE_PROMO, BISHOP);
    }
    return out;
}

#endif
