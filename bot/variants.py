"""The Lichess variants, one row each: what a game in each is on this side.

Lichess names a variant by its key (a challenge's and a game's `variant.key`,
`challenge.variants`, the books' per-variant lists); python-chess by a board
class (the bot's referee for its own moves, books, tablebases and PGN); the
engine by its UCI_Variant name (Fairy-Stockfish's, "chess" for standard rules).
This table joins the three, so no other module spells a variant twice.

Which online services answer for which variant (lichess-org/api doc/specs):
the tablebase serves `/standard`, `/atomic` and `/antichess` only
(tags/tablebase/*.yaml); the opening explorer's Lichess database and the cloud
evaluation take a `variant` (schemas/VariantKey.yaml: every key but a FEN game
is its base variant); the masters database is standard chess only.  The local
Syzygy tables are standard chess's.

A game's start position: lila writes `initialFen` only for Chess960 and From
Position games (modules/challenge ChallengeJoiner.gameSetup keeps a challenge's
FEN only for those two; modules/game GameRepo.insertDenormalized stores one only
for them), so a horde or racing kings game comes as "startpos", meaning the
variant's own start (python-chess's board class without a FEN).
"""

from __future__ import annotations

from dataclasses import dataclass

import chess
import chess.variant

from bot.lichess_limits import VARIANTS


@dataclass(frozen=True)
class Variant:
    key: str  # Lichess's key
    name: str  # Lichess's name (a PGN's Variant header)
    board: type[chess.Board]  # python-chess's rules
    engine: str  # the engine's UCI_Variant name; "chess" = standard rules
    tablebase: str | None = None  # tablebase.lichess.ovh's path for it, or None
    explorer: str | None = None  # the explorer's (and cloud eval's) `variant`, or None

    @property
    def standard_rules(self) -> bool:
        """Chess's own rules (standard, Chess960, From Position): the NNUE, the
        Syzygy tables and the standard books' world."""
        return self.engine == "chess"

    def start_board(self, fen: str | None = None, chess960: bool = False) -> chess.Board:
        """A python-chess board at `fen` (None or "startpos": the variant's start).

        Raises ValueError for a FEN python-chess cannot read under these rules."""
        if fen in (None, "", "startpos"):
            return self.board(chess960=chess960)
        return self.board(fen, chess960=chess960)


_ROWS = (
    Variant("standard", "Standard", chess.Board, "chess", "standard", "standard"),
    Variant("chess960", "Chess960", chess.Board, "chess", None, "chess960"),
    # A FEN game: the explorer and cloud eval know its position as standard chess's.
    Variant("fromPosition", "From Position", chess.Board, "chess", "standard", "standard"),
    Variant("crazyhouse", "Crazyhouse", chess.variant.CrazyhouseBoard, "crazyhouse", None,
            "crazyhouse"),
    Variant("atomic", "Atomic", chess.variant.AtomicBoard, "atomic", "atomic", "atomic"),
    Variant("antichess", "Antichess", chess.variant.AntichessBoard, "antichess", "antichess",
            "antichess"),
    Variant("kingOfTheHill", "King of the Hill", chess.variant.KingOfTheHillBoard,
            "kingofthehill", None, "kingOfTheHill"),
    Variant("threeCheck", "Three-check", chess.variant.ThreeCheckBoard, "3check", None,
            "threeCheck"),
    Variant("horde", "Horde", chess.variant.HordeBoard, "horde", None, "horde"),
    Variant("racingKings", "Racing Kings", chess.variant.RacingKingsBoard, "racingkings", None,
            "racingKings"),
)
BY_KEY: dict[str, Variant] = {v.key: v for v in _ROWS}
assert tuple(BY_KEY) == VARIANTS, "bot.lichess_limits.VARIANTS and this table differ"

# Keys of the variants with rules of their own (per-variant books, strength tables).
OWN_RULES = tuple(v.key for v in _ROWS if not v.standard_rules)
# The same variants by the engine's UCI_Variant name: python-chess's board class
# (the referee of the engine's tests and variant matches).
ENGINE_BOARDS: dict[str, type[chess.Board]] = {
    v.engine: v.board for v in _ROWS if not v.standard_rules}


def get(key: str) -> Variant:
    """The row of a Lichess key; an unknown key (never expected past the config and
    the challenge policy) is standard chess's, as lila's `Variant.orDefault`."""
    return BY_KEY.get(key, BY_KEY["standard"])


def of_board(board: chess.Board) -> Variant:
    """The row of a python-chess board (Chess960 by its flag, else by its class)."""
    if type(board) is chess.Board:
        return BY_KEY["chess960" if board.chess960 else "standard"]
    for row in _ROWS:
        if type(board) is row.board:
            return row
    return BY_KEY["standard"]
