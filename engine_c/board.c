/* board.c — FEN, Zobrist keys, make/unmake, repetition and material draws. */
#include "board.h"
#include "attacks.h"
#include "bitboard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

uint64_t ZobPiece[16][64];
uint64_t ZobCastle[16];
uint64_t ZobEp[8];
uint64_t ZobSide;
uint64_t ZobChecks[2][4];
uint64_t ZobPocket[2][8][POCKET_MAX + 1];
uint64_t ZobPromoted[64];
uint64_t ZobVariant[VAR_COUNT];

static const char PieceChars[] = " PNBRQK  pnbrqk";

static void init_zobrist(void) {
    uint64_t s = 0x2545F4914F6CDD1DULL;
#define NEXT() (s ^= s >> 12, s ^= s << 25, s ^= s >> 27, s * 2685821657736338717ULL)
    for (int p = 0; p < 16; p++)
        for (int sq = 0; sq < 64; sq++) ZobPiece[p][sq] = (p && piece_type(p) && piece_type(p) <= KING) ? NEXT() : 0;
    uint64_t rights[4];
    for (int i = 0; i < 4; i++) rights[i] = NEXT();
    for (int c = 0; c < 16; c++) {
        ZobCastle[c] = 0;
        for (int i = 0; i < 4; i++) if (c & (1 << i)) ZobCastle[c] ^= rights[i];
    }
    for (int f = 0; f < 8; f++) ZobEp[f] = NEXT();
    ZobSide = NEXT();
    /* Drawn after the others, which therefore stay what they were. */
    for (int c = 0; c < 2; c++)
        for (int n = 0; n < 4; n++) ZobChecks[c][n] = NEXT();
    for (int c = 0; c < 2; c++)
        for (int t = PAWN; t < KING; t++)
            for (int n = 1; n <= POCKET_MAX; n++) ZobPocket[c][t][n] = NEXT();
    for (int sq = 0; sq < 64; sq++) ZobPromoted[sq] = NEXT();
    ZobVariant[VAR_STANDARD] = 0;
    for (int v = 1; v < VAR_COUNT; v++) ZobVariant[v] = NEXT();
#undef NEXT
}

static once_flag tables_once = ONCE_FLAG_INIT;
static void init_tables(void) { attacks_init(); init_zobrist(); }
void board_init_tables(void) { call_once(&tables_once, init_tables); }

/* ---------- piece placement ---------- */

static inline void put_piece(Board *b, int pc, int sq) {
    Bitboard bb = sq_bb(sq);
    b->by_type[piece_type(pc)] |= bb;
    b->by_type[0] |= bb;
    b->by_color[piece_color(pc)] |= bb;
    b->squares[sq] = (uint8_t)pc;
}
static inline void remove_piece(Board *b, int sq) {
    int pc = b->squares[sq];
    Bitboard bb = sq_bb(sq);
    b->by_type[piece_type(pc)] ^= bb;
    b->by_type[0] ^= bb;
    b->by_color[piece_color(pc)] ^= bb;
    b->squares[sq] = NO_PIECE;
}
static inline void move_piece(Board *b, int from, int to) {
    int pc = b->squares[from];
    Bitboard ft = sq_bb(from) | sq_bb(to);
    b->by_type[piece_type(pc)] ^= ft;
    b->by_type[0] ^= ft;
    b->by_color[piece_color(pc)] ^= ft;
    b->squares[from] = NO_PIECE;
    b->squares[to] = (uint8_t)pc;
}

Bitboard board_attackers_to(const Board *b, int sq, Bitboard occ) {
    return (PawnAttacks[BLACK][sq] & board_pieces(b, WHITE, PAWN))
         | (PawnAttacks[WHITE][sq] & board_pieces(b, BLACK, PAWN))
         | (KnightAttacks[sq] & b->by_type[KNIGHT])
         | (KingAttacks[sq] & b->by_type[KING])
         | (rook_attacks(sq, occ) & (b->by_type[ROOK] | b->by_type[QUEEN]))
         | (bishop_attacks(sq, occ) & (b->by_type[BISHOP] | b->by_type[QUEEN]));
}

bool board_sq_attacked(const Board *b, int sq, int by, Bitboard occ) {
    Bitboard them = b->by_color[by];
    return (PawnAttacks[!by][sq] & them & b->by_type[PAWN])
        || (KnightAttacks[sq] & them & b->by_type[KNIGHT])
        || (KingAttacks[sq] & them & b->by_type[KING])
        || (rook_attacks(sq, occ) & them & (b->by_type[ROOK] | b->by_type[QUEEN]))
        || (bishop_attacks(sq, occ) & them & (b->by_type[BISHOP] | b->by_type[QUEEN]));
}

static Bitboard atomic_checkers(const Board *b);

static inline __attribute__((always_inline)) Bitboard compute_checkers(const Board *b) {
    int k = board_king_sq(b, b->side);   /* standard chess: there is one */
    return board_attackers_to(b, k, b->by_type[0]) & b->by_color[!b->side];
}

uint64_t board_compute_key(const Board *b) {
    uint64_t k = 0;
    for (int sq = 0; sq < 64; sq++)
        if (b->squares[sq]) k ^= ZobPiece[b->squares[sq]][sq];
    k ^= ZobCastle[b->castling];
    if (b->ep != SQ_NONE) k ^= ZobEp[sq_file(b->ep)];
    if (b->side == BLACK) k ^= ZobSide;
    k ^= ZobVariant[b->variant];
    if (b->variant == VAR_THREECHECK) k ^= ZobChecks[WHITE][b->checks_left[WHITE]] ^ ZobChecks[BLACK][b->checks_left[BLACK]];
    if (b->variant == VAR_CRAZYHOUSE) {
        for (int c = 0; c < 2; c++)
            for (int t = PAWN; t < KING; t++) k ^= ZobPocket[c][t][b->pocket[c][t]];
        Bitboard pr = b->promoted;
        while (pr) k ^= ZobPromoted[pop_lsb(&pr)];
    }
    return k;
}

static uint64_t compute_pawn_key(const Board *b) {
    uint64_t k = 0;
    Bitboard p = b->by_type[PAWN];
    while (p) { int sq = pop_lsb(&p); k ^= ZobPiece[b->squares[sq]][sq]; }
    return k;
}

/* ---------- castling setup ---------- */

static int castle_index(int c, bool king_side) { return c * 2 + (king_side ? 0 : 1); }

static void setup_castling_right(Board *b, int idx, int rook_sq) {
    int c = idx / 2;
    bool king_side = (idx % 2) == 0;
    int ksq = board_king_sq(b, c);
    int rank = c == WHITE ? 0 : 7;
    int kto = make_sq(king_side ? 6 : 2, rank), rto = make_sq(king_side ? 5 : 3, rank);
    b->castling |= 1 << idx;
    b->castle_rook[idx] = (uint8_t)rook_sq;
    b->castle_mask[ksq] &= (uint8_t)~(c == WHITE ? (CASTLE_WK | CASTLE_WQ) : (CASTLE_BK | CASTLE_BQ));
    b->castle_mask[rook_sq] &= (uint8_t)~(1 << idx);
    Bitboard path = between_bb(ksq, kto) | sq_bb(kto) | between_bb(rook_sq, rto) | sq_bb(rto);
    b->castle_path[idx] = path & ~(sq_bb(ksq) | sq_bb(rook_sq));
}

/* ---------- FEN ---------- */

#define FEN_FAIL(...) do { if (err && errlen) snprintf(err, errlen, __VA_ARGS__); return PB_ERR_FEN; } while (0)

static int parse_uint(const char *s, long maxv, long *out) {
    if (!*s) return -1;
    long v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return -1;
        v = v * 10 + (*s - '0');
        if (v > maxv) return -1;
    }
    *out = v;
    return 0;
}

/* "N+M" (python-chess: checks left) or "+N+M" (Lichess: checks given) into
 * checks left per side; -1 if malformed. */
static int parse_checks(const char *s, bool given, uint8_t out[2]) {
    if (given && *s++ != '+') return -1;
    if (s[0] < '0' || s[0] > '3' || s[1] != '+' || s[2] < '0' || s[2] > '3' || s[3]) return -1;
    int w = s[0] - '0', k = s[2] - '0';
    out[WHITE] = (uint8_t)(given ? 3 - w : w);
    out[BLACK] = (uint8_t)(given ? 3 - k : k);
    return 0;
}

bool board_variant_supported(int v) {
    return v == VAR_STANDARD || v == VAR_KOTH || v == VAR_THREECHECK || v == VAR_RACINGKINGS || v == VAR_HORDE ||
           v == VAR_ANTICHESS || v == VAR_ATOMIC || v == VAR_CRAZYHOUSE;
}

int board_set_fen(Board *out, const char *fen, bool chess960, char *err, size_t errlen) {
    return board_set_fen_variant(out, fen, VAR_STANDARD, chess960, err, errlen);
}

/* The steps of board_set_fen_variant, in the order they run. Each returns
 * PB_OK or PB_ERR_FEN with the message in err (FEN_FAIL); the fields are
 * the tokens of a private copy of the FEN, so a step may cut one up. */

/* Split the FEN into its fields, taking three-check's check counts out
 * (python-chess's "N+M" fifth field or Lichess's "+N+M" seventh). */
static int split_fields(char *buf, int variant, char *fields[8], int *nf_out, uint8_t checks_left[2],
                        char *err, size_t errlen) {
    char *save = NULL;
    int nf = 0;
    int max_fields = variant == VAR_THREECHECK ? 7 : 6;
    for (char *tok = strtok_r(buf, " \t\r\n", &save); tok; tok = strtok_r(NULL, " \t\r\n", &save)) {
        if (nf == max_fields) FEN_FAIL("too many fields (a FEN has 6: placement, side, castling, en passant, halfmove, fullmove)");
        fields[nf++] = tok;
    }
    if (variant == VAR_THREECHECK) {
        if (nf == 7 && fields[6][0] == '+') {
            if (parse_checks(fields[6], true, checks_left)) FEN_FAIL("invalid check counts '%s' (Lichess: +N+M, checks given)", fields[6]);
            nf = 6;
        } else if (nf >= 5 && strchr(fields[4], '+')) {
            if (parse_checks(fields[4], false, checks_left)) FEN_FAIL("invalid check counts '%s' (N+M, checks left)", fields[4]);
            for (int i = 4; i + 1 < nf; i++) fields[i] = fields[i + 1];
            nf--;
        }
    }
    if (nf != 4 && nf != 6)
        FEN_FAIL("expected 6 fields (placement, side, castling, en passant, halfmove, fullmove; "
                 "the last two may be left out), got %d", nf);
    *nf_out = nf;
    return PB_OK;
}

/* Crazyhouse: the pocket, cut off the placement field, where Lichess writes
 * it after the placement ("...RNBR[Qp]") and others as a ninth rank ("...RNBR/Qp"). */
static int parse_pockets(Board *b, char *placement, char *err, size_t errlen) {
    char *pk = NULL;
    size_t len = strlen(placement);
    int slashes = 0;
    for (char *q = placement; *q; q++) slashes += *q == '/';
    if (len && placement[len - 1] == ']') {
        pk = strchr(placement, '[');
        if (!pk) FEN_FAIL("pocket: ']' without '['");
        *pk++ = 0;
        placement[len - 1] = 0;
    } else if (slashes == 8) {
        pk = strrchr(placement, '/');
        *pk++ = 0;
    }
    for (; pk && *pk; pk++) {
        const char *pc = strchr(PieceChars, *pk);
        int t = pc && *pk != ' ' ? piece_type((int)(pc - PieceChars)) : 0;
        if (!t || t == KING) FEN_FAIL("invalid character '%c' in the pocket (pieces PNBRQ/pnbrq)", *pk);
        int c = piece_color((int)(pc - PieceChars));
        if (b->pocket[c][t] >= POCKET_MAX) FEN_FAIL("too many pieces in the pocket");
        b->pocket[c][t]++;
    }
    return PB_OK;
}

/* The placement field: the pieces rank by rank, and crazyhouse's '~' marks
 * of promoted pieces. */
static int parse_placement(Board *b, const char *placement, char *err, size_t errlen) {
    int rank = 7, file = 0;
    bool last_digit = false;
    for (const char *p = placement; *p; p++) {
        char ch = *p;
        if (ch == '~') {   /* crazyhouse: the piece just read was a pawn */
            int sq = make_sq(file - 1, rank);
            if (b->variant != VAR_CRAZYHOUSE || last_digit || file == 0 || (b->promoted & sq_bb(sq)) ||
                piece_type(b->squares[sq]) == PAWN || piece_type(b->squares[sq]) == KING)
                FEN_FAIL("'~' (promoted) only after a knight, bishop, rook or queen in crazyhouse");
            b->promoted |= sq_bb(sq);
        } else if (ch == '/') {
            if (file != 8) FEN_FAIL("rank %d has %d squares, expected 8", rank + 1, file);
            if (rank == 0) FEN_FAIL("more than 8 ranks in the placement field");
            rank--; file = 0; last_digit = false;
        } else if (ch >= '1' && ch <= '8') {
            if (last_digit) FEN_FAIL("two digits in a row in rank %d", rank + 1);
            file += ch - '0';
            if (file > 8) FEN_FAIL("rank %d has more than 8 squares", rank + 1);
            last_digit = true;
        } else {
            const char *pc = strchr(PieceChars, ch);
            if (!pc || ch == ' ') FEN_FAIL("invalid character '%c' in the placement field", ch);
            if (file >= 8) FEN_FAIL("rank %d has more than 8 squares", rank + 1);
            put_piece(b, (int)(pc - PieceChars), make_sq(file, rank));
            file++; last_digit = false;
        }
    }
    if (rank != 0) FEN_FAIL("placement has %d ranks, expected 8", 8 - rank);
    if (file != 8) FEN_FAIL("rank 1 has %d squares, expected 8", file);
    return PB_OK;
}

/* The men the variant allows: kings, pawn and piece counts, pawns on the
 * first or last rank. `side` is the side field, not parsed yet: in atomic
 * the side to move may have lost its king (the game is over). */
static int check_men(const Board *b, const char *side, char *err, size_t errlen) {
    int variant = b->variant;
    for (int c = 0; c < 2; c++) {
        const char *name = c == WHITE ? "white" : "black";
        int kings = popcount(board_pieces(b, c, KING));
        if (variant == VAR_HORDE && c == WHITE) {   /* the horde: no king, up to 36 pawns and pieces */
            if (kings) FEN_FAIL("white (the horde) has a king");
            /* python-chess's limit; an NNUE's overflow guard counts on it (nnue.c) */
            if (popcount(b->by_color[c]) > 36) FEN_FAIL("white (the horde) has more than 36 men");
            continue;
        }
        /* Antichess: kings are men, any number, even none. */
        if (variant == VAR_ATOMIC && !kings && c == (strcmp(side, "b") ? WHITE : BLACK)) continue;
        if (kings != 1 && variant != VAR_ANTICHESS) FEN_FAIL("%s has %d kings, expected exactly 1", name, kings);
        if (variant == VAR_CRAZYHOUSE) continue;   /* captured men come back: counted below */
        if (popcount(board_pieces(b, c, PAWN)) > 8) FEN_FAIL("%s has more than 8 pawns", name);
        if (popcount(b->by_color[c]) > 16) FEN_FAIL("%s has more than 16 pieces", name);
    }
    if (variant == VAR_CRAZYHOUSE) {
        int men = popcount(b->by_type[0]), pawns = popcount(b->by_type[PAWN]) + popcount(b->promoted);
        for (int c = 0; c < 2; c++)
            for (int t = PAWN; t < KING; t++) men += b->pocket[c][t];
        pawns += b->pocket[WHITE][PAWN] + b->pocket[BLACK][PAWN];
        if (men > 32) FEN_FAIL("%d men on the board and in the pockets, at most 32", men);
        if (pawns > 16) FEN_FAIL("%d pawns (with promoted pieces and pockets), at most 16", pawns);
    }
    /* Horde: white pawns may stand on the first rank (they start there). */
    Bitboard bad_pawns = b->by_type[PAWN] & (RANK_1_BB | RANK_8_BB);
    if (variant == VAR_HORDE) bad_pawns &= ~(board_pieces(b, WHITE, PAWN) & RANK_1_BB);
    if (bad_pawns) FEN_FAIL("pawn on the first or last rank");
    if (variant == VAR_RACINGKINGS && b->by_type[PAWN]) FEN_FAIL("racing kings has no pawns");
    return PB_OK;
}

static int parse_side(Board *b, const char *side, char *err, size_t errlen) {
    if (!strcmp(side, "w")) b->side = WHITE;
    else if (!strcmp(side, "b")) b->side = BLACK;
    else FEN_FAIL("side to move must be 'w' or 'b', got '%s'", side);
    return PB_OK;
}

/* One letter of the castling field (KQkq, or a Shredder-FEN/X-FEN rook
 * file) into a castling right; `field` is the whole field, for messages. */
static int parse_castling_right(Board *b, char ch, const char *field, char *err, size_t errlen) {
    int c = (ch >= 'a' && ch <= 'z') ? BLACK : WHITE;
    char up = (char)(c == BLACK ? ch - 32 : ch);
    int rank = c == WHITE ? 0 : 7;
    Bitboard rooks = board_pieces(b, c, ROOK) & (RANK_1_BB << (8 * rank));
    if (!board_pieces(b, c, KING)) FEN_FAIL("castling right '%c' for a side without a king", ch);
    int ksq = board_king_sq(b, c);
    if (sq_rank(ksq) != rank || sq_file(ksq) == 0 || sq_file(ksq) == 7)
        FEN_FAIL("castling right '%c' but the %s king is not on its back rank between the rooks",
                 ch, c == WHITE ? "white" : "black");
    int rsq;
    bool king_side;
    if (up == 'K' || up == 'Q') {
        king_side = up == 'K';
        Bitboard side_rooks = rooks & (king_side ? ~(sq_bb(ksq) * 2 - 1) : (sq_bb(ksq) - 1));
        if (!side_rooks) FEN_FAIL("castling right '%c' but there is no rook on that side of the king", ch);
        rsq = king_side ? msb(side_rooks) : lsb(side_rooks);  /* outermost rook (X-FEN) */
    } else if (up >= 'A' && up <= 'H') {
        rsq = make_sq(up - 'A', rank);
        if (!(rooks & sq_bb(rsq))) FEN_FAIL("castling right '%c' but there is no rook on %c%d", ch, up - 'A' + 'a', rank + 1);
        king_side = rsq > ksq;
    } else {
        FEN_FAIL("invalid castling field '%s' (use '-', KQkq, or Shredder-FEN files like HAha)", field);
    }
    int idx = castle_index(c, king_side);
    if (b->castling & (1 << idx)) FEN_FAIL("castling right for the same side given twice in '%s'", field);
    if (!b->chess960 && (sq_file(ksq) != 4 || (sq_file(rsq) != (king_side ? 7 : 0))))
        FEN_FAIL("castling right '%c' needs the king on e%d and the rook on %c%d in standard chess "
                 "(use Chess960 mode for other setups)", ch, rank + 1, king_side ? 'h' : 'a', rank + 1);
    setup_castling_right(b, idx, rsq);
    return PB_OK;
}

/* The castling field; b->chess960 says whether the rights may name any rook. */
static int parse_castling(Board *b, const char *field, char *err, size_t errlen) {
    memset(b->castle_rook, SQ_NONE, sizeof b->castle_rook);
    memset(b->castle_mask, 0xF, sizeof b->castle_mask);
    if (!strcmp(field, "-")) return PB_OK;
    if (b->variant == VAR_RACINGKINGS || b->variant == VAR_ANTICHESS)
        FEN_FAIL("%s has no castling", b->variant == VAR_RACINGKINGS ? "racing kings" : "antichess");
    for (const char *p = field; *p; p++) {
        int rc = parse_castling_right(b, *p, field, err, errlen);
        if (rc != PB_OK) return rc;
    }
    return PB_OK;
}

/* The en passant field: a square behind a pawn that just made a double
 * push, kept only if a pawn of the side to move can take there. */
static int parse_en_passant(Board *b, const char *e, char *err, size_t errlen) {
    b->ep = SQ_NONE;
    if (!strcmp(e, "-")) return PB_OK;
    if (strlen(e) != 2 || e[0] < 'a' || e[0] > 'h' || e[1] < '1' || e[1] > '8')
        FEN_FAIL("invalid en passant square '%s'", e);
    int ep = make_sq(e[0] - 'a', e[1] - '1');
    int need_rank = b->side == WHITE ? 5 : 2;
    if (sq_rank(ep) != need_rank) FEN_FAIL("en passant square %s is on the wrong rank for the side to move", e);
    int them = !b->side;
    int pawn_sq = b->side == WHITE ? ep - 8 : ep + 8;
    int from_sq = b->side == WHITE ? ep + 8 : ep - 8;
    if (b->squares[pawn_sq] != make_piece(them, PAWN) || b->squares[ep] || b->squares[from_sq])
        FEN_FAIL("en passant square %s does not follow a double pawn push", e);
    if (PawnAttacks[them][ep] & board_pieces(b, b->side, PAWN)) b->ep = ep;
    return PB_OK;
}

/* The halfmove clock and fullmove number; NULL (a 4-field FEN): 0 and 1. */
static int parse_counters(Board *b, const char *halfmove, const char *fullmove, char *err, size_t errlen) {
    b->rule50 = 0;
    b->fullmove_start = 1;
    if (!halfmove) return PB_OK;
    long v;
    if (parse_uint(halfmove, 10000, &v)) FEN_FAIL("halfmove clock must be a number 0..10000, got '%s'", halfmove);
    b->rule50 = (int)v;
    if (parse_uint(fullmove, 100000, &v) || v < 1) FEN_FAIL("fullmove number must be a number >= 1, got '%s'", fullmove);
    b->fullmove_start = (int)v;
    return PB_OK;
}

/* The legality of the position itself (the side not to move not in check,
 * at most two checkers), and the checkers of the side to move. */
static int check_checks(Board *b, char *err, size_t errlen) {
    int variant = b->variant;
    /* Atomic allows it: kings that touch, or a king that will explode the other first. */
    Bitboard them_kings = variant == VAR_ANTICHESS || variant == VAR_ATOMIC ? 0 : board_pieces(b, !b->side, KING);
    if (them_kings && board_sq_attacked(b, lsb(them_kings), b->side, b->by_type[0]))
        FEN_FAIL("the side not to move (%s) is in check", b->side == WHITE ? "black" : "white");
    b->checkers = variant == VAR_ATOMIC ? atomic_checkers(b)
                : board_pieces(b, b->side, KING) && variant != VAR_ANTICHESS ? compute_checkers(b) : 0;
    if (popcount(b->checkers) > 2 && variant != VAR_ATOMIC) FEN_FAIL("the king is attacked by more than two pieces");
    if (variant == VAR_RACINGKINGS && b->checkers) FEN_FAIL("a king in check (racing kings has no checks)");
    return PB_OK;
}

/* The fields after the split, in order, into b. */
static int parse_fields(Board *b, char *fields[8], int nf, char *err, size_t errlen) {
    int rc = PB_OK;
    if (b->variant == VAR_CRAZYHOUSE) rc = parse_pockets(b, fields[0], err, errlen);
    if (rc == PB_OK) rc = parse_placement(b, fields[0], err, errlen);
    if (rc == PB_OK) rc = check_men(b, fields[1], err, errlen);
    if (rc == PB_OK) rc = parse_side(b, fields[1], err, errlen);
    if (rc == PB_OK) rc = parse_castling(b, fields[2], err, errlen);
    if (rc == PB_OK) rc = parse_en_passant(b, fields[3], err, errlen);
    if (rc == PB_OK) rc = parse_counters(b, nf == 6 ? fields[4] : NULL, nf == 6 ? fields[5] : NULL, err, errlen);
    if (rc == PB_OK) rc = check_checks(b, err, errlen);
    return rc;
}

int board_set_fen_variant(Board *out, const char *fen, int variant, bool chess960, char *err, size_t errlen) {
    board_init_tables();
    if (!board_variant_supported(variant)) {
        if (err && errlen) snprintf(err, errlen, "variant %d is not supported", variant);
        return PB_ERR_VARIANT;
    }
    if (!fen) FEN_FAIL("empty FEN");
    char buf[256];
    size_t n = strlen(fen);
    if (n == 0) FEN_FAIL("empty FEN");
    if (n >= sizeof buf) FEN_FAIL("FEN too long (%zu characters)", n);
    memcpy(buf, fen, n + 1);

    char *fields[8];
    int nf;
    uint8_t checks_left[2] = {3, 3};
    int rc = split_fields(buf, variant, fields, &nf, checks_left, err, errlen);
    if (rc != PB_OK) return rc;

    /* Build into a temporary board so *out is untouched on failure. */
    static const Board zero;
    Board *b = malloc(sizeof *b);
    if (!b) return PB_ERR_NOMEM;
    *b = zero;
    b->variant = (uint8_t)variant;
    b->chess960 = chess960;
    b->checks_left[WHITE] = checks_left[WHITE];
    b->checks_left[BLACK] = checks_left[BLACK];
    rc = parse_fields(b, fields, nf, err, errlen);
    if (rc == PB_OK) {
        b->key = board_compute_key(b);
        b->pawn_key = compute_pawn_key(b);
        b->ply = 0;
        memcpy(out, b, sizeof *b);
    }
    free(b);
    return rc;
}
#undef FEN_FAIL

void board_set_startpos(Board *b) { board_set_fen(b, BOARD_START_FEN, false, NULL, 0); }

void board_get_fen(const Board *b, char *out, size_t outlen) {
    char buf[256];
    int n = 0;
    for (int rank = 7; rank >= 0; rank--) {
        int empty = 0;
        for (int file = 0; file < 8; file++) {
            int pc = b->squares[make_sq(file, rank)];
            if (!pc) { empty++; continue; }
            if (empty) { buf[n++] = (char)('0' + empty); empty = 0; }
            buf[n++] = PieceChars[pc];
            if (b->promoted & sq_bb(make_sq(file, rank))) buf[n++] = '~';
        }
        if (empty) buf[n++] = (char)('0' + empty);
        if (rank) buf[n++] = '/';
    }
    if (b->variant == VAR_CRAZYHOUSE) {   /* the pocket, as python-chess and Lichess write it */
        buf[n++] = '[';
        for (int c = 0; c < 2; c++)
            for (int t = QUEEN; t >= PAWN; t--)
                for (int i = 0; i < b->pocket[c][t]; i++) buf[n++] = PieceChars[make_piece(c, t)];
        buf[n++] = ']';
    }
    buf[n++] = ' ';
    buf[n++] = b->side == WHITE ? 'w' : 'b';
    buf[n++] = ' ';
    if (!b->castling) buf[n++] = '-';
    for (int idx = 0; idx < 4; idx++) {
        if (!(b->castling & (1 << idx))) continue;
        int c = idx / 2, rsq = b->castle_rook[idx];
        bool king_side = idx % 2 == 0;
        char ch;
        /* X-FEN: K/Q when the rook is the outermost on its side, else its file. */
        Bitboard rooks = board_pieces(b, c, ROOK) & rank_bb(rsq);
        int ksq = board_king_sq(b, c);
        Bitboard side_rooks = rooks & (king_side ? ~(sq_bb(ksq) * 2 - 1) : (sq_bb(ksq) - 1));
        int outer = king_side ? msb(side_rooks) : lsb(side_rooks);
        if (outer == rsq) ch = king_side ? 'K' : 'Q';
        else ch = (char)('A' + sq_file(rsq));
        buf[n++] = c == WHITE ? ch : (char)(ch + 32);
    }
    buf[n++] = ' ';
    if (b->ep == SQ_NONE) buf[n++] = '-';
    else { buf[n++] = (char)('a' + sq_file(b->ep)); buf[n++] = (char)('1' + sq_rank(b->ep)); }
    if (b->variant == VAR_THREECHECK) {   /* checks left, as python-chess writes them */
        buf[n++] = ' ';
        buf[n++] = (char)('0' + b->checks_left[WHITE]);
        buf[n++] = '+';
        buf[n++] = (char)('0' + b->checks_left[BLACK]);
    }
    buf[n] = 0;
    snprintf(out, outlen, "%s %d %d", buf, b->rule50, board_fullmove(b));
}

int board_fullmove(const Board *b) {
    /* fullmove increments after each black move: count black moves since the FEN */
    int start_side = (b->side + b->ply) & 1;
    int black_moves = start_side == WHITE ? b->ply / 2 : (b->ply + 1) / 2;
    return b->fullmove_start + black_moves;
}

/* ---------- make / unmake ---------- */

/* Save what unmake cannot recompute; the caller checked there is room. */
static inline Undo *push_undo(Board *b, Move m) {
    Undo *u = &b->hist[b->ply++];
    u->key = b->key;
    u->pawn_key = b->pawn_key;
    u->checkers = b->checkers;
    u->move = m;
    u->castling = (uint8_t)b->castling;
    u->ep = (uint8_t)b->ep;
    u->rule50 = (uint16_t)b->rule50;
    u->captured = NO_PIECE;
    return u;
}

/* What push_undo saved, back on the board (unmake, and a crazyhouse drop's). */
static inline void restore_undo(Board *b, const Undo *u) {
    b->key = u->key;
    b->pawn_key = u->pawn_key;
    b->checkers = u->checkers;
    b->castling = u->castling;
    b->ep = u->ep;
    b->rule50 = u->rule50;
}

/* Antichess's promotion to a king (MOVE_KING_PROMO, the castling kind):
 * the pawn leaves `from`, a king of its side stands on `to` after taking
 * what stood there. Returns the key so far updated. Inline on the castling
 * branch, where standard chess seldom comes: a call there would cost every
 * move its saved registers. */
static inline __attribute__((always_inline)) uint64_t make_king_promo(Board *b, Undo *u, int from, int to, uint64_t key) {
    int pawn = b->squares[from], king = make_piece(piece_color(pawn), KING);
    int captured = b->squares[to];
    if (captured) {
        u->captured = (uint8_t)captured;
        remove_piece(b, to);
        key ^= ZobPiece[captured][to];
    }
    remove_piece(b, from);
    put_piece(b, king, to);
    b->pawn_key ^= ZobPiece[pawn][from];
    b->rule50 = 0;
    return key ^ ZobPiece[pawn][from] ^ ZobPiece[king][to];
}

static inline __attribute__((always_inline)) void unmake_king_promo(Board *b, const Undo *u, int from, int to) {
    int king = b->squares[to];
    remove_piece(b, to);
    put_piece(b, make_piece(piece_color(king), PAWN), from);
    if (u->captured) put_piece(b, u->captured, to);
}

/* The move as standard chess makes it, all but the checkers. */
static inline __attribute__((always_inline)) bool make_chess(Board *b, Move m) {
    if (b->ply >= HIST_MAX) return false;
    Undo *u = push_undo(b, m);

    int us = b->side, them = !us;
    int from = move_from(m), to = move_to(m), kind = move_kind(m);
    int pc = b->squares[from];
    uint64_t key = b->key ^ ZobSide;
    if (b->ep != SQ_NONE) { key ^= ZobEp[sq_file(b->ep)]; b->ep = SQ_NONE; }
    b->rule50++;

    if (kind == MOVE_CASTLE) {
        if (__builtin_expect(b->variant == VAR_ANTICHESS, 0)) {
            key = make_king_promo(b, u, from, to, key);   /* antichess has no castling */
        } else {
        bool king_side = to > from;
        int rank = us == WHITE ? 0 : 7;
        int kto = make_sq(king_side ? 6 : 2, rank), rto = make_sq(king_side ? 5 : 3, rank);
        int rook = b->squares[to];
        remove_piece(b, from);
        remove_piece(b, to);
        put_piece(b, pc, kto);
        put_piece(b, rook, rto);
        key ^= ZobPiece[pc][from] ^ ZobPiece[pc][kto] ^ ZobPiece[rook][to] ^ ZobPiece[rook][rto];
        }
    } else {
        int cap_sq = kind == MOVE_EP ? (us == WHITE ? to - 8 : to + 8) : to;
        int captured = b->squares[cap_sq];
        if (captured) {
            u->captured = (uint8_t)captured;
            remove_piece(b, cap_sq);
            key ^= ZobPiece[captured][cap_sq];
            if (piece_type(captured) == PAWN) b->pawn_key ^= ZobPiece[captured][cap_sq];
            b->rule50 = 0;
        }
        move_piece(b, from, to);
        key ^= ZobPiece[pc][from] ^ ZobPiece[pc][to];
        if (piece_type(pc) == PAWN) {
            b->rule50 = 0;
            b->pawn_key ^= ZobPiece[pc][from];
            if (kind == MOVE_PROMO) {
                int promo = make_piece(us, move_promo(m));
                remove_piece(b, to);
                put_piece(b, promo, to);
                key ^= ZobPiece[pc][to] ^ ZobPiece[promo][to];
            } else {
                b->pawn_key ^= ZobPiece[pc][to];
                /* ep square only when a capture is pseudo-legally possible */
                if ((to ^ from) == 16 && (PawnAttacks[us][(to + from) / 2] & board_pieces(b, them, PAWN))) {
                    b->ep = (to + from) / 2;
                    key ^= ZobEp[sq_file(b->ep)];
                }
            }
        }
    }
    int rights = b->castling & b->castle_mask[from] & b->castle_mask[to];
    if (rights != b->castling) {
        key ^= ZobCastle[b->castling] ^ ZobCastle[rights];
        b->castling = rights;
    }
    b->key = key;
    b->side = them;
    return true;
}

/* After a variant's move (b->side is the side to move now): what standard
 * chess leaves to compute_checkers, plus the variant's own state. Out of
 * line: board_make_move stays as it was for standard chess. */
/* Atomic: a capture explodes the capturing piece and every piece but a
 * pawn around the target square (python-chess's AtomicBoard). Recorded in
 * b->blast for unmake; rights whose king or rook is blown up are lost. */
static void atomic_explode(Board *b) {
    const Undo *u = &b->hist[b->ply - 1];
    uint8_t *rec = b->blast[b->ply - 1];
    rec[0] = NO_PIECE;
    if (!u->captured) return;   /* castling (king takes own rook) sets no capture */
    int to = move_to(u->move), rights = b->castling;
    uint64_t key = b->key;
    Bitboard around = KingAttacks[to];
    for (int i = 1; around; i++) {
        int sq = pop_lsb(&around), p = b->squares[sq];
        rec[i] = NO_PIECE;
        if (!p || piece_type(p) == PAWN) continue;
        rec[i] = (uint8_t)p;
        remove_piece(b, sq);
        key ^= ZobPiece[p][sq];
        rights &= b->castle_mask[sq];
    }
    int pc = b->squares[to];
    rec[0] = (uint8_t)pc;
    remove_piece(b, to);
    key ^= ZobPiece[pc][to];
    if (piece_type(pc) == PAWN) b->pawn_key ^= ZobPiece[pc][to];
    if (rights != b->castling) {
        key ^= ZobCastle[b->castling] ^ ZobCastle[rights];
        b->castling = rights;
    }
    b->key = key;
}

static void atomic_unexplode(Board *b) {
    const Undo *u = &b->hist[b->ply - 1];
    if (!u->captured) return;
    const uint8_t *rec = b->blast[b->ply - 1];
    int to = move_to(u->move);
    Bitboard around = KingAttacks[to];
    for (int i = 1; around; i++) {
        int sq = pop_lsb(&around);
        if (rec[i]) put_piece(b, rec[i], sq);
    }
    put_piece(b, rec[0], to);
}

/* Atomic: kings that touch cannot check each other (a capture next to the
 * enemy king would blow up one's own); without a king nobody is in check. */
static Bitboard atomic_checkers(const Board *b) {
    Bitboard wk = board_pieces(b, WHITE, KING), bk = board_pieces(b, BLACK, KING);
    if (!wk || !bk || (KingAttacks[lsb(wk)] & bk)) return 0;
    return compute_checkers(b);
}

/* Crazyhouse, after make_chess (which makes of a drop, from == to on an
 * empty square, no more than the side, the clocks, the en-passant square
 * and one stray bit, put right here):
 * the dropped piece, the pocket, the promoted marks. As python-chess: a
 * captured piece goes to the capturer's pocket, as a pawn if it was
 * promoted; a promoted piece keeps its mark when it moves; castling clears
 * the marks of king and rook. */
static void zh_after_make(Board *b) {
    int us = !b->side;
    const Undo *u = &b->hist[b->ply - 1];
    Move m = u->move;
    int from = move_from(m), to = move_to(m), kind = move_kind(m);
    Bitboard before = b->promoted, after = before;
    b->promoted_before[b->ply - 1] = before;
    uint64_t key = b->key;
    if (move_is_drop(m)) {
        int t = move_drop_type(m), pc = make_piece(us, t), n = b->pocket[us][t];
        /* make_chess moved "nothing" (NO_PIECE: type 0, colour WHITE) from
         * `to` to `to`: all it left is WHITE's bit there toggled. */
        b->by_color[WHITE] ^= sq_bb(to);
        put_piece(b, pc, to);
        key ^= ZobPiece[pc][to] ^ ZobPocket[us][t][n] ^ ZobPocket[us][t][n - 1];
        if (t == PAWN) b->pawn_key ^= ZobPiece[pc][to];
        b->pocket[us][t] = (uint8_t)(n - 1);
    } else if (kind == MOVE_CASTLE) {
        after &= ~(sq_bb(from) | sq_bb(to));
    } else {
        if (u->captured) {
            int cap_sq = kind == MOVE_EP ? (us == WHITE ? to - 8 : to + 8) : to;
            int t = (before & sq_bb(cap_sq)) ? PAWN : piece_type(u->captured), n = b->pocket[us][t];
            if (n < POCKET_MAX) {
                key ^= ZobPocket[us][t][n] ^ ZobPocket[us][t][n + 1];
                b->pocket[us][t] = (uint8_t)(n + 1);
            }
            after &= ~sq_bb(cap_sq);
        }
        if (before & sq_bb(from)) after ^= sq_bb(from) | sq_bb(to);
        if (kind == MOVE_PROMO) after |= sq_bb(to);
    }
    Bitboard changed = before ^ after;
    while (changed) key ^= ZobPromoted[pop_lsb(&changed)];
    b->promoted = after;
    b->key = key;
    b->checkers = compute_checkers(b);
}

/* Crazyhouse, before unmake: the pocket and the marks back. A drop is
 * undone here whole (true); a board move leaves its pieces to unmake. */
static bool zh_before_unmake(Board *b) {
    const Undo *u = &b->hist[b->ply - 1];
    Move m = u->move;
    int us = !b->side, to = move_to(m), kind = move_kind(m);
    Bitboard before = b->promoted_before[b->ply - 1];
    if (move_is_drop(m)) {
        remove_piece(b, to);
        b->pocket[us][move_drop_type(m)]++;
        b->ply--;
        b->side = us;
        restore_undo(b, u);
        b->promoted = before;
        return true;
    }
    if (u->captured && kind != MOVE_CASTLE) {
        int cap_sq = kind == MOVE_EP ? (us == WHITE ? to - 8 : to + 8) : to;
        int t = (before & sq_bb(cap_sq)) ? PAWN : piece_type(u->captured);
        if (b->pocket[us][t]) b->pocket[us][t]--;
    }
    b->promoted = before;
    return false;
}

static __attribute__((noinline)) void variant_after_make(Board *b) {
    if (b->variant == VAR_CRAZYHOUSE) {
        zh_after_make(b);
        return;
    }
    if (b->variant == VAR_ATOMIC) {
        atomic_explode(b);
        b->checkers = atomic_checkers(b);
        return;
    }
    /* No checks without a king (the horde) or in antichess (kings are men). */
    b->checkers = board_pieces(b, b->side, KING) && b->variant != VAR_ANTICHESS ? compute_checkers(b) : 0;
    if (b->variant == VAR_HORDE && b->ep != SQ_NONE && relative_rank(!b->side, b->ep) == 1) {
        /* A horde pawn's double step from the first rank leaves no en-passant
         * square: no pawn can stand where it would take (python-chess). */
        b->key ^= ZobEp[sq_file(b->ep)];
        b->ep = SQ_NONE;
    }
    if (b->variant == VAR_THREECHECK && b->checkers) {
        int c = !b->side;
        if (b->checks_left[c]) {
            b->key ^= ZobChecks[c][b->checks_left[c]] ^ ZobChecks[c][b->checks_left[c] - 1];
            b->checks_left[c]--;
        }
    }
}

bool board_make_move(Board *b, Move m) {
    if (!make_chess(b, m)) return false;
    if (__builtin_expect(b->variant != VAR_STANDARD, 0)) variant_after_make(b);
    else b->checkers = compute_checkers(b);
    return true;
}

/* Before undoing a variant's move (b->side: the side that did not make it).
 * True when the move is undone whole (a crazyhouse drop). */
static __attribute__((noinline)) bool variant_before_unmake(Board *b) {
    if (b->variant == VAR_CRAZYHOUSE) return zh_before_unmake(b);
    if (b->variant == VAR_ATOMIC) atomic_unexplode(b);
    if (b->variant == VAR_THREECHECK && b->checkers) b->checks_left[!b->side]++;
    return false;
}


/* The key board_make_move(b, m) would leave, without making the move (the
 * search prefetches the child's TT bucket with it early). Must follow
 * board_make_move step for step; tests/test_engine_unit.py checks it. */
uint64_t board_key_after(const Board *b, Move m) {
    int us = b->side, them = !us;
    int from = move_from(m), to = move_to(m), kind = move_kind(m);
    int pc = b->squares[from];
    uint64_t key = b->key ^ ZobSide;
    if (b->ep != SQ_NONE) key ^= ZobEp[sq_file(b->ep)];
    if (kind == MOVE_CASTLE) {
        bool king_side = to > from;
        int rank = us == WHITE ? 0 : 7;
        int kto = make_sq(king_side ? 6 : 2, rank), rto = make_sq(king_side ? 5 : 3, rank);
        int rook = b->squares[to];
        key ^= ZobPiece[pc][from] ^ ZobPiece[pc][kto] ^ ZobPiece[rook][to] ^ ZobPiece[rook][rto];
    } else {
        int cap_sq = kind == MOVE_EP ? (us == WHITE ? to - 8 : to + 8) : to;
        int captured = b->squares[cap_sq];
        if (captured) key ^= ZobPiece[captured][cap_sq];
        key ^= ZobPiece[pc][from] ^ ZobPiece[pc][to];
        if (kind == MOVE_PROMO)
            key ^= ZobPiece[pc][to] ^ ZobPiece[make_piece(us, move_promo(m))][to];
        else if (piece_type(pc) == PAWN && (to ^ from) == 16 &&
                 (PawnAttacks[us][(to + from) / 2] & board_pieces(b, them, PAWN)))
            key ^= ZobEp[sq_file((to + from) / 2)];
    }
    int rights = b->castling & b->castle_mask[from] & b->castle_mask[to];
    return key ^ ZobCastle[b->castling] ^ ZobCastle[rights];
}

void board_unmake_move(Board *b) {
    if (__builtin_expect(b->variant != VAR_STANDARD, 0) && variant_before_unmake(b)) return;
    Undo *u = &b->hist[--b->ply];
    Move m = u->move;
    b->side = !b->side;
    int us = b->side;
    int from = move_from(m), to = move_to(m), kind = move_kind(m);
    if (kind == MOVE_CASTLE) {
        if (__builtin_expect(b->variant == VAR_ANTICHESS, 0)) {
            unmake_king_promo(b, u, from, to);   /* antichess has no castling */
        } else {
        bool king_side = to > from;
        int rank = us == WHITE ? 0 : 7;
        int kto = make_sq(king_side ? 6 : 2, rank), rto = make_sq(king_side ? 5 : 3, rank);
        int king = b->squares[kto], rook = b->squares[rto];
        remove_piece(b, kto);
        remove_piece(b, rto);
        put_piece(b, king, from);
        put_piece(b, rook, to);
        }
    } else {
        if (kind == MOVE_PROMO) {
            remove_piece(b, to);
            put_piece(b, make_piece(us, PAWN), to);
        }
        move_piece(b, to, from);
        if (u->captured) {
            int cap_sq = kind == MOVE_EP ? (us == WHITE ? to - 8 : to + 8) : to;
            put_piece(b, u->captured, cap_sq);
        }
    }
    restore_undo(b, u);
}

void board_make_null(Board *b) {
    push_undo(b, MOVE_NULL);
    if (b->ep != SQ_NONE) { b->key ^= ZobEp[sq_file(b->ep)]; b->ep = SQ_NONE; }
    b->key ^= ZobSide;
    b->rule50++;
    b->side = !b->side;
    b->checkers = 0;   /* null moves are never made in check */
}

void board_unmake_null(Board *b) {
    Undo *u = &b->hist[--b->ply];
    b->side = !b->side;
    b->key = u->key;
    b->checkers = u->checkers;
    b->ep = u->ep;
    b->rule50 = u->rule50;
}

/* ---------- draws ---------- */

bool board_is_repetition(const Board *b, int search_root_ply) {
    int limit = b->rule50 < b->ply ? b->rule50 : b->ply;
    int count = 0;
    for (int back = 1; back <= limit; back++) {
        const Undo *u = &b->hist[b->ply - back];
        if (u->move == MOVE_NULL) return false;
        if (back % 2 == 0 && u->key == b->key) {
            /* Twofold strictly after the root is a draw; the root itself and
             * earlier positions count towards the threefold only (returning
             * to the root once is not yet a draw, as in Stockfish). */
            if (b->ply - back > search_root_ply) return true;
            if (++count == 2) return true;
        }
    }
    return false;
}

bool board_insufficient_material(const Board *b) {
    if (b->by_type[PAWN] | b->by_type[ROOK] | b->by_type[QUEEN]) return false;
    if (b->variant != VAR_STANDARD)   /* a king can still reach the hill or the goal; a minor can check */
        return b->variant == VAR_THREECHECK && b->by_type[0] == b->by_type[KING];
    Bitboard minors = b->by_type[KNIGHT] | b->by_type[BISHOP];
    if (popcount(minors) <= 1) return true;
    if (b->by_type[KNIGHT]) return false;
    const Bitboard dark = 0xAA55AA55AA55AA55ULL;
    Bitboard bishops = b->by_type[BISHOP];
    return (bishops & dark) == bishops || (bishops & ~dark) == bishops;
}

void board_compact_history(Board *b) {
    int keep = b->rule50 < b->ply ? b->rule50 : b->ply;
    if (keep > HIST_MAX / 2) keep = HIST_MAX / 2;
    int drop = b->ply - keep;
    if (drop <= 0) return;
    /* fullmove bookkeeping: advance the start by the dropped black moves */
    int start_side = (b->side + b->ply) & 1;
    int black_moves = start_side == WHITE ? drop / 2 : (drop + 1) / 2;
    b->fullmove_start += black_moves;
    memmove(b->hist, b->hist + drop, (size_t)keep * sizeof(Undo));
    if (b->variant == VAR_ATOMIC) memmove(b->blast, b->blast + drop, (size_t)keep * sizeof b->blast[0]);
    if (b->variant == VAR_CRAZYHOUSE)
        memmove(b->promoted_before, b->promoted_before + drop, (size_t)keep * sizeof b->promoted_before[0]);
    b->ply = keep;
}
