"""Engine: one search context per game over the C engine (pibot_engine_api.h).

    with Engine(hash_mb=64, threads=1) as eng:
        eng.set_position(None, ["e2e4", "e7e5"])
        res = eng.search(SearchLimits(wtime=60_000, btime=60_000), on_info=print)

`search` blocks the calling thread, which runs the C search itself with the
GIL released; a small poller thread calls `on_info` with each new iteration
(an exception raised there stops the search and is re-raised by `search`).
`stop()` and `ponderhit()` may be called from any other thread. The search
lock, those requests and the poller are search_control.py's.

`set_option(multipv=N)` searches and reports N root lines (`SearchInfo.multipv`,
`SearchResult.lines`); `eng.strength` (strength.py) sets a playing-strength
level, `eng.variant_nets` (variant_nets.py) the variants' nets. All persist
until changed.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from bot.engine import search_bindings as sb
from bot.engine.board import Board
from bot.engine.closing import Closing
from bot.engine.exceptions import EngineArgumentError, EngineError
from bot.engine.search_control import SearchControl, run_search
from bot.engine.strength import Strength
from bot.engine.variant_nets import VariantNets

log = logging.getLogger(__name__)


# Evaluations ("hce", "nnue") and the one a new Engine uses (pibot_nnue_api.h).
EVALS: tuple[str, ...] = tuple(sb.EVALS)
DEFAULT_EVAL: str = sb.DEFAULT_EVAL
# The C engine's ceilings (pibot_engine_api.h): hash MiB, threads and MultiPV lines per engine.
MAX_HASH_MB: int = sb.MAX_HASH_MB
MAX_THREADS: int = sb.MAX_THREADS
MAX_MULTIPV: int = sb.MAX_MULTIPV


def default_net_name() -> str:
    """'pbnn-xxxxxxxx': the NNUE net built into the engine."""
    return sb.default_net_name()


def check_net_file(path: str, variant: str | None = None) -> str:
    """Validate a .pbnn file and return its name; NetFileError naming the problem.
    With `variant` ("chess" for standard chess) it must be that variant's net."""
    return sb.check_net_file(path, variant)


def monotonic_us() -> int:
    """Now on the clock the engine's time manager uses (for `start_us`)."""
    return sb.now_us()


def time_budget(limits: SearchLimits, white_to_move: bool,
                overhead_ms: int = 50, moves_played: int = 0) -> tuple[int, int]:
    """(soft, hard) ms a search with these limits would plan after `moves_played`
    full moves; (0, 0) = no time limit.

    Pure: the engine's own time manager, for tests and tools."""
    _check_int("overhead_ms", overhead_ms, 0, 60_000)
    _check_int("moves_played", moves_played, 0, 1_000_000)
    return sb.time_budget(limits.raw(), white_to_move, overhead_ms, moves_played)


MAX_MS = 1 << 40  # ~35 years: anything larger is a typo, not a clock
MAX_NODES = 1 << 62


def _check_int(name: str, value: int | None, lo: int, hi: int) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise EngineArgumentError(f"search limit {name} must be an integer, got {value!r}")
    if not lo <= value <= hi:
        raise EngineArgumentError(f"search limit {name}={value} is out of range {lo}..{hi}")


@dataclass(frozen=True)
class SearchLimits:
    """What ends a search. Times in milliseconds; None = not given.

    No limit at all (and not infinite) means "search to the maximum depth".
    """

    wtime: int | None = None
    btime: int | None = None
    winc: int | None = None
    binc: int | None = None
    movestogo: int | None = None
    movetime: int | None = None
    depth: int | None = None
    nodes: int | None = None
    infinite: bool = False
    ponder: bool = False

    def __post_init__(self) -> None:
        for name in ("wtime", "btime", "winc", "binc", "movetime"):
            _check_int(name, getattr(self, name), 0, MAX_MS)
        _check_int("movestogo", self.movestogo, 1, 10_000)
        _check_int("depth", self.depth, 1, 10_000)
        _check_int("nodes", self.nodes, 1, MAX_NODES)

    def raw(self) -> sb.RawLimits:
        def ms(v: int | None) -> int:
            return -1 if v is None else v

        return sb.RawLimits(
            wtime=ms(self.wtime), btime=ms(self.btime), winc=ms(self.winc), binc=ms(self.binc),
            movestogo=self.movestogo or 0, movetime=ms(self.movetime),
            depth=self.depth or 0, nodes=self.nodes or 0,
            infinite=self.infinite, ponder=self.ponder)


@dataclass(frozen=True)
class SearchInfo:
    """Progress of a running search: one per completed iteration and line
    (`multipv`: 1 is the best line; each line has its own depth)."""

    depth: int
    seldepth: int
    score_cp: int | None  # None when the score is a mate
    mate: int | None      # moves to mate, negative when we get mated
    bound: Literal["exact", "lowerbound", "upperbound"]
    nodes: int
    nps: int
    hashfull: int         # per mille
    time_ms: int
    pv: list[str]
    multipv: int = 1


@dataclass(frozen=True)
class SearchResult:
    """Outcome of a search. bestmove is "0000" only when there is no legal move.

    `lines` are the root lines searched, best first (one unless MultiPV or a
    strength level asked for more). At full strength bestmove is the first
    line's; a level may play another (`strength`: the level's Elo, None at
    full strength), whose score and pv are then the result's."""

    bestmove: str
    ponder: str | None
    score_cp: int | None
    mate: int | None
    depth: int
    nodes: int
    time_ms: int
    pv: list[str]
    lines: tuple[SearchInfo, ...] = ()
    strength: int | None = None


_BOUNDS: tuple[Literal["exact", "lowerbound", "upperbound"], ...] = (
    "exact", "upperbound", "lowerbound")


def _info_from_raw(raw: sb.RawInfo) -> SearchInfo:
    return SearchInfo(
        depth=raw["depth"], seldepth=raw["seldepth"],
        score_cp=None if raw["is_mate"] else raw["score_cp"],
        mate=raw["mate"] if raw["is_mate"] else None,
        bound=_BOUNDS[raw["bound"]] if 0 <= raw["bound"] < 3 else "exact",
        nodes=raw["nodes"], nps=raw["nps"], hashfull=raw["hashfull"],
        time_ms=raw["time_ms"], pv=raw["pv"].split(), multipv=raw["multipv"])


def _result_from_raw(raw: sb.RawResult, lines: list[sb.RawInfo]) -> SearchResult:
    return SearchResult(
        bestmove=raw["bestmove"], ponder=raw["ponder"] or None,
        score_cp=None if raw["is_mate"] else raw["score_cp"],
        mate=raw["mate"] if raw["is_mate"] else None,
        depth=raw["depth"], nodes=raw["nodes"], time_ms=raw["time_ms"], pv=raw["pv"].split(),
        lines=tuple(_info_from_raw(line) for line in lines), strength=raw["elo"] or None)


class Engine(Closing):
    """A search context (hash table, threads, position) for one game."""

    def __init__(self, hash_mb: int = 64, threads: int = 1) -> None:
        _check_option("hash_mb", hash_mb, 1, sb.MAX_HASH_MB)
        _check_option("threads", threads, 1, sb.MAX_THREADS)
        self._ptr: Any = sb.engine_new(hash_mb, threads)
        self._hash_mb = hash_mb
        self._threads = threads
        self._control = SearchControl()
        self.strength = Strength(lambda: _live(self._ptr))
        self.variant_nets = VariantNets(lambda: _live(self._ptr))

    def __repr__(self) -> str:
        state = "closed" if self._ptr is None else "open"
        return f"Engine(hash_mb={self._hash_mb}, threads={self._threads}, {state})"

    # ---- lifecycle ----

    def close(self) -> None:
        """Stop any search, wait for it, and free the hash table."""
        if self._ptr is None:
            return
        self.stop()
        with self._control.quiet():
            ptr, self._ptr = self._ptr, None
            sb.engine_free(ptr)

    # ---- configuration ----

    def set_option(self, *, hash_mb: int | None = None, threads: int | None = None,
                   move_overhead_ms: int | None = None, multipv: int | None = None) -> None:
        """Each option given applies from the next search and stays until changed
        (hash and threads only while no search runs: EngineBusyError)."""
        ptr = _live(self._ptr)
        if hash_mb is not None:
            _check_option("hash_mb", hash_mb, 1, sb.MAX_HASH_MB)
            sb.set_hash(ptr, hash_mb)
            self._hash_mb = hash_mb
        if threads is not None:
            _check_option("threads", threads, 1, sb.MAX_THREADS)
            sb.set_threads(ptr, threads)
            self._threads = threads
        if move_overhead_ms is not None:
            _check_option("move_overhead_ms", move_overhead_ms, 0, 60_000)
            sb.set_move_overhead(ptr, move_overhead_ms)
        if multipv is not None:
            _check_option("multipv", multipv, 1, sb.MAX_MULTIPV)
            sb.set_multipv(ptr, multipv)

    def new_game(self) -> None:
        """Forget the hash table and move-ordering history."""
        sb.clear(_live(self._ptr))

    def hurry_clear(self, on: bool = True) -> None:
        """on: a `new_game()` running now, or started until `hurry_clear(False)`,
        returns within milliseconds; the rest of its table is zero-filled by the
        kernel as searches touch it (still empty, slower first searches).
        Any thread, during a clear too; advisory, so a no-op once closed."""
        ptr = self._ptr
        if ptr is not None:
            sb.hurry_clear(ptr, on)

    def set_position(self, fen: str | None, moves: list[str], chess960: bool = False,
                     variant: str = "chess") -> None:
        """Root position: FEN (None = start position) plus the moves played since.

        `variant` names the rules, as UCI_Variant, Lichess or python-chess
        spell them ("atomic", "kingOfTheHill", "3check", ...; "standard" and
        "chess" are standard chess): the search then plays that variant with
        its own evaluation, and its moves are UCI as Lichess writes them (a
        crazyhouse drop is "N@f3"). Raises FenError / IllegalMoveError /
        VariantError naming the bad part; the previous position is kept then.
        """
        if isinstance(moves, str):
            raise EngineArgumentError("moves must be a list of UCI strings, not one string")
        if variant == "chess960":   # Lichess's key: standard rules, Chess960 castling
            variant, chess960 = "chess", True
        sb.set_position(_live(self._ptr), fen, list(moves), chess960, variant)

    def set_board(self, board: Board) -> None:
        """Root position: a Board (its variant, FEN and Chess960 flag; the moves
        that led to it are not passed, so repetitions before it are not seen)."""
        sb.set_position(_live(self._ptr), board.fen(), [], board.chess960, board.variant)

    # ---- searching ----

    def search(self, limits: SearchLimits,
               on_info: Callable[[SearchInfo], None] | None = None, *,
               stop_event: threading.Event | None = None,
               ponderhit_event: threading.Event | None = None,
               start_us: int | None = None) -> SearchResult:
        """Search the root position; blocks until a best move is known.

        `stop_event` / `ponderhit_event` (optional) act like stop() and
        ponderhit() but may be set before this call has started (the UCI loop
        uses them: a `stop` can arrive before the worker thread gets going).
        `start_us` (from monotonic_us()) is when our clock started running,
        e.g. when the opponent's move arrived: the latency until the search
        starts is then charged to the time budget instead of being ignored.
        """
        ptr = _live(self._ptr)
        report = None if on_info is None else (lambda raw: on_info(_info_from_raw(raw)))
        with self._control.running(ptr, stop_event, ponderhit_event):
            raw, lines = run_search(ptr, limits.raw(), start_us or 0, self._control, report)
        return _result_from_raw(raw, lines)

    def stop(self) -> None:
        """Make a running search return its best move now (any thread)."""
        self._control.stop()

    def ponderhit(self) -> None:
        """The predicted move was played: the ponder search becomes timed."""
        self._control.ponderhit()

    # ---- evaluation ----

    def set_eval(self, name: str) -> None:
        """'hce' (hand-crafted) or 'nnue' for the next searches; a change clears the hash
        table and the search heuristics, as a new game does."""
        sb.set_eval(_live(self._ptr), name)

    @property
    def eval_name(self) -> str:
        return sb.get_eval(_live(self._ptr))

    def load_net(self, path: str | None) -> None:
        """NNUE weights from a .pbnn file (None = the built-in net).

        NetFileError names the file and the problem; the engine keeps its net then."""
        sb.load_net(_live(self._ptr), path)

    @property
    def net_name(self) -> str:
        return sb.net_name(_live(self._ptr))

    # ---- inspection (UCI `d` / `eval`) ----

    def fen(self) -> str:
        return sb.fen(_live(self._ptr))

    def evaluate(self) -> int:
        """Static eval of the root position, centipawns for the side to move."""
        return sb.evaluate(_live(self._ptr))

    def legal_moves(self) -> list[str]:
        return sb.legal_moves(_live(self._ptr))

    def hashfull(self) -> int:
        return sb.hashfull(_live(self._ptr))

    @property
    def searching(self) -> bool:
        return self._ptr is not None and sb.is_searching(self._ptr)


def _live(ptr: Any) -> Any:
    """The engine's C handle; EngineError once it is closed."""
    if ptr is None:
        raise EngineError("the engine is closed; create a new Engine")
    return ptr


def _check_option(name: str, value: int, lo: int, hi: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise EngineArgumentError(f"engine option {name} must be an integer, got {value!r}")
    if not lo <= value <= hi:
        raise EngineArgumentError(f"engine option {name}={value} is out of range {lo}..{hi}")
