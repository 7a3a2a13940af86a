"""A game from the records database as Lichess exports it.

Lichess's export (lila's PgnDump, scalachess's pgn.Move) writes each move's
comment as `{ [%eval E] [%clk H:MM:SS] }`:

- %eval: the position after the move, from White's side: pawns with two
  decimals (`0.17`, `-1.50`; lila's Cp.showPawns is "%.2f"), or `#N` / `#-N`
  for a mate (White mates in N / Black mates in N);
- %clk: the mover's clock after the move, increment included, in whole seconds
  as h:mm:ss (scalachess Move.formatPgnSeconds), omitted without a clock.

Headers follow lila's order: Event (the arena's name when there is one, else
"Rated Blitz game"), Site, Date, Round, White, Black, Result, UTCDate, UTCTime,
WhiteElo, BlackElo, WhiteRatingDiff, BlackRatingDiff, WhiteTitle, BlackTitle,
Variant, TimeControl, (FEN, SetUp), Termination; then pibot's own BotStrength,
the level the engine played at ("full" or an Elo, "1450"), where it is known.

Where a move has no eval of its own (the opponent's moves, a book move), it
takes the nearest one the engine gave for the same position: the search for
our reply evaluates exactly the position after the opponent's move (see
`evals` for the rest).
"""

from __future__ import annotations

import datetime as dt
import logging

import chess
import chess.pgn
import chess.variant

from bot.store.model import GameEnd, GameStart, MoveRecord, result_for
from bot.store.queries import StoredGame

log = logging.getLogger(__name__)

# lila's Termination tag by the API's status names (modules/game/src/main/PgnDump.scala
# `tags`, lila 002fba69).
_TERMINATION = {
    "created": "Unterminated", "started": "Unterminated",
    "aborted": "Abandoned", "noStart": "Abandoned",
    "timeout": "Time forfeit", "outoftime": "Time forfeit",
    "mate": "Normal", "resign": "Normal", "stalemate": "Normal", "draw": "Normal",
    "variantEnd": "Normal", "insufficientMaterialClaim": "Insufficient material",
    "cheat": "Rules infraction",
}
_SPEED_NAME = {"ultraBullet": "UltraBullet", "bullet": "Bullet", "blitz": "Blitz",
               "rapid": "Rapid", "classical": "Classical", "correspondence": "Correspondence"}
# Lichess's variant names (lila chess.variant.Variant.name), by key.
_VARIANT_NAME = {"standard": "Standard", "chess960": "Chess960",
                 "fromPosition": "From Position", "crazyhouse": "Crazyhouse",
                 "atomic": "Atomic", "antichess": "Antichess",
                 "kingOfTheHill": "King of the Hill", "threeCheck": "Three-check",
                 "horde": "Horde", "racingKings": "Racing Kings"}
_CHESS_RULES = ("standard", "chess960", "fromPosition")


def start_board(variant: str, initial_fen: str | None) -> chess.Board:
    """The board a game of `variant` (Lichess's key) starts on: python-chess's
    variant boards read Lichess's keys (find_variant), and without a FEN stand at
    the variant's own start (horde's pawns, racing kings' rows).  Raises
    ValueError for a FEN those rules cannot read."""
    chess960 = variant == "chess960"
    cls = chess.Board if variant in _CHESS_RULES else chess.variant.find_variant(variant)
    return cls(initial_fen, chess960=chess960) if initial_fen else cls(chess960=chess960)


def format_clock(ms: int) -> str:
    """h:mm:ss, whole seconds rounded half up (Lichess rounds centiseconds so)."""
    total = max(0, (int(ms) + 500) // 1000)
    return f"{total // 3600}:{total // 60 % 60:02d}:{total % 60:02d}"


def format_eval(score_cp: int | None, mate: int | None) -> str | None:
    """White's-side score as %eval writes it; None without one."""
    if mate is not None:
        return f"#{mate}"
    if score_cp is None:
        return None
    return f"{score_cp / 100:.2f}"


def _white_side(m: MoveRecord) -> tuple[int | None, int | None]:
    sign = 1 if m.color == "white" else -1
    return (None if m.score_cp is None else sign * m.score_cp,
            None if m.mate is None else sign * m.mate)


def evals(moves: list[MoveRecord]) -> list[str | None]:
    """Each move's %eval (White's side), gaps filled as the module doc says: from
    the next move's own eval (the reply's search saw exactly this position), else
    the one before (the last move, a run of book or tablebase moves), else the
    first one of the game (book moves at the start).  No eval at all: all None."""
    own = [format_eval(*_white_side(m)) for m in moves]
    first = next((e for e in own if e is not None), None)
    out: list[str | None] = []
    for i, ev in enumerate(own):
        if ev is None and i + 1 < len(own):
            ev = own[i + 1]
        if ev is None:
            ev = out[-1] if out and out[-1] is not None else first
        out.append(ev)
    return out


def result(winner: str | None, status: str | None) -> str:
    """The PGN result: "*" for a game not played out; without a winner, any other end
    is a draw (draw, stalemate, the flag against a bare king, lila's status 39
    insufficientMaterialClaim: scalachess Status.scala, api doc/specs GameStatus)."""
    if winner == "white":
        return "1-0"
    if winner == "black":
        return "0-1"
    if status in (None, "created", "started", "aborted", "noStart", "unknownFinish"):
        return "*"
    return "1/2-1/2"


def event(g: StoredGame) -> str:
    if g.tournament_name:
        return g.tournament_name
    mode = "Rated" if g.rated else "Casual"
    # lila's perf: a variant's own (Crazyhouse, ...), the speed's for standard chess.
    perf = _VARIANT_NAME.get(g.variant, g.variant) if g.variant != "standard" \
        else _SPEED_NAME.get(g.speed, g.speed)
    if g.tournament_id:
        return f"{mode} {perf} tournament {g.site}/tournament/{g.tournament_id}"
    return f"{mode} {perf} game"


def time_control(g: StoredGame) -> str:
    if g.clock_initial_ms is None:
        return "-"  # correspondence and unlimited, as Lichess writes them
    return f"{g.clock_initial_ms // 1000}+{(g.clock_increment_ms or 0) // 1000}"


def _diff(before: int | None, after: int | None) -> str | None:
    if before is None or after is None:
        return None
    d = after - before
    return f"+{d}" if d >= 0 else str(d)


def stored_game(start: GameStart, end: GameEnd | None = None) -> StoredGame:
    """The game as the database would hold it, from the records the runner built:
    its PGN file is written the same way when the database cannot be."""
    return StoredGame(
        game_id=start.game_id, account=start.account, color=start.color,
        opponent=start.opponent, opponent_title=start.opponent_title,
        my_rating=start.my_rating, opponent_rating=start.opponent_rating,
        my_rating_after=end.my_rating_after if end else None,
        opponent_rating_after=end.opponent_rating_after if end else None,
        speed=start.speed, variant=start.variant, initial_fen=start.initial_fen,
        clock_initial_ms=start.clock_initial_ms, clock_increment_ms=start.clock_increment_ms,
        days_per_turn=start.days_per_turn, rated=start.rated,
        tournament_id=start.tournament_id, tournament_name=start.tournament_name,
        site=start.site, started_at=start.started_at,
        ended_at=end.ended_at if end else None, status=end.status if end else None,
        winner=end.winner if end else None,
        result=result_for(start.color, end.status, end.winner) if end else None,
        strength=start.strength, strength_rule=start.strength_rule)


def render(g: StoredGame, moves: list[MoveRecord], notes: dict[int, str] | None = None) -> str:
    """The game as one PGN text (ending in a newline).  `notes`: ply -> a word after
    the move's commands (the runner's own files name the move source there:
    `{ [%eval 0.17] [%clk 0:02:58] book }`; Lichess's export has none)."""
    chess960 = g.variant == "chess960"
    try:
        board = start_board(g.variant, g.initial_fen)
    except ValueError:
        log.warning("game %s: its start (%s, %s) is unreadable; PGN without moves",
                    g.game_id, g.variant, g.initial_fen)
        board, moves = chess.Board(), []
    game = chess.pgn.Game()
    game.headers.clear()
    white_is_me = g.color == "white"
    me = (g.account, None, g.my_rating, g.my_rating_after)
    them = (g.opponent, g.opponent_title, g.opponent_rating, g.opponent_rating_after)
    w, b = (me, them) if white_is_me else (them, me)
    start = dt.datetime.fromtimestamp(g.started_at, dt.UTC)
    h = game.headers
    h["Event"] = event(g)
    h["Site"] = f"{g.site}/{g.game_id}"
    h["Date"] = start.strftime("%Y.%m.%d")
    h["Round"] = "-"
    h["White"], h["Black"] = w[0], b[0]
    h["Result"] = result(g.winner, g.status)
    h["UTCDate"], h["UTCTime"] = start.strftime("%Y.%m.%d"), start.strftime("%H:%M:%S")
    for color, (_, _title, before, _after) in (("White", w), ("Black", b)):
        if before is not None:
            h[f"{color}Elo"] = str(before)
    for color, (_, _title, before, after) in (("White", w), ("Black", b)):
        diff = _diff(before, after) if g.rated else None
        if diff is not None:
            h[f"{color}RatingDiff"] = diff
    for color, (_, title, _b, _a) in (("White", w), ("Black", b)):
        if title:
            h[f"{color}Title"] = title
    h["Variant"] = _VARIANT_NAME.get(g.variant, g.variant)
    h["TimeControl"] = time_control(g)
    if g.initial_fen or chess960:
        h["FEN"] = board.fen()
        h["SetUp"] = "1"
    h["Termination"] = _TERMINATION.get(g.status or "started", "Unknown")
    if g.strength:
        h["BotStrength"] = g.strength

    played: list[tuple[chess.Move, MoveRecord]] = []
    for m in moves:
        try:
            played.append((board.parse_uci(m.uci), m))
        except ValueError:
            log.warning("game %s: move %s at ply %d is not legal; PGN cut there",
                        g.game_id, m.uci, m.ply)
            break
        board.push(played[-1][0])
    kept = [m for _, m in played]
    node: chess.pgn.GameNode = game
    for (move, m), ev in zip(played, evals(kept), strict=True):
        parts = []
        if ev is not None:
            parts.append(f"[%eval {ev}]")
        if m.clock_after_ms is not None:
            parts.append(f"[%clk {format_clock(m.clock_after_ms)}]")
        if notes and notes.get(m.ply):
            parts.append(notes[m.ply])
        node = node.add_variation(move, comment=" ".join(parts))
    # One line of movetext, as Lichess writes it (python-chess wraps at 80 otherwise).
    exporter = chess.pgn.StringExporter(columns=None, headers=True, variations=False,
                                        comments=True)
    return game.accept(exporter) + "\n\n"
