"""A game's question to the move-source chain (book -> Syzygy -> online) before
it searches: the position, how much of our clock the sources may spend, and
what to do with the answer.

The engine cannot restrict its root moves (bot/engine has no `searchmoves`),
so a Syzygy `suggest` answer is played as the tablebase's own choice.
"""

from __future__ import annotations

import logging
import time

from bot.play.clock import Clock
from bot.play.game_state import GameState
from bot.sources.chain import MoveContext, MoveSources, SourceMove

log = logging.getLogger(__name__)

# Online sources may spend at most this share of our remaining clock per move,
# and never more than ONLINE_BUDGET_MAX_S: a slow server must not cost the game.
ONLINE_BUDGET_SHARE = 1 / 60
ONLINE_BUDGET_MAX_S = 2.0
ONLINE_BUDGET_MIN_S = 0.05


def budget_s(clock_s: float, correspondence_move_s: float | None) -> float:
    if correspondence_move_s is not None:
        return max(ONLINE_BUDGET_MIN_S, min(ONLINE_BUDGET_MAX_S, correspondence_move_s / 2))
    return max(ONLINE_BUDGET_MIN_S, min(ONLINE_BUDGET_MAX_S, clock_s * ONLINE_BUDGET_SHARE))


def our_wdl(sources: MoveSources | None, st: GameState) -> int | None:
    """Our result in the current position by the local Syzygy tables (2 win, 0 draw,
    -2 loss; a cursed win or blessed loss is a draw under the 50-move rule), or None."""
    tbs = sources.tablebases if sources is not None else None
    if tbs is None:
        return None
    try:
        board = st.board(st.moves)
    except ValueError:
        return None
    wdl = tbs.probe_wdl(board)  # the side to move's; never raises
    if wdl is None:
        return None
    ours = wdl if st.to_move() == st.color else -wdl
    return 0 if abs(ours) == 1 else ours


async def ask(sources: MoveSources, st: GameState, game_id: str, moves: list[str],
              clock: Clock, correspondence_move_s: float | None = None) -> SourceMove | None:
    """A move to play without searching, or None (search). Never raises."""
    try:
        board = st.board(moves)
    except ValueError:
        return None  # an unreadable position is the engine's (and its fallback's) problem
    if correspondence_move_s is not None:
        clock_s = 24 * 3600.0  # days per move: the online sources' min_time never binds
    else:
        clock_s = clock.remaining_ms(st.color, st.color, time.monotonic()) / 1000.0
    variant = st.full.variant if st.full is not None else "standard"
    ctx = MoveContext(game_id, variant, clock_s, budget_s(clock_s, correspondence_move_s))
    try:
        hit = await sources.pick(board, ctx)
    except Exception:  # noqa: BLE001 - pick() fails to None, but a source bug must not
        log.exception("game %s: move sources failed; searching instead", game_id)
        return None
    if hit is None:
        return None
    if hit.restrict_to:
        log.debug("game %s: %s suggests %s; the engine cannot restrict its root moves, "
                  "so the tablebase's choice %s is played", game_id, hit.source,
                  ",".join(hit.restrict_to), hit.uci)
    log.info("game %s: %s move %s (%s, %.1f ms)", game_id, hit.source, hit.uci, hit.comment,
             hit.elapsed_ms)
    return hit
