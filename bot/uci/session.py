"""The UCI command loop: one line of stdin, one command.

stdin is read in the main thread; each command goes to the room that owns it:
the options (bot/uci/options.py), the search worker (bot/uci/search.py), the
engine and position in force (bot/uci/state.py).  Malformed input is reported
on an `info string` line and ignored: a GUI typo never kills us, and `isready`
is always answered.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Callable, Iterable
from typing import TextIO

from bot import __version__
from bot.engine.exceptions import EngineError
from bot.errors import PibotError
from bot.uci.options import OptionSetter, option_lines, parse_setoption
from bot.uci.protocol import UciError, UciOutput, int_arg, quote
from bot.uci.search import SearchRunner
from bot.uci.sources import UciSources
from bot.uci.state import UciState


class UciSession:
    def __init__(self, out: TextIO | None = None) -> None:
        self._out = UciOutput(out if out is not None else sys.stdout)
        self._state = UciState()
        self._sources = UciSources()  # OwnBook / BookFile / SyzygyPath ...
        self._options = OptionSetter(self._state, self._sources, self._out)
        self._search = SearchRunner(self._state, self._sources, self._out)

    def run(self, lines: Iterable[str]) -> None:
        try:
            for line in lines:
                if not self.handle(line):
                    break
            else:
                self._search.wait_if_finite()  # EOF; `quit` stops at once
        finally:
            self._search.finish()
            self._sources.close()
            self._state.close()

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
            self._out.info_string(f"unknown command: {quote(line.strip())}")
            return True
        try:
            handler(self, args)
        except UciError as exc:
            self._out.info_string(f"error in '{cmd}': {exc}")
        except PibotError as exc:
            self._out.info_string(f"error in '{cmd}': {exc}")
        return True

    # ---- commands ----

    def cmd_uci(self, args: list[str]) -> None:
        for line in (
            f"id name pibot {__version__}",
            "id author the pibot authors",
            *option_lines(),
            "uciok",
        ):
            self._out.send(line)

    def cmd_isready(self, args: list[str]) -> None:
        try:
            if not self._search.searching():
                self._state.engine()  # allocate the hash now, not during the first go
        except PibotError as exc:
            self._out.info_string(f"error in 'isready': {exc}")
        finally:
            self._out.send("readyok")  # a GUI waits for it forever: never withhold it

    def cmd_ucinewgame(self, args: list[str]) -> None:
        self._search.finish()
        self._state.engine().new_game()
        self._sources.new_game()

    def cmd_setoption(self, args: list[str]) -> None:
        name, value = parse_setoption(args)
        self._search.finish()
        self._options.apply(name, value)

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
            raise UciError(f"expected startpos or fen, got {quote(head[0])}")
        self._search.finish()
        self._state.set_position(fen, moves)

    def cmd_go(self, args: list[str]) -> None:
        self._search.go(args)

    def cmd_stop(self, args: list[str]) -> None:
        self._search.stop()

    def cmd_ponderhit(self, args: list[str]) -> None:
        self._search.ponderhit()

    def cmd_bench(self, args: list[str]) -> None:
        from bot.engine.bench import DEFAULT_DEPTH, format_result, run_bench

        self._search.finish()
        depth = int_arg("bench depth", args[0], 1, 64) if args else DEFAULT_DEPTH
        res = run_bench(depth)
        for line in format_result(res).splitlines():
            self._out.send(line)

    def cmd_d(self, args: list[str]) -> None:
        if self._state.opts.variant != "chess":
            board = self._state.variant_board()
            self._out.send(f"Variant: {board.variant}")
            self._out.send(f"Fen: {board.fen()}")
            self._out.send(f"Legal moves: {' '.join(board.legal_moves())}")
            return
        eng = self._state.engine()
        self._out.send(f"Fen: {eng.fen()}")
        self._out.send(f"Legal moves: {' '.join(eng.legal_moves())}")

    def cmd_eval(self, args: list[str]) -> None:
        self._out.send(f"Static eval: {self._state.engine().evaluate()} cp (side to move)")


_COMMANDS: dict[str, Callable[[UciSession, list[str]], None]] = {
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
