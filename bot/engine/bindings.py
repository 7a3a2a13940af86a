"""Thin checked wrappers over the raw cffi `lib`: C codes become exceptions.

Layering (as in PyNaCl): bot._engine.lib (raw) -> this module (checked
functions taking and returning Python types) -> bot.engine.board / engine
(Pythonic classes). Nothing above this module touches `ffi` or `lib`.
"""

from __future__ import annotations

from typing import Any

from bot._engine import ffi, lib
from bot.engine.exceptions import ERRORS, EngineError, EngineMemoryError

_init_done = False


def ensure_init() -> None:
    """Build attack tables and Zobrist keys once (thread-safe in C: call_once)."""
    global _init_done
    if not _init_done:
        lib.pb_init()
        _init_done = True


def check(code: int, detail: str = "") -> int:
    """Raise the exception for a negative C return code; pass others through."""
    if code >= 0:
        return code
    exc = ERRORS.get(code, EngineError)
    message = ffi.string(lib.pb_strerror(code)).decode()
    raise exc(f"{message}: {detail}" if detail else message)


def backend() -> str:
    ensure_init()
    return ffi.string(lib.pb_backend()).decode()


def attacks_selftest(samples: int) -> int:
    ensure_init()
    return int(lib.pb_attacks_selftest(samples))


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


def _text(value: str, what: str) -> bytes:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, not {type(value).__name__}")
    data = value.encode("utf-8", "replace")
    if b"\0" in data:
        raise ERRORS[-4](f"{what} contains a NUL character")
    return data


def board_set_fen(board: Any, fen: str, chess960: bool) -> None:
    err = ffi.new("char[256]")
    code = lib.pb_board_set_fen(board, _text(fen, "FEN"), int(chess960), err, 256)
    check(code, f"{ffi.string(err).decode()} (FEN: {fen!r})")


def board_fen(board: Any) -> str:
    out = ffi.new("char[128]")
    check(lib.pb_board_get_fen(board, out, 128))
    return ffi.string(out).decode()


def board_push_uci(board: Any, uci: str) -> None:
    check(lib.pb_board_push_uci(board, _text(uci, "move")),
          f"{uci!r} is not a legal move in {board_fen(board)}")


def board_pop(board: Any) -> None:
    check(lib.pb_board_pop(board), "no move to take back")


def board_legal_moves(board: Any) -> list[str]:
    out = ffi.new("char[2048]")
    check(lib.pb_board_legal_moves(board, out, 2048))
    text = ffi.string(out).decode()
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


def perft(board: Any, depth: int) -> int:
    if not 0 <= depth <= 20:
        raise ERRORS[-4](f"perft depth must be 0..20, got {depth}")
    return int(lib.pb_perft(board, depth))


def perft_divide(board: Any, depth: int) -> tuple[list[tuple[str, int]], int]:
    if not 1 <= depth <= 20:
        raise ERRORS[-4](f"perft depth must be 1..20, got {depth}")
    size = 256 * 40
    out = ffi.new(f"char[{size}]")
    total = ffi.new("uint64_t *")
    check(lib.pb_perft_divide(board, depth, out, size, total))
    rows = []
    for line in ffi.string(out).decode().splitlines():
        move, count = line.split(": ")
        rows.append((move, int(count)))
    return rows, int(total[0])
