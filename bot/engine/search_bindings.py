"""Thin checked wrappers over the search half of the cffi API (pibot_engine_api.h).

Same layering as bindings.py: raw `lib` calls turn into Python values and
C error codes into bot.engine.exceptions. Only bot.engine.engine uses this.
"""

from __future__ import annotations

from typing import Any, TypedDict

from bot._engine import ffi, lib
from bot.engine.bindings import check, ensure_init
from bot.engine.exceptions import EngineArgumentError, EngineMemoryError

MAX_THREADS = int(lib.PB_ENGINE_MAX_THREADS)
MAX_HASH_MB = int(lib.PB_ENGINE_MAX_HASH_MB)
_PV_CHARS = int(lib.PB_ENGINE_PV_CHARS)


class RawLimits(TypedDict):
    """Arguments of pb_engine_search (ms; -1 / 0 mean "not given")."""

    wtime: int
    btime: int
    winc: int
    binc: int
    movestogo: int
    movetime: int
    depth: int
    nodes: int
    infinite: bool
    ponder: bool


class RawInfo(TypedDict):
    depth: int
    seldepth: int
    score_cp: int
    mate: int
    is_mate: bool
    bound: int
    nodes: int
    nps: int
    hashfull: int
    time_ms: int
    pv: str


class RawResult(TypedDict):
    bestmove: str
    ponder: str
    score_cp: int
    mate: int
    is_mate: bool
    depth: int
    seldepth: int
    nodes: int
    time_ms: int
    pv: str


def _text(value: str, what: str) -> bytes:
    data = value.encode("utf-8", "replace")
    if b"\0" in data:
        raise EngineArgumentError(f"{what} contains a NUL character; remove it")
    return data


def engine_new(hash_mb: int, threads: int) -> Any:
    ensure_init()
    err = ffi.new("int *")
    ptr = lib.pb_engine_new(hash_mb, threads, err)
    if ptr == ffi.NULL:
        if err[0] == -3:
            raise EngineMemoryError(
                f"could not allocate a {hash_mb} MB hash table; choose a smaller hash size")
        check(err[0], f"hash {hash_mb} MB must be 1..{MAX_HASH_MB}, "
                      f"threads {threads} must be 1..{MAX_THREADS}")
        raise EngineMemoryError("could not create the engine")
    return ffi.gc(ptr, lib.pb_engine_free)


def engine_free(ptr: Any) -> None:
    ffi.release(ptr)


def set_hash(ptr: Any, hash_mb: int) -> None:
    code = lib.pb_engine_set_hash(ptr, hash_mb)
    if code == -3:
        raise EngineMemoryError(f"could not allocate a {hash_mb} MB hash table "
                                "(the previous table is still in use); choose a smaller size")
    check(code, f"hash size {hash_mb} MB must be 1..{MAX_HASH_MB}")


def set_threads(ptr: Any, threads: int) -> None:
    check(lib.pb_engine_set_threads(ptr, threads), f"threads {threads} must be 1..{MAX_THREADS}")


def set_move_overhead(ptr: Any, ms: int) -> None:
    check(lib.pb_engine_set_move_overhead(ptr, ms), f"move overhead {ms} ms must be 0..60000")


def clear(ptr: Any) -> None:
    check(lib.pb_engine_clear(ptr), "stop the search before starting a new game")


def set_position(ptr: Any, fen: str | None, moves: list[str], chess960: bool) -> None:
    err = ffi.new("char[256]")
    fen_arg = ffi.NULL if fen is None else _text(fen, "FEN")
    move_text = _text(" ".join(moves), "move list")
    code = lib.pb_engine_set_position(ptr, fen_arg, move_text, int(chess960), err, 256)
    detail = ffi.string(err).decode(errors="replace")
    if code == -1 and fen is not None:
        detail = f"{detail} (FEN: {fen!r})"
    check(code, detail)


def now_us() -> int:
    """The engine's monotonic clock (microseconds), for search start stamps."""
    return int(lib.pb_engine_now_us())


def search(ptr: Any, limits: RawLimits, start_us: int = 0) -> RawResult:
    lim = ffi.new("PbLimits *")
    lim.start_us = start_us
    lim.wtime, lim.btime = limits["wtime"], limits["btime"]
    lim.winc, lim.binc = limits["winc"], limits["binc"]
    lim.movestogo, lim.movetime = limits["movestogo"], limits["movetime"]
    lim.depth, lim.nodes = limits["depth"], limits["nodes"]
    lim.infinite, lim.ponder = int(limits["infinite"]), int(limits["ponder"])
    out = ffi.new("PbResult *")
    # API-mode cffi releases the GIL for the whole call.
    check(lib.pb_engine_search(ptr, lim, out), "stop the running search first")
    return RawResult(
        bestmove=ffi.string(out.bestmove).decode(), ponder=ffi.string(out.ponder).decode(),
        score_cp=int(out.score_cp), mate=int(out.mate), is_mate=bool(out.is_mate),
        depth=int(out.depth), seldepth=int(out.seldepth), nodes=int(out.nodes),
        time_ms=int(out.time_ms), pv=ffi.string(out.pv, _PV_CHARS).decode())


def stop(ptr: Any) -> None:
    lib.pb_engine_stop(ptr)


def ponderhit(ptr: Any) -> None:
    lib.pb_engine_ponderhit(ptr)


def info_seq(ptr: Any) -> int:
    return int(lib.pb_engine_get_info(ptr, ffi.NULL))


def get_info(ptr: Any) -> tuple[int, RawInfo]:
    out = ffi.new("PbInfo *")
    seq = int(lib.pb_engine_get_info(ptr, out))
    return seq, RawInfo(
        depth=int(out.depth), seldepth=int(out.seldepth), score_cp=int(out.score_cp),
        mate=int(out.mate), is_mate=bool(out.is_mate), bound=int(out.bound),
        nodes=int(out.nodes), nps=int(out.nps), hashfull=int(out.hashfull),
        time_ms=int(out.time_ms), pv=ffi.string(out.pv, _PV_CHARS).decode())


def hashfull(ptr: Any) -> int:
    return int(lib.pb_engine_hashfull(ptr))


def is_searching(ptr: Any) -> bool:
    return bool(lib.pb_engine_is_searching(ptr))


def fen(ptr: Any) -> str:
    out = ffi.new("char[128]")
    check(lib.pb_engine_get_fen(ptr, out, 128))
    return ffi.string(out).decode()


def evaluate(ptr: Any) -> int:
    out = ffi.new("int *")
    check(lib.pb_engine_eval(ptr, out))
    return int(out[0])


def legal_moves(ptr: Any) -> list[str]:
    out = ffi.new("char[2048]")
    lib.pb_engine_legal_moves(ptr, out, 2048)
    return ffi.string(out).decode().split()


def time_budget(limits: RawLimits, white_to_move: bool, overhead_ms: int) -> tuple[int, int]:
    """(soft, hard) ms the search would plan for these limits; (0, 0) = no time limit."""
    lim = ffi.new("PbLimits *")
    lim.wtime, lim.btime = limits["wtime"], limits["btime"]
    lim.winc, lim.binc = limits["winc"], limits["binc"]
    lim.movestogo, lim.movetime = limits["movestogo"], limits["movetime"]
    lim.depth, lim.nodes = limits["depth"], limits["nodes"]
    lim.infinite, lim.ponder = int(limits["infinite"]), int(limits["ponder"])
    soft, hard = ffi.new("int64_t *"), ffi.new("int64_t *")
    check(lib.pb_engine_time_budget(lim, 0 if white_to_move else 1, overhead_ms, soft, hard),
          f"move overhead {overhead_ms} ms must be 0..60000")
    return int(soft[0]), int(hard[0])
