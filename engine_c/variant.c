/* variant.c — names and start positions of the rule sets (variant.h). */
#include "variant.h"
#include "board.h"

#include <strings.h>

static const struct {
    const char *uci;     /* Fairy-Stockfish's UCI_Variant name */
    const char *alias1;  /* Lichess API key */
    const char *alias2;  /* python-chess or another common spelling */
    const char *start;
} Variants[VAR_COUNT] = {
    [VAR_STANDARD] = {"chess", "standard", "fromPosition", BOARD_START_FEN},
    [VAR_KOTH] = {"kingofthehill", "kingOfTheHill", "koth", BOARD_START_FEN},
    [VAR_THREECHECK] = {"3check", "threeCheck", "3-check",
                        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 3+3 0 1"},
    [VAR_RACINGKINGS] = {"racingkings", "racingKings", "racing", "8/8/8/8/8/8/krbnNBRK/qrbnNBRQ w - - 0 1"},
    [VAR_HORDE] = {"horde", "horde", "horde",
                   "rnbqkbnr/pppppppp/8/1PP2PP1/PPPPPPPP/PPPPPPPP/PPPPPPPP/PPPPPPPP w kq - 0 1"},
    [VAR_ANTICHESS] = {"antichess", "antichess", "giveaway",
                       "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"},
    [VAR_ATOMIC] = {"atomic", "atomic", "atom", BOARD_START_FEN},
    [VAR_CRAZYHOUSE] = {"crazyhouse", "crazyhouse", "zh",
                        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1"},
};

int variant_from_name(const char *name) {
    if (!name || !*name) return VAR_STANDARD;
    for (int v = 0; v < VAR_COUNT; v++)
        if (!strcasecmp(name, Variants[v].uci) || !strcasecmp(name, Variants[v].alias1) ||
            !strcasecmp(name, Variants[v].alias2))
            return v;
    return PB_ERR_VARIANT;
}

const char *variant_name(int v) { return v >= 0 && v < VAR_COUNT ? Variants[v].uci : "?"; }

const char *variant_start_fen(int v) { return v >= 0 && v < VAR_COUNT ? Variants[v].start : BOARD_START_FEN; }
