/* datagen.c — NNUE training data: multi-threaded self-play at fixed nodes,
 * written as fixed 32-byte records (docs/tuning.md "Data generation (C)").
 *
 * Each game g (0, 1, 2, ... from --first) starts from an opening: a weighted
 * random walk of up to --book-plies plies in a Polyglot book (--book) and/or a
 * FEN line of --openings (games alternate when both are given), then
 * --random-plies uniformly random legal plies. The engine (one PbEngine per
 * worker thread: its own TT and heuristics, both cleared per game, one search
 * thread, --nodes per move) then plays itself. Games end by the rules (mate,
 * stalemate, fifty moves, threefold, insufficient material), at --max-plies
 * (draw), or by adjudication: a win when White's-view score stays beyond
 * +-win-cp for win-plies plies in a row, a draw when from fullmove
 * draw-after on |score| <= draw-cp for draw-plies plies in a row.
 * Kept: positions the engine searched with the side to move not in check,
 * its best move neither a capture nor a promotion (a crazyhouse drop is
 * quiet), and a score that is not a mate score with |score| < win-cp.
 * --variant NAME plays a variant (UCI_Variant's names: crazyhouse, atomic,
 * ...): its start position or --openings FENs under its rules, its own game
 * ends, and the engine's eval for it (its hand-crafted one, or --variant-net).
 *
 * Determinism: a game depends only on (seed, game number, the arguments,
 * the engine build): its randomness comes from a generator seeded with
 * (seed, g), the search is single-threaded at fixed nodes from a cleared TT.
 * Finished games go through a reorder ring and are written in game order, so
 * the file is byte-identical for any --threads. Not deterministic: where a
 * run stopped by SIGINT ends, and the progress lines' rates.
 *
 * File: a 32-byte header then records (little-endian):
 *   header: "PIBOTPOS" | u32 version 1 | u32 record size 32 | u64 seed |
 *           u32 nodes | u32 eval (0 HCE, 1 NNUE: the eval that played)
 *   record: u64 occupancy (bit = square, a1 = 0) | 16 bytes of 4-bit pieces
 *           for the occupied squares in ascending order, low nibble first
 *           (bits 0-2: 0 pawn .. 5 king, 6 = rook with a castling right;
 *           bit 3: black) | u8 side to move << 7 | en-passant square (64 none)
 *           | u8 halfmove clock | u16 fullmove | i16 score (cp, White's view)
 *           | u8 result (0 Black won, 1 draw, 2 White won) | u8 game number
 *           mod 256 (the trainer's validation split)
 * A variant's file is version 2: a 64-byte header (the 32 above with version
 * 2 and record size 64, then u32 variant (VAR_* of types.h), 28 zero bytes)
 * and 64-byte records: the 32 bytes above, then
 *           16 bytes of 4-bit pieces 33..64 (the horde's) | u8 variant |
 *           u8 pockets[2][5] (white, black; pawn .. queen) | u8 three-check
 *           checks left (white low nibble, black high) | u32 promoted marks
 *           (bit i: the i-th occupied square holds a promoted piece; crazyhouse)
 * Only whole games are written, each with one fwrite under the writer; a
 * SIGINT/SIGTERM ends the run after the games already finished in order.
 *
 * usage: datagen OUT [options]     (datagen --help)
 *        datagen --pack FENS OUT   (test helper: pack each line's FEN)
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../engine.h"
#include "../movegen.h"
#include "../notation.h"
#include "../pibot_nnue_api.h"
#include "../variant.h"
#include "../variant_eval.h"
#include "polyglot_random.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "datagen writes its file in host order: little-endian hosts only"
#endif

enum {
    REC_SIZE = 32, HEADER_SIZE = 32, VERSION = 1,                 /* standard chess */
    REC_SIZE_VAR = 64, HEADER_SIZE_VAR = 64, VERSION_VAR = 2,     /* a variant */
    MAX_GAME_PLIES = 1000
};
static const char MAGIC[8] = {'P', 'I', 'B', 'O', 'T', 'P', 'O', 'S'};

typedef struct {
    const char *out;
    int threads, nodes, hash_mb, eval;
    int64_t first, games, positions;
    uint64_t seed;
    const char *book, *openings, *net;
    const char *variant_name, *variant_net;   /* --variant (NULL: chess), --variant-net */
    int variant;                              /* VAR_* */
    int book_plies, random_plies, max_plies;
    int win_cp, win_plies, draw_cp, draw_plies, draw_after;
    int append;
} Options;

typedef struct {
    uint64_t key;
    uint16_t move, weight;
} BookEntry;

typedef struct {
    int64_t index;
    int n, result;           /* result: 0 Black won, 1 draw, 2 White won; -1 skipped */
    int done;                /* finished, waiting for the writer */
    uint8_t recs[MAX_GAME_PLIES * REC_SIZE_VAR];  /* n records of rec_size(o) bytes */
} Game;

typedef struct {
    const Options *o;
    BookEntry *book;
    size_t book_n;
    char **fens;
    size_t fens_n;
    /* ring of games in flight, guarded by lock */
    pthread_mutex_t lock;
    pthread_cond_t space, done;
    Game *ring;
    int cap;
    int64_t next_game, written, end;
    atomic_bool stop;
    int failed;              /* a worker's engine call failed */
    char fail_msg[256];
} Shared;

static volatile sig_atomic_t got_signal;
static void on_signal(int sig) { got_signal = sig; }

static int die(const char *msg) {
    fprintf(stderr, "datagen: %s\n", msg);
    return 2;
}

/* ------------------------------------------------------------------ rng */

static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static uint64_t below(uint64_t *s, uint64_t n) { return splitmix(s) % n; }

/* ------------------------------------------------------------------ polyglot */

static uint64_t polyglot_key(const Board *b) {
    uint64_t k = 0;
    for (Bitboard bb = b->by_type[0]; bb; bb &= bb - 1) {
        int sq = __builtin_ctzll(bb), p = b->squares[sq];
        int kind = 2 * (piece_type(p) - 1) + (piece_color(p) == WHITE);
        k ^= PolyglotRandom64[64 * kind + sq];
    }
    /* Rights in the engine's order WK, WQ, BK, BQ = Polyglot's 768..771. */
    for (int r = 0; r < 4; r++)
        if (b->castling & (1 << r)) k ^= PolyglotRandom64[768 + r];
    /* The engine keeps an ep square only when a pawn can capture there:
     * the Polyglot rule. */
    if (b->ep != SQ_NONE) k ^= PolyglotRandom64[772 + sq_file(b->ep)];
    if (b->side == WHITE) k ^= PolyglotRandom64[780];
    return k;
}

static uint64_t be64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = v << 8 | p[i];
    return v;
}

static int load_book(const char *path, BookEntry **out, size_t *n, char *err, size_t errlen) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "--book %s: %s", path, strerror(errno));
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    if (size <= 0 || size % 16) {
        snprintf(err, errlen, "--book %s: %ld bytes is not a positive multiple of 16: "
                 "not a Polyglot book", path, size);
        fclose(f);
        return 1;
    }
    uint8_t *raw = malloc((size_t)size);
    *n = (size_t)size / 16;
    *out = malloc(*n * sizeof **out);
    if (!raw || !*out || fread(raw, 1, (size_t)size, f) != (size_t)size) {
        snprintf(err, errlen, "--book %s: cannot read it", path);
        free(raw);
        fclose(f);
        return 1;
    }
    fclose(f);
    for (size_t i = 0; i < *n; i++) {
        const uint8_t *e = raw + 16 * i;
        (*out)[i].key = be64(e);
        (*out)[i].move = (uint16_t)(e[8] << 8 | e[9]);
        (*out)[i].weight = (uint16_t)(e[10] << 8 | e[11]);
        if (i && (*out)[i].key < (*out)[i - 1].key) {
            snprintf(err, errlen, "--book %s: keys not sorted at entry %zu: not a Polyglot "
                     "book", path, i);
            free(raw);
            return 1;
        }
    }
    free(raw);
    return 0;
}

/* A weighted random book move of this position (all weights 0: uniform), or MOVE_NONE. */
static Move book_move(const Shared *s, Board *b, uint64_t *rng) {
    uint64_t key = polyglot_key(b);
    size_t lo = 0, hi = s->book_n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (s->book[mid].key < key) lo = mid + 1; else hi = mid;
    }
    size_t end = lo;
    uint64_t total = 0;
    while (end < s->book_n && s->book[end].key == key) total += s->book[end++].weight;
    if (end == lo) return MOVE_NONE;
    size_t pick = lo;
    if (total == 0) pick = lo + below(rng, end - lo);
    else {
        uint64_t r = below(rng, total);
        while (r >= s->book[pick].weight) r -= s->book[pick++].weight;
    }
    /* to file/row bits 0-5, from bits 6-11, promotion 12-14 (n b r q);
     * castling is king-takes-rook, which notation_parse_uci accepts. */
    unsigned m = s->book[pick].move;
    char uci[6] = {(char)('a' + (m >> 6 & 7)), (char)('1' + (m >> 9 & 7)),
                   (char)('a' + (m & 7)), (char)('1' + (m >> 3 & 7)), 0, 0};
    unsigned promo = m >> 12 & 7;
    if (promo >= 1 && promo <= 4) uci[4] = " nbrq"[promo];
    return notation_parse_uci(b, uci);
}

/* ------------------------------------------------------------------ records */

static int rec_size(const Options *o) { return o->variant ? REC_SIZE_VAR : REC_SIZE; }
static int header_size(const Options *o) { return o->variant ? HEADER_SIZE_VAR : HEADER_SIZE; }

/* A variant record's tail (bytes 48..63; pieces 33..64 are packed with the rest). */
static void pack_variant(const Board *b, uint8_t *r) {
    r[48] = b->variant;
    for (int c = 0; c < 2; c++)
        for (int t = PAWN; t < KING; t++) r[49 + 5 * c + t - 1] = b->pocket[c][t];
    if (b->variant == VAR_THREECHECK) r[59] = (uint8_t)(b->checks_left[WHITE] | b->checks_left[BLACK] << 4);
    uint32_t marks = 0;
    int i = 0;
    for (Bitboard bb = b->by_type[0]; bb && i < 32; bb &= bb - 1, i++)
        if (b->promoted & (bb & -bb)) marks |= 1u << i;
    memcpy(r + 60, &marks, 4);
}

static void pack(const Board *b, int white_cp, int result, int64_t game, uint8_t *r) {
    bool var = b->variant != VAR_STANDARD;
    memset(r, 0, var ? REC_SIZE_VAR : REC_SIZE);
    uint64_t occ = b->by_type[0];
    memcpy(r, &occ, 8);
    int i = 0;
    for (Bitboard bb = occ; bb; bb &= bb - 1, i++) {
        int sq = __builtin_ctzll(bb), p = b->squares[sq], t = piece_type(p) - 1;
        for (int k = 0; k < 4 && t == ROOK - 1; k++)
            if ((b->castling & (1 << k)) && b->castle_rook[k] == sq) t = 6;
        /* pieces 1..32 in bytes 8..23, a variant's 33..64 in bytes 32..47 */
        r[(i < 32 ? 8 : 16) + i / 2] |= (uint8_t)((t | piece_color(p) << 3) << (4 * (i & 1)));
    }
    r[24] = (uint8_t)(b->side << 7 | (b->ep == SQ_NONE ? 64 : b->ep));
    r[25] = (uint8_t)(b->rule50 > 255 ? 255 : b->rule50);
    uint16_t fm = (uint16_t)board_fullmove(b);
    int16_t sc = (int16_t)(white_cp > 32767 ? 32767 : white_cp < -32768 ? -32768 : white_cp);
    memcpy(r + 26, &fm, 2);
    memcpy(r + 28, &sc, 2);
    r[30] = (uint8_t)result;
    r[31] = (uint8_t)(game & 255);
    if (var) pack_variant(b, r);
}

static void write_header(uint8_t *h, const Options *o) {
    memset(h, 0, (size_t)header_size(o));
    memcpy(h, MAGIC, 8);
    /* A variant searched with the NNUE when a net of it was given, or with
     * chess's net under its own terms (variant_on_chess: king of the hill,
     * three-check, crazyhouse), as the engine does (engine.c search_net). */
    int nnue = o->eval == PB_EVAL_NNUE && (!o->variant || o->variant_net || variant_on_chess(o->variant));
    uint32_t v[2] = {o->variant ? VERSION_VAR : VERSION, (uint32_t)rec_size(o)},
             tail[2] = {(uint32_t)o->nodes, (uint32_t)nnue};
    memcpy(h + 8, v, 8);
    memcpy(h + 16, &o->seed, 8);
    memcpy(h + 24, tail, 8);
    if (o->variant) {
        uint32_t var = (uint32_t)o->variant;
        memcpy(h + 32, &var, 4);
    }
}

/* ------------------------------------------------------------------ games */

static bool is_quiet_move(const Board *b, Move m) {
    int k = move_kind(m);
    if (b->variant == VAR_CRAZYHOUSE && move_is_drop(m)) return true;
    if (b->variant == VAR_ANTICHESS && k == MOVE_KING_PROMO) return false;
    if (k == MOVE_PROMO || k == MOVE_EP) return false;
    return k == MOVE_CASTLE || b->squares[move_to(m)] == NO_PIECE;
}

/* Sets b (the engine's root) to game g's opening; false if the game is over there. */
static bool opening(const Shared *s, PbEngine *e, int64_t g, uint64_t *rng) {
    const Options *o = s->o;
    Board *b = &e->root;
    bool use_book = s->book_n && (!s->fens_n || (g & 1));
    const char *fen = s->fens_n && !use_book ? s->fens[(uint64_t)(s->book_n ? g / 2 : g) % s->fens_n]
                                             : "startpos";
    if (pb_engine_set_variant_position(e, o->variant_name, fen, "", 0, NULL, 0)) return false;
    for (int i = 0; use_book && i < o->book_plies; i++) {
        Move m = book_move(s, b, rng);
        if (m == MOVE_NONE) break;
        board_make_move(b, m);
    }
    for (int i = 0; i < o->random_plies; i++) {
        MoveList l;
        l.count = 0;
        movegen_legal(b, &l, GEN_ALL);
        if (!l.count) return false;
        board_make_move(b, l.moves[below(rng, (uint64_t)l.count)]);
    }
    return movegen_count(b) > 0;
}

/* Plays game g into out; false if stopped before its end. */
static bool play_game(Shared *s, PbEngine *e, int64_t g, Game *out, char *err, size_t errlen) {
    const Options *o = s->o;
    uint64_t rng = s->o->seed * 0xD1B54A32D192ED03ULL ^ (uint64_t)g;
    splitmix(&rng);
    out->index = g;
    out->n = 0;
    out->result = -1;
    if (pb_engine_clear(e)) {
        snprintf(err, errlen, "the engine could not clear its hash table");
        return false;
    }
    if (!opening(s, e, g, &rng)) return true;   /* skipped: over in the opening */
    Board *b = &e->root;
    int win_streak = 0, win_sign = 0, draw_streak = 0, result = 1;
    PbLimits lim = {-1, -1, -1, -1, 0, -1, 0, (uint64_t)o->nodes, 0, 0, 0};
    for (int ply = 0;; ply++) {
        if (atomic_load_explicit(&s->stop, memory_order_relaxed)) return false;
        if (b->variant != VAR_STANDARD && movegen_variant_end(b)) {
            int w = movegen_variant_winner(b);     /* the hill, the third check, ... */
            result = w < 0 ? 1 : w == WHITE ? 2 : 0;
            break;
        }
        if (movegen_count(b) == 0) {
            if (b->variant == VAR_ANTICHESS) result = b->side == WHITE ? 2 : 0;   /* no move: a win */
            else result = !b->checkers ? 1 : b->side == WHITE ? 0 : 2;
            break;
        }
        if (ply >= o->max_plies || b->rule50 >= 100 || board_is_repetition(b, b->ply + 1) ||
            board_insufficient_material(b))
            break;
        PbResult res;
        if (pb_engine_search(e, &lim, &res)) {
            snprintf(err, errlen, "a search failed");
            return false;
        }
        Move m = notation_parse_uci(b, res.bestmove);
        if (m == MOVE_NONE) {
            snprintf(err, errlen, "the search returned an illegal move %s", res.bestmove);
            return false;
        }
        int cp = res.is_mate ? (res.mate > 0 ? MATE : -MATE) : res.score_cp;
        int wcp = b->side == WHITE ? cp : -cp;
        if (!res.is_mate && abs(cp) < o->win_cp && !b->checkers && is_quiet_move(b, m)) {
            pack(b, wcp, 0, g, out->recs + (size_t)out->n++ * (size_t)rec_size(o));
        }
        int sign = wcp >= o->win_cp ? 1 : wcp <= -o->win_cp ? -1 : 0;
        win_streak = sign && sign == win_sign ? win_streak + 1 : sign != 0;
        win_sign = sign;
        if (o->win_plies && win_streak >= o->win_plies) {
            result = sign > 0 ? 2 : 0;
            break;
        }
        draw_streak = board_fullmove(b) >= o->draw_after && abs(cp) <= o->draw_cp
                      ? draw_streak + 1 : 0;
        if (o->draw_plies && draw_streak >= o->draw_plies) break;
        board_make_move(b, m);
    }
    out->result = result;
    for (int i = 0; i < out->n; i++)
        out->recs[(size_t)i * (size_t)rec_size(o) + 30] = (uint8_t)result;
    return true;
}

typedef struct {
    Shared *s;
    PbEngine *e;
} Worker;

static void *worker_main(void *arg) {
    Worker *w = arg;
    Shared *s = w->s;
    char err[200];
    for (;;) {
        pthread_mutex_lock(&s->lock);
        while (!atomic_load(&s->stop) && s->next_game < s->end &&
               s->next_game >= s->written + s->cap)
            pthread_cond_wait(&s->space, &s->lock);
        if (atomic_load(&s->stop) || s->next_game >= s->end) {
            pthread_mutex_unlock(&s->lock);
            return NULL;
        }
        int64_t g = s->next_game++;
        Game *slot = &s->ring[(g - s->o->first) % s->cap];
        pthread_mutex_unlock(&s->lock);
        err[0] = '\0';
        bool finished = play_game(s, w->e, g, slot, err, sizeof err);
        pthread_mutex_lock(&s->lock);
        if (finished) slot->done = 1;
        else if (err[0] && !s->failed) {
            s->failed = 1;
            snprintf(s->fail_msg, sizeof s->fail_msg, "game %" PRId64 ": %s", g, err);
            atomic_store(&s->stop, true);
            pthread_cond_broadcast(&s->space);
        }
        pthread_cond_broadcast(&s->done);
        pthread_mutex_unlock(&s->lock);
        if (!finished) return NULL;
    }
}

/* ------------------------------------------------------------------ options */

static int load_fens(const char *path, int variant, char ***out, size_t *n, char *err,
                     size_t errlen) {
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "--openings %s: %s", path, strerror(errno));
        return 1;
    }
    size_t cap = 1024, lineno = 0;
    *out = malloc(cap * sizeof **out);
    *n = 0;
    char line[1024], msg[200];
    Board *b = malloc(sizeof *b);
    while (*out && b && fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, ";|\r\n")] = '\0';   /* EPD operations, "| score" labels */
        size_t len = strlen(line);
        while (len && line[len - 1] == ' ') line[--len] = '\0';
        if (!len || line[0] == '#') continue;
        if (board_set_fen_variant(b, line, variant, false, msg, sizeof msg)) {
            snprintf(err, errlen, "--openings %s line %zu: not a FEN (%s)", path, lineno, msg);
            fclose(f);
            free(b);
            return 1;
        }
        if (*n == cap) *out = realloc(*out, (cap *= 2) * sizeof **out);
        if (*out) (*out)[(*n)++] = strdup(line);
    }
    fclose(f);
    free(b);
    if (!*out) {
        snprintf(err, errlen, "out of memory reading %s", path);
        return 1;
    }
    if (!*n) {
        snprintf(err, errlen, "--openings %s holds no FEN", path);
        return 1;
    }
    return 0;
}

static void free_fens(char **fens, size_t n) {
    for (size_t i = 0; fens && i < n; i++) free(fens[i]);
    free(fens);
}

static const char USAGE[] =
    "usage: datagen OUT [--threads N] [--games N] [--positions N] [--first N] [--seed N]\n"
    "         [--nodes N] [--book FILE.bin] [--book-plies N] [--openings FILE]\n"
    "         [--random-plies N] [--hash MB] [--eval nnue|hce] [--net FILE.pbnn]\n"
    "         [--max-plies N] [--win-cp N] [--win-plies N] [--draw-cp N] [--draw-plies N]\n"
    "         [--draw-after FULLMOVE] [--variant NAME] [--variant-net FILE.pbnn] [--append]\n"
    "       datagen --pack FENS OUT [--variant NAME]\n";

static int parse_int(const char *name, const char *v, int64_t lo, int64_t hi, int64_t *out,
                     char *err, size_t errlen) {
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (errno || !*v || *end || x < lo || x > hi) {
        snprintf(err, errlen, "%s %s: expected an integer in %" PRId64 "..%" PRId64, name, v,
                 lo, hi);
        return 1;
    }
    *out = x;
    return 0;
}

static int parse_options(int argc, char **argv, Options *o, char *err, size_t errlen) {
    *o = (Options){.threads = 1, .nodes = 5000, .hash_mb = 4, .eval = PB_EVAL_NNUE,
                   .games = INT64_MAX / 2, .positions = 0, .seed = 1, .book_plies = 8,
                   .random_plies = 4, .max_plies = 400, .win_cp = 1000, .win_plies = 8,
                   .draw_cp = 10, .draw_plies = 12, .draw_after = 40};
    if (argc < 2 || argv[1][0] == '-') {
        snprintf(err, errlen, "the first argument is the output file (datagen --help)");
        return 1;
    }
    o->out = argv[1];
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--append")) { o->append = 1; continue; }
        if (i + 1 >= argc) {
            snprintf(err, errlen, "%s needs a value (datagen --help)", a);
            return 1;
        }
        const char *v = argv[++i];
        int64_t x = 0;
        struct { const char *name; int64_t lo, hi; void *dst; int wide; } ints[] = {
            {"--threads", 1, 256, &o->threads, 0}, {"--nodes", 1, 100000000, &o->nodes, 0},
            {"--hash", 1, 4096, &o->hash_mb, 0}, {"--first", 0, INT64_MAX / 4, &o->first, 1},
            {"--games", 1, INT64_MAX / 4, &o->games, 1},
            {"--positions", 1, INT64_MAX / 4, &o->positions, 1},
            {"--book-plies", 0, 200, &o->book_plies, 0},
            {"--random-plies", 0, 200, &o->random_plies, 0},
            {"--max-plies", 1, MAX_GAME_PLIES, &o->max_plies, 0},
            {"--win-cp", 1, 30000, &o->win_cp, 0}, {"--win-plies", 0, 1000, &o->win_plies, 0},
            {"--draw-cp", 0, 30000, &o->draw_cp, 0}, {"--draw-plies", 0, 1000, &o->draw_plies, 0},
            {"--draw-after", 1, 10000, &o->draw_after, 0},
        };
        bool done = false;
        for (size_t k = 0; k < sizeof ints / sizeof ints[0] && !done; k++) {
            if (strcmp(a, ints[k].name)) continue;
            if (parse_int(a, v, ints[k].lo, ints[k].hi, &x, err, errlen)) return 1;
            if (ints[k].wide) *(int64_t *)ints[k].dst = x; else *(int *)ints[k].dst = (int)x;
            done = true;
        }
        if (done) continue;
        if (!strcmp(a, "--seed")) {
            char *end;
            errno = 0;
            o->seed = strtoull(v, &end, 10);
            if (errno || !*v || *end || v[0] == '-') {
                snprintf(err, errlen, "--seed %s: expected a non-negative integer", v);
                return 1;
            }
        } else if (!strcmp(a, "--book")) o->book = v;
        else if (!strcmp(a, "--openings")) o->openings = v;
        else if (!strcmp(a, "--net")) o->net = v;
        else if (!strcmp(a, "--variant-net")) o->variant_net = v;
        else if (!strcmp(a, "--variant")) {
            int var = variant_from_name(v);
            if (var < 0 || !board_variant_supported(var)) {
                snprintf(err, errlen, "--variant %s: not a variant this engine plays", v);
                return 1;
            }
            o->variant = var;
            o->variant_name = var ? v : NULL;
        }
        else if (!strcmp(a, "--eval")) {
            if (!strcmp(v, "nnue")) o->eval = PB_EVAL_NNUE;
            else if (!strcmp(v, "hce")) o->eval = PB_EVAL_HCE;
            else {
                snprintf(err, errlen, "--eval %s: expected nnue or hce", v);
                return 1;
            }
        } else {
            snprintf(err, errlen, "unknown option %s (datagen --help lists them)", a);
            return 1;
        }
    }
    if (!o->book && !o->openings && !o->random_plies) {
        snprintf(err, errlen, "every game would be the same: give --book, --openings or "
                 "--random-plies >= 1");
        return 1;
    }
    if (o->net && o->eval != PB_EVAL_NNUE) {
        snprintf(err, errlen, "--net needs --eval nnue");
        return 1;
    }
    if (o->variant_net && (o->eval != PB_EVAL_NNUE || !o->variant)) {
        snprintf(err, errlen, "--variant-net needs --variant (not chess) and --eval nnue");
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------ output */

static FILE *open_output(const Options *o, char *err, size_t errlen) {
    uint8_t want[HEADER_SIZE_VAR];
    const int hsize = header_size(o), rsize = rec_size(o);
    write_header(want, o);
    struct stat st;
    bool exists = stat(o->out, &st) == 0;
    if (exists && !o->append) {
        snprintf(err, errlen, "%s exists: pass --append to add to it, or another name", o->out);
        return NULL;
    }
    if (!exists) {
        FILE *f = fopen(o->out, "wb");
        if (!f || fwrite(want, 1, (size_t)hsize, f) != (size_t)hsize || fflush(f)) {
            snprintf(err, errlen, "cannot write %s: %s", o->out, strerror(errno));
            if (f) fclose(f);
            return NULL;
        }
        return f;
    }
    FILE *f = fopen(o->out, "r+b");
    uint8_t have[HEADER_SIZE_VAR];
    if (!f || fread(have, 1, (size_t)hsize, f) != (size_t)hsize || memcmp(have, want, 16) ||
        (o->variant && memcmp(have + 32, want + 32, 4))) {
        snprintf(err, errlen, "--append: %s is not a version %d datagen file of %s", o->out,
                 o->variant ? VERSION_VAR : VERSION, variant_name(o->variant));
        if (f) fclose(f);
        return NULL;
    }
    /* Drop a torn last record (a run killed mid-write) before appending. */
    off_t whole = hsize + (st.st_size - hsize) / rsize * rsize;
    if (whole != st.st_size && ftruncate(fileno(f), whole)) {
        snprintf(err, errlen, "cannot truncate %s: %s", o->out, strerror(errno));
        fclose(f);
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    return f;
}

static int pack_fens(const char *in, const char *outpath, const char *variant) {
    char **fens;
    size_t n;
    char err[512];
    int var = variant_from_name(variant);
    if (var < 0 || !board_variant_supported(var)) return die("--pack: unknown variant");
    if (load_fens(in, var, &fens, &n, err, sizeof err)) return die(err);
    FILE *f = fopen(outpath, "wb");
    if (!f) return die("cannot write the output");
    Options o = {.seed = 0, .nodes = 0, .variant = var};
    uint8_t h[HEADER_SIZE_VAR], r[REC_SIZE_VAR];
    write_header(h, &o);
    fwrite(h, 1, (size_t)header_size(&o), f);
    Board *b = malloc(sizeof *b);
    for (size_t i = 0; b && i < n; i++) {
        board_set_fen_variant(b, fens[i], var, false, NULL, 0);
        /* Test labels: score = line number, result = line number % 3. */
        pack(b, (int)i + 1, (int)((i + 1) % 3), (int64_t)i + 1, r);
        fwrite(r, 1, (size_t)rec_size(&o), f);
    }
    free(b);
    free_fens(fens, n);
    return fclose(f) ? die("cannot write the output") : 0;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        fputs(USAGE, stdout);
        return 0;
    }
    pb_init();
    if (argc > 1 && !strcmp(argv[1], "--pack")) {
        if (argc == 6 && !strcmp(argv[4], "--variant")) return pack_fens(argv[2], argv[3], argv[5]);
        if (argc != 4) return die("usage: datagen --pack FENS OUT [--variant NAME]");
        return pack_fens(argv[2], argv[3], NULL);
    }
    Options o;
    char err[1024];
    if (parse_options(argc, argv, &o, err, sizeof err)) return die(err);
    Shared s = {.o = &o};
    if (o.book && load_book(o.book, &s.book, &s.book_n, err, sizeof err)) return die(err);
    if (o.openings && load_fens(o.openings, o.variant, &s.fens, &s.fens_n, err, sizeof err))
        return die(err);

    Worker *w = calloc((size_t)o.threads, sizeof *w);
    for (int i = 0; w && i < o.threads; i++) {
        int code = 0;
        w[i].s = &s;
        w[i].e = pb_engine_new(o.hash_mb, 1, &code);
        if (!w[i].e) {
            snprintf(err, sizeof err, "cannot make engine %d: %s", i, pb_strerror(code));
            return die(err);
        }
        if ((code = pb_engine_set_eval(w[i].e, o.eval))) {
            snprintf(err, sizeof err, "--eval: %s", pb_strerror(code));
            return die(err);
        }
        char msg[300];
        if (o.net && pb_engine_load_net(w[i].e, o.net, msg, sizeof msg)) {
            snprintf(err, sizeof err, "--net: %s", msg);
            return die(err);
        }
        if (o.variant_net &&
            pb_engine_load_variant_net(w[i].e, o.variant_name, o.variant_net, msg, sizeof msg)) {
            snprintf(err, sizeof err, "--variant-net: %s", msg);
            return die(err);
        }
    }
    FILE *out = open_output(&o, err, sizeof err);
    if (!w || !out) return die(w ? err : "out of memory");

    s.cap = 2 * o.threads + 2;
    s.ring = calloc((size_t)s.cap, sizeof *s.ring);
    if (!s.ring) return die("out of memory");
    s.next_game = s.written = o.first;
    s.end = o.first + o.games;
    pthread_mutex_init(&s.lock, NULL);
    pthread_cond_init(&s.space, NULL);
    pthread_cond_init(&s.done, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    pthread_t *tids = calloc((size_t)o.threads, sizeof *tids);
    int started = 0;
    for (; tids && started < o.threads; started++)
        if (pthread_create(&tids[started], NULL, worker_main, &w[started])) break;
    if (!started) return die("cannot start a worker thread");

    int64_t games = 0, skipped = 0, positions = 0, tally[3] = {0};
    double t0 = now_s(), last = t0;
    int rc = 0;
    pthread_mutex_lock(&s.lock);
    while (s.written < s.end) {
        Game *g = &s.ring[(s.written - o.first) % s.cap];
        for (;;) {
            /* Checked before every game written, not only while waiting: busy
             * workers could otherwise keep the writer from ever waiting. */
            if (got_signal && !atomic_load(&s.stop)) {
                fprintf(stderr, "datagen: signal %d: stopping after the games finished so far\n",
                        (int)got_signal);
                atomic_store(&s.stop, true);
                pthread_cond_broadcast(&s.space);
            }
            if (g->done || atomic_load(&s.stop)) break;
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 100000000;
            if (ts.tv_nsec >= 1000000000) { ts.tv_sec++; ts.tv_nsec -= 1000000000; }
            pthread_cond_timedwait(&s.done, &s.lock, &ts);
        }
        if (!g->done) break;
        pthread_mutex_unlock(&s.lock);
        size_t n = (size_t)g->n;
        if (n && fwrite(g->recs, (size_t)rec_size(&o), n, out) != n) {
            snprintf(err, sizeof err, "writing %s: %s", o.out, strerror(errno));
            rc = die(err);
        }
        games++;
        positions += g->n;
        if (g->result < 0) skipped++; else tally[g->result]++;
        double t = now_s();
        if (t - last >= 10.0) {
            last = t;
            fflush(out);
            fprintf(stderr, "games %" PRId64 " positions %" PRId64 " (+%" PRId64 " =%" PRId64
                    " -%" PRId64 ", %" PRId64 " skipped) %.0f pos/s\n", games, positions,
                    tally[2], tally[1], tally[0], skipped, positions / (t - t0));
        }
        pthread_mutex_lock(&s.lock);
        g->done = 0;
        s.written++;
        pthread_cond_broadcast(&s.space);
        if (rc || (o.positions && positions >= o.positions)) break;
    }
    atomic_store(&s.stop, true);
    pthread_cond_broadcast(&s.space);
    pthread_mutex_unlock(&s.lock);
    for (int i = 0; i < started; i++) pthread_join(tids[i], NULL);
    if (fclose(out) && !rc) {
        snprintf(err, sizeof err, "closing %s: %s", o.out, strerror(errno));
        rc = die(err);
    }
    double dt = now_s() - t0;
    fprintf(stderr, "done: games %" PRId64 " positions %" PRId64 " (+%" PRId64 " =%" PRId64
            " -%" PRId64 ", %" PRId64 " skipped) in %.1f s: %.1f pos/s, %d threads\n", games,
            positions, tally[2], tally[1], tally[0], skipped, dt, dt > 0 ? positions / dt : 0.0,
            o.threads);
    if (s.failed) rc = die(s.fail_msg);
    for (int i = 0; i < o.threads; i++) pb_engine_free(w[i].e);
    free_fens(s.fens, s.fens_n);
    free(s.book);
    free(s.ring);
    free(tids);
    free(w);
    return rc;
}
