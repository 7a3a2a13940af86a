"""UCI protocol loop over the same Engine binding the bot uses.

stdin is read in the main thread; `go` runs the search in a worker thread
whose on_info callback prints `info` lines, so `stop`, `ponderhit`,
`isready` and `quit` are answered while it searches. `go perft` runs in a
worker thread too, with a C stop flag, so `stop`, `quit` and EOF end it.
Malformed input is reported on an `info string` line and ignored: a GUI typo
never kills us, and `isready` is always answered. With OwnBook/BookFile or
SyzygyPath set, the worker first asks the bot's book and tables
(bot/sources/uci_sources.py) and answers a hit without searching.
"""

from __future__ import annotations

import io
import logging
import os
import stat
import sys
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TextIO

from bot import __version__
from bot.engine.bindings import PerftStop
from bot.engine.board import Board
from bot.engine.engine import (
    DEFAULT_EVAL,
    MAX_HASH_MB,
    MAX_MS,
    MAX_NODES,
    MAX_THREADS,
    Engine,
    SearchInfo,
    SearchLimits,
    SearchResult,
    check_net_file,
    monotonic_us,
)
from bot.engine.exceptions import (
    EngineError,
    EngineMemoryError,
    NetFileError,
    PerftInterrupted,
    VariantError,
)
from bot.errors import PibotError
from bot.host import platform_info
from bot.sources.chain import SourceMove
from bot.sources.uci_sources import MAX_BOOK_DEPTH, MAX_SEED, UciSources, option_lines

log = logging.getLogger(__name__)

# UCI's own cap on `go perft` (docs/uci.md), below the binding's
# bindings.MAX_PERFT_DEPTH; not one of the engine's limits.
_MAX_PERFT_DEPTH = 15

# UCI_Variant's values, as Fairy-Stockfish names them. The engine has the
# rules of each (position, go perft, d) and searches each with its own
# hand-crafted evaluation (engine_c/variant_eval.h; the NNUE is standard
# chess's only). Book and tablebase answer standard chess only.
UCI_VARIANTS = ("chess", "crazyhouse", "atomic", "antichess", "kingofthehill", "3check",
                "racingkings", "horde")


@dataclass
class UciOptions:
    hash_mb: int = 64
    threads: int = 1
    move_overhead_ms: int = 50
    ponder: bool = False
    chess960: bool = False
    variant: str = "chess"  # UCI_Variant (UCI_VARIANTS)
    use_nnue: bool = DEFAULT_EVAL == "nnue"
    eval_file: str = ""  # "" = the net built into the engine


class UciError(ValueError):
    """A malformed command; reported as `info string` and ignored."""


def _int_arg(name: str, text: str | None, lo: int, hi: int) -> int:
    """Parse an integer and clamp it into lo..hi (GUIs send odd clocks)."""
    if text is None:
        raise UciError(f"{name} needs a value")
    try:
        value = int(text)
    except ValueError:
        raise UciError(f"{name} value {_quote(text)} is not an integer") from None
    return max(lo, min(hi, value))


class UciSession:
    def __init__(self, out: TextIO | None = None) -> None:
        self._out = out if out is not None else sys.stdout
        self._out_lock = threading.Lock()
        self._opts = UciOptions()
        self._engine: Engine | None = None
        self._fen: str | None = None
        self._moves: list[str] = []
        self._worker: threading.Thread | None = None
        self._finite_search = False
        self._answered = threading.Event()  # set just before `bestmove` goes out
        self._stop_event = threading.Event()
        self._ponderhit_event = threading.Event()
        self._perft_stop: PerftStop | None = None  # of the running `go perft`
        self._sources = UciSources()  # OwnBook / BookFile / SyzygyPath ...

    # ---- output ----

    def send(self, line: str) -> None:
        with self._out_lock:
            try:
                self._out.write(line + "\n")
                self._out.flush()
            except (BrokenPipeError, ValueError):
                # The GUI went away (or closed our stdout): nothing to tell it;
                # the read loop ends at EOF and we exit cleanly.
                log.debug("stdout closed; dropped %r", line)

    def info_string(self, text: str) -> None:
        self.send(f"info string {text}")

    # ---- engine lifecycle ----

    def _get_engine(self) -> Engine:
        if self._engine is None:
            o = self._opts
            self._engine = Engine(hash_mb=o.hash_mb, threads=o.threads)
            self._engine.set_option(move_overhead_ms=o.move_overhead_ms)
            self._engine.load_net(o.eval_file or None)
            self._engine.set_eval("nnue" if o.use_nnue else "hce")
            self._engine.new_game()  # fault the table in now, not during a timed search
            self._engine.set_position(self._fen, self._moves, o.chess960, o.variant)
        return self._engine

    def _searching(self) -> bool:
        """A search whose bestmove is not out yet (a worker that has printed
        it is only winding down: GUIs send the next `go` right away)."""
        if self._worker is None:
            return False
        if self._answered.is_set():
            self._worker.join()
            self._worker = None
            return False
        return self._worker.is_alive()

    def _finish_search(self) -> None:
        """Stop a running search and wait for its bestmove line."""
        if self._worker is None:
            return
        if self._worker.is_alive():
            self._stop_all()
        self._worker.join()
        self._worker = None

    def _stop_all(self) -> None:
        self._stop_event.set()
        if self._perft_stop is not None:
            self._perft_stop.set()
        if self._engine is not None:
            self._engine.stop()

    # ---- main loop ----

    def run(self, lines: Iterable[str]) -> None:
        try:
            for line in lines:
                if not self.handle(line):
                    break
            else:
                # EOF (e.g. `echo "go depth 12" | pibot uci`): let a search that
                # ends by itself print its bestmove; `quit` stops at once.
                if self._worker is not None and self._finite_search:
                    self._worker.join()
        finally:
            self._finish_search()
            self._sources.close()
            if self._engine is not None:
                self._engine.close()

    def handle(self, line: str) -> bool:
        """Process one command line; False means quit."""
        tokens = line.split()
        if not tokens:
            return True
        cmd, args = tokens[0], tokens[1:]
        if cmd == "quit":
            return False
        handler = _COMMANDS.get(cmd)
        if handler is None:
            self.info_string(f"unknown command: {_quote(line.strip())}")
            return True
        try:
            handler(self, args)
        except UciError as exc:
            self.info_string(f"error in '{cmd}': {exc}")
        except PibotError as exc:
            self.info_string(f"error in '{cmd}': {exc}")
        return True

    # ---- commands ----

    def cmd_uci(self, args: list[str]) -> None:
        o = UciOptions()
        for line in (
            f"id name pibot {__version__}",
            "id author the pibot authors",
            f"option name Hash type spin default {o.hash_mb} min 1 max {MAX_HASH_MB}",
            f"option name Threads type spin default {o.threads} min 1 max {MAX_THREADS}",
            f"option name Move Overhead type spin default {o.move_overhead_ms} min 0 max 5000",
            "option name Ponder type check default false",
            "option name Clear Hash type button",
            "option name UCI_Chess960 type check default false",
            "option name UCI_Variant type combo default chess "
            + " ".join(f"var {v}" for v in UCI_VARIANTS),
            f"option name UseNNUE type check default {str(o.use_nnue).lower()}",
            "option name EvalFile type string default <empty>",
            *option_lines(),
            "uciok",
        ):
            self.send(line)

    def cmd_isready(self, args: list[str]) -> None:
        try:
            if not self._searching():
                self._get_engine()  # allocate the hash now, not during the first go
        except PibotError as exc:
            self.info_string(f"error in 'isready': {exc}")
        finally:
            self.send("readyok")  # a GUI waits for it forever: never withhold it

    def cmd_ucinewgame(self, args: list[str]) -> None:
        self._finish_search()
        self._get_engine().new_game()
        self._sources.new_game()

    def cmd_setoption(self, args: list[str]) -> None:
        text = " ".join(args)
        if not text.startswith("name "):
            raise UciError("expected 'setoption name <id> [value <x>]'")
        body = text[5:]
        name, _, value = body.partition(" value ")
        if not value and name.endswith(" value"):
            name = name[:-len(" value")]  # "value" with nothing after it: an empty string
        name = name.strip().lower()
        value = value.strip()
        self._finish_search()
        eng = self._engine
        if name == "hash":
            self._set_hash(_int_arg("Hash", value or None, 1, 1 << 62))
        elif name == "threads":
            n = _int_arg("Threads", value or None, 1, MAX_THREADS)
            if eng is not None:
                eng.set_option(threads=n)
            self._opts.threads = n
        elif name == "move overhead":
            ms = _int_arg("Move Overhead", value or None, 0, 5000)
            if eng is not None:
                eng.set_option(move_overhead_ms=ms)
            self._opts.move_overhead_ms = ms
        elif name == "ponder":
            self._opts.ponder = _bool_arg("Ponder", value)
        elif name == "uci_chess960":
            self._opts.chess960 = _bool_arg("UCI_Chess960", value)
        elif name == "uci_variant":
            self._set_variant(value)
        elif name == "usennue":
            self._opts.use_nnue = _bool_arg("UseNNUE", value)
            if eng is not None:
                eng.set_eval("nnue" if self._opts.use_nnue else "hce")
        elif name == "evalfile":
            self._set_eval_file(value)
        elif name == "clear hash":
            if eng is not None:
                eng.new_game()
        elif name in _SOURCE_OPTIONS:
            self._set_source_option(name, value)
        else:
            raise UciError(f"no option named {_quote(name)}")

    def _set_variant(self, value: str) -> None:
        try:
            variant = Board(variant=value or "chess").variant
        except VariantError:
            raise UciError(f"UCI_Variant {_quote(value)} is not one of "
                           f"{', '.join(UCI_VARIANTS)}") from None
        if variant != self._opts.variant:
            # The position in force belongs to the old rules: the new variant
            # starts from its own start position until the next `position`.
            self._opts.variant = variant
            self._fen, self._moves = None, []
            if self._engine is not None:
                self._engine.set_position(None, [], self._opts.chess960, variant)

    def _variant_board(self) -> Board:
        """The position in force under UCI_Variant's rules."""
        board = Board(self._fen, chess960=self._opts.chess960, variant=self._opts.variant)
        for mv in self._moves:
            board.push_uci(mv)
        return board

    def _set_source_option(self, name: str, value: str) -> None:
        src = self._sources
        if name == "ownbook":
            src.set_own_book(_bool_arg("OwnBook", value))
        elif name == "bookfile":
            src.set_book_file(value)
            for line in src.describe():
                if line.startswith("polyglot"):
                    self.info_string(line)
        elif name == "bookselection":
            src.set_book_selection(value)
        elif name == "bookdepth":
            src.set_book_depth(_int_arg("BookDepth", value or None, 1, MAX_BOOK_DEPTH))
        elif name == "bookseed":
            src.set_book_seed(_int_arg("BookSeed", value or None, 0, MAX_SEED))
        elif name == "syzygypath":
            src.set_syzygy_path(value)
            for line in src.describe():
                if line.startswith("syzygy"):
                    self.info_string(line)
        elif name == "syzygyprobelimit":
            src.set_probe_limit(_int_arg("SyzygyProbeLimit", value or None, 0, 7))

    def _set_hash(self, mb: int) -> None:
        """Resize the table now, so a size that cannot be had is refused here
        (naming one that fits) and the current table stays in use."""
        old = self._opts.hash_mb
        free = platform_info.free_for_hash_mb()
        cap = MAX_HASH_MB if free is None else min(MAX_HASH_MB, free)
        if mb > cap:
            room = f"about {cap} MB of memory is free" if free is not None and free < \
                MAX_HASH_MB else f"the maximum is {MAX_HASH_MB} MB"
            self.info_string(f"Hash {mb} MB does not fit: {room}; keeping Hash {old} MB "
                             f"(set Hash to {platform_info.round_down_mb(max(cap, 1))} or less)")
            return
        try:
            if self._engine is None:
                self._opts.hash_mb = mb
                self._get_engine()
            else:
                self._engine.set_option(hash_mb=mb)  # the old table stays if this fails
                self._engine.new_game()
        except EngineMemoryError:
            self._opts.hash_mb = old
            self.info_string(f"Hash {mb} MB could not be allocated; keeping Hash {old} MB "
                             f"(try a smaller size)")
            return
        self._opts.hash_mb = mb

    def _set_eval_file(self, value: str) -> None:
        """Check the net file now: a bad one is named with its problem and the
        current net stays in use."""
        path = "" if value in ("", "<empty>") else value
        keep = self._opts.eval_file or "the built-in net"
        if path and not _is_regular(path):
            # The C reader would block on a FIFO and read /dev/zero until memory runs out.
            self.info_string(f"EvalFile not loaded: {_quote(path)} is not a regular file; "
                             f"keeping {keep}")
            return
        try:
            name = check_net_file(path) if path else None
            if self._engine is not None:
                self._engine.load_net(path or None)
        except NetFileError as exc:
            self.info_string(f"EvalFile not loaded: {exc}; keeping {keep}")
            return
        self._opts.eval_file = path
        if name is not None:
            self.info_string(f"EvalFile {path} loaded: {name}")

    def cmd_position(self, args: list[str]) -> None:
        if not args:
            raise UciError("expected 'position startpos|fen <FEN> [moves ...]'")
        if "moves" in args:
            i = args.index("moves")
            head, moves = args[:i], args[i + 1:]
        else:
            head, moves = args, []
        if head[0] == "startpos":
            if len(head) > 1:
                raise UciError(f"unexpected text after startpos: {' '.join(head[1:])}")
            fen = None
        elif head[0] == "fen":
            if len(head) < 2:
                raise UciError("'position fen' needs a FEN")
            fen = " ".join(head[1:])
        else:
            raise UciError(f"expected startpos or fen, got {_quote(head[0])}")
        self._finish_search()
        # Set on the engine first: on a bad FEN/move it raises and the
        # previous position stays in force.
        self._get_engine().set_position(fen, moves, self._opts.chess960, self._opts.variant)
        self._fen, self._moves = fen, moves

    def cmd_go(self, args: list[str]) -> None:
        start_us = monotonic_us()  # our clock runs from here, not from thread start
        if self._searching():
            raise UciError("already searching; send stop first")
        if args and args[0] == "perft":
            self._start_perft(args[1:])
            return
        limits = _parse_go(args)
        eng = self._get_engine()
        self._perft_stop = None
        self._finite_search = not (limits.infinite or limits.ponder)
        self._stop_event = threading.Event()
        self._ponderhit_event = threading.Event()
        self._answered = threading.Event()
        # A GUI analysing (infinite) or pondering waits for `stop`/`ponderhit`:
        # an instant book move would break that, so those always search.
        # Book and tablebase know standard chess only.
        sources = not (limits.infinite or limits.ponder or self._opts.variant != "chess")
        position = (self._fen, list(self._moves), self._opts.chess960) if sources else None
        self._worker = threading.Thread(
            target=self._search_worker, args=(eng, limits, self._stop_event,
                                              self._ponderhit_event, self._answered, start_us,
                                              position),
            name="uci-search", daemon=True)
        self._worker.start()

    def _search_worker(self, eng: Engine, limits: SearchLimits, stop: threading.Event,
                       ponderhit: threading.Event, answered: threading.Event,
                       start_us: int,
                       position: tuple[str | None, list[str], bool] | None = None) -> None:
        if position is not None and self._answer_from_sources(position, start_us, answered):
            return
        try:
            res = eng.search(limits, on_info=self._print_info, stop_event=stop,
                             ponderhit_event=ponderhit, start_us=start_us)
        except Exception as exc:  # a GUI must always get its bestmove
            log.exception("search failed")
            self.info_string(f"search failed: {exc}")
            moves = eng.legal_moves()
            answered.set()
            self.send(f"bestmove {moves[0] if moves else '(none)'}")
            return
        answered.set()
        self._print_bestmove(res)

    def _answer_from_sources(self, position: tuple[str | None, list[str], bool],
                             start_us: int, answered: threading.Event) -> bool:
        """Play a book or tablebase move at once; False when there is none."""
        notice = self._sources.notice()
        if notice:
            self.info_string(notice)
        try:
            hit = self._sources.pick(*position)
        except Exception:  # a book/table bug must not cost the bestmove: search
            log.exception("book/tablebase lookup failed; searching instead")
            return False
        if hit is None:
            return False
        self._print_source_move(hit, position, start_us)
        answered.set()
        self.send(f"bestmove {hit.uci}")
        return True

    def _print_source_move(self, hit: SourceMove, position: tuple[str | None, list[str], bool],
                           start_us: int) -> None:
        ms = max(0, (monotonic_us() - start_us) // 1000)
        if hit.source == "book":
            self.info_string(f"{hit.comment} ({hit.elapsed_ms:.1f} ms)")
            return
        try:
            score = self._sources.score(hit, *position)
        except ValueError:
            score = "cp 0"
        self.info_string(f"tablebase {hit.comment} ({hit.elapsed_ms:.1f} ms)")
        self.send(f"info depth 0 seldepth 0 multipv 1 score {score} nodes 0 nps 0 "
                  f"time {ms} pv {hit.uci}")

    def _print_info(self, info: SearchInfo) -> None:
        if info.mate is not None:
            score = f"mate {info.mate}"
        else:
            score = f"cp {info.score_cp}"
        if info.bound != "exact":
            score += f" {info.bound}"
        self.send(f"info depth {info.depth} seldepth {info.seldepth} multipv 1 score {score} "
                  f"nodes {info.nodes} nps {info.nps} hashfull {info.hashfull} "
                  f"time {info.time_ms} pv {' '.join(info.pv)}")

    def _print_bestmove(self, res: SearchResult) -> None:
        if res.bestmove == "0000":
            self.send("bestmove (none)")
        elif res.ponder:
            self.send(f"bestmove {res.bestmove} ponder {res.ponder}")
        else:
            self.send(f"bestmove {res.bestmove}")

    def _start_perft(self, args: list[str]) -> None:
        if not args:
            raise UciError("perft needs a depth, e.g. 'go perft 5'")
        try:
            depth = int(args[0])
        except ValueError:
            raise UciError(f"perft depth {_quote(args[0])} is not an integer") from None
        if not 0 <= depth <= _MAX_PERFT_DEPTH:
            raise UciError(f"perft depth must be 0..{_MAX_PERFT_DEPTH}, got {depth}")
        board = self._variant_board()
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
                depth, stop, on_row=lambda move, count: self.send(f"{move}: {count}"))
        except PerftInterrupted:
            answered.set()
            self.info_string(f"perft {depth} stopped; no total")
            return
        except Exception as exc:
            log.exception("perft failed")
            answered.set()
            self.info_string(f"perft failed: {exc}")
            return
        answered.set()
        self.send("")
        self.send(f"Nodes searched: {total}")

    def cmd_stop(self, args: list[str]) -> None:
        self._stop_all()
        if self._perft_stop is not None:
            # A stopped perft ends within microseconds: wait, so that a `go`
            # sent right after `stop` does not find it still running.
            self._finish_search()

    def cmd_ponderhit(self, args: list[str]) -> None:
        self._ponderhit_event.set()
        if self._engine is not None:
            self._engine.ponderhit()

    def cmd_bench(self, args: list[str]) -> None:
        from bot.engine.bench import DEFAULT_DEPTH, format_result, run_bench

        self._finish_search()
        depth = _int_arg("bench depth", args[0], 1, 64) if args else DEFAULT_DEPTH
        res = run_bench(depth)
        for line in format_result(res).splitlines():
            self.send(line)

    def cmd_d(self, args: list[str]) -> None:
        if self._opts.variant != "chess":
            board = self._variant_board()
            self.send(f"Variant: {board.variant}")
            self.send(f"Fen: {board.fen()}")
            self.send(f"Legal moves: {' '.join(board.legal_moves())}")
            return
        eng = self._get_engine()
        self.send(f"Fen: {eng.fen()}")
        self.send(f"Legal moves: {' '.join(eng.legal_moves())}")

    def cmd_eval(self, args: list[str]) -> None:
        self.send(f"Static eval: {self._get_engine().evaluate()} cp (side to move)")


_ECHO_CHARS = 40  # of a bad line: enough to recognise it, not a log flood


def _quote(text: str) -> str:
    """A short, escaped prefix of user input (no control characters reach the GUI)."""
    short = text[:_ECHO_CHARS]
    shown = short.encode("unicode_escape").decode("ascii")
    return f"'{shown}'" + ("..." if len(text) > _ECHO_CHARS else "")


def _is_regular(path: str) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return True  # missing or unreadable: the net checker names that problem


def _bool_arg(name: str, value: str) -> bool:
    v = value.lower()
    if v in ("true", "1", "on", "yes"):
        return True
    if v in ("false", "0", "off", "no"):
        return False
    raise UciError(f"{name} must be true or false, got {_quote(value)}")


_SOURCE_OPTIONS = ("ownbook", "bookfile", "bookselection", "bookdepth", "bookseed",
                   "syzygypath", "syzygyprobelimit")

_GO_INT = {"wtime": (0, MAX_MS), "btime": (0, MAX_MS), "winc": (0, MAX_MS),
           "binc": (0, MAX_MS), "movestogo": (0, 10_000), "movetime": (0, MAX_MS),
           "depth": (1, 10_000), "nodes": (1, MAX_NODES), "mate": (1, 1000)}


def _parse_go(args: list[str]) -> SearchLimits:
    values: dict[str, int] = {}
    infinite = ponder = False
    i = 0
    while i < len(args):
        tok = args[i]
        if tok in _GO_INT:
            lo, hi = _GO_INT[tok]
            nxt = args[i + 1] if i + 1 < len(args) else None
            values[tok] = _int_arg(tok, nxt, lo, hi)
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
            raise UciError(f"unknown go parameter {_quote(tok)}")
    mate = values.pop("mate", None)
    if mate is not None and "depth" not in values:
        values["depth"] = 2 * mate + 1  # a mate in n is found by depth 2n-1
    movestogo = values.pop("movestogo", None) or None
    return SearchLimits(movestogo=movestogo, infinite=infinite, ponder=ponder,
                        **values)


_COMMANDS = {
    "uci": UciSession.cmd_uci,
    "isready": UciSession.cmd_isready,
    "ucinewgame": UciSession.cmd_ucinewgame,
    "setoption": UciSession.cmd_setoption,
    "position": UciSession.cmd_position,
    "go": UciSession.cmd_go,
    "stop": UciSession.cmd_stop,
    "ponderhit": UciSession.cmd_ponderhit,
    "bench": UciSession.cmd_bench,
    "d": UciSession.cmd_d,
    "eval": UciSession.cmd_eval,
}


def main(stream: TextIO | None = None) -> int:
    session = UciSession()
    if stream is None:
        # Undecodable bytes from a GUI must not kill the loop with a traceback.
        stream = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
    try:
        session.run(stream)
    except KeyboardInterrupt:
        return 130
    except EngineError as exc:
        print(f"pibot uci: {exc}", file=sys.stderr)
        return 2
    return 0
