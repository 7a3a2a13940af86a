"""The game supervisor: which games run, in which slots, and what happens to them.

One asyncio task per game runs a GameRunner, restarted with backoff when it
crashes (MAX_GAME_RESTARTS times at most).  Real-time games take
`challenge.concurrency` slots, correspondence games slots of their own; a
correspondence game whose opponent is thinking is parked (no stream, no
engine, its slot kept) and brought back by a check-in every
`correspondence.checkin_period`.  After a (re)start, /api/account/playing
resumes the games the event stream may not have announced.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any, Protocol

from bot.challenges.slots import Slots
from bot.config import Config, LiveConfig
from bot.engine.pool import EnginePool
from bot.host.heat import HeatMonitor
from bot.host.status_file import DailyTally
from bot.lichess.api_account import PLAYING_MIN_INTERVAL_S
from bot.lichess.client import Lichess, LichessError, backoff_s
from bot.lichess.errors import DAILY_BOT_GAMES
from bot.lichess.events import GameFinish, GameStart
from bot.play.context import GameContext
from bot.play.correspondence import Parked
from bot.play.farming import RecentGames
from bot.play.game import GameRunner
from bot.play.game_state import GameHooks
from bot.play.records import Saver
from bot.play.terms import KeptTerms
from bot.sources.chain import MoveSources
from bot.store.model import MoveRecord, RatingsAfter
from bot.store.writer import RecordWriter

log = logging.getLogger(__name__)

MAX_GAME_RESTARTS = 5


class GameShared(Protocol):
    """What the supervisor uses of the service's shared state (bot/service/shared.py;
    a Protocol, for the supervisor imports nothing else of the service)."""

    @property
    def slots(self) -> Slots: ...
    @property
    def corr_slots(self) -> Slots: ...
    @property
    def heat(self) -> HeatMonitor: ...
    @property
    def saver(self) -> Saver: ...
    @property
    def recent_games(self) -> RecentGames: ...
    @property
    def tally(self) -> DailyTally: ...


@dataclass(frozen=True)
class GameKit:
    """What every game is handed besides its own state, fixed once the service runs."""

    hooks: GameHooks
    pool: EnginePool | None
    sources: MoveSources | None
    writer: RecordWriter | None = None  # the records database (bot/store)
    tournament_name: Callable[[str], str | None] | None = None  # for PGN Events (arenas)


class GameSupervisor:
    def __init__(self, api: Lichess, me: str, live: LiveConfig, shared: GameShared,
                 kit: GameKit) -> None:
        self.api, self.me, self.live, self.shared, self.kit = api, me, live, shared, kit
        self.slots, self.corr_slots = shared.slots, shared.corr_slots
        self.games: dict[str, asyncio.Task[None]] = {}
        self.runners: dict[str, GameRunner] = {}
        self.parked = Parked()
        self._ended: dict[str, float] = {}  # game id -> when its task ended
        # PGN comments (ply -> "book", ...) per game, kept across a game task's restarts
        # and a correspondence game's parking.
        self._comments: dict[str, dict[int, str]] = {}
        self._moves: dict[str, dict[int, MoveRecord]] = {}  # the same for the records
        self._terms: dict[str, KeptTerms] = {}  # the same for the level and profile
        # A rated game's rating changes from its gameFinish event, for its PGN file.
        self._ratings: dict[str, RatingsAfter] = {}
        self._tasks: set[asyncio.Task[None]] = set()  # check-ins, goodbyes

    # -- what the event stream says ---------------------------------------------
    def game_started(self, ev: GameStart) -> None:
        game = ev.game
        if game.id in self.parked and not game.is_my_turn:
            return  # replayed on reconnect for a parked game: the check-ins bring it back
        if game.correspondence and game.last_move and not game.is_my_turn \
                and game.id not in self.games:
            # A correspondence game in progress (replayed when the stream opens)
            # waiting for the opponent: park it, as the playing list would.
            self._park_waiting(game.id, game.opponent.name)
            return
        self._start(game.id, game.opponent.name, game.correspondence, game.tournament_id)

    def game_finished(self, ev: GameFinish) -> None:
        game = ev.game
        runner = self.runners.get(game.id)
        if runner is not None:
            runner.poke()
        elif game.id in self.parked:
            self._start(game.id, self.parked.games[game.id], True)  # to record the end
        if game.rated and (game.rating_diff is not None
                           or game.opponent_rating_diff is not None):
            # Only gameFinish tells the ratings after; the runner may be gone by now.
            opp = game.opponent.rating
            theirs = opp + game.opponent_rating_diff \
                if opp is not None and game.opponent_rating_diff is not None else None
            ratings = RatingsAfter(game.id, game.rating_diff, theirs)
            if self.kit.writer is not None:
                self.kit.writer.put(ratings)
            if game.id in self.games:  # a parked game's task was started just above
                self._ratings[game.id] = ratings

    def arena_game_unheard(self, gid: str, tournament_id: str) -> None:
        """An arena game lila paired while the event stream was down (the arena's
        `me.gameId`, bot/challenges/arenas.py): play it before its first move's time
        runs out.  Its opponent is not known here (the game stream tells the runner)."""
        if gid in self.games or gid in self._ended:
            return
        log.info("game %s: paired in arena %s while the event stream was down; playing it",
                 gid, tournament_id)
        self._start(gid, "", tournament_id=tournament_id)

    def check_in_soon(self) -> None:
        """Games whose gameStart we may have missed while the event stream was down
        (throttled: Lichess also replays gameStart for every game in progress)."""
        self._spawn(self.resume_playing())

    # -- playing list and check-ins -------------------------------------------------
    async def resume_playing(self) -> None:
        try:
            playing = await self.api.account.playing()
        except LichessError as exc:
            log.warning("could not list ongoing games: %s", exc)
            return
        now = time.monotonic()
        for old, t in list(self._ended.items()):
            if now - t > 2 * PLAYING_MIN_INTERVAL_S:
                del self._ended[old]
        for gid in self.parked.gone({g.id for g in playing}):
            # Ended while parked (resigned, timed out, ...): its stream's gameFull tells
            # the runner so, which records the game and frees the slot.
            self._start(gid, self.parked.games[gid], True)
        for g in playing:
            # The list may be up to a minute old: a game that ended since is not resumed.
            if g.id in self.games or g.id in self._ended:
                continue
            if g.correspondence and not g.is_my_turn:
                self._park_waiting(g.id, g.opponent.name)
                continue
            log.info("%s game %s", "checking in to" if g.id in self.parked else "resuming",
                     g.id)
            self._start(g.id, g.opponent.name, g.correspondence, g.tournament_id)

    async def checkins(self) -> None:
        """Correspondence: every checkin_period, look for parked games where it is our
        turn (api.account.playing() asks Lichess at most once a minute)."""
        while True:
            await asyncio.sleep(self.live.now.correspondence.checkin_period)
            if self.parked.games:
                await self.resume_playing()

    def _park_waiting(self, gid: str, opponent: str) -> None:
        """A correspondence game where it is not our turn: hold its slot, open
        nothing; a later check-in brings it back."""
        if gid not in self.parked:
            self.parked.park(gid, opponent)
            self.corr_slots.start(gid, opponent)

    # -- game tasks -------------------------------------------------------------------
    def _start(self, gid: str, opponent: str, corr: bool = False,
               tournament_id: str | None = None) -> None:
        """Any game the stream announces is played, an arena game too (lila pairs it,
        no challenge came first): it uses its arena's slot."""
        if not gid or gid in self.games:
            return
        self.parked.unpark(gid)
        (self.corr_slots if corr else self.slots).start(gid, opponent, tournament_id)
        cfg = self.live.now  # a game keeps the config it started with, even across SIGHUP
        self.games[gid] = asyncio.create_task(self._run_game(gid, cfg, opponent),
                                              name=f"game-{gid}")

    def _context(self, gid: str, cfg: Config, opponent: str) -> GameContext:
        kit, heat = self.kit, self.shared.heat
        return GameContext(
            game_id=gid, api=self.api, cfg=cfg, me=self.me, hooks=kit.hooks, pool=kit.pool,
            threads_now=lambda: heat.threads_now, sources=kit.sources,
            previous_lines=tuple(self.shared.recent_games.lines(opponent)),
            saver=self.shared.saver, comments=self._comments.setdefault(gid, {}),
            writer=kit.writer, moves=self._moves.setdefault(gid, {}),
            tournament_name=kit.tournament_name, ratings_after=lambda: self._ratings.get(gid),
            kept_terms=self._terms.setdefault(gid, KeptTerms()))

    async def _run_game(self, gid: str, cfg: Config, opponent: str) -> None:
        parked = False
        try:
            for attempt in range(MAX_GAME_RESTARTS):
                runner = GameRunner(self._context(gid, cfg, opponent))
                self.runners[gid] = runner
                try:
                    await runner.run()
                    if runner.farewell is not None:
                        # The goodbye chat outlives the game task; shutdown cancels it.
                        self._tasks.add(runner.farewell)
                        runner.farewell.add_done_callback(self._tasks.discard)
                    parked = runner.parked and not runner.over
                    self._count_result(runner)
                    return
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.exception("game %s task crashed; restarting it", gid)
                await asyncio.sleep(backoff_s(attempt, cfg.network.backoff_base_s, 10.0))
            log.error("game %s crashed %d times; leaving it", gid, MAX_GAME_RESTARTS)
        finally:
            self.runners.pop(gid, None)
            self.games.pop(gid, None)
            self.slots.finish(gid)
            if parked:
                self.parked.park(gid, opponent)  # keeps its correspondence slot
            else:
                self.corr_slots.finish(gid)
                self._comments.pop(gid, None)
                self._moves.pop(gid, None)
                self._terms.pop(gid, None)
                self._ratings.pop(gid, None)
                self._ended[gid] = time.monotonic()

    def _count_result(self, runner: GameRunner) -> None:
        """Today's tally for `pibot status` (an aborted game is no result)."""
        st = runner.st
        if not runner.over or st.status == "aborted" or st.full is None:
            return
        self.shared.recent_games.record("" if st.opponent == "?" else st.opponent, st.moves)
        opp = st.full.black if st.color == "white" else st.full.white
        tally = self.shared.tally
        tally.game_over(st.winner, st.color, opponent_is_bot=opp.is_bot)
        if self.api.bot_limit_until > time.time():
            # Lichess said stop: whatever we counted, today's bot games are used up.
            tally.bot_games = max(tally.bot_games, DAILY_BOT_GAMES)

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coro, name="resume")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- for the drain, the shutdown and the status ------------------------------------
    def realtime_games(self) -> list[asyncio.Task[None]]:
        """Games a drain waits for: a correspondence game may last weeks and is
        simply continued after the restart (check-ins find it)."""
        return [t for gid, t in self.games.items()
                if not (gid in self.runners and self.runners[gid].correspondence)]

    def unfinished(self) -> list[str]:
        return [gid for gid, t in self.games.items()
                if not t.done() and not (gid in self.runners and self.runners[gid].over)]

    def tasks(self) -> list[asyncio.Task[None]]:
        """Every task the supervisor runs: the shutdown cancels them."""
        return list(self._tasks) + list(self.games.values())

    def all_stopped(self) -> bool:
        return all(t.done() for t in self.games.values())
