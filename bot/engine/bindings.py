"""Thin checked wrappers over the raw cffi `lib`: C codes become exceptions.

Layering (as in PyNaCl): bot._engine.lib (raw) -> this module (checked
functions taking and returning Python types) -> bot.engine.board / engine
(Pythonic classes). Nothing above this module touches `ffi` or `lib`.
"""

from __future__ import annotations

from typing import Any

from bot._engine import ffi, lib
from bot.engine.exceptions import (
    ERRORS,
    EngineArgumentError,
    EngineError,
    EngineMemoryError,
    PerftInterrupted,
)

_init_done = False


def ensure_init() -> None:
    """Build attack tables and Zobrist keys once (thread-safe in C: call_once)."""
    global _init_done
    if not _init_done:
        lib.pb_init()
        _init_done = True


def c_text(value: str, what: str) -> bytes:
    """`value` as a C string argument; EngineArgumentError if it holds a NUL (C would
    stop reading there), TypeError if it is not a str."""
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, not {type(value).__name__}")
    data = value.encode("utf-8", "replace")
    if b"\0" in data:
        raise EngineArgumentError(f"{what} contains a NUL character; remove it")
    return data


def c_str(cdata: Any, limit: int | None = None, errors: str = "strict") -> str:
    """A C string (char * or char[]) as a str: up to its NUL, or `limit` chars."""
    raw: bytes = ffi.string(cdata) if limit is None else ffi.string(cdata, limit)
    return raw.decode(errors=errors)


def check(code: int, detail: str = "") -> int:
    """Raise the exception for a negative C return code; pass others through."""
    if code >= 0:
        return code
    exc = ERRORS.get(code, EngineError)
    message = c_str(lib.pb_strerror(code))
    raise exc(f"{message}: {detail}" if detail else message)


def backend() -> str:
    ensure_init()
    return c_str(lib.pb_backend())


# ---- board ----

def board_new() -> Any:
    ensure_init()
    ptr = lib.pb_board_new()
    if ptr == ffi.NULL:
        raise EngineMemoryError("out of memory allocating a board")
    return ffi.gc(ptr, lib.pb_board_free)


def board_copy(board: Any) -> Any:
    ptr = lib.pb_board_copy(board)
    if ptr == ffi.NULL:
        raise EngineMemoryError("out of memory copying a board")
    return ffi.gc(ptr, lib.pb_board_free)


def board_set_fen(board: Any, fen: str, chess960: bool) -> None:
    err = ffi.new("char[256]")
    code = lib.pb_board_set_fen(board, c_text(fen, "FEN"), int(chess960), err, 256)
    shown = fen if len(fen) <= 120 else fen[:100] + "..."  # a pasted file is no message
    check(code, f"{c_str(err)} (FEN: {shown!r})")


def board_set_variant_fen(board: Any, variant: str, fen: str | None, chess960: bool) -> None:
    """A variant's position (fen None: its start position)."""
    err = ffi.new("char[256]")
    code = lib.pb_board_set_variant_fen(board, c_text(variant, "variant"),
                                        ffi.NULL if fen is None else c_text(fen, "FEN"),
                                        int(chess960), err, 256)
    shown = "" if fen is None else fen if len(fen) <= 120 else fen[:100] + "..."
    check(code, f"{c_str(err)} (variant {variant!r}, FEN: {shown!r})")


def board_variant(board: Any) -> str:
    return c_str(lib.pb_board_variant(board))


def board_fen(board: Any) -> str:
    out = ffi.new("char[256]")
    check(lib.pb_board_get_fen(board, out, 128))
    return c_str(out)


def board_push_uci(board: Any, uci: str) -> None:
    check(lib.pb_board_push_uci(board, c_text(uci, "move")),
          f"{uci!r} is not a legal move in {board_fen(board)}")


def board_pop(board: Any) -> None:
    check(lib.pb_board_pop(board), "no move to take back")


def board_legal_moves(board: Any) -> list[str]:
    out = ffi.new("char[4096]")
    check(lib.pb_board_legal_moves(board, out, 2048))
    text = c_str(out)
    return text.split() if text else []


def board_side_to_move(board: Any) -> int:
    return int(lib.pb_board_side_to_move(board))


def board_in_check(board: Any) -> bool:
    return bool(lib.pb_board_in_check(board))


def board_key(board: Any) -> int:
    return int(lib.pb_board_key(board))


def board_compute_key(board: Any) -> int:
    return int(lib.pb_board_compute_key(board))


def board_status(board: Any) -> int:
    return int(lib.pb_board_status(board))


MAX_PERFT_DEPTH = 20  # far beyond what finishes; the C core accepts up to 63


class PerftStop:
    """A flag that ends a running perft early; set() may be called from any thread."""

    __slots__ = ("_ptr",)

    def __init__(self) -> None:
        ensure_init()
        ptr = lib.pb_perft_stop_new()
        if ptr == ffi.NULL:
            raise EngineMemoryError("out of memory allocating a perft stop flag")
        self._ptr = ffi.gc(ptr, lib.pb_perft_stop_free)

    def set(self) -> None:
        lib.pb_perft_stop_set(self._ptr)


def check_perft_depth(depth: int) -> None:
    if isinstance(depth, bool) or not isinstance(depth, int) \
            or not 0 <= depth <= MAX_PERFT_DEPTH:
        raise ERRORS[-4](f"perft depth must be 0..{MAX_PERFT_DEPTH}, got {depth!r}")


def perft(board: Any, depth: int, stop: PerftStop | None = None) -> int:
    """Leaf count `depth` plies deep (perft(0) = 1); PerftInterrupted if `stop` was set.

    cffi releases the GIL for the C call, so another thread can set `stop`."""
    check_perft_depth(depth)
    nodes = ffi.new("uint64_t *")
    code = check(lib.pb_perft_run(board, depth, ffi.NULL if stop is None else stop._ptr, nodes))
    if code == 1:
        raise PerftInterrupted(f"perft {depth} was stopped before it finished")
    return int(nodes[0])
