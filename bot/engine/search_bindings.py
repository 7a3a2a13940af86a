"""Thin checked wrappers over the search half of the cffi API (pibot_engine_api.h).

Same layering as bindings.py: raw `lib` calls turn into Python values and
C error codes into bot.engine.exceptions. Only bot.engine.engine uses this.
"""

from __future__ import annotations

from typing import Any, TypedDict

from bot._engine import ffi, lib
from bot.engine.bindings import c_str, c_text, check, ensure_init
from bot.engine.exceptions import EngineArgumentError, EngineError, EngineMemoryError

MAX_THREADS = int(lib.PB_ENGINE_MAX_THREADS)
MAX_HASH_MB = int(lib.PB_ENGINE_MAX_HASH_MB)
MAX_MULTIPV = int(lib.PB_ENGINE_MAX_MULTIPV)
MIN_ELO = int(lib.PB_STRENGTH_MIN_ELO)
MAX_ELO = int(lib.PB_STRENGTH_MAX_ELO)
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
    multipv: int
    seq: int
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
    elo: int


class RawLevel(TypedDict):
    """A strength level's parameters (engine_c/strength.h)."""

    elo: int
    nodes: int
    depth: int
    multipv: int
    spread_cp: int
    max_loss_cp: int
    think_pct: int


def engine_new(hash_mb: int, threads: int) -> Any:
    ensure_init()
    err = ffi.new("int *")
    ptr = lib.pb_engine_new(hash_mb, threads, err)
    if ptr == ffi.NULL:
        if err[0] <= -8:
            check(err[0], "the NNUE net built into the engine is damaged; rebuild it "
                          "(pip install -e .) from an intact engine_c/nets/default.pbnn")
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


def set_multipv(ptr: Any, lines: int) -> None:
    check(lib.pb_engine_set_multipv(ptr, lines), f"MultiPV {lines} must be 1..{MAX_MULTIPV}")


def set_strength(ptr: Any, elo: int) -> int:
    """0 = full strength, else an Elo (clamped); the level now in force."""
    return int(lib.pb_engine_set_strength(ptr, elo))


def get_strength(ptr: Any) -> int:
    return int(lib.pb_engine_get_strength(ptr))


def set_seed(ptr: Any, seed: int) -> None:
    lib.pb_engine_set_seed(ptr, seed)


def strength_params(elo: int) -> RawLevel:
    out = ffi.new("PbStrengthParams *")
    lib.pb_strength_params(elo, out)
    return RawLevel(elo=int(out.elo), nodes=int(out.nodes), depth=int(out.depth),
                    multipv=int(out.multipv), spread_cp=int(out.spread_cp),
                    max_loss_cp=int(out.max_loss_cp), think_pct=int(out.think_pct))


def clear(ptr: Any) -> None:
    check(lib.pb_engine_clear(ptr), "stop the search before starting a new game")


def hurry_clear(ptr: Any, on: bool) -> None:
    lib.pb_engine_hurry_clear(ptr, int(on))


def set_position(ptr: Any, fen: str | None, moves: list[str], chess960: bool,
                 variant: str = "chess") -> None:
    err = ffi.new("char[256]")
    fen_arg = ffi.NULL if fen is None else c_text(fen, "FEN")
    move_text = c_text(" ".join(moves), "move list")
    if variant == "chess":
        code = lib.pb_engine_set_position(ptr, fen_arg, move_text, int(chess960), err, 256)
    else:
        code = lib.pb_engine_set_variant_position(ptr, c_text(variant, "variant"), fen_arg,
                                                  move_text, int(chess960), err, 256)
    detail = c_str(err, errors="replace")
    if code == -1 and fen is not None:
        detail = f"{detail} (FEN: {fen!r})"
    if variant != "chess" and code in (-1, -14):
        detail = f"{detail} (variant {variant!r})"
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
        bestmove=c_str(out.bestmove), ponder=c_str(out.ponder),
        score_cp=int(out.score_cp), mate=int(out.mate), is_mate=bool(out.is_mate),
        depth=int(out.depth), seldepth=int(out.seldepth), nodes=int(out.nodes),
        time_ms=int(out.time_ms), pv=c_str(out.pv, _PV_CHARS), elo=int(out.elo))


def stop(ptr: Any) -> None:
    lib.pb_engine_stop(ptr)


def ponderhit(ptr: Any) -> None:
    lib.pb_engine_ponderhit(ptr)


def info_seq(ptr: Any) -> int:
    return int(lib.pb_engine_get_info(ptr, ffi.NULL))


def _raw_info(out: Any) -> RawInfo:
    return RawInfo(
        multipv=int(out.multipv), seq=int(out.seq),
        depth=int(out.depth), seldepth=int(out.seldepth), score_cp=int(out.score_cp),
        mate=int(out.mate), is_mate=bool(out.is_mate), bound=int(out.bound),
        nodes=int(out.nodes), nps=int(out.nps), hashfull=int(out.hashfull),
        time_ms=int(out.time_ms), pv=c_str(out.pv, _PV_CHARS))


def get_info(ptr: Any) -> tuple[int, RawInfo]:
    out = ffi.new("PbInfo *")
    seq = int(lib.pb_engine_get_info(ptr, out))
    return seq, _raw_info(out)


def get_lines(ptr: Any, room: int = 1) -> list[RawInfo]:
    """The MultiPV lines of the running or last search, best first (room:
    how many to allocate for at first; all of them come back)."""
    while True:
        out = ffi.new("PbInfo[]", max(1, room))
        n = int(lib.pb_engine_get_lines(ptr, out, max(1, room)))
        if n <= room:
            return [_raw_info(out[i]) for i in range(n)]
        room = n


def hashfull(ptr: Any) -> int:
    return int(lib.pb_engine_hashfull(ptr))


def is_searching(ptr: Any) -> bool:
    return bool(lib.pb_engine_is_searching(ptr))


def fen(ptr: Any) -> str:
    out = ffi.new("char[256]")
    check(lib.pb_engine_get_fen(ptr, out, 128))
    return c_str(out)


def evaluate(ptr: Any) -> int:
    out = ffi.new("int *")
    check(lib.pb_engine_eval(ptr, out))
    return int(out[0])


def legal_moves(ptr: Any) -> list[str]:
    out = ffi.new("char[4096]")
    lib.pb_engine_legal_moves(ptr, out, 2048)
    return c_str(out).split()


def time_budget(limits: RawLimits, white_to_move: bool, overhead_ms: int,
                moves_played: int = 0) -> tuple[int, int]:
    """(soft, hard) ms the search would plan for these limits after `moves_played`
    full moves; (0, 0) = no time limit."""
    lim = ffi.new("PbLimits *")
    lim.wtime, lim.btime = limits["wtime"], limits["btime"]
    lim.winc, lim.binc = limits["winc"], limits["binc"]
    lim.movestogo, lim.movetime = limits["movestogo"], limits["movetime"]
    lim.depth, lim.nodes = limits["depth"], limits["nodes"]
    lim.infinite, lim.ponder = int(limits["infinite"]), int(limits["ponder"])
    soft, hard = ffi.new("int64_t *"), ffi.new("int64_t *")
    check(lib.pb_engine_time_budget(lim, 0 if white_to_move else 1, overhead_ms, moves_played,
                                    soft, hard),
          f"move overhead {overhead_ms} ms must be 0..60000 and moves played >= 0")
    return int(soft[0]), int(hard[0])


# ---- evaluation: HCE or NNUE (pibot_nnue_api.h) ----

EVALS: dict[str, int] = {"hce": int(lib.PB_EVAL_HCE), "nnue": int(lib.PB_EVAL_NNUE)}
DEFAULT_EVAL = "nnue" if int(lib.PB_EVAL_DEFAULT) == int(lib.PB_EVAL_NNUE) else "hce"


def default_net_name() -> str:
    """'pbnn-xxxxxxxx' of the net built into the engine; EngineError if it is damaged."""
    ensure_init()
    check(lib.pb_nnue_default_status(), "the NNUE net built into the engine is damaged")
    return c_str(lib.pb_nnue_default_name())


def check_net_file(path: str, variant: str | None = None) -> str:
    """Validate a .pbnn file; its name, or NetFileError naming the file and the problem.
    With `variant` ("chess" for standard chess) the net must be that variant's."""
    ensure_init()
    name, err = ffi.new("char[32]"), ffi.new("char[512]")
    if variant is None:
        code = lib.pb_nnue_check_file(c_text(path, "net path"), name, 32, err, 512)
    else:
        code = lib.pb_nnue_check_file_for(c_text(path, "net path"), c_text(variant, "variant"),
                                          name, 32, err, 512)
    if code < 0:
        raise _net_error(code, err)
    return c_str(name)


def _net_error(code: int, err: Any) -> EngineError:
    try:
        check(code, "")
    except EngineError as exc:
        text = c_str(err, errors="replace")
        return type(exc)(text or str(exc))
    return EngineError(f"unexpected code {code}")


def set_eval(ptr: Any, name: str) -> None:
    if name not in EVALS:
        raise EngineArgumentError(f"eval must be one of {', '.join(EVALS)}, got {name!r}")
    check(lib.pb_engine_set_eval(ptr, EVALS[name]), "stop the search before switching the eval")


def get_eval(ptr: Any) -> str:
    return "nnue" if lib.pb_engine_get_eval(ptr) == lib.PB_EVAL_NNUE else "hce"


def load_net(ptr: Any, path: str | None) -> None:
    """Use the net in `path` (None or "" = the built-in one); NetFileError if bad."""
    err = ffi.new("char[512]")
    arg = ffi.NULL if not path else c_text(path, "net path")
    code = lib.pb_engine_load_net(ptr, arg, err, 512)
    if code < 0:
        raise _net_error(code, err)


def net_name(ptr: Any) -> str:
    out = ffi.new("char[32]")
    check(lib.pb_engine_net_name(ptr, out, 32))
    return c_str(out)


def load_variant_net(ptr: Any, variant: str, path: str | None) -> None:
    """The net `variant` searches with (None or "" = none: its hand-crafted eval);
    NetFileError if the file is bad or another variant's, VariantError for a name that
    is not a variant."""
    err = ffi.new("char[512]")
    arg = ffi.NULL if not path else c_text(path, "net path")
    code = lib.pb_engine_load_variant_net(ptr, c_text(variant, "variant"), arg, err, 512)
    if code < 0:
        raise _net_error(code, err)


def variant_net_name(ptr: Any, variant: str) -> str:
    """'pbnn-xxxxxxxx' of the net loaded for `variant`, "" when none."""
    out = ffi.new("char[32]")
    check(lib.pb_engine_variant_net_name(ptr, c_text(variant, "variant"), out, 32),
          f"variant: {variant!r}")
    return c_str(out)


class CheckStats(TypedDict):
    makes: int
    unmakes: int
    nulls: int
    checked: int
    captures: int
    castles: int
    en_passants: int
    promotions: int
    drops: int
    king_crossings: int  # king moves across the d/e line (a mirrored net's refresh)


def nnue_check_walk(ptr: Any, fen: str, chess960: bool, steps: int,
                    seed: int, variant: str | None = None) -> tuple[int, CheckStats]:
    """(mismatches, what was played) of the C accumulator self-check (tests); with
    `variant`, in that variant's position with the net loaded for it."""
    st = ffi.new("PbNnueCheckStats *")
    if variant is None:
        code = lib.pb_nnue_check_walk(ptr, c_text(fen, "FEN"), int(chess960), steps, seed, st)
    else:
        code = lib.pb_nnue_check_walk_variant(ptr, c_text(variant, "variant"),
                                              c_text(fen, "FEN"), steps, seed, st)
    code = check(code, f"FEN: {fen!r}")
    stats = CheckStats(makes=int(st.makes), unmakes=int(st.unmakes), nulls=int(st.nulls),
                       checked=int(st.checked), captures=int(st.captures),
                       castles=int(st.castles), en_passants=int(st.en_passants),
                       promotions=int(st.promotions), drops=int(st.drops),
                       king_crossings=int(st.king_crossings))
    return code, stats


class EvalSpeed(TypedDict):
    hce_ns: float
    nnue_output_ns: float
    nnue_update_ns: float
    nnue_refresh_ns: float


def eval_speed(fen: str, iters: int) -> EvalSpeed:
    """ns per call of the HCE and of the NNUE steps, timed in C (bench/eval_speed.py)."""
    ensure_init()
    out = ffi.new("PbEvalSpeed *")
    check(lib.pb_eval_speed(c_text(fen, "FEN"), iters, out), f"FEN: {fen!r}")
    return EvalSpeed(hce_ns=float(out.hce_ns), nnue_output_ns=float(out.nnue_output_ns),
                     nnue_update_ns=float(out.nnue_update_ns),
                     nnue_refresh_ns=float(out.nnue_refresh_ns))
