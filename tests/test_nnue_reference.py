"""The NNUE reference (tools/nnue/reference.py): file format, checksum, integer eval.

The round trip trainer float model -> exporter -> reference integer eval needs
torch (an optional extra, not installed in CI) and is skipped without it; the
format and checksum tests need only numpy.
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

import chess
import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools" / "nnue"))

import reference as ref  # noqa: E402

FENS = [
    chess.STARTING_FEN,
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 b - - 0 1",
    "6k1/5ppp/8/8/8/8/5PPP/3Q2K1 b - - 0 1",
]


def random_net(seed: int) -> ref.QuantNet:
    """Integer weights in the ranges the trainer's clipping allows, the shipped width."""
    rng = np.random.default_rng(seed)
    h = ref.HIDDEN
    return ref.QuantNet(rng.integers(-60, 61, (768, h)).astype(np.int16),
                        rng.integers(-60, 200, h).astype(np.int16),
                        rng.integers(-127, 128, (1, 2 * h)).astype(np.int16),
                        [int(rng.integers(-50000, 50000))])


def test_features_follow_the_contract() -> None:
    fw, fb, stm = ref.features(chess.STARTING_FEN)
    assert stm == 0 and len(fw) == len(fb) == 32
    # White king e1 (s = 4): own piece for White, other side's for Black (rank mirrored).
    assert 64 * 5 + 4 in fw and 384 + 64 * 5 + (4 ^ 56) in fb
    # Black pawn a7 (s = 48): other side's for White, own (mirrored to a2 = 8) for Black.
    assert 384 + 48 in fw and 8 in fb


def test_write_read_and_checksum(tmp_path: Path) -> None:
    net = random_net(1)
    path = tmp_path / "n.pbnn"
    ref.write_pbnn(path, net)
    data = path.read_bytes()
    assert len(data) == ref.FILE_SIZE == 592_180
    assert data[:8] == b"PIBOTNN\0"
    assert int.from_bytes(data[40:48], "little") == ref.fnv1a64(data[48:])
    back = ref.read_pbnn(path)
    assert np.array_equal(back.ft_weight, net.ft_weight)
    assert np.array_equal(back.out_weight, net.out_weight) and back.out_bias == net.out_bias
    assert back.name == "pbnn-" + data[40:48][::-1].hex()[:8]


def test_fnv1a_known_values() -> None:
    # Published FNV-1a 64 test vectors.
    assert ref.fnv1a64(b"") == 0xCBF29CE484222325
    assert ref.fnv1a64(b"a") == 0xAF63DC4C8601EC8C
    assert ref.fnv1a64(b"foobar") == 0x85944171F73967E8


def test_corrupted_or_truncated_file_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "n.pbnn"
    ref.write_pbnn(path, random_net(2))
    data = bytearray(path.read_bytes())
    data[1000] ^= 0x01
    path.write_bytes(bytes(data))
    with pytest.raises(ref.NetError, match="checksum"):
        ref.read_pbnn(path)
    path.write_bytes(bytes(data[:-2]))
    with pytest.raises(ref.NetError, match="bytes"):
        ref.read_pbnn(path)
    data[1000] ^= 0x01
    data[0:8] = b"NOTANET\0"
    path.write_bytes(bytes(data))
    with pytest.raises(ref.NetError, match="magic"):
        ref.read_pbnn(path)


def test_bucket_rule() -> None:
    """docs/nnue.md: b = (pieces - 2) * B / 31 clamped to 0..B-1; for B = 8 that is
    the common (pieces - 2) / 4, and B = 1 is always bucket 0 (a v1 net)."""
    assert [ref.bucket(n, 8) for n in range(2, 33)] == [(n - 2) // 4 for n in range(2, 33)]
    assert {ref.bucket(n, 1) for n in range(0, 33)} == {0}
    assert [ref.bucket(n, 3) for n in (2, 12, 13, 22, 23, 32)] == [0, 0, 1, 1, 2, 2]
    assert ref.bucket(0, 8) == 0 and ref.bucket(40, 8) == 7
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools" / "nnue"))
    import pbnn
    for b in range(1, 9):
        assert [pbnn.bucket(n, b) for n in range(33)] == [ref.bucket(n, b) for n in range(33)]


def test_v2_write_read_and_bad_headers(tmp_path: Path) -> None:
    rng = np.random.default_rng(6)
    base = random_net(6)
    net = ref.QuantNet(base.ft_weight, base.ft_bias,
                       rng.integers(-127, 128, (5, 2 * ref.HIDDEN)).astype(np.int16),
                       [int(x) for x in rng.integers(-50000, 50000, 5)])
    path = tmp_path / "v2.pbnn"
    ref.write_pbnn(path, net)
    data = path.read_bytes()
    assert len(data) == 48 + 768 * 384 * 2 + 384 * 2 + 5 * 768 * 2 + 5 * 4 == ref.file_size(5)
    assert data[8:12] == b"\2\0\0\0" and data[36:40] == b"\5\0\0\0"
    back = ref.read_pbnn(path)
    assert np.array_equal(back.out_weight, net.out_weight) and back.out_bias == net.out_bias
    for b, why in ((0, "bad output bucket count 0"), (9, "bad output bucket count 9"),
                   (4, "a v2 net with 4 output bucket")):
        path.write_bytes(data[:36] + struct.pack("<I", b) + data[40:])
        with pytest.raises(ref.NetError, match=why):
            ref.read_pbnn(path)


def test_colour_flip_symmetry() -> None:
    net = random_net(3)
    for fen in FENS:
        flipped = chess.Board(fen).mirror().fen()
        assert ref.evaluate(net, fen) == ref.evaluate(net, flipped)


def test_integer_eval_matches_exact_arithmetic() -> None:
    """The contract's formula written out with Python ints, one position."""
    net = random_net(4)
    fen = FENS[2]
    fw, fb, stm = ref.features(fen)
    accs = [[int(net.ft_bias[i]) + sum(int(net.ft_weight[f][i]) for f in feats)
             for i in range(net.hidden)] for feats in (fw, fb)]
    us, them = accs[stm], accs[1 - stm]
    ow = net.out_weight[0]
    total = sum(min(max(x, 0), 255) ** 2 * int(ow[i]) for i, x in enumerate(us))
    total += sum(min(max(x, 0), 255) ** 2 * int(ow[net.hidden + i]) for i, x in enumerate(them))
    v = int(total / 255) + net.out_bias[0]       # exact enough: |total| < 2^53
    expected = int(v * 400 / (255 * 64))
    assert ref.evaluate(net, fen) == expected


@pytest.mark.parametrize("buckets", [1, 8])
def test_exporter_round_trip_matches_float_model(tmp_path: Path, buckets: int) -> None:
    """With 8 output buckets (distinct random heads) the trainer must pick each
    position's bucket as the reference does, or the evals differ by far more."""
    torch = pytest.importorskip("torch")
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools" / "nnue"))
    import train

    torch.manual_seed(5)
    model = train.Net(buckets)
    with torch.no_grad():  # a net with real spread in its evals, inside the clip range
        model.ft.weight.normal_(0.0, 0.08)
        model.ft.weight[train.PAD].zero_()
        model.ft_bias.uniform_(0.0, 0.5)
        model.out.weight.uniform_(-0.5, 0.5)
        model.out.bias.fill_(0.05)
        if buckets > 1:
            model.out.bias.uniform_(-0.3, 0.3)
    model.clip()
    path = tmp_path / "n.pbnn"
    train.export(model, path)
    data = path.read_bytes()
    assert data[8:12] == (b"\1\0\0\0" if buckets == 1 else b"\2\0\0\0")  # v1 / v2
    assert len(data) == ref.file_size(buckets)
    net = ref.read_pbnn(path)
    assert net.buckets == buckets
    used = {ref.bucket(len(ref.features(fen)[0]), buckets) for fen in FENS}
    assert len(used) == (1 if buckets == 1 else 3)
    ft_w, ft_b, out_w, out_b = model.float_weights()
    evals = []
    for fen in FENS:
        fw, fb, stm = ref.features(fen)
        t = torch.tensor
        with torch.no_grad():
            out = model(t([fw]), t([fb]), t([bool(stm)]))
        float_cp = float(out[0]) * ref.SCALE
        # The same float model with the quantised weights: only truncation differs.
        accs = [(net.ft_bias + net.ft_weight[f].astype(np.int64).sum(0)) / ref.QA
                for f in (fw, fb)]
        a = np.concatenate([np.clip(accs[stm], 0, 1) ** 2, np.clip(accs[1 - stm], 0, 1) ** 2])
        k = ref.bucket(len(fw), buckets)
        deq_cp = (a @ (net.out_weight[k] / ref.QB)
                  + net.out_bias[k] / (ref.QA * ref.QB)) * ref.SCALE
        got = ref.evaluate(net, fen)
        assert abs(got - deq_cp) <= 1.0, (fen, got, deq_cp)
        # Against the float weights: the output weights' 1/64 steps over 768 terms
        # give errors of ~10 cp on this net.
        assert abs(got - float_cp) <= 30 + 0.05 * abs(float_cp), (fen, got, float_cp)
        evals.append(got)
    assert max(evals) - min(evals) > 50  # the positions are told apart


def test_trainer_starts_from_a_shipped_net(tmp_path: Path) -> None:
    """--init NET.pbnn: the float model read back from the integers exports the
    very same file (the shipped net's .pt is not kept); a damaged file is a NetError."""
    pytest.importorskip("torch")
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools" / "nnue"))
    import train

    root = Path(__file__).resolve().parents[1]
    # The built-in net (8 output buckets) and the round-2 net (a v1 file, 256 wide).
    for shipped, buckets, hidden in ((root / "engine_c" / "nets" / "default.pbnn", 8, 384),
                                     (root / "tests" / "data" / "pbnn-de0aaeab.pbnn", 1, 256)):
        model = train.Net(buckets, hidden)
        train.load_pbnn(model, shipped)
        path = tmp_path / "again.pbnn"
        train.export(model, path)
        assert path.read_bytes() == shipped.read_bytes(), shipped
    bad = tmp_path / "bad.pbnn"
    bad.write_bytes(b"PIBOTNN\0" + bytes(10))
    with pytest.raises(ref.NetError, match="bytes"):
        train.load_pbnn(train.Net(), bad)


def test_only_a_positions_own_bucket_learns_from_it() -> None:
    """The trainer selects one output head per position by its piece count: the
    gradient reaches exactly the heads of the batch's buckets."""
    torch = pytest.importorskip("torch")
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools" / "nnue"))
    import train

    torch.manual_seed(7)
    model = train.Net(8)
    feats = [ref.features(fen) for fen in FENS]
    pad = max(len(f[0]) for f in feats)
    fw = torch.tensor([f[0] + [train.PAD] * (pad - len(f[0])) for f in feats])
    fb = torch.tensor([f[1] + [train.PAD] * (pad - len(f[1])) for f in feats])
    stm = torch.tensor([bool(f[2]) for f in feats])
    model(fw, fb, stm).sum().backward()
    used = {ref.bucket(len(f[0]), 8) for f in feats}
    assert used == {1, 2, 7}
    for k in range(8):
        assert (model.out.weight.grad[k].abs().sum() > 0) == (k in used), k
        assert (model.out.bias.grad[k] != 0) == (k in used), k


def test_trainer_gradients_equal_plain_autograd() -> None:
    """The trainer picks the perspectives on the feature indices and has its own SCReLU
    backward (for speed); its gradients must be autograd's of the plain formulation
    (bench/nnue_train_speed.py's `Plain`) -- accumulators below 0, inside (0, 1) and
    above 1, White and Black to move."""
    torch = pytest.importorskip("torch")
    root = Path(__file__).resolve().parents[1]
    sys.path.insert(0, str(root / "tools" / "nnue"))
    sys.path.insert(0, str(root / "bench"))
    import train
    from nnue_train_speed import Plain

    feats = [ref.features(fen) for fen in FENS]
    pad = max(len(f[0]) for f in feats)
    fw = torch.tensor([f[0] + [train.PAD] * (pad - len(f[0])) for f in feats])
    fb = torch.tensor([f[1] + [train.PAD] * (pad - len(f[1])) for f in feats])
    stm = torch.tensor([bool(f[2]) for f in feats])
    assert stm.any() and not stm.all()
    target = torch.linspace(0.1, 0.9, len(feats))
    grads = []
    for cls in (Plain, train.Net):
        torch.manual_seed(3)
        model = cls(8)
        with torch.no_grad():
            model.ft.weight.normal_(0.0, 0.3)
            model.ft.weight[train.PAD].zero_()
            model.out.weight.uniform_(-1, 1)
        acc = model.ft(fw) + model.ft_bias
        assert (acc < 0).any() and ((acc > 0) & (acc < 1)).any() and (acc > 1).any()
        train.loss_fn(model(fw, fb, stm), target).backward()
        grads.append({name: p.grad.clone() for name, p in model.named_parameters()})
    for name, g in grads[0].items():
        assert g.abs().max() > 0, name
        torch.testing.assert_close(grads[1][name], g, rtol=1e-5, atol=1e-7, msg=name)


def test_trainer_black_view_is_the_references() -> None:
    """The trainer derives Black's features from White's by a table; they must be
    the contract's (reference.features), piece for piece, and padding stays padding."""
    torch = pytest.importorskip("torch")
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools" / "nnue"))
    import train

    for fen in FENS:
        fw, fb, _stm = ref.features(fen)
        got = train.black_view(torch.tensor(fw + [train.PAD] * 3)).tolist()
        assert sorted(got[:len(fw)]) == sorted(fb) and got[len(fw):] == [train.PAD] * 3, fen
