"""`go` and `go perft`: the search in a worker thread, and its output.

The command loop stays on stdin while a worker searches: its on_info callback
prints `info` lines, and `stop`, `ponderhit`, `isready` and `quit` are answered
meanwhile.  `go perft` runs in a worker too, with a C stop flag, so `stop`,
`quit` and EOF end it.  With OwnBook/BookFile or SyzygyPath set, the worker
first asks the book and tables (bot/uci/sources.py) and answers a hit without
searching.  A GUI always gets its `bestmove`, even when the search fails.
"""

from __future__ import annotations

import logging
import threading

from bot.engine.bindings import PerftStop
from bot.engine.board import Board
from bot.engine.engine import (
    MAX_MS,
    MAX_NODES,
    Engine,
    SearchInfo,
    SearchLimits,
    SearchResult,
    monotonic_us,
)
from bot.engine.exceptions import PerftInterrupted
from bot.sources.chain import SourceMove
from bot.uci.protocol import UciError, UciOutput, int_arg, quote
from bot.uci.sources import UciSources
from bot.uci.state import UciState

log = logging.getLogger(__name__)

# UCI's own cap on `go perft` (docs/uci.md), below the binding's
# bindings.MAX_PERFT_DEPTH; not one of the engine's limits.
_MAX_PERFT_DEPTH = 15

_GO_INT = {"wtime": (0, MAX_MS), "btime": (0, MAX_MS), "winc": (0, MAX_MS),
           "binc": (0, MAX_MS), "movestogo": (0, 10_000), "movetime": (0, MAX_MS),
           "depth": (1, 10_000), "nodes": (1, MAX_NODES), "mate": (1, 1000)}

Position = tuple[str | None, list[str], bool]  # FEN (None: start), moves, Chess960


class SearchRunner:
    """The worker of the session's `go` or `go perft`: at most one at a time."""

    def __init__(self, state: UciState, sources: UciSources, out: UciOutput) -> None:
        self._state = state
        self._sources = sources
        self._out = out
        self._worker: threading.Thread | None = None
        self._finite_search = False
        self._answered = threading.Event()  # set just before `bestmove` goes out
        self._stop_event = threading.Event()
        self._ponderhit_event = threading.Event()
        self._perft_stop: PerftStop | None = None  # of the running `go perft`

    def searching(self) -> bool:
        """A search whose bestmove is not out yet (a worker that has printed
        it is only winding down: GUIs send the next `go` right away)."""
        if self._worker is None:
            return False
        if self._answered.is_set():
            self._worker.join()
            self._worker = None
            return False
        return self._worker.is_alive()

    def finish(self) -> None:
        """Stop a running search and wait for its bestmove line."""
        if self._worker is None:
            return
        if self._worker.is_alive():
            self._stop_all()
        self._worker.join()
        self._worker = None

    def wait_if_finite(self) -> None:
        """At EOF (e.g. `echo "go depth 12" | pibot uci`): let a search that ends
        by itself print its bestmove; an endless one is stopped by finish()."""
        if self._worker is not None and self._finite_search:
            self._worker.join()

    def _stop_all(self) -> None:
        self._stop_event.set()
        if self._perft_stop is not None:
            self._perft_stop.set()
        if self._state.loaded is not None:
            self._state.loaded.stop()

    def stop(self) -> None:
        self._stop_all()
        if self._perft_stop is not None:
            # A stopped perft ends within microseconds: wait, so that a `go`
            # sent right after `stop` does not find it still running.
            self.finish()

    def ponderhit(self) -> None:
        self._ponderhit_event.set()
        if self._state.loaded is not None:
            self._state.loaded.ponderhit()

    def go(self, args: list[str]) -> None:
        start_us = monotonic_us()  # our clock runs from here, not from thread start
        if self.searching():
            raise UciError("already searching; send stop first")
        if args and args[0] == "perft":
            self._start_perft(args[1:])
            return
        limits = parse_go(args)
        eng = self._state.engine()
        self._perft_stop = None
        self._finite_search = not (limits.infinite or limits.ponder)
        self._stop_event = threading.Event()
        self._ponderhit_event = threading.Event()
        self._answered = threading.Event()
        # A GUI analysing (infinite) or pondering waits for `stop`/`ponderhit`:
        # an instant book move would break that, so those always search.
        # Book and tablebase know standard chess only.
        st = self._state
        sources = not (limits.infinite or limits.ponder or st.opts.variant != "chess")
        position = (st.fen, list(st.moves), st.opts.chess960) if sources else None
        self._worker = threading.Thread(
            target=self._search_worker, args=(eng, limits, self._stop_event,
                                              self._ponderhit_event, self._answered, start_us,
                                              position),
            name="uci-search", daemon=True)
        self._worker.start()

    def _search_worker(self, eng: Engine, limits: SearchLimits, stop: threading.Event,
                       ponderhit: threading.Event, answered: threading.Event,
                       start_us: int, position: Position | None = None) -> None:
        if position is not None and self._answer_from_sources(position, start_us, answered):
            return
        try:
            res = eng.search(limits, on_info=self._print_info, stop_event=stop,
                             ponderhit_event=ponderhit, start_us=start_us)
        except Exception as exc:  # a GUI must always get its bestmove
            log.exception("search failed")
            self._out.info_string(f"search failed: {exc}")
            moves = eng.legal_moves()
            answered.set()
            self._out.send(f"bestmove {moves[0] if moves else '(none)'}")
            return
        answered.set()
        self._out.send(bestmove_line(res))

    def _answer_from_sources(self, position: Position, start_us: int,
                             answered: threading.Event) -> bool:
        """Play a book or tablebase move at once; False when there is none."""
        notice = self._sources.notice()
        if notice:
            self._out.info_string(notice)
        try:
            hit = self._sources.pick(*position)
        except Exception:  # a book/table bug must not cost the bestmove: search
            log.exception("book/tablebase lookup failed; searching instead")
            return False
        if hit is None:
            return False
        self._print_source_move(hit, position, start_us)
        answered.set()
        self._out.send(f"bestmove {hit.uci}")
        return True

    def _print_source_move(self, hit: SourceMove, position: Position, start_us: int) -> None:
        ms = max(0, (monotonic_us() - start_us) // 1000)
        if hit.source == "book":
            self._out.info_string(f"{hit.comment} ({hit.elapsed_ms:.1f} ms)")
            return
        try:
            score = self._sources.score(hit, *position)
        except ValueError:
            score = "cp 0"
        self._out.info_string(f"tablebase {hit.comment} ({hit.elapsed_ms:.1f} ms)")
        self._out.send(f"info depth 0 seldepth 0 multipv 1 score {score} nodes 0 nps 0 "
                       f"time {ms} pv {hit.uci}")

    def _print_info(self, info: SearchInfo) -> None:
        self._out.send(info_line(info))

    def _start_perft(self, args: list[str]) -> None:
        if not args:
            raise UciError("perft needs a depth, e.g. 'go perft 5'")
        try:
            depth = int(args[0])
        except ValueError:
            raise UciError(f"perft depth {quote(args[0])} is not an integer") from None
        if not 0 <= depth <= _MAX_PERFT_DEPTH:
            raise UciError(f"perft depth must be 0..{_MAX_PERFT_DEPTH}, got {depth}")
        board = self._state.variant_board()
        self._finite_search = False  # EOF stops a perft: it may run for hours
        self._perft_stop = PerftStop()
        self._answered = threading.Event()
        self._worker = threading.Thread(
            target=self._perft_worker, args=(board, depth, self._perft_stop, self._answered),
            name="uci-perft", daemon=True)
        self._worker.start()

    def _perft_worker(self, board: Board, depth: int, stop: PerftStop,
                      answered: threading.Event) -> None:
        try:
            # Rows go out as they are counted, as in Stockfish; perft(0) = 1, no rows.
            _, total = board.perft_divide(
                depth, stop, on_row=lambda move, count: self._out.send(f"{move}: {count}"))
        except PerftInterrupted:
            answered.set()
            self._out.info_string(f"perft {depth} stopped; no total")
            return
        except Exception as exc:
            log.exception("perft failed")
            answered.set()
            self._out.info_string(f"perft failed: {exc}")
            return
        answered.set()
        self._out.send("")
        self._out.send(f"Nodes searched: {total}")


def info_line(info: SearchInfo) -> str:
    if info.mate is not None:
        score = f"mate {info.mate}"
    else:
        score = f"cp {info.score_cp}"
    if info.bound != "exact":
        score += f" {info.bound}"
    return (f"info depth {info.depth} seldepth {info.seldepth} multipv {info.multipv} "
            f"score {score} nodes {info.nodes} nps {info.nps} hashfull {info.hashfull} "
            f"time {info.time_ms} pv {' '.join(info.pv)}")


def bestmove_line(res: SearchResult) -> str:
    if res.bestmove == "0000":
        return "bestmove (none)"
    if res.ponder:
        return f"bestmove {res.bestmove} ponder {res.ponder}"
    return f"bestmove {res.bestmove}"


def parse_go(args: list[str]) -> SearchLimits:
    values: dict[str, int] = {}
    infinite = ponder = False
    i = 0
    while i < len(args):
        tok = args[i]
        if tok in _GO_INT:
            lo, hi = _GO_INT[tok]
            nxt = args[i + 1] if i + 1 < len(args) else None
            values[tok] = int_arg(tok, nxt, lo, hi)
            i += 2
        elif tok == "infinite":
            infinite = True
            i += 1
        elif tok == "ponder":
            ponder = True
            i += 1
        elif tok == "searchmoves":
            raise UciError("searchmoves is not supported")
        else:
            raise UciError(f"unknown go parameter {quote(tok)}")
    mate = values.pop("mate", None)
    if mate is not None and "depth" not in values:
        values["depth"] = 2 * mate + 1  # a mate in n is found by depth 2n-1
    movestogo = values.pop("movestogo", None) or None
    return SearchLimits(movestogo=movestogo, infinite=infinite, ponder=ponder,
                        **values)
