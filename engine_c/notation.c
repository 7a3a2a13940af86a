/* notation.c — moves as UCI text, read against the legal move list. */
#include "notation.h"
#include "movegen.h"

#include <string.h>

void notation_move_to_uci(const Board *b, Move m, char out[6]) {
    int from = move_from(m), to = move_to(m);
    if (m == MOVE_NONE) { strcpy(out, "0000"); return; }
    if (b->variant == VAR_CRAZYHOUSE && move_is_drop(m)) {   /* "N@f3", as python-chess writes it */
        out[0] = " PNBRQK"[move_drop_type(m)];
        out[1] = '@';
        out[2] = (char)('a' + sq_file(to));
        out[3] = (char)('1' + sq_rank(to));
        out[4] = 0;
        return;
    }
    bool king_promo = b->variant == VAR_ANTICHESS && move_kind(m) == MOVE_KING_PROMO;
    if (move_kind(m) == MOVE_CASTLE && !b->chess960 && !king_promo)
        to = make_sq(to > from ? 6 : 2, sq_rank(from));
    out[0] = (char)('a' + sq_file(from));
    out[1] = (char)('1' + sq_rank(from));
    out[2] = (char)('a' + sq_file(to));
    out[3] = (char)('1' + sq_rank(to));
    out[4] = move_kind(m) == MOVE_PROMO ? " pnbrqk"[move_promo(m)] : king_promo ? 'k' : 0;
    out[5] = 0;
}

Move notation_parse_uci(Board *b, const char *uci) {
    if (!uci) return MOVE_NONE;
    size_t n = strlen(uci);
    if (n < 4 || n > 5) return MOVE_NONE;
    if (n == 4 && uci[1] == '@') {   /* a crazyhouse drop: "P@e4" (python-chess also reads "p@e4") */
        const char *p = strchr("pnbrqPNBRQ", uci[0]);
        if (!p || !uci[0] || uci[2] < 'a' || uci[2] > 'h' || uci[3] < '1' || uci[3] > '8') return MOVE_NONE;
        Move m = move_make_drop(make_sq(uci[2] - 'a', uci[3] - '1'), PAWN + (int)(p - "pnbrqPNBRQ") % 5);
        MoveList list;
        list.count = 0;
        movegen_legal(b, &list, GEN_ALL);
        for (int i = 0; i < list.count; i++)
            if (list.moves[i] == m && b->variant == VAR_CRAZYHOUSE) return m;
        return MOVE_NONE;
    }
    if (uci[0] < 'a' || uci[0] > 'h' || uci[2] < 'a' || uci[2] > 'h' ||
        uci[1] < '1' || uci[1] > '8' || uci[3] < '1' || uci[3] > '8')
        return MOVE_NONE;
    int promo = 0;
    if (n == 5) {
        const char *p = strchr("nbrqk", uci[4]);
        if (!p || !uci[4]) return MOVE_NONE;
        promo = KNIGHT + (int)(p - "nbrqk");   /* k: antichess */
    }
    int from = make_sq(uci[0] - 'a', uci[1] - '1'), to = make_sq(uci[2] - 'a', uci[3] - '1');
    MoveList list;
    list.count = 0;
    movegen_legal(b, &list, GEN_ALL);
    for (int i = 0; i < list.count; i++) {
        Move m = list.moves[i];
        if (move_from(m) != from || move_is_drop(m)) continue;
        if (b->variant == VAR_ANTICHESS && move_kind(m) == MOVE_KING_PROMO) {
            if (promo == KING && move_to(m) == to) return m;
            continue;
        }
        if (move_kind(m) == MOVE_PROMO) {
            if (move_to(m) == to && move_promo(m) == promo) return m;
            continue;
        }
        if (promo) continue;
        if (move_to(m) == to) return m;   /* normal move, or castling as king-takes-rook */
        if (move_kind(m) == MOVE_CASTLE && !b->chess960 &&
            to == make_sq(move_to(m) > from ? 6 : 2, sq_rank(from)))
            return m;                     /* e1g1 style */
    }
    return MOVE_NONE;
}

int notation_push_uci(Board *b, const char *uci) {
    Move m = notation_parse_uci(b, uci);
    if (m == MOVE_NONE) return PB_ERR_MOVE;
    if (b->ply >= HIST_COMPACT_AT) board_compact_history(b);
    if (!board_make_move(b, m)) return PB_ERR_HISTORY;
    return PB_OK;
}
