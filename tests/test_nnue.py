"""NNUE evaluation (engine_c/nnue.c) through the real cffi engine.

- the incremental accumulators (lazy update over make/unmake/null moves) equal a
  fresh refresh over thousands of random-walk positions, standard and Chess960;
- the C eval equals the pure-Python reference of the net contract
  (tools/nnue/pbnn.py, docs/nnue.md) on the same .pbnn file: the tie between the
  engine and the trainer;
- bad net files are clean, named errors (Engine.load_net, UCI EvalFile);
- the aarch64 build's NEON loops under qemu-user: walks and reference evals;
- colour symmetry, the eval switch, `pibot version`, the NNUE bench;
- mirrored nets (the v3 flag): kings crossing the d/e line in walks, castling both
  ways and Chess960's, crazyhouse; the C eval equals both references and is blind to
  an a<->h mirror of the position; bad flags are one-line errors.
"""

from __future__ import annotations

import io
import random
import struct
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import chess
import pytest
from conftest import ROOT, crazyhouse_fens

from bot.engine import Engine, SearchLimits
from bot.engine import search_bindings as sb
from bot.engine.exceptions import NetFileError
from bot.uci import UciSession

sys.path.insert(0, str(ROOT / "tools" / "nnue"))
import pbnn  # noqa: E402
import reference  # noqa: E402
from make_random_net import make as make_net  # noqa: E402
from widen_net import widen  # noqa: E402

DEFAULT_NET = ROOT / "engine_c" / "nets" / "default.pbnn"
# The round-2 net, built in before the 8-bucket net: the v1 file the format tests need.
# It is 256 wide; the engine loads its twin widened by zero neurons (widen_net.py),
# which evaluates exactly as it does.
V1_NET_256 = ROOT / "tests" / "data" / "pbnn-de0aaeab.pbnn"
V1_NET = ROOT / "tests" / "data" / "pbnn-b1a44a04.pbnn"
EVAL_LIMIT = 20000  # NNUE_EVAL_LIMIT in engine_c/search_params.h

WALK_FENS = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 10",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 11",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",  # en passant now
    "8/P1k5/8/8/8/8/1K4p1/8 w - - 0 1",                                # both promote
]


def _engine_eval(eng: Engine, fen: str, chess960: bool = False) -> int:
    eng.set_position(fen, [], chess960)
    return eng.evaluate()


@pytest.fixture(scope="module")
def nnue_engine() -> Engine:
    eng = Engine(hash_mb=1, threads=1)
    eng.set_eval("nnue")
    yield eng
    eng.close()


def _random_fens(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    fens = []
    while len(fens) < n:
        board = chess.Board()
        for _ in range(rng.randrange(4, 120)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        fens.append(board.fen())
    return fens


# ---- (a) incremental accumulators == refresh ----

def test_accumulators_after_make_unmake_equal_a_refresh(nnue_engine: Engine) -> None:
    total = dict.fromkeys(("makes", "checked", "castles", "en_passants", "promotions",
                           "captures", "nulls", "unmakes"), 0)
    for i, fen in enumerate(WALK_FENS):
        bad, stats = sb.nnue_check_walk(nnue_engine._ptr, fen, False, 10000, i + 1)
        assert bad == 0, f"{bad} accumulator mismatches from {fen} ({stats})"
        for key in total:
            total[key] += stats[key]
    assert total["checked"] > 20000
    # The walk really went through every kind of delta, null moves included.
    for key in ("castles", "en_passants", "promotions", "captures", "nulls", "unmakes"):
        assert total[key] > 20, (key, total)


def test_accumulators_in_chess960_equal_a_refresh(nnue_engine: Engine) -> None:
    castles = 0
    for n in (0, 100, 518, 959, 777, 301):
        fen = chess.Board.from_chess960_pos(n).fen(shredder=True)
        bad, stats = sb.nnue_check_walk(nnue_engine._ptr, fen, True, 4000, n)
        assert bad == 0, f"{bad} mismatches in Chess960 position {n} ({stats})"
        castles += stats["castles"]
    assert castles > 10


# ---- (b) the C eval is the contract's arithmetic ----

def _strong_net(seed: int) -> pbnn.Net:
    """Larger weights than the test net, so that both SCReLU clamps (0 and QA) fire."""
    from array import array
    rng = random.Random(seed)
    return pbnn.Net(
        array("h", (rng.randint(-120, 120) for _ in range(pbnn.INPUTS * pbnn.HIDDEN))),
        array("h", (rng.randint(-150, 400) for _ in range(pbnn.HIDDEN))),
        array("h", (rng.randint(-6, 6) for _ in range(2 * pbnn.HIDDEN))),
        [rng.randint(-50000, 50000)])


@pytest.mark.parametrize("which", ["default", "strong"])
def test_c_eval_equals_python_reference(tmp_path: Path, which: str) -> None:
    if which == "default":
        data = DEFAULT_NET.read_bytes()
    else:
        data = _strong_net(7).to_bytes()
    path = tmp_path / "net.pbnn"
    path.write_bytes(data)
    net = pbnn.parse(data)
    fens = [*WALK_FENS, *_random_fens(10, 3)]
    with Engine(hash_mb=1, threads=1) as eng:
        eng.load_net(str(path))
        eng.set_eval("nnue")
        assert eng.net_name == pbnn.name_of(data)
        for fen in fens:
            expected = pbnn.evaluate(net, fen)
            assert abs(expected) < EVAL_LIMIT, "pick weights whose evals are not clamped"
            assert _engine_eval(eng, fen) == expected, fen
    if which == "strong":
        # The strong net really exercises both clamps of SCReLU.
        white, _, _ = pbnn.features(fens[1])
        acc = list(net.ft_bias)
        for f in white:
            row = net.ft_weight[f * net.hidden:(f + 1) * net.hidden]
            acc = [a + w for a, w in zip(acc, row, strict=True)]
        assert min(acc) < 0 and max(acc) > pbnn.QA


# ---- (b2) output buckets (format v2) ----

# pbnn-de0aaeab's (a v1 net) evals of WALK_FENS, taken before output buckets existed.
V1_NET_EVALS = [40, -32, 64, 149, 6, 107, -111]


def test_the_v1_test_net_is_the_round2_net_widened() -> None:
    data = widen(pbnn.parse(V1_NET_256.read_bytes()), pbnn.HIDDEN).to_bytes()
    assert V1_NET.read_bytes() == data and V1_NET.stem == pbnn.name_of(data)
    assert pbnn.parse(data).hidden == pbnn.HIDDEN > pbnn.parse(V1_NET_256.read_bytes()).hidden


def _bucket_fens(n: int, seed: int) -> list[str]:
    """Random games that prefer captures, each stopped at a random piece count: every
    count from 32 down to a few pieces."""
    rng = random.Random(seed)
    fens = []
    while len(fens) < n:
        board = chess.Board()
        target = rng.randint(3, 32)
        for _ in range(400):
            moves = list(board.legal_moves)
            if not moves or len(board.piece_map()) <= target:
                break
            captures = [m for m in moves if board.is_capture(m)]
            board.push(rng.choice(captures if captures and rng.random() < 0.7 else moves))
        fens.append(board.fen())
    return fens


def test_v1_net_gives_the_evals_it_gave_before_buckets() -> None:
    with Engine(hash_mb=1, threads=1) as eng:
        eng.load_net(str(V1_NET))
        eng.set_eval("nnue")
        assert [_engine_eval(eng, fen) for fen in WALK_FENS] == V1_NET_EVALS
    for path in (V1_NET, V1_NET_256):
        net = pbnn.parse(path.read_bytes())
        assert net.buckets == 1
        assert [pbnn.evaluate(net, fen) for fen in WALK_FENS] == V1_NET_EVALS


def test_c_eval_with_output_buckets_equals_python_reference(tmp_path: Path) -> None:
    net = make_net(5, 8)   # eight distinct random output heads
    data = net.to_bytes()
    assert data[8:12] == struct.pack("<I", 2) and data[36:40] == struct.pack("<I", 8)
    assert len(data) == pbnn.file_bytes(8) == 48 + 768 * 384 * 2 + 384 * 2 + 8 * 768 * 2 + 8 * 4
    path = tmp_path / "ob8.pbnn"
    path.write_bytes(data)
    fens = _bucket_fens(48, 11)
    pieces = [len(pbnn.features(fen)[0]) for fen in fens]
    assert {pbnn.bucket(p, 8) for p in pieces} == set(range(8))
    # The same net with bucket 0's head for every position: the heads do matter.
    head0 = pbnn.Net(net.ft_weight, net.ft_bias, net.out_weight[:2 * pbnn.HIDDEN],
                     net.out_bias[:1])
    differ = 0
    with Engine(hash_mb=1, threads=1) as eng:
        eng.load_net(str(path))
        eng.set_eval("nnue")
        assert eng.net_name == pbnn.name_of(data) == sb.check_net_file(str(path))
        for fen, p in zip(fens, pieces, strict=True):
            expected = pbnn.evaluate(net, fen)
            assert abs(expected) < EVAL_LIMIT
            assert _engine_eval(eng, fen) == expected, (fen, p)
            differ += expected != pbnn.evaluate(head0, fen)
    assert differ >= len(fens) * 3 // 4


def _assert_refused(path: Path, why: str, loads: tuple[Callable[[str], object], ...]) -> None:
    """Each of `loads` refuses the net file in one line naming it and `why`; pbnn.py too."""
    for load in loads:
        with pytest.raises(NetFileError) as info:
            load(str(path))
        msg = str(info.value)
        assert str(path) in msg and why in msg and "\n" not in msg, msg
    with pytest.raises(ValueError):
        pbnn.parse(path.read_bytes())


def test_bad_v2_headers_are_one_line_named_errors(tmp_path: Path) -> None:
    v1 = V1_NET.read_bytes()
    v8 = make_net(5, 8).to_bytes()

    def v2(data: bytes, buckets: int) -> bytes:
        head = data[:8] + struct.pack("<I", 2) + data[12:36] + struct.pack("<I", buckets)
        return head + data[40:]

    cases = {
        "b0": (v2(v1, 0), "bad output bucket count 0 in the v2 header (1..8 allowed)"),
        "b9": (v2(v8, 9), "bad output bucket count 9 in the v2 header (1..8 allowed)"),
        "v1_size": (v2(v1, 8), "wrong file size (a v2 net with 8 output buckets is 602960"),
        "b2_of_8": (v2(v8, 2), "wrong file size (a v2 net with 2 output buckets is 593720"),
        "short": (v8[:-4], "wrong file size (a v2 net with 8 output buckets is 602960"),
    }
    with Engine(hash_mb=1, threads=1) as eng:
        eng.set_eval("nnue")
        for name, (data, why) in cases.items():
            path = tmp_path / f"{name}.pbnn"
            path.write_bytes(data)
            _assert_refused(path, why, (eng.load_net, sb.check_net_file))
        assert eng.net_name == pbnn.name_of(DEFAULT_NET.read_bytes())   # still the built-in
        # One bucket in a v2 file is the v1 net.
        path = tmp_path / "v2b1.pbnn"
        path.write_bytes(v2(v1, 1))
        eng.load_net(str(path))
        assert [_engine_eval(eng, fen) for fen in WALK_FENS] == V1_NET_EVALS


# ---- (c) bad net files ----

def _bad_files(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    good = DEFAULT_NET.read_bytes()
    flipped = bytearray(good)
    flipped[1000] ^= 0x40
    magic = b"NOTANNET" + good[8:]
    version = good[:8] + struct.pack("<I", 4) + good[12:]
    hidden = good[:16] + struct.pack("<I", 512) + good[20:]
    big_out = make_net(1)
    big_out.out_weight[3] = 300
    files = {
        "flipped": (bytes(flipped), "checksum mismatch"),
        "magic": (magic, "bad magic"),
        "version": (version, "version"),
        "hidden": (hidden, "hidden layer is 512 wide, this engine was built for 384"),
        "truncated": (good[:-100], "wrong file size"),
        "long": (good + b"\0", "wrong file size"),
        "empty": (b"", "bad magic"),
        "out_weight": (big_out.to_bytes(), "|out weight| <= 127"),
    }
    out = {}
    for name, (data, why) in files.items():
        path = tmp_path / f"{name}.pbnn"
        path.write_bytes(data)
        out[name] = (path, why)
    out["missing"] = (tmp_path / "nope.pbnn", "cannot read the file")
    return out


def test_bad_net_files_are_named_errors_and_the_net_stays(tmp_path: Path) -> None:
    with Engine(hash_mb=1, threads=1) as eng:
        eng.set_eval("nnue")
        before = _engine_eval(eng, WALK_FENS[1])
        for name, (path, why) in _bad_files(tmp_path).items():
            with pytest.raises(NetFileError) as info:
                eng.load_net(str(path))
            assert str(path) in str(info.value) and why in str(info.value), (name, info.value)
            with pytest.raises(NetFileError):
                sb.check_net_file(str(path))
        assert eng.net_name == pbnn.name_of(DEFAULT_NET.read_bytes())
        assert _engine_eval(eng, WALK_FENS[1]) == before
        res = eng.search(__import__("bot.engine", fromlist=["SearchLimits"]).SearchLimits(depth=3))
        assert res.bestmove


def _uci(lines: list[str]) -> list[str]:
    out = io.StringIO()
    session = UciSession(out)
    session.run(lines)
    return out.getvalue().splitlines()


def test_uci_evalfile_reports_bad_files_and_loads_good_ones(tmp_path: Path) -> None:
    bad = _bad_files(tmp_path)
    good = tmp_path / "other.pbnn"
    good.write_bytes(make_net(99).to_bytes())
    lines = _uci([
        "uci",
        f"setoption name EvalFile value {bad['flipped'][0]}",
        f"setoption name EvalFile value {bad['magic'][0]}",
        "setoption name UseNNUE value true",
        "position startpos",
        "eval",
        f"setoption name EvalFile value {good}",
        "eval",
        "setoption name UseNNUE value false",
        "eval",
        "isready",
        "quit",
    ])
    assert "option name UseNNUE type check default true" in lines
    assert "option name EvalFile type string default <empty>" in lines
    errors = [ln for ln in lines if ln.startswith("info string EvalFile not loaded")]
    assert len(errors) == 2
    assert "checksum mismatch" in errors[0] and "bad magic" in errors[1]
    assert "keeping the built-in net" in errors[0]
    evals = [int(ln.split()[2]) for ln in lines if ln.startswith("Static eval:")]
    start = chess.STARTING_FEN
    assert evals[0] == pbnn.evaluate(pbnn.parse(DEFAULT_NET.read_bytes()), start)
    assert evals[1] == pbnn.evaluate(pbnn.parse(good.read_bytes()), start)
    with Engine(hash_mb=1, threads=1) as hce:
        hce.set_eval("hce")
        assert evals[2] == _engine_eval(hce, start)
    assert f"info string EvalFile {good} loaded: {pbnn.name_of(good.read_bytes())}" in lines
    assert lines[-1] == "readyok"


# ---- (d) colour symmetry ----

def test_nnue_eval_is_colour_symmetric(nnue_engine: Engine) -> None:
    for fen in [*WALK_FENS, *_random_fens(60, 11)]:
        flipped = chess.Board(fen).mirror().fen()
        assert _engine_eval(nnue_engine, fen) == _engine_eval(nnue_engine, flipped), fen


# ---- the switch, version, bench ----

def test_eval_switch_defaults_to_nnue_and_changes_the_eval() -> None:
    # NNUE became the default when a net beat the HCE (docs/strength.md).
    with Engine(hash_mb=1, threads=1) as eng:
        assert eng.eval_name == sb.DEFAULT_EVAL == "nnue"
        fen = WALK_FENS[1]
        nnue = _engine_eval(eng, fen)
        assert nnue == pbnn.evaluate(pbnn.parse(DEFAULT_NET.read_bytes()), fen)
        eng.set_eval("hce")
        assert eng.eval_name == "hce"
        assert _engine_eval(eng, fen) != nnue
        eng.set_eval("nnue")
        assert _engine_eval(eng, fen) == nnue
        with pytest.raises(ValueError, match="hce, nnue"):
            eng.set_eval("neural")


def _nodes(eng: Engine, fen: str, depth: int) -> int:
    eng.set_position(fen, [])
    return eng.search(SearchLimits(depth=depth)).nodes


def test_a_new_eval_or_net_searches_like_a_fresh_engine(tmp_path: Path) -> None:
    # The correction history (and the other heuristics) learnt the previous
    # eval's errors; only the hash table used to be cleared on a switch.
    path = tmp_path / "strong.pbnn"
    path.write_bytes(_strong_net(7).to_bytes())
    fen, depth = WALK_FENS[1], 9
    with Engine(hash_mb=16, threads=1) as fresh:
        fresh.set_eval("hce")
        hce_nodes = _nodes(fresh, fen, depth)
    with Engine(hash_mb=16, threads=1) as fresh:
        fresh.load_net(str(path))
        net_nodes = _nodes(fresh, fen, depth)
    with Engine(hash_mb=16, threads=1) as eng:
        _nodes(eng, WALK_FENS[2], depth)          # the default net learns ...
        eng.set_eval("hce")
        assert _nodes(eng, fen, depth) == hce_nodes
        eng.set_eval("nnue")
        _nodes(eng, WALK_FENS[2], depth)
        eng.load_net(str(path))                   # ... and so does this one
        assert _nodes(eng, fen, depth) == net_nodes


def test_pibot_version_names_the_net_and_the_default() -> None:
    proc = subprocess.run([sys.executable, "-m", "bot.cli", "version"], capture_output=True,
                          text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    name = pbnn.name_of(DEFAULT_NET.read_bytes())
    assert f"net {name}" in proc.stdout
    assert "engine eval: nnue by default" in proc.stdout


def test_nnue_bench_is_deterministic_and_differs_from_hce() -> None:
    from bot.engine.bench import run_bench
    a = run_bench(depth=5, eval_name="nnue")
    b = run_bench(depth=5, eval_name="nnue")
    h = run_bench(depth=5, eval_name="hce")
    assert a.nodes == b.nodes and a.nodes != h.nodes


def test_the_net_file_is_the_contracts_size_and_valid() -> None:
    data = DEFAULT_NET.read_bytes()
    net = pbnn.parse(data)
    assert len(data) == pbnn.file_bytes(net.buckets)
    # The built-in net: v2, 8 output buckets, 384 wide.
    assert (net.buckets, net.hidden, len(data)) == (8, 384, 602_960)
    assert sb.default_net_name() == pbnn.name_of(data)
    assert pbnn.parse(V1_NET.read_bytes()).buckets == 1 and pbnn.FILE_BYTES == 592_180


def test_config_engine_eval_reaches_the_pool_engines() -> None:
    from bot.config import parse_config
    from bot.engine.pool import EnginePool
    from bot.errors import UserError

    assert parse_config({}).engine.eval == "nnue"
    cfg = parse_config({"engine": {"eval": "nnue", "hash_mb": 1, "threads": 1}})
    assert cfg.engine.eval == "nnue"
    with pytest.raises(UserError, match="'engine.eval': 'neural' is not allowed; use one of"):
        parse_config({"engine": {"eval": "neural"}})
    pool = EnginePool(1, 1, 1, eval_name=cfg.engine.eval)
    try:
        eng = pool.acquire(timeout=30)
        assert eng.eval_name == "nnue"
        pool.release(eng).result(timeout=30)
    finally:
        pool.close()


# ---- (e) a variant's net (format v3): crazyhouse, with pocket inputs ----

# Crazyhouse positions for the walks and evals: pockets of every type, promoted pieces
# (a captured one goes to the pocket as a pawn), a pocket above a cap (three queens).
ZH_FENS = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1",
    "r1bqk2r/ppp2ppp/2n5/3np3/1b6/2N2N2/PPPP1PPP/R1BQKB1R[Pp] w KQkq - 0 6",
    "r7/p4k1p/6p1/BP6/B4P2/1P1r1PNn/nPP4R/4K2R[QNPPqbbppppp] b - - 1 40",
    "k3Q~3/8/8/8/8/8/4r3/K7[] b - - 0 1",                  # Rxe8: a pawn to the pocket
    "k7/Q~7/8/8/8/8/8/7K[] b - - 0 1",                      # Kxa7, the only move: the same
    "r3k2r/pP3ppp/8/8/8/8/PPP2pPP/R3K2R[QQQnb] w KQkq - 0 20",  # promotions; 3 > cap 2
]


def _zh_net(seed: int, strong: bool = False) -> pbnn.Net:
    """A crazyhouse net (8 buckets); `strong`: weights large enough for both clamps."""
    if not strong:
        return make_net(seed, 8, variant=pbnn.CRAZYHOUSE)
    from array import array
    rng = random.Random(seed)
    n = pbnn.variant_inputs(pbnn.CRAZYHOUSE)
    return pbnn.Net(array("h", (rng.randint(-120, 120) for _ in range(n * pbnn.HIDDEN))),
                    array("h", (rng.randint(-150, 400) for _ in range(pbnn.HIDDEN))),
                    array("h", (rng.randint(-6, 6) for _ in range(8 * 2 * pbnn.HIDDEN))),
                    [rng.randint(-50000, 50000) for _ in range(8)], pbnn.CRAZYHOUSE)


def _zh_eval(eng: Engine, fen: str) -> int:
    eng.set_position(fen, [], False, "crazyhouse")
    return eng.evaluate()


def test_v3_file_layout_and_the_python_readers_agree(tmp_path: Path) -> None:
    net = _zh_net(3)
    data = net.to_bytes()
    assert struct.unpack_from("<8sIII", data) == (b"PIBOTNN\0", 3, 828, pbnn.HIDDEN)
    assert struct.unpack_from("<I", data, 36)[0] == 8
    assert struct.unpack_from("<I12s", data, 48) == (pbnn.CRAZYHOUSE, bytes(12))
    assert len(data) == pbnn.file_bytes(8, variant=pbnn.CRAZYHOUSE) == \
        64 + 828 * 384 * 2 + 384 * 2 + 8 * (4 * 384 + 4)
    # The checksum covers the variant word: the name changes with it.
    assert pbnn.fnv1a64(data[48:]) == struct.unpack_from("<Q", data, 40)[0]
    back = pbnn.parse(data)
    assert back.variant == pbnn.CRAZYHOUSE and back.to_bytes() == data
    path = tmp_path / "zh.pbnn"
    path.write_bytes(data)
    ref = reference.read_pbnn(path)
    assert ref.variant == pbnn.CRAZYHOUSE and ref.ft_weight.shape == (828, pbnn.HIDDEN)
    assert ref.name == pbnn.name_of(data)
    out = tmp_path / "again.pbnn"
    reference.write_pbnn(out, ref)
    assert out.read_bytes() == data


def test_crazyhouse_accumulators_after_drops_and_captures_equal_a_refresh(
        tmp_path: Path) -> None:
    path = tmp_path / "zh.pbnn"
    path.write_bytes(_zh_net(5).to_bytes())
    total = dict.fromkeys(("makes", "checked", "drops", "captures", "promotions", "castles",
                           "nulls", "unmakes"), 0)
    with Engine(hash_mb=1, threads=1) as eng:
        eng.variant_nets.load("crazyhouse", str(path))
        for i, fen in enumerate([*ZH_FENS, *crazyhouse_fens(3, 9)]):
            bad, stats = sb.nnue_check_walk(eng._ptr, fen, False, 5000, i + 1, "crazyhouse")
            assert bad == 0, f"{bad} accumulator mismatches from {fen} ({stats})"
            for key in total:
                total[key] += stats[key]
    assert total["checked"] > 20000
    for key in ("drops", "captures", "promotions", "nulls", "unmakes"):
        assert total[key] > 20, (key, total)
    assert total["castles"] > 5, total     # drops soon fill the squares between


@pytest.mark.parametrize("strong", [False, True])
def test_crazyhouse_c_eval_equals_python_reference(tmp_path: Path, strong: bool) -> None:
    net = _zh_net(7, strong)
    data = net.to_bytes()
    path = tmp_path / "zh.pbnn"
    path.write_bytes(data)
    ref = reference.read_pbnn(path)
    fens = [*ZH_FENS, *crazyhouse_fens(40, 13)]
    pockets = sum(1 for fen in fens if fen.split()[0].split("[")[1] != "]")
    assert pockets >= 30
    with Engine(hash_mb=1, threads=1) as eng:
        eng.variant_nets.load("crazyhouse", str(path))
        assert eng.variant_nets.name("crazyhouse") == pbnn.name_of(data)
        for fen in fens:
            expected = pbnn.evaluate(net, fen)
            assert abs(expected) < EVAL_LIMIT, "pick weights whose evals are not clamped"
            assert reference.evaluate(ref, fen) == expected, fen
            assert _zh_eval(eng, fen) == expected, fen
    # The pocket inputs count: the same board with another pocket evaluates otherwise,
    # and a count above the cap (three queens, cap 2) adds nothing more.
    board = "r3k2r/pP3ppp/8/8/8/8/PPP2pPP/R3K2R"
    e = {p: pbnn.evaluate(net, f"{board}[{p}] w KQkq - 0 20") for p in ("", "QQ", "QQQ", "n")}
    assert e[""] != e["QQ"] == e["QQQ"] != e["n"]


def test_a_crazyhouse_net_plays_crazyhouse_only(tmp_path: Path) -> None:
    zh = tmp_path / "zh.pbnn"
    zh.write_bytes(_zh_net(5).to_bytes())
    fen = ZH_FENS[1]
    with Engine(hash_mb=8, threads=1) as eng:
        std_before = _engine_eval(eng, WALK_FENS[1])
        eng.set_eval("hce")
        hce_zh = _zh_eval(eng, fen)
        eng.set_eval("nnue")
        on_chess_zh = _zh_eval(eng, fen)       # no crazyhouse net: chess's net plus its terms
        assert on_chess_zh != hce_zh
        eng.variant_nets.load("crazyhouse", str(zh))
        assert _engine_eval(eng, WALK_FENS[1]) == std_before       # standard: unchanged
        assert _zh_eval(eng, fen) == pbnn.evaluate(pbnn.parse(zh.read_bytes()), fen)
        res = eng.search(SearchLimits(depth=6))
        assert res.bestmove and res.nodes > 0
        eng.set_position(None, [], False, "3check")                  # another variant: not this net
        assert eng.search(SearchLimits(depth=4)).bestmove
        eng.set_eval("hce")                                          # UseNNUE off: the HCE
        assert _zh_eval(eng, fen) == hce_zh
        eng.set_eval("nnue")
        eng.variant_nets.load("crazyhouse", None)             # unloaded: chess's net plus its terms
        assert eng.variant_nets.name("crazyhouse") == "" and _zh_eval(eng, fen) == on_chess_zh


def test_variant_nets_are_refused_where_they_do_not_belong(tmp_path: Path) -> None:
    zh = tmp_path / "zh.pbnn"
    zh.write_bytes(_zh_net(5).to_bytes())
    atomic = make_net(5)
    atomic.variant = pbnn.VARIANTS.index("atomic")
    cases = {
        "atomic": (atomic.to_bytes(), "names variant 6 (atomic), which no net"),
        "reserved": (zh.read_bytes()[:60] + b"\1" + zh.read_bytes()[61:],
                     "bytes 56..63 of a v3 header must be zero"),
        "inputs": (zh.read_bytes()[:12] + struct.pack("<I", 768) + zh.read_bytes()[16:],
                   "a crazyhouse net has 828 inputs, the header says 768"),
    }
    with Engine(hash_mb=1, threads=1) as eng:
        with pytest.raises(NetFileError, match="a net for crazyhouse, not for chess"):
            eng.load_net(str(zh))
        with pytest.raises(NetFileError, match="a net for chess, not for crazyhouse"):
            eng.variant_nets.load("crazyhouse", str(DEFAULT_NET))
        with pytest.raises(NetFileError, match="a net for crazyhouse, not for chess"):
            sb.check_net_file(str(zh), "chess")
        assert sb.check_net_file(str(zh)) == sb.check_net_file(str(zh), "crazyhouse")
        from bot.engine.exceptions import VariantError
        with pytest.raises(VariantError):
            eng.variant_nets.load("chess", str(zh))
        for name, (data, why) in cases.items():
            path = tmp_path / f"{name}.pbnn"
            path.write_bytes(data)
            with pytest.raises(NetFileError) as info:
                eng.variant_nets.load("crazyhouse", str(path))
            assert why in str(info.value) and "\n" not in str(info.value), (name, info.value)
            with pytest.raises(ValueError):
                pbnn.parse(data)
        assert eng.variant_nets.name("crazyhouse") == "" and eng.net_name == \
            pbnn.name_of(DEFAULT_NET.read_bytes())


def test_the_overflow_guard_counts_the_variants_men(tmp_path: Path) -> None:
    # 620 per weight and 600 of bias: 32 men stay inside int16 (20,440), the horde's
    # 52 do not (32,840 > 32,767), so the same weights load as chess and not as horde.
    from array import array
    n = pbnn.INPUTS * pbnn.HIDDEN
    chess_net = pbnn.Net(array("h", [620] * n), array("h", [600] * pbnn.HIDDEN),
                         array("h", [1] * 2 * pbnn.HIDDEN), [0])
    horde_net = pbnn.Net(chess_net.ft_weight, chess_net.ft_bias, chess_net.out_weight, [0],
                         pbnn.VARIANTS.index("horde"))
    (tmp_path / "c.pbnn").write_bytes(chess_net.to_bytes())
    (tmp_path / "h.pbnn").write_bytes(horde_net.to_bytes())
    assert sb.check_net_file(str(tmp_path / "c.pbnn"))
    with pytest.raises(NetFileError, match="52 men"):
        sb.check_net_file(str(tmp_path / "h.pbnn"))
    quant = reference.read_pbnn(tmp_path / "c.pbnn")
    quant.variant = pbnn.VARIANTS.index("horde")
    with pytest.raises(reference.NetError, match="52 men"):
        reference.write_pbnn(tmp_path / "h2.pbnn", quant)
    # The guard holds because the FEN parser admits no more men than it counts.
    from bot.engine.board import Board
    from bot.engine.exceptions import FenError
    with pytest.raises(FenError, match="more than 36 men"):
        Board("rnbqkbnr/pppppppp/P7/1PP2PP1/PPPPPPPP/PPPPPPPP/PPPPPPPP/PPPPPPPP w kq - 0 1",
              variant="horde")
    with pytest.raises(FenError, match="more than 8 pawns"):
        Board("rnbqkbnr/pppppppp/p7/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1", variant="antichess")


def test_uci_evalfilecrazyhouse_loads_checks_and_searches(tmp_path: Path) -> None:
    zh = tmp_path / "zh.pbnn"
    zh.write_bytes(_zh_net(5).to_bytes())
    name = pbnn.name_of(zh.read_bytes())
    fen = ZH_FENS[1]
    lines = _uci([
        "uci",
        f"setoption name EvalFileCrazyhouse value {DEFAULT_NET}",
        f"setoption name EvalFile value {zh}",
        f"setoption name EvalFileCrazyhouse value {zh}",
        "setoption name UCI_Variant value crazyhouse",
        f"position fen {fen}",
        "eval",
        "go depth 5",
        "isready",
        "setoption name EvalFileCrazyhouse value <empty>",
        "eval",
        "quit",
    ])
    assert "option name EvalFileCrazyhouse type string default <empty>" in lines
    refused = [ln for ln in lines if "not loaded" in ln]
    assert len(refused) == 2, lines
    assert refused[0].startswith("info string EvalFileCrazyhouse not loaded") and \
        "a net for chess, not for crazyhouse" in refused[0] and \
        "keeping no net of its own" in refused[0]
    assert refused[1].startswith("info string EvalFile not loaded") and \
        "a net for crazyhouse, not for chess" in refused[1]
    assert f"info string EvalFileCrazyhouse {zh} loaded: {name}" in lines
    evals = [int(ln.split()[2]) for ln in lines if ln.startswith("Static eval:")]
    assert evals[0] == pbnn.evaluate(pbnn.parse(zh.read_bytes()), fen)
    with Engine(hash_mb=1, threads=1) as hce:
        assert evals[1] == _zh_eval(hce, fen) != evals[0]
    assert any(ln.startswith("bestmove ") for ln in lines)


# ---- (e) mirrored inputs (the v3 flag) ----

# Walks whose kings cross the d/e line: castling both ways for both sides (O-O-O takes
# the king from e to c), endgames where kings walk, both sides to move.
MIRROR_WALK_FENS = [
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 10",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 10",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 11",
    "4k3/pp4pp/8/3K4/8/8/PP4PP/8 b - - 0 1",
    "8/P1k5/8/8/8/8/1K4p1/8 w - - 0 1",
]
# Chess960 castling that crosses the line: the king from c to g and from f to c; f to g
# swaps king and rook.
MIRROR_960_FENS = [
    "1rk3r1/pppppppp/8/8/8/8/PPPPPPPP/1RK3R1 w GBgb - 0 1",
    "1r3kr1/pppppppp/8/8/8/8/PPPPPPPP/1R3KR1 b GBgb - 0 1",
]


# Both kings on files a..d, where a mirrored net reads the board as a plain one does.
QUEENSIDE_FENS = [
    "2kr1b1r/ppp2ppp/2n5/8/8/2N5/PPP2PPP/2KR1B1R w - - 0 10",
    "1k6/8/8/8/8/8/8/1K1R4 b - - 0 1",
    "3k4/8/8/8/8/8/8/3K4 w - - 0 1",
]


def _mirrored(net: pbnn.Net) -> pbnn.Net:
    return pbnn.Net(net.ft_weight, net.ft_bias, net.out_weight, net.out_bias, net.variant,
                    True)


def _king_games(n: int, seed: int, chess960: bool = False) -> list[str]:
    """The positions of random games that prefer castling and king moves (kings cross
    the d/e line often), from the start or, for Chess960, from MIRROR_960_FENS."""
    rng = random.Random(seed)
    fens: list[str] = []
    while len(fens) < n:
        board = chess.Board(rng.choice(MIRROR_960_FENS), chess960=True) if chess960 \
            else chess.Board()
        for _ in range(rng.randrange(10, 90)):
            moves = list(board.legal_moves)
            if not moves:
                break
            kings = [m for m in moves if board.is_castling(m) or
                     board.piece_type_at(m.from_square) == chess.KING]
            board.push(rng.choice(kings if kings and rng.random() < 0.5 else moves))
            fens.append(board.fen(shredder=chess960))
    return fens[:n]


def _halves(fen: str) -> tuple[bool, bool]:
    """Is White's king, Black's king on files e..h?"""
    board = chess.Board(fen.split()[0] + " w - - 0 1")
    white, black = board.king(chess.WHITE), board.king(chess.BLACK)
    assert white is not None and black is not None
    return chess.square_file(white) >= 4, chess.square_file(black) >= 4


def test_mirrored_net_file_and_the_python_readers(tmp_path: Path) -> None:
    net = make_net(5, 8, mirrored=True)
    data = net.to_bytes()
    # v3: the v2 header (version 3), variant 0 (chess), flags 1, zeros; 768 inputs.
    assert struct.unpack_from("<8sIIII", data) == (b"PIBOTNN\0", 3, 768, pbnn.HIDDEN, 1)
    assert struct.unpack_from("<IiiiI", data, 20)[4] == 8
    assert struct.unpack_from("<II8s", data, 48) == (0, 1, bytes(8))
    assert data[64:] == make_net(5, 8).to_bytes()[48:]   # the same payload as plain
    assert len(data) == 64 + 768 * 384 * 2 + 384 * 2 + 8 * (4 * 384 + 4)
    back = pbnn.parse(data)
    assert back.mirrored and back.variant == 0 and back.to_bytes() == data
    path = tmp_path / "m.pbnn"
    path.write_bytes(data)
    quant = reference.read_pbnn(path)
    assert quant.mirrored and quant.name == pbnn.name_of(data)
    reference.write_pbnn(tmp_path / "again.pbnn", quant)
    assert (tmp_path / "again.pbnn").read_bytes() == data
    # Widening keeps the flag (and every eval).
    wide = widen(back, pbnn.HIDDEN + 64)
    assert wide.mirrored and pbnn.evaluate(wide, WALK_FENS[1]) == pbnn.evaluate(back,
                                                                                WALK_FENS[1])
    # check_net names the inputs; colour symmetry holds for a mirrored net too.
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "nnue" / "check_net.py"),
                           str(path)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "8 output bucket(s), chess, mirrored inputs" in proc.stdout.splitlines()[0]
    assert "colour symmetry: ok" in proc.stdout
    plain = subprocess.run([sys.executable, str(ROOT / "tools" / "nnue" / "check_net.py"),
                            str(DEFAULT_NET)], capture_output=True, text=True, timeout=120)
    assert "chess, plain inputs" in plain.stdout.splitlines()[0], plain.stdout


@pytest.mark.parametrize("strong", [False, True])
def test_mirrored_c_eval_equals_both_references_and_ignores_an_a_h_mirror(
        tmp_path: Path, strong: bool) -> None:
    net = _mirrored(_strong_net(9)) if strong else make_net(7, 8, mirrored=True)
    plain = pbnn.Net(net.ft_weight, net.ft_bias, net.out_weight, net.out_bias)
    path = tmp_path / "m.pbnn"
    path.write_bytes(net.to_bytes())
    quant = reference.read_pbnn(path)
    games = [(fen, False) for fen in [*WALK_FENS, *QUEENSIDE_FENS, *_king_games(60, 3)]]
    games += [(fen, True) for fen in _king_games(30, 4, chess960=True)]
    assert {_halves(fen) for fen, _ in games} == {(a, b) for a in (False, True)
                                                  for b in (False, True)}
    same = 0
    with Engine(hash_mb=1, threads=1) as eng:
        eng.load_net(str(path))
        eng.set_eval("nnue")
        assert eng.net_name == pbnn.name_of(path.read_bytes())
        for fen, chess960 in games:
            want = pbnn.evaluate(net, fen)
            assert abs(want) < EVAL_LIMIT
            assert _engine_eval(eng, fen, chess960) == reference.evaluate(quant, fen) == want, fen
            # The position mirrored a<->h (its castling rights dropped: no input) looks
            # the same to a mirrored net.
            board = chess.Board(fen, chess960=chess960).transform(chess.flip_horizontal)
            board.castling_rights = chess.BB_EMPTY
            assert pbnn.evaluate(net, board.fen()) == want, fen
            # With both kings on files a..d the flag changes nothing.
            if _halves(fen) == (False, False):
                same += 1
                assert pbnn.evaluate(plain, fen) == want, fen
    assert same >= len(QUEENSIDE_FENS)
    differ = sum(pbnn.evaluate(plain, fen) != pbnn.evaluate(net, fen) for fen, _ in games)
    assert differ >= len(games) // 2


def test_mirrored_accumulators_equal_a_refresh_when_kings_cross(tmp_path: Path) -> None:
    path = tmp_path / "m.pbnn"
    path.write_bytes(make_net(5, 8, mirrored=True).to_bytes())
    total = dict.fromkeys(("makes", "checked", "castles", "king_crossings", "captures",
                           "promotions", "nulls", "unmakes"), 0)
    castles = {False: 0, True: 0}   # standard, Chess960
    # Short walks from the castling positions (castling is a root move there), long ones
    # from the endgames and two Chess960 starts.
    walks = [(fen, False, 12, 1000) for fen in MIRROR_WALK_FENS[:2]]
    walks += [(fen, True, 12, 1000) for fen in MIRROR_960_FENS]
    walks += [(fen, False, 1, 5000) for fen in MIRROR_WALK_FENS[2:]]
    walks += [(chess.Board.from_chess960_pos(n).fen(shredder=True), True, 1, 4000)
              for n in (0, 959)]
    with Engine(hash_mb=1, threads=1) as eng:
        eng.load_net(str(path))
        for i, (fen, chess960, seeds, steps) in enumerate(walks):
            for seed in range(seeds):
                bad, stats = sb.nnue_check_walk(eng._ptr, fen, chess960, steps,
                                                100 * i + seed)
                assert bad == 0, f"{bad} accumulator mismatches from {fen} ({stats})"
                for key in total:
                    total[key] += stats[key]
                castles[chess960] += stats["castles"]
        # A search with the mirrored net, from a position whose kings may cross.
        eng.set_eval("nnue")
        eng.set_position(MIRROR_WALK_FENS[3], [], False)
        assert eng.search(SearchLimits(depth=8)).bestmove
    assert total["checked"] > 40000
    assert total["king_crossings"] > 2000 and min(castles.values()) > 50, (total, castles)
    for key in ("captures", "promotions", "nulls", "unmakes"):
        assert total[key] > 20, (key, total)


def test_a_mirrored_crazyhouse_net_mirrors_the_board_not_the_pockets(tmp_path: Path) -> None:
    net = make_net(11, 8, variant=pbnn.CRAZYHOUSE, mirrored=True)
    path = tmp_path / "zhm.pbnn"
    path.write_bytes(net.to_bytes())
    quant = reference.read_pbnn(path)
    assert quant.mirrored and quant.variant == pbnn.CRAZYHOUSE
    import chess.variant
    fens = [*ZH_FENS, *crazyhouse_fens(40, 17), "4k3/8/8/3K4/8/8/8/8[RNPpp] w - - 0 30"]
    total = dict.fromkeys(("checked", "drops", "king_crossings"), 0)
    with Engine(hash_mb=1, threads=1) as eng:
        eng.variant_nets.load("crazyhouse", str(path))
        for fen in fens:
            want = pbnn.evaluate(net, fen)
            assert _zh_eval(eng, fen) == reference.evaluate(quant, fen) == want, fen
            board = chess.variant.CrazyhouseBoard(fen).transform(chess.flip_horizontal)
            board.castling_rights = chess.BB_EMPTY
            assert pbnn.evaluate(net, board.fen()) == want, fen
        for i, fen in enumerate([*ZH_FENS[1:3], fens[-1]]):
            bad, stats = sb.nnue_check_walk(eng._ptr, fen, False, 5000, i + 3, "crazyhouse")
            assert bad == 0, f"{bad} accumulator mismatches from {fen} ({stats})"
            for key in total:
                total[key] += stats[key]
    assert total["checked"] > 5000 and total["drops"] > 100 and \
        total["king_crossings"] > 50, total


def test_bad_mirrored_headers_are_one_line_errors(tmp_path: Path) -> None:
    good = make_net(5, 8, mirrored=True).to_bytes()

    def resum(data: bytes) -> bytes:
        return data[:40] + struct.pack("<Q", pbnn.fnv1a64(data[48:])) + data[48:]

    horde = make_net(5, 8, variant=pbnn.VARIANTS.index("horde"))
    horde.mirrored = True
    cases = {
        "flags3": (resum(good[:52] + struct.pack("<I", 3) + good[56:]),
                   "unknown flags 0x3 in the v3 header (bit 0 = mirrored inputs"),
        "tail": (resum(good[:63] + b"\1" + good[64:]),
                 "bytes 56..63 of a v3 header must be zero"),
        "unsummed": (good[:52] + struct.pack("<I", 0) + good[56:], "checksum mismatch"),
        "horde": (horde.to_bytes(), "no mirrored horde net"),
        # The flag on a v2 file read as v3: its payload is no v3 header.
        "v2_as_v3": (DEFAULT_NET.read_bytes()[:8] + struct.pack("<I", 3)
                     + DEFAULT_NET.read_bytes()[12:], "the v3 header names variant"),
    }
    with Engine(hash_mb=1, threads=1) as eng:
        eng.set_eval("nnue")
        for name, (data, why) in cases.items():
            path = tmp_path / f"{name}.pbnn"
            path.write_bytes(data)
            _assert_refused(path, why, (eng.load_net, sb.check_net_file,
                                        lambda p: eng.variant_nets.load("horde", p)))
            with pytest.raises(reference.NetError) as err:
                reference.read_pbnn(path)
            assert "\n" not in str(err.value)
        assert eng.net_name == pbnn.name_of(DEFAULT_NET.read_bytes())   # still the built-in
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "nnue" / "make_random_net.py"),
                           str(tmp_path / "x.pbnn"), "--variant", "antichess", "--mirrored"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "antichess nets cannot mirror" in proc.stderr


def test_aarch64_neon_paths_equal_the_reference(tmp_path: Path) -> None:
    """The aarch64 build's NEON update and output layer (engine_c/nnue.c) under qemu-user:
    the incremental accumulators equal a refresh over random walks (unit_main, standard,
    Chess960 and crazyhouse), and nnue_eval equals the Python reference on a net whose
    weights reach both clamps and |out weight| 127 in 8 buckets, and on one whose output
    sum passes 2^32 (every accumulator at QA, every weight 127)."""
    from array import array

    from test_c_builds import ENGINE, build, need, run
    cc, qemu = need("aarch64-linux-gnu-gcc"), need("qemu-aarch64")
    for check in ("nnue_walk", "nnue_crazyhouse", "nnue_mirror"):
        unit = subprocess.run([qemu, str(build("arm", "unit_main", CC=cc)), check],
                              capture_output=True, text=True, timeout=600, cwd=ENGINE)
        assert unit.returncode == 0 and f"ok {check}" in unit.stdout, unit.stdout + unit.stderr
    exe = str(build("arm", "nnue_eval", CC=cc))
    h = pbnn.HIDDEN
    rng = random.Random(23)
    strong = pbnn.Net(array("h", (rng.randint(-120, 120) for _ in range(768 * h))),
                      array("h", (rng.randint(-150, 400) for _ in range(h))),
                      array("h", (rng.randint(-127, 127) for _ in range(8 * 2 * h))),
                      [rng.randint(-50000, 50000) for _ in range(8)])
    total = 2 * h * 255 ** 2 * 127
    assert total > 2 ** 32
    extreme = pbnn.Net(array("h", [0] * (768 * h)), array("h", [255] * h),
                       array("h", [127] * (2 * h)), [-(total // 255) + 5000])
    fens = _bucket_fens(40, 29) + WALK_FENS
    fens += _king_games(20, 31)     # kings on both halves, for the mirrored net
    for name, net in (("strong", strong), ("extreme", extreme), ("mirrored", _mirrored(strong))):
        path = tmp_path / f"{name}.pbnn"
        path.write_bytes(net.to_bytes())
        got = [int(x) for x in run([qemu, exe, str(path)], _stdin="\n".join(fens) + "\n").split()]
        want = [max(-EVAL_LIMIT, min(EVAL_LIMIT, pbnn.evaluate(net, f))) for f in fens]
        assert got == want, name
        assert len(set(want)) > 20 if name != "extreme" else 0 < want[0] < 500
