"""Bounded in-memory history behind the status page (bot/host/status_page.py).

The status file (bot/host/status_file.py) says what the service is doing *now*;
the page also wants the recent past: the CPU temperature and throttling over
24 h, each game's eval and latency per move, and the results of today and
this week.  All of it lives in memory only (a restart starts afresh) and is
bounded whatever the uptime:

- temperature: one sample per watchdog tick; past MAX_HEAT_POINTS the older
  samples are thinned pairwise (hottest of a pair, throttle flags OR-ed), so
  the last minutes stay dense and a day fits in a few hundred points;
- evals and latencies: per game, at most MAX_PLIES points; the running games
  plus the last RECENT_GAMES finished ones;
- results: finished games of the last 8 days (for "this week", Monday UTC).

It is fed from the service's event loop and read from the page's HTTP
threads, hence the lock; readers get plain JSON-able copies.
"""

from __future__ import annotations

import datetime as dt
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Protocol, TypedDict, TypeVar

from bot.host.status_file import GameStatus, ServiceStatus

MAX_HEAT_POINTS = 1440
HEAT_WINDOW_S = 24 * 3600.0
MAX_PLIES = 1000
RECENT_GAMES = 5
RESULT_WINDOW_S = 8 * 86400.0
FORGET_AFTER_S = 60.0
MATE_CP = 10000  # a mate score as centipawns (the plot clamps it)


class Hooks(Protocol):
    """A game's hooks (bot.play.game_state.GameHooks) as far as `History.hooks`
    needs them: the host imports nothing from the wings above it."""

    __dataclass_fields__: ClassVar[dict[str, Any]]
    on_move: Callable[[str, float, float], None] | None
    on_end: Callable[[str, str, str | None, str], None] | None
    on_latency: Callable[[str, float, int], None] | None


H = TypeVar("H", bound=Hooks)


class HeatPoint(TypedDict):
    t: float                      # Unix time
    temp_c: float | None
    throttled: int | None         # firmware flags (OR of the merged samples)


class GameHistory(TypedDict):
    id: str
    opponent: str
    color: str
    evals: list[list[int]]        # [ply after our move, cp from our side]
    latency_ms: list[float]       # per move, oldest first
    result: str | None            # "win" / "draw" / "loss"; None while running
    status: str | None            # Lichess status ("mate", "resign", ...) once over
    ended_at: float | None


class Tally(TypedDict):
    wins: int
    draws: int
    losses: int


class Board(TypedDict):
    fen: str
    last_move: str | None
    orientation: str              # our colour


@dataclass
class _Game:
    opponent: str = "?"
    color: str = "white"
    evals: deque[tuple[int, int]] = field(default_factory=lambda: deque(maxlen=MAX_PLIES))
    latency: deque[float] = field(default_factory=lambda: deque(maxlen=MAX_PLIES))
    last_result: Any = None       # the SearchResult last recorded (a book move keeps it)
    result: str | None = None
    status: str | None = None
    ended_at: float | None = None
    touched: float = 0.0          # last fed (a game no longer running is dropped later)

    def export(self, gid: str) -> GameHistory:
        return GameHistory(id=gid, opponent=self.opponent, color=self.color,
                           evals=[[p, cp] for p, cp in self.evals],
                           latency_ms=list(self.latency), result=self.result,
                           status=self.status, ended_at=self.ended_at)


def score_cp(score: int | None, mate: int | None) -> int | None:
    """One number for the plot: mates as +-MATE_CP."""
    if mate is not None:
        return MATE_CP if mate > 0 else -MATE_CP
    return score


def thin(points: list[HeatPoint]) -> list[HeatPoint]:
    """Halve the older half of `points` (pairs -> one: hottest, flags OR-ed)."""
    half = len(points) // 2
    old, new = points[:half], points[half:]
    merged: list[HeatPoint] = []
    for i in range(0, len(old) - 1, 2):
        a, b = old[i], old[i + 1]
        temps = [x for x in (a["temp_c"], b["temp_c"]) if x is not None]
        flags = [x for x in (a["throttled"], b["throttled"]) if x is not None]
        merged.append(HeatPoint(t=b["t"], temp_c=max(temps) if temps else None,
                                throttled=(flags[0] | flags[-1]) if flags else None))
    if len(old) % 2:
        merged.append(old[-1])
    return merged + new


class History:
    def __init__(self, now: Callable[[], float] = time.time) -> None:
        self._now = now
        self._lock = threading.Lock()
        self._heat: list[HeatPoint] = []
        self._games: dict[str, _Game] = {}          # running (and just finished) games
        self._recent: deque[tuple[str, _Game]] = deque(maxlen=RECENT_GAMES)
        self._results: deque[tuple[float, str]] = deque()  # (ended_at, win/draw/loss)
        self._boards: dict[str, Board] = {}
        self._status: ServiceStatus | None = None
        # The long view from the records database (bot.store.overview), handed in by
        # the service: this package reads no database itself.
        self._records: dict[str, Any] | None = None

    # -- feeding (the service's loop) -------------------------------------
    def tick(self, status: ServiceStatus | None, boards: dict[str, Board]) -> None:
        """Each watchdog tick: the published status, the running games' boards."""
        now = self._now()
        with self._lock:
            self._status = status
            self._boards = dict(boards)
            if status is not None:
                h = status["heat"]
                self._heat.append(HeatPoint(t=now, temp_c=h["temp_c"], throttled=h["throttled"]))
                for g in status["games"]:
                    self._game(g["id"], g)
            # Games gone from the status without an end (a crashed task, a parked
            # correspondence game): dropped once idle for a while, not at once, since a
            # first move may be recorded before the status lists its game.
            running = {g["id"] for g in status["games"]} if status else set()
            for gid, game in list(self._games.items()):
                if gid not in running and game.touched < now - FORGET_AFTER_S:
                    del self._games[gid]
            cutoff = now - HEAT_WINDOW_S
            while self._heat and self._heat[0]["t"] < cutoff:
                self._heat.pop(0)
            if len(self._heat) > MAX_HEAT_POINTS:
                self._heat = thin(self._heat)

    def _game(self, gid: str, g: GameStatus | None = None) -> _Game:
        game = self._games.get(gid)
        if game is None:
            game = self._games[gid] = _Game()
        game.touched = self._now()
        if g is not None:
            game.opponent, game.color = g["opponent"], g["color"]
        return game

    def moved(self, gid: str, ply: int, result: Any) -> None:
        """Our move at `ply` (plies played after it) was searched to `result`."""
        if result is None:
            return
        with self._lock:
            game = self._game(gid)
            if result is game.last_result:  # a book/tablebase move: no new search
                return
            game.last_result = result
            cp = score_cp(result.score_cp, result.mate)
            while game.evals and game.evals[-1][0] >= ply:  # a takeback: plies replayed
                game.evals.pop()
            if cp is not None:
                game.evals.append((ply, cp))

    def latency(self, gid: str, ms: float) -> None:
        with self._lock:
            self._game(gid).latency.append(round(ms, 1))

    def finished(self, gid: str, opponent: str, color: str, status: str,
                 winner: str | None) -> None:
        """A game ended (an aborted one is no result but still shows as recent)."""
        now = self._now()
        with self._lock:
            game = self._game(gid)
            game.opponent, game.color = opponent or game.opponent, color
            game.status, game.ended_at = status, now
            if status != "aborted":
                game.result = "draw" if winner is None else \
                    ("win" if winner == color else "loss")
                self._results.append((now, game.result))
            self._recent.appendleft((gid, replace(game, last_result=None)))
            while self._results and self._results[0][0] < now - RESULT_WINDOW_S:
                self._results.popleft()

    def hooks(self, inner: H, runner: Callable[[str], Any]) -> H:
        """`inner` plus recording: evals after each move, latencies, results.
        `runner(gid)` returns the game's GameRunner (or None)."""

        def on_move(gid: str, overhead: float, think: float) -> None:
            r = runner(gid)
            if r is not None and r.thinker is not None:
                st = r.st
                # Plies after our move: the echo may or may not be in st.moves yet.
                ours_after = 1 if st.first_to_move == st.color else 0
                ply = len(st.moves)
                if ply % 2 != ours_after:
                    ply += 1
                self.moved(gid, ply, r.thinker.last)
            if inner.on_move:
                inner.on_move(gid, overhead, think)

        def on_latency(gid: str, ms: float, overhead_ms: int) -> None:
            self.latency(gid, ms)
            if inner.on_latency:
                inner.on_latency(gid, ms, overhead_ms)

        def on_end(gid: str, status: str, winner: str | None, color: str) -> None:
            r = runner(gid)
            self.finished(gid, r.st.opponent if r is not None else "", color, status, winner)
            if inner.on_end:
                inner.on_end(gid, status, winner, color)

        return replace(inner, on_move=on_move, on_end=on_end, on_latency=on_latency)

    def set_records(self, overview: dict[str, Any]) -> None:
        """The records database's overview (any thread)."""
        with self._lock:
            self._records = overview

    # -- reading (the page's threads) ----------------------------------------
    def snapshot(self) -> dict[str, Any]:
        """Everything the page shows, as plain JSON-able data."""
        now = self._now()
        with self._lock:
            status = self._status
            running = {g["id"] for g in status["games"]} if status else set()
            games = [self._games[gid].export(gid) for gid in sorted(running)
                     if gid in self._games and self._games[gid].ended_at is None]
            recent = [g.export(gid) for gid, g in self._recent]
            results = list(self._results)
            heat = list(self._heat)
            boards = dict(self._boards)
            records = self._records
        return {"service": status, "games": games, "boards": boards, "recent": recent,
                "heat": heat, "results": tallies(results, now), "records": records}


def tallies(results: list[tuple[float, str]], now: float) -> dict[str, Tally]:
    """Today (UTC) and this week (since Monday 00:00 UTC)."""
    day = dt.datetime.fromtimestamp(now, dt.UTC).replace(hour=0, minute=0, second=0,
                                                          microsecond=0)
    week = day - dt.timedelta(days=day.weekday())
    out: dict[str, Tally] = {}
    for name, start in (("today", day.timestamp()), ("week", week.timestamp())):
        got = [r for t, r in results if t >= start]
        out[name] = Tally(wins=got.count("win"), draws=got.count("draw"),
                          losses=got.count("loss"))
    return out


def boards(runners: Iterable[Any]) -> dict[str, Board]:
    """Each running game's position (GameRunner objects), for the page's boards."""
    out: dict[str, Board] = {}
    for r in runners:
        st = r.st
        if not st.full:
            continue
        try:
            fen = st.board().fen()
        except ValueError:  # an illegal move in our view: shown again at the next tick
            continue
        out[r.game_id] = Board(fen=fen, last_move=st.moves[-1] if st.moves else None,
                               orientation=st.color)
    return out
