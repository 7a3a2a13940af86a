"""Everything a game runner needs, handed over once when it is built."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from bot.config import Config
from bot.engine.pool import EnginePool
from bot.lichess.client import Lichess
from bot.play.game_state import GameHooks
from bot.play.records import Saver
from bot.play.terms import KeptTerms
from bot.sources.chain import MoveSources
from bot.store.model import MoveRecord, RatingsAfter
from bot.store.writer import RecordWriter


@dataclass(frozen=True)
class GameContext:
    game_id: str
    api: Lichess
    cfg: Config  # the config the game started with, kept across a SIGHUP
    me: str  # our account's name
    hooks: GameHooks = field(default_factory=GameHooks)
    pool: EnginePool | None = None  # engines are borrowed from it at the first search
    threads_now: Callable[[], int] | None = None  # search threads now (the heat monitor's)
    sources: MoveSources | None = None  # book, tablebase, online
    # First SAME_PLIES plies of recent games with this opponent (bot/play/farming.py).
    previous_lines: tuple[tuple[str, ...], ...] = ()
    saver: Saver = field(default_factory=Saver)  # PGNs the disk refused are retried there
    # ply -> PGN comment ("book", ...): the supervisor keeps it across a runner's
    # restarts and a correspondence game's parking, so it is shared, not copied.
    comments: dict[int, str] = field(default_factory=dict)
    # The records database's writer (None: records.db is null); put never blocks.
    writer: RecordWriter | None = None
    # ply -> what the journal knows of the move (clock, eval, ...), shared like comments.
    moves: dict[int, MoveRecord] = field(default_factory=dict)
    # An arena's id -> its name (the arena room's), for the PGN's Event; None: unknown.
    tournament_name: Callable[[str], str | None] | None = None
    # A rated game's rating changes once its gameFinish has come (the supervisor's).
    ratings_after: Callable[[], RatingsAfter | None] = lambda: None
    # The game's level and profile once chosen (the supervisor's, kept like comments).
    kept_terms: KeptTerms = field(default_factory=KeptTerms)
