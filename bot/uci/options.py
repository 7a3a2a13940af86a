"""The UCI options: the list `uci` announces, and `setoption`.

An engine option (Hash, Threads, EvalFile, MultiPV, UCI_LimitStrength,
UCI_Elo ...) goes to the session's options and, once the engine is built, to
the engine at once; the book and tablebase options go to the session's sources
(bot/uci/sources.py).  A value that cannot be had (a Hash that does not fit, a
bad net or book file, a MultiPV or UCI_Elo out of its range) is refused with
one `info string` naming the problem, and the setting in force stays.
"""

from __future__ import annotations

import os
import stat

from bot.engine.board import Board
from bot.engine.engine import MAX_HASH_MB, MAX_MULTIPV, MAX_THREADS, check_net_file
from bot.engine.exceptions import EngineMemoryError, NetFileError, VariantError
from bot.engine.strength import MAX_ELO, MIN_ELO
from bot.host import platform_info
from bot.uci.protocol import UciError, UciOutput, bool_arg, int_arg, quote, spin_arg
from bot.uci.sources import MAX_BOOK_DEPTH, MAX_SEED, UciSources
from bot.uci.sources import option_lines as source_option_lines
from bot.uci.state import UciOptions, UciState

# UCI_Variant's values, as Fairy-Stockfish names them. The engine has the
# rules of each (position, go perft, d) and searches each with its own
# hand-crafted evaluation (engine_c/variant_eval.h; king of the hill,
# three-check and crazyhouse: chess's net plus their own terms), or with a net of that
# variant where an EvalFile<Variant> option loads one (docs/nnue.md). Book and
# tablebase answer standard chess only.
UCI_VARIANTS = ("chess", "crazyhouse", "atomic", "antichess", "kingofthehill", "3check",
                "racingkings", "horde")
# Variants with a net option: option name -> UCI_Variant name. A variant joins
# when a net of it has been trained (format v3, docs/nnue.md).
VARIANT_NET_OPTIONS = {"EvalFileCrazyhouse": "crazyhouse"}

_SOURCE_OPTIONS = ("ownbook", "bookfile", "bookselection", "bookdepth", "bookseed",
                   "syzygypath", "syzygyprobelimit")


def option_lines() -> list[str]:
    """The `option` lines of the answer to `uci`, with their defaults."""
    o = UciOptions()
    return [
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
        *(f"option name {name} type string default <empty>" for name in VARIANT_NET_OPTIONS),
        f"option name MultiPV type spin default {o.multipv} min 1 max {MAX_MULTIPV}",
        f"option name UCI_LimitStrength type check default {str(o.limit_strength).lower()}",
        f"option name UCI_Elo type spin default {o.elo} min {MIN_ELO} max {MAX_ELO}",
        *source_option_lines(),
    ]


def parse_setoption(args: list[str]) -> tuple[str, str]:
    """`setoption name <id> [value <x>]` -> (id in lower case, value)."""
    text = " ".join(args)
    if not text.startswith("name "):
        raise UciError("expected 'setoption name <id> [value <x>]'")
    body = text[5:]
    name, _, value = body.partition(" value ")
    if not value and name.endswith(" value"):
        name = name[:-len(" value")]  # "value" with nothing after it: an empty string
    return name.strip().lower(), value.strip()


class OptionSetter:
    """Applies `setoption` to the session's state and sources."""

    def __init__(self, state: UciState, sources: UciSources, out: UciOutput) -> None:
        self._state = state
        self._sources = sources
        self._out = out

    def apply(self, name: str, value: str) -> None:
        """Set option `name` (lower case) to `value`; the search is not running."""
        opts, eng = self._state.opts, self._state.loaded
        if name == "hash":
            self._set_hash(int_arg("Hash", value or None, 1, 1 << 62))
        elif name == "threads":
            n = int_arg("Threads", value or None, 1, MAX_THREADS)
            if eng is not None:
                eng.set_option(threads=n)
            opts.threads = n
        elif name == "move overhead":
            ms = int_arg("Move Overhead", value or None, 0, 5000)
            if eng is not None:
                eng.set_option(move_overhead_ms=ms)
            opts.move_overhead_ms = ms
        elif name == "ponder":
            opts.ponder = bool_arg("Ponder", value)
        elif name == "uci_chess960":
            opts.chess960 = bool_arg("UCI_Chess960", value)
        elif name == "uci_variant":
            self._set_variant(value)
        elif name == "usennue":
            opts.use_nnue = bool_arg("UseNNUE", value)
            if eng is not None:
                eng.set_eval("nnue" if opts.use_nnue else "hce")
        elif name == "evalfile":
            self._set_net_file("EvalFile", "chess", value)
        elif name in _VARIANT_NET_NAMES:
            option = _VARIANT_NET_NAMES[name]
            self._set_net_file(option, VARIANT_NET_OPTIONS[option], value)
        elif name in ("multipv", "uci_limitstrength", "uci_elo"):
            self._set_play_option(name, value)
        elif name == "clear hash":
            if eng is not None:
                eng.new_game()
        elif name in _SOURCE_OPTIONS:
            self._set_source_option(name, value)
        else:
            raise UciError(f"no option named {quote(name)}")

    def _set_play_option(self, name: str, value: str) -> None:
        opts, eng = self._state.opts, self._state.loaded
        if name == "multipv":
            opts.multipv = spin_arg("MultiPV", value, 1, MAX_MULTIPV, opts.multipv)
            if eng is not None:
                eng.set_option(multipv=opts.multipv)
            return
        if name == "uci_limitstrength":
            opts.limit_strength = bool_arg("UCI_LimitStrength", value)
        else:
            opts.elo = spin_arg("UCI_Elo", value, MIN_ELO, MAX_ELO, opts.elo)
        self._state.apply_strength()

    def _set_variant(self, value: str) -> None:
        try:
            variant = Board(variant=value or "chess").variant
        except VariantError:
            raise UciError(f"UCI_Variant {quote(value)} is not one of "
                           f"{', '.join(UCI_VARIANTS)}") from None
        if variant != self._state.opts.variant:
            self._state.set_variant(variant)

    def _set_source_option(self, name: str, value: str) -> None:
        src = self._sources
        if name == "ownbook":
            src.set_own_book(bool_arg("OwnBook", value))
        elif name == "bookfile":
            src.set_book_file(value)
            for line in src.describe():
                if line.startswith("polyglot"):
                    self._out.info_string(line)
        elif name == "bookselection":
            src.set_book_selection(value)
        elif name == "bookdepth":
            src.set_book_depth(int_arg("BookDepth", value or None, 1, MAX_BOOK_DEPTH))
        elif name == "bookseed":
            src.set_book_seed(int_arg("BookSeed", value or None, 0, MAX_SEED))
        elif name == "syzygypath":
            src.set_syzygy_path(value)
            for line in src.describe():
                if line.startswith("syzygy"):
                    self._out.info_string(line)
        elif name == "syzygyprobelimit":
            src.set_probe_limit(int_arg("SyzygyProbeLimit", value or None, 0, 7))

    def _set_hash(self, mb: int) -> None:
        """Resize the table now, so a size that cannot be had is refused here
        (naming one that fits) and the current table stays in use."""
        opts = self._state.opts
        old = opts.hash_mb
        free = platform_info.free_for_hash_mb()
        cap = MAX_HASH_MB if free is None else min(MAX_HASH_MB, free)
        if mb > cap:
            room = f"about {cap} MB of memory is free" if free is not None and free < \
                MAX_HASH_MB else f"the maximum is {MAX_HASH_MB} MB"
            self._out.info_string(f"Hash {mb} MB does not fit: {room}; keeping Hash {old} MB "
                                  f"(set Hash to {platform_info.round_down_mb(max(cap, 1))} "
                                  f"or less)")
            return
        try:
            if self._state.loaded is None:
                opts.hash_mb = mb
                self._state.engine()
            else:
                self._state.loaded.set_option(hash_mb=mb)  # the old table stays if this fails
                self._state.loaded.new_game()
        except EngineMemoryError:
            opts.hash_mb = old
            self._out.info_string(f"Hash {mb} MB could not be allocated; keeping Hash {old} MB "
                                  f"(try a smaller size)")
            return
        opts.hash_mb = mb

    def _set_net_file(self, option: str, variant: str, value: str) -> None:
        """EvalFile (variant "chess") or a variant's net option (EvalFileCrazyhouse ...):
        the file is checked now, a bad one is named with its problem and the net in use
        stays; empty = the built-in net, or for a variant none of its own."""
        opts = self._state.opts
        chess = variant == "chess"
        path = "" if value in ("", "<empty>") else value
        current = opts.eval_file if chess else opts.variant_nets.get(variant, "")
        keep = current or ("the built-in net" if chess else "no net of its own")
        if path and not _is_regular(path):
            # The C reader would block on a FIFO and read /dev/zero until memory runs out.
            self._out.info_string(f"{option} not loaded: {quote(path)} is not a regular "
                                  f"file; keeping {keep}")
            return
        try:
            name = check_net_file(path, variant) if path else None
            eng = self._state.loaded
            if eng is not None and chess:
                eng.load_net(path or None)
            elif eng is not None:
                eng.variant_nets.load(variant, path or None)
        except NetFileError as exc:
            self._out.info_string(f"{option} not loaded: {exc}; keeping {keep}")
            return
        if chess:
            opts.eval_file = path
        else:
            opts.variant_nets[variant] = path
        if name is not None:
            self._out.info_string(f"{option} {path} loaded: {name}")


_VARIANT_NET_NAMES = {name.lower(): name for name in VARIANT_NET_OPTIONS}


def _is_regular(path: str) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return True  # missing or unreadable: the net checker names that problem
