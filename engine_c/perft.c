/* perft.c — path enumeration; the last ply is counted from the legal list. */
#include "perft.h"
#include "movegen.h"

uint64_t perft_stoppable(Board *b, int depth, const atomic_int *stop) {
    MoveList list;
    list.count = 0;
    int n = movegen_legal(b, &list, GEN_ALL);
    if (depth <= 1) return depth == 1 ? (uint64_t)n : 1;
    uint64_t nodes = 0;
    for (int i = 0; i < n; i++) {
        /* Relaxed is enough: the flag only has to be seen eventually, and a
         * depth-2 subtree between two polls takes microseconds. */
        if (stop && atomic_load_explicit(stop, memory_order_relaxed)) break;
        board_make_move(b, list.moves[i]);
        nodes += perft_stoppable(b, depth - 1, stop);
        board_unmake_move(b);
    }
    return nodes;
}

uint64_t perft(Board *b, int depth) { return perft_stoppable(b, depth, NULL); }
