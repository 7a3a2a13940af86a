/* tune_datagen.c — labelled positions for Texel tuning from self-play.
 *
 * Plays games of the engine's evaluation against itself from opening FENs
 * (one per line, e.g. from tools/tune/book_fens.py) with a small fixed-node
 * alpha-beta search (iterative deepening, quiescence, MVV-LVA + killers),
 * and writes every quiet position of each game labelled with its final
 * result, White's view:   <FEN> | 1.0   (1.0 / 0.5 / 0.0).
 * Quiet = side to move not in check, quiescence score equals the static
 * eval (no capture gains anything), and the chosen move is not a capture or
 * promotion. Fully deterministic: the same openings and limits give the
 * same file. The search here is deliberately self-contained (no TT, no
 * pruning) so data generation does not depend on the main search's state.
 *
 * usage: tune_datagen OPENINGS OUT [--first N] [--count N] [--nodes N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../eval.h"
#include "../movegen.h"

enum { INF = 32000, MATE_SCORE = 31000, MAX_GAME_PLY = 400, ADJ_SCORE = 1200, ADJ_PLIES = 8 };

typedef struct {
    Board *b;
    uint64_t nodes, limit;
    int root_ply;
    bool stop;
    Move killers[MAX_PLY + 1][2];
} Mini;

/* Captures and promotions (castling is "king takes own rook": not a capture). */
static bool is_noisy(const Board *b, Move m) {
    int kind = move_kind(m);
    if (kind == MOVE_EP || kind == MOVE_PROMO) return true;
    return kind != MOVE_CASTLE && b->squares[move_to(m)] != NO_PIECE;
}

static int move_score(const Mini *mi, const Board *b, Move m, Move first, int ply) {
    if (m == first) return 1 << 20;
    if (is_noisy(b, m)) {
        int victim = move_kind(m) == MOVE_EP ? PAWN : piece_type(b->squares[move_to(m)]);
        int attacker = piece_type(b->squares[move_from(m)]);
        int promo = move_kind(m) == MOVE_PROMO ? move_promo(m) * 10 : 0;
        return (1 << 16) + victim * 100 - attacker + promo;
    }
    if (ply <= MAX_PLY && (m == mi->killers[ply][0] || m == mi->killers[ply][1])) return 1 << 15;
    return 0;
}

/* Selection sort step: bring the best remaining move to index i. */
static void pick(MoveList *l, int *sc, int i) {
    int best = i;
    for (int j = i + 1; j < l->count; j++)
        if (sc[j] > sc[best]) best = j;
    Move tm = l->moves[i]; l->moves[i] = l->moves[best]; l->moves[best] = tm;
    int ts = sc[i]; sc[i] = sc[best]; sc[best] = ts;
}

static int qsearch(Mini *mi, int alpha, int beta, int ply) {
    Board *b = mi->b;
    mi->nodes++;
    bool check = board_in_check(b);
    int stand = check ? -INF : eval_evaluate(b);
    if (ply >= MAX_PLY) return check ? 0 : stand;
    if (!check) {
        if (stand >= beta) return stand;
        if (stand > alpha) alpha = stand;
    }
    MoveList l;
    l.count = 0;
    movegen_legal(b, &l, check ? GEN_ALL : GEN_NOISY);
    if (check && l.count == 0) return -MATE_SCORE + ply;
    int sc[MAX_MOVES];
    for (int i = 0; i < l.count; i++) sc[i] = move_score(mi, b, l.moves[i], MOVE_NONE, MAX_PLY + 1);
    int best = stand;
    for (int i = 0; i < l.count; i++) {
        pick(&l, sc, i);
        if (!board_make_move(b, l.moves[i])) continue;
        int v = -qsearch(mi, -beta, -alpha, ply + 1);
        board_unmake_move(b);
        if (v > best) {
            best = v;
            if (v > alpha) alpha = v;
            if (v >= beta) break;
        }
    }
    return best;
}

static int alphabeta(Mini *mi, int depth, int alpha, int beta, int ply, Move first, Move *best_out) {
    Board *b = mi->b;
    if (mi->nodes >= mi->limit) mi->stop = true;
    if (mi->stop) return 0;
    if (ply > 0 && (board_is_repetition(b, mi->root_ply) || board_is_draw_50(b)
                    || board_insufficient_material(b)))
        return 0;
    if (depth <= 0 || ply >= MAX_PLY - 1) return qsearch(mi, alpha, beta, ply);
    mi->nodes++;
    MoveList l;
    l.count = 0;
    movegen_legal(b, &l, GEN_ALL);
    if (l.count == 0) return board_in_check(b) ? -MATE_SCORE + ply : 0;
    int sc[MAX_MOVES];
    for (int i = 0; i < l.count; i++) sc[i] = move_score(mi, b, l.moves[i], first, ply);
    int best = -INF;
    Move best_move = l.moves[0];
    for (int i = 0; i < l.count; i++) {
        pick(&l, sc, i);
        Move m = l.moves[i];
        if (!board_make_move(b, m)) continue;
        /* check extension keeps short searches from missing mates */
        int ext = board_in_check(b) ? 1 : 0;
        int v = -alphabeta(mi, depth - 1 + ext, -beta, -alpha, ply + 1, MOVE_NONE, NULL);
        board_unmake_move(b);
        if (mi->stop) break;
        if (v > best) {
            best = v;
            best_move = m;
            if (v > alpha) alpha = v;
            if (v >= beta) {
                if (!is_noisy(b, m) && ply <= MAX_PLY && mi->killers[ply][0] != m) {
                    mi->killers[ply][1] = mi->killers[ply][0];
                    mi->killers[ply][0] = m;
                }
                break;
            }
        }
    }
    if (best_out) *best_out = best_move;
    return best;
}

/* Iterative deepening under a node budget; returns the move of the last
 * completed iteration (or the partial one if depth 1 did not finish). */
static Move think(Mini *mi, int *score) {
    mi->nodes = 0;
    mi->stop = false;
    mi->root_ply = mi->b->ply;
    memset(mi->killers, 0, sizeof(mi->killers));
    Move best = MOVE_NONE;
    *score = 0;
    for (int d = 1; d < MAX_PLY - 8; d++) {
        Move m = MOVE_NONE;
        int v = alphabeta(mi, d, -INF, INF, 0, best, &m);
        if (mi->stop && best != MOVE_NONE) break;
        best = m;
        *score = v;
        if (mi->stop) break;
    }
    return best;
}

typedef struct {
    char (*fens)[128];
    int count, cap;
} FenBuf;

static bool fenbuf_push(FenBuf *f, const Board *b) {
    if (f->count == f->cap) {
        int cap = f->cap ? f->cap * 2 : 256;
        void *p = realloc(f->fens, (size_t)cap * sizeof(*f->fens));
        if (!p) return false;
        f->fens = p;
        f->cap = cap;
    }
    board_get_fen(b, f->fens[f->count++], sizeof(f->fens[0]));
    return true;
}

/* Plays one game; returns White's result x2 (2 win, 1 draw, 0 loss), or -1
 * on an unusable opening / out of memory. */
static int play_game(Board *b, const char *fen, uint64_t nodes, FenBuf *out) {
    if (board_set_fen(b, fen, false, NULL, 0) != PB_OK) return -1;
    Mini mi = {.b = b, .limit = nodes};
    int adj_streak = 0, adj_sign = 0;
    out->count = 0;
    for (int ply = 0; ply < MAX_GAME_PLY; ply++) {
        MoveList l;
        l.count = 0;
        movegen_legal(b, &l, GEN_ALL);
        if (l.count == 0) return board_in_check(b) ? (b->side == WHITE ? 0 : 2) : 1;
        if (board_is_draw_50(b) || board_insufficient_material(b)
            || board_is_repetition(b, b->ply + 1))
            return 1;
        int score;
        Move m = think(&mi, &score);
        if (m == MOVE_NONE) return -1;
        if (!board_in_check(b) && !is_noisy(b, m) && abs(score) < ADJ_SCORE) {
            Mini q = {.b = b, .limit = ~0ULL};
            if (qsearch(&q, -INF, INF, 0) == eval_evaluate(b) && !fenbuf_push(out, b)) return -1;
        }
        /* adjudicate clear wins once both sides' searches agree for a while */
        int white_view = b->side == WHITE ? score : -score;
        int sign = white_view >= ADJ_SCORE ? 1 : white_view <= -ADJ_SCORE ? -1 : 0;
        if (sign != 0 && sign == adj_sign) adj_streak++;
        else adj_streak = sign != 0;
        adj_sign = sign;
        if (adj_streak >= ADJ_PLIES) return sign > 0 ? 2 : 0;
        if (!board_make_move(b, m)) return 1; /* history full: cannot happen under MAX_GAME_PLY */
    }
    return 1;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s OPENINGS OUT [--first N] [--count N] [--nodes N]\n", argv[0]);
        return 2;
    }
    long first = 0, count = 1000;
    unsigned long long nodes = 3000;
    for (int i = 3; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--first")) first = strtol(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--count")) count = strtol(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--nodes")) nodes = strtoull(argv[i + 1], NULL, 10);
        else {
            fprintf(stderr, "unknown option %s (expected --first, --count or --nodes)\n", argv[i]);
            return 2;
        }
    }
    FILE *in = fopen(argv[1], "r");
    if (!in) {
        fprintf(stderr, "cannot open openings file %s\n", argv[1]);
        return 1;
    }
    FILE *out = fopen(argv[2], "a");
    if (!out) {
        fprintf(stderr, "cannot open output %s\n", argv[2]);
        fclose(in);
        return 1;
    }
    board_init_tables();
    Board *b = malloc(sizeof(*b));
    FenBuf buf = {0};
    if (!b) return 1;
    char line[256];
    long idx = 0, games = 0, positions = 0, results[3] = {0};
    while (fgets(line, sizeof(line), in) && games < count) {
        if (idx++ < first) continue;
        line[strcspn(line, "\r\n")] = 0;
        if (!line[0]) continue;
        int r = play_game(b, line, nodes, &buf);
        if (r < 0) {
            fprintf(stderr, "skipping opening %ld: %s\n", idx, line);
            continue;
        }
        const char *label = r == 2 ? "1.0" : r == 1 ? "0.5" : "0.0";
        for (int i = 0; i < buf.count; i++) fprintf(out, "%s | %s\n", buf.fens[i], label);
        fflush(out);
        games++;
        positions += buf.count;
        results[r]++;
        if (games % 50 == 0)
            fprintf(stderr, "games %ld positions %ld (+%ld =%ld -%ld)\n", games, positions,
                    results[2], results[1], results[0]);
    }
    fprintf(stderr, "done: games %ld positions %ld (+%ld =%ld -%ld)\n", games, positions,
            results[2], results[1], results[0]);
    free(buf.fens);
    free(b);
    fclose(in);
    fclose(out);
    return 0;
}
