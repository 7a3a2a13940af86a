/* variant.h — names and start positions of the rule sets (VAR_* in types.h).
 *
 * A Board carries its rule set in b->variant (board.h); standard chess is
 * VAR_STANDARD = 0 and every variant rule is reached through one test of
 * that field (board_make_move, movegen_legal), so standard chess pays one
 * predictable branch per call. Names are accepted as Fairy-Stockfish's
 * UCI_Variant spells them ("kingofthehill", "3check", ...), as Lichess's API
 * does ("kingOfTheHill", "threeCheck", ...) and as python-chess's uci_variant
 * does; lookups ignore case.
 */
#ifndef PB_VARIANT_H
#define PB_VARIANT_H

#include "types.h"

/* VAR_* of a name, or PB_ERR_VARIANT if unknown. NULL or "" is standard. */
int variant_from_name(const char *name);
/* The UCI_Variant name ("chess" for standard). */
const char *variant_name(int variant);
/* The start position of the variant as a FEN. */
const char *variant_start_fen(int variant);

#endif
