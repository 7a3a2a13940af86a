"""The C data generator (engine_c/tools/datagen.c), its record format as read by
tools/nnue/posdata.py, and the trainer on that format.

The generator is built with engine_c/Makefile (a few seconds); games use a few hundred
nodes per move so each test takes seconds. The trainer test needs torch (an optional
extra) and is skipped without it, as in tests/test_nnue_reference.py.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

import chess
import chess.polyglot
import numpy as np
import pytest
from conftest import DATA, ROOT, crazyhouse_fens

sys.path.insert(0, str(ROOT / "tools" / "nnue"))

import posdata  # noqa: E402
import reference as ref  # noqa: E402

ENGINE = ROOT / "engine_c"
IN_CI = os.environ.get("CI", "") not in ("", "0", "false")
OPENINGS = DATA / "openings_8moves.epd"
# A book line ending in castling: Polyglot writes O-O as king-takes-rook (e1h1).
BOOK_LINE = ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5", "e1g1", "g8f6"]


@pytest.fixture(scope="module")
def datagen() -> Path:
    for tool in ("make", "cc"):
        if shutil.which(tool) is None:
            if IN_CI:
                pytest.fail(f"{tool} is required in CI")
            pytest.skip(f"{tool} not installed")
    out = ENGINE / "out"
    out.mkdir(exist_ok=True)
    # The lock tests/test_c_builds.py takes: one make at a time in engine_c/out, so
    # parallel test workers never run a half-written program.
    with (out / ".build.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        subprocess.run(["make", "-s", "VARIANT=auto", "out/auto/datagen"], cwd=ENGINE,
                       check=True, timeout=600)
    return out / "auto" / "datagen"


def run(exe: Path, *args: str | Path, ok: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True,
                          timeout=120)
    if ok:
        assert proc.returncode == 0, proc.stderr
    return proc


def polyglot_move(board: chess.Board, uci: str) -> int:
    move = board.parse_uci(uci)
    to = move.to_square
    if board.is_castling(move):  # king takes its own rook
        to = chess.H1 if to == chess.G1 else chess.A1 if to == chess.C1 else to
    return (chess.square_file(to) | chess.square_rank(to) << 3
            | chess.square_file(move.from_square) << 6 | chess.square_rank(move.from_square) << 9)


def write_book(path: Path, line: list[str]) -> None:
    """One entry per position along `line`, keys from python-chess's Polyglot hash
    (an oracle independent of the generator's own key code)."""
    board, entries = chess.Board(), []
    for uci in line:
        entries.append(struct.pack(">QHHI", chess.polyglot.zobrist_hash(board),
                                   polyglot_move(board, uci), 1, 0))
        board.push_uci(uci)
    path.write_bytes(b"".join(sorted(entries)))


def games_of(recs: np.ndarray) -> list[np.ndarray]:
    """Records split into games: consecutive games differ in the game byte."""
    cut = np.flatnonzero(np.diff(recs["game"].astype(int))) + 1
    return np.split(recs, cut)


def check_positions(recs: np.ndarray) -> None:
    """Every record a legal quiet position with labels in range, one result per game."""
    assert len(recs)
    for game in games_of(recs):
        assert len(set(game["result"].tolist())) == 1
        assert game["result"][0] in (0, 1, 2)
        for rec in game:
            board = chess.Board(posdata.record_fen(rec))
            assert board.is_valid(), posdata.record_fen(rec)
            assert not board.is_check()
            assert abs(int(rec["score"])) < 1000
            assert rec["halfmove"] <= 100 and rec["fullmove"] >= 1


def test_records_round_trip_through_python_chess(datagen: Path, tmp_path: Path) -> None:
    fens = [line.split(";")[0].strip() for line in (DATA / "standard.epd").read_text()
            .splitlines() if line.strip() and not line.startswith("#")]
    fens += [line for line in OPENINGS.read_text().splitlines() if not line.startswith("#")]
    fens += ["r3k2r/8/8/8/3pP3/8/8/R3K2R b Kq e3 0 17",   # en passant, partial rights
             "4k3/8/8/8/8/8/8/4K2R w K - 99 80"]
    src = tmp_path / "fens.epd"
    src.write_text("\n".join(fens) + "\n")
    run(datagen, "--pack", src, tmp_path / "p.bin")
    header, recs = posdata.open_records(tmp_path / "p.bin")
    assert header.version == 1 and len(recs) == len(fens)
    feats, stm = posdata.features(recs)
    for i, (fen, rec) in enumerate(zip(fens, recs, strict=True)):
        # python-chess writes an ep square only when the capture is legal: compare both
        # after its normalisation.
        assert chess.Board(posdata.record_fen(rec)).fen() == chess.Board(fen).fen()
        assert (int(rec["score"]), int(rec["result"]), int(rec["game"])) == (
            i + 1, (i + 1) % 3, (i + 1) % 256)
        pieces, side = ref.fen_pieces(fen)
        want = sorted(c * 384 + 64 * t + s for c, t, s in pieces)
        assert sorted(int(f) for f in feats[i] if f != posdata.PAD) == want
        assert stm[i] == side


def test_book_walk_castles_and_games_are_legal(datagen: Path, tmp_path: Path) -> None:
    book = tmp_path / "line.bin"
    write_book(book, BOOK_LINE)
    out = tmp_path / "d.bin"
    res = run(datagen, out, "--book", book, "--book-plies", 8, "--random-plies", 0,
              "--games", 2, "--nodes", 300)
    assert "games 2 " in res.stderr
    _, recs = posdata.open_records(out)
    check_positions(recs)
    first, second = games_of(recs)
    # No randomness after a forced book line: both games are the same game.
    assert np.array_equal(first[["occ", "pieces", "score", "result"]],
                          second[["occ", "pieces", "score", "result"]])
    # The game starts after the whole line, castling included (white king on g1).
    start = chess.Board(posdata.record_fen(first[0]))
    assert start.fullmove_number == 5 and start.king(chess.WHITE) == chess.G1


def test_output_is_valid_and_the_same_for_any_thread_count(datagen: Path,
                                                          tmp_path: Path) -> None:
    book = tmp_path / "line.bin"
    write_book(book, BOOK_LINE)
    common = ["--book", book, "--book-plies", 4, "--openings", OPENINGS, "--random-plies", 3,
              "--games", 6, "--nodes", 200, "--seed", 7]
    run(datagen, tmp_path / "t1.bin", *common, "--threads", 1)
    run(datagen, tmp_path / "t2.bin", *common, "--threads", 2)
    assert (tmp_path / "t1.bin").read_bytes() == (tmp_path / "t2.bin").read_bytes()
    header, recs = posdata.open_records(tmp_path / "t1.bin")
    assert (header.seed, header.nodes, header.eval) == (7, 200, "nnue")
    check_positions(recs)
    assert sorted(set(recs["game"].tolist())) == list(range(6))
    run(datagen, tmp_path / "s.bin", *common[:-1], 8)
    assert (tmp_path / "s.bin").read_bytes()[32:] != (tmp_path / "t1.bin").read_bytes()[32:]


def test_bad_arguments_are_one_line(datagen: Path, tmp_path: Path) -> None:
    bad_fen = tmp_path / "bad.epd"
    bad_fen.write_text("rnbqkbnr/pppppppp/8/8 w KQkq - 0 1\n")
    exists = tmp_path / "exists.bin"
    exists.write_bytes(b"x")
    cases = [
        (["--nodes", "x"], "--nodes x: expected an integer"),
        (["--book", tmp_path / "missing.bin"], "missing.bin: No such file"),
        (["--book", bad_fen], "not a positive multiple of 16"),
        (["--openings", bad_fen], "line 1: not a FEN"),
        (["--eval", "big"], "expected nnue or hce"),
        (["--random-plies", "0"], "every game would be the same"),
        (["--frobnicate", "1"], "unknown option --frobnicate"),
    ]
    for args, msg in cases:
        res = run(datagen, tmp_path / "o.bin", *args, ok=False)
        assert res.returncode == 2 and msg in res.stderr, (args, res.stderr)
        assert res.stderr.startswith("datagen: ") and res.stderr.count("\n") == 1
    res = run(datagen, ok=False)
    assert res.returncode == 2 and res.stderr == (
        "datagen: the first argument is the output file (datagen --help)\n")
    res = run(datagen, exists, "--games", "1", ok=False)
    assert res.returncode == 2 and res.stderr.count("\n") == 1 and "--append" in res.stderr
    res = run(datagen, exists, "--games", "1", "--append", ok=False)
    assert res.returncode == 2 and "not a version 1 datagen file" in res.stderr
    assert not (tmp_path / "o.bin").exists()


def test_append_drops_a_torn_record(datagen: Path, tmp_path: Path) -> None:
    out = tmp_path / "a.bin"
    run(datagen, out, "--openings", OPENINGS, "--games", 2, "--nodes", 200)
    with out.open("ab") as fh:
        fh.write(b"torn!")  # a run killed mid-record
    _, recs = posdata.open_records(out)  # the reader skips it too
    first = len(recs)
    run(datagen, out, "--openings", OPENINGS, "--first", 2, "--games", 2, "--nodes", 200,
        "--append")
    assert (out.stat().st_size - 32) % 32 == 0
    _, recs = posdata.open_records(out)
    assert len(recs) > first
    check_positions(recs)
    assert sorted(set(recs["game"].tolist())) == [0, 1, 2, 3]


def test_sigint_stops_with_whole_records(datagen: Path, tmp_path: Path) -> None:
    out = tmp_path / "i.bin"
    proc = subprocess.Popen([str(datagen), str(out), "--openings", str(OPENINGS),
                             "--nodes", "300", "--threads", "2"],
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (not out.exists() or out.stat().st_size < 1000):
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "stopping after the games finished" in err and "done: games" in err
    assert (out.stat().st_size - 32) % 32 == 0
    _, recs = posdata.open_records(out)
    check_positions(recs)


def test_trainer_trains_on_records(datagen: Path, tmp_path: Path) -> None:
    pytest.importorskip("torch")
    data = tmp_path / "d.bin"
    run(datagen, data, "--openings", OPENINGS, "--games", 20, "--nodes", 200, "--threads", 2)
    net = tmp_path / "n.pbnn"
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "nnue" / "train.py"), str(data),
                           "--out", str(net), "--epochs", "1", "--batch", "256",
                           "--device", "cpu"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "(1 file(s))" in proc.stderr and "device cpu" in proc.stderr
    assert "epoch 1 train " in proc.stderr
    ref.read_pbnn(net)  # a valid net file: checksum and dimensions
    # Text lines (the retired Python generators' format) are one error line naming the file.
    text = tmp_path / "d.txt"
    text.write_text("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 | 0 | 0.5\n")
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "nnue" / "train.py"), str(data),
                           str(text), "--out", str(tmp_path / "x.pbnn"), "--device", "cpu"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and f"{text} is not a datagen file" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_stopped_training_run_resumes_to_the_same_net(datagen: Path, tmp_path: Path) -> None:
    """Three epochs at once, and one then two with --stop-after and --resume: the
    same bytes (the lr drop falls in the resumed part); another run's state is one
    error line."""
    pytest.importorskip("torch")
    data = tmp_path / "d.bin"
    run(datagen, data, "--openings", OPENINGS, "--games", 12, "--nodes", 200)

    def train(out: Path, *more: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, str(ROOT / "tools" / "nnue" / "train.py"),
                               str(data), "--out", str(out), "--epochs", "3", "--batch", "256",
                               "--lr-drop", "0.5", "--device", "cpu", *more],
                              capture_output=True, text=True, timeout=300)

    whole = train(tmp_path / "whole.pbnn")
    assert whole.returncode == 0, whole.stderr
    parts = tmp_path / "parts.pbnn"
    first = train(parts, "--stop-after", "1")
    assert first.returncode == 0, first.stderr
    assert "stopped after epoch 1 of 3" in first.stderr and not parts.exists()
    state = tmp_path / "parts.pbnn.state.pt"
    assert state.is_file()
    rest = train(parts, "--resume")
    assert rest.returncode == 0, rest.stderr
    assert "resumed after epoch 1 of 3" in rest.stderr and "epoch 1 train" not in rest.stderr
    assert "epoch 3 train" in rest.stderr
    assert parts.read_bytes() == (tmp_path / "whole.pbnn").read_bytes()
    other = train(parts, "--resume", "--seed", "2")
    assert other.returncode == 2 and "differs in seed" in other.stderr, other.stderr
    assert "Traceback" not in other.stderr
    state.write_bytes(b"not a state")
    bad = train(parts, "--resume")
    assert bad.returncode == 2 and f"--resume: {state}" in bad.stderr, bad.stderr
    assert "Traceback" not in bad.stderr


def test_trainer_buckets_init_from_a_v1_net_keeps_its_evals(datagen: Path,
                                                            tmp_path: Path) -> None:
    """--buckets 8 --init NET.pbnn (v1), no epoch: a v2 net whose 8 heads are the v1
    net's one, so every eval is the v1 net's; a one-bucket .pt spreads the same way."""
    torch = pytest.importorskip("torch")
    import train
    data = tmp_path / "d.bin"
    run(datagen, data, "--openings", OPENINGS, "--games", 10, "--nodes", 200)
    # The round-2 net (a v1 file), widened to the shipped width by zero neurons.
    v1_path = ROOT / "tests" / "data" / "pbnn-b1a44a04.pbnn"
    net = tmp_path / "ob8.pbnn"
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "nnue" / "train.py"), str(data),
                           "--out", str(net), "--epochs", "0", "--buckets", "8", "--init",
                           str(v1_path), "--device", "cpu"], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "8 output bucket(s)" in proc.stderr
    raw = net.read_bytes()
    assert raw[8:12] == struct.pack("<I", 2) and raw[36:40] == struct.pack("<I", 8)
    v1, v2 = ref.read_pbnn(v1_path), ref.read_pbnn(net)
    assert v2.buckets == 8 and v2.out_bias == v1.out_bias * 8
    assert all(np.array_equal(row, v1.out_weight[0]) for row in v2.out_weight)
    _, recs = posdata.open_records(data)
    fens = [posdata.record_fen(r) for r in recs[::max(1, len(recs) // 40)]]
    fens += ["8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 b - - 0 1", "6k1/8/8/8/8/8/8/3QK3 w - - 0 1"]
    assert len({ref.bucket(len(ref.features(f)[0]), 8) for f in fens}) >= 3
    assert [ref.evaluate(v2, f) for f in fens] == [ref.evaluate(v1, f) for f in fens]
    # A one-bucket checkpoint (.pt) as --init: the same spread into 8 heads.
    pt = tmp_path / "one.pt"
    one = train.Net(1)
    train.load_pbnn(one, v1_path)
    torch.save(one.state_dict(), pt)
    eight = train.Net(8)
    train.load_checkpoint(eight, pt)
    assert torch.equal(eight.out.weight, one.out.weight.expand(8, -1))
    assert torch.equal(eight.out.bias, one.out.bias.expand(8))
    with pytest.raises(ref.NetError, match="has 8 output buckets; --buckets must be 8"):
        train.load_pbnn(train.Net(4), net)
    bad = subprocess.run([sys.executable, str(ROOT / "tools" / "nnue" / "train.py"), str(data),
                          "--out", str(tmp_path / "x.pbnn"), "--buckets", "9"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "--buckets 9: use 1..8" in bad.stderr


def test_trainer_streams_every_position_once(datagen: Path, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    torch = pytest.importorskip("torch")
    import train
    data = tmp_path / "d.bin"
    run(datagen, data, "--openings", OPENINGS, "--games", 12, "--nodes", 200)
    _, recs = posdata.open_records(data)
    # Chunks and decode slices far smaller than the file: the streaming path.
    monkeypatch.setattr(train, "CHUNK", 100)
    monkeypatch.setattr(train, "DECODE", 37)
    stream = train.RecordData([data], 1.0)
    val_games = recs["game"] % 10 == 9
    assert (stream.n_train, stream.n_val) == (int((~val_games).sum()), int(val_games.sum()))
    assert stream.n_val > 0
    gen = torch.Generator().manual_seed(1)
    seen = torch.cat([t for _fw, _fb, _stm, t in stream.train_batches(64, gen)])
    want, _ = train.targets(torch.from_numpy(recs["score"][~val_games].astype(np.float32)),
                            torch.from_numpy(recs["result"][~val_games] / 2).float(),
                            torch.from_numpy((recs["stm_ep"][~val_games] >> 7).astype(bool)),
                            1.0)
    assert len(seen) == len(want), (len(seen), len(want))
    # (sigmoid rounds differently in SIMD lanes and tails: equal to float precision)
    assert torch.allclose(seen.sort().values, want.sort().values, rtol=0, atol=1e-6)


# ---- variants: datagen --variant, version-2 records, a crazyhouse net ----

def test_variant_records_round_trip_through_python_chess(datagen: Path, tmp_path: Path) -> None:
    import chess.variant
    import pbnn
    cases = {
        "crazyhouse": (chess.variant.CrazyhouseBoard, [
            *crazyhouse_fens(60, 5), "k3Q~3/8/8/8/8/8/4r3/K7[QQnnPPPpp] b - - 0 30"]),
        "horde": (chess.variant.HordeBoard, [chess.variant.HordeBoard().fen()]),   # 52 men
        "3check": (chess.variant.ThreeCheckBoard, [
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 2+1 0 2"]),
    }
    for variant, (board_of, fens) in cases.items():
        src = tmp_path / f"{variant}.epd"
        src.write_text("\n".join(fens) + "\n")
        out = tmp_path / f"{variant}.bin"
        run(datagen, "--pack", src, out, "--variant", variant)
        header, recs = posdata.open_records(out)
        v = pbnn.VARIANTS.index(variant)
        assert (header.version, header.variant, len(recs)) == (2, v, len(fens))
        assert out.stat().st_size == 64 + 64 * len(fens)
        feats, stm = posdata.features(np.asarray(recs))
        assert feats.shape == (len(fens), pbnn.max_men(v))
        for i, (fen, rec) in enumerate(zip(fens, recs, strict=True)):
            assert board_of(posdata.record_fen(rec)).fen() == board_of(fen).fen(), variant
            assert (int(rec["score"]), int(rec["result"]), int(rec["variant"])) == (
                i + 1, (i + 1) % 3, v)
            want, _, side = pbnn.features(fen, v)
            assert sorted(int(f) for f in feats[i] if f != posdata.variant_pad(v)) == \
                sorted(want), fen
            assert stm[i] == side
    # The pockets really were there, and capped features stop at the cap (QQ of QQ).
    _, recs = posdata.open_records(tmp_path / "crazyhouse.bin")
    assert int((recs["pockets"].sum(axis=(1, 2)) > 0).sum()) >= 40
    assert int(recs["promoted"].astype(bool).sum()) >= 3


def test_crazyhouse_games_are_legal_and_the_same_for_any_thread_count(
        datagen: Path, tmp_path: Path) -> None:
    import chess.variant
    common = ["--variant", "crazyhouse", "--random-plies", 4, "--games", 6, "--nodes", 300,
              "--seed", 3]
    run(datagen, tmp_path / "t1.bin", *common, "--threads", 1)
    run(datagen, tmp_path / "t2.bin", *common, "--threads", 2)
    assert (tmp_path / "t1.bin").read_bytes() == (tmp_path / "t2.bin").read_bytes()
    header, recs = posdata.open_records(tmp_path / "t1.bin")
    # No crazyhouse net was given: chess's net under crazyhouse's own terms played.
    assert (header.version, header.variant, header.eval) == (2, 7, "nnue")
    assert sorted(set(recs["game"].tolist())) == list(range(6))
    for game in games_of(np.asarray(recs)):
        assert len(set(game["result"].tolist())) == 1 and game["result"][0] in (0, 1, 2)
        for rec in game:
            board = chess.variant.CrazyhouseBoard(posdata.record_fen(rec))
            assert board.is_valid() and not board.is_check(), posdata.record_fen(rec)
            assert abs(int(rec["score"])) < 1000
    # Pockets are in the records: 43 of 162 in these six games (96 of 156
    # before 289891f's king danger; over 60 games at 1,000 nodes the shares
    # are alike, 53% and 50%: docs/nnue.md "The real run").
    assert int((recs["pockets"].sum(axis=(1, 2)) > 0).sum()) > len(recs) // 5
    # Appending needs a file of the same variant.
    res = run(datagen, tmp_path / "t1.bin", "--random-plies", 4, "--games", 1, "--append",
              ok=False)
    assert res.returncode == 2 and "not a version 1 datagen file of chess" in res.stderr
    for args, msg in ((["--variant", "shogi"], "--variant shogi: not a variant"),
                      (["--variant-net", tmp_path / "n.pbnn"], "--variant-net needs --variant")):
        res = run(datagen, tmp_path / "o.bin", "--random-plies", 4, *args, ok=False)
        assert res.returncode == 2 and msg in res.stderr and res.stderr.count("\n") == 1


def test_trainer_makes_a_crazyhouse_net_the_engine_evaluates_exactly(
        datagen: Path, tmp_path: Path) -> None:
    pytest.importorskip("torch")
    import pbnn

    from bot.engine import Engine, SearchLimits
    data = tmp_path / "zh.bin"
    run(datagen, data, "--variant", "crazyhouse", "--random-plies", 6, "--games", 24,
        "--nodes", 200, "--threads", 2)
    net = tmp_path / "zh.pbnn"
    train = [sys.executable, str(ROOT / "tools" / "nnue" / "train.py")]
    proc = subprocess.run([*train, str(data), "--out", str(net), "--epochs", "2", "--batch",
                           "256", "--buckets", "8", "--device", "cpu"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "crazyhouse (828 inputs, at most 32 active)" in proc.stderr
    quant = ref.read_pbnn(net)
    assert (quant.variant, quant.buckets, quant.ft_weight.shape[0]) == (7, 8, 828)
    # The pocket rows were trained (they moved from their initial draw).
    assert np.abs(quant.ft_weight[768:]).sum() > 0
    _, recs = posdata.open_records(data)
    fens = [posdata.record_fen(r) for r in recs[::max(1, len(recs) // 30)]]
    with Engine(hash_mb=4, threads=1) as eng:
        eng.variant_nets.load("crazyhouse", str(net))
        for fen in fens:
            eng.set_position(fen, [], False, "crazyhouse")
            assert eng.evaluate() == ref.evaluate(quant, fen) == \
                pbnn.evaluate(pbnn.parse(net.read_bytes()), fen), fen
        assert eng.search(SearchLimits(depth=5)).bestmove
    # One variant per net: standard records with crazyhouse ones are one error line,
    # and so is a standard net as the crazyhouse net's --init.
    std = tmp_path / "std.bin"
    run(datagen, std, "--openings", OPENINGS, "--games", 10, "--nodes", 200)
    proc = subprocess.run([*train, str(data), str(std), "--out", str(tmp_path / "x.pbnn"),
                           "--device", "cpu"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and "records of several variants (chess, crazyhouse)" in \
        proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    proc = subprocess.run([*train, str(data), "--out", str(tmp_path / "y.pbnn"), "--epochs",
                           "0", "--init", str(ROOT / "engine_c" / "nets" / "default.pbnn"),
                           "--buckets", "8", "--device", "cpu"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and "is a net for chess, the data is crazyhouse's" in \
        proc.stderr, proc.stderr


def test_trainer_mirror_king_makes_a_mirrored_net_the_engine_evaluates_exactly(
        datagen: Path, tmp_path: Path) -> None:
    """--mirror king: the trainer's features of every record are the reference's
    mirrored ones (both perspectives), and the exported net is a v3 net with the
    mirrored flag that the engine evaluates as both references do."""
    pytest.importorskip("torch")
    import chess.variant
    import pbnn
    import train

    from bot.engine import Engine
    data = tmp_path / "d.bin"
    run(datagen, data, "--openings", OPENINGS, "--games", 12, "--nodes", 200)
    _, recs = posdata.open_records(data)
    fw, fb, _stm, _target, _score = train.RecordData([data], 1.0, mirrored=True)._decode(
        np.asarray(recs))
    fens = [posdata.record_fen(r) for r in recs]
    halves = set()
    for i, fen in enumerate(fens):
        white, black, _ = pbnn.features(fen, 0, mirrored=True)
        assert sorted(f for f in fw[i].tolist() if f != posdata.PAD) == sorted(white), fen
        assert sorted(f for f in fb[i].tolist() if f != posdata.PAD) == sorted(black), fen
        kings = [chess.Board(fen).king(c) for c in chess.COLORS]
        halves.add(tuple(k is not None and chess.square_file(k) >= 4 for k in kings))
    assert len(halves) >= 3  # kings on both halves: the mirror really ran
    net = tmp_path / "m.pbnn"
    cmd = [sys.executable, str(ROOT / "tools" / "nnue" / "train.py"), str(data), "--out",
           str(net), "--epochs", "1", "--batch", "256", "--buckets", "8", "--device", "cpu",
           "--mirror", "king"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "8 output bucket(s); mirrored inputs" in proc.stderr
    raw = net.read_bytes()
    assert struct.unpack_from("<I", raw, 8)[0] == 3 and struct.unpack_from("<II", raw, 48) == (0, 1)
    quant = ref.read_pbnn(net)
    assert quant.mirrored and quant.variant == 0 and quant.buckets == 8
    with Engine(hash_mb=4, threads=1) as eng:
        eng.load_net(str(net))
        eng.set_eval("nnue")
        for fen in fens[::max(1, len(fens) // 40)]:
            eng.set_position(fen, [], False)
            assert eng.evaluate() == ref.evaluate(quant, fen) == \
                pbnn.evaluate(pbnn.parse(raw), fen), fen
    # No mirrored net of a variant without one king a side: one error line.
    src = tmp_path / "horde.epd"
    src.write_text(chess.variant.HordeBoard().fen() + "\n")
    horde = tmp_path / "horde.bin"
    run(datagen, "--pack", src, horde, "--variant", "horde")
    cmd[2], cmd[4] = str(horde), str(tmp_path / "h.pbnn")
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and "horde records: a mirrored net follows each side's one " \
        "king" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
