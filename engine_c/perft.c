/* perft.c — path enumeration; the last ply is counted from the legal list. */
#include "perft.h"
#include "movegen.h"

uint64_t perft(Board *b, int depth) {
    MoveList list;
    list.count = 0;
    int n = movegen_legal(b, &list, GEN_ALL);
    if (depth <= 1) return depth == 1 ? (uint64_t)n : 1;
    uint64_t nodes = 0;
    for (int i = 0; i < n; i++) {
        board_make_move(b, list.moves[i]);
        nodes += perft(b, depth - 1);
        board_unmake_move(b);
    }
    return nodes;
}
