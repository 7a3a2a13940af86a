"""Reference for pibot's .pbnn nets: file format, quantisation and the integer evaluation.

Dependency-light on purpose (numpy only; not torch, not even python-chess): the C
engine's tests may use it as their oracle. Everything here follows the net
contract (docs/tuning.md, "NNUE") exactly:

* features  idx(p, c, t, s) = (c == p ? 0 : 384) + 64 t + ((p == 0 ? s : s ^ 56) ^ m_p),
  m_p = 7 in a mirrored net when p's own king stands on files e..h, else 0
* accumulators int16 (wrapping, as C's int16 stores would), SCReLU clamp(x, 0, QA)^2,
* v = sum / QA + out_bias, eval_cp = v * SCALE / (QA * QB), both divisions truncating
  toward zero, side to move's view; out_weight and out_bias those of the position's
  output bucket (`bucket`: by its piece count; one bucket in a v1 file);
* file: 48-byte little-endian header, FNV-1a 64 checksum over the payload; format v3
  (a variant's or mirrored net) adds 16 bytes (u32 variant, u32 flags, zeros) that the
  checksum covers too, and a crazyhouse net 60 pocket inputs after the 768 board ones
  (pbnn.py, docs/nnue.md).

    python3 tools/nnue/reference.py engine_c/nets/candidate.pbnn "<FEN>" ...
"""

from __future__ import annotations

import struct
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

MAGIC = b"PIBOTNN\0"
VERSION = 1          # one output bucket
VERSION_BUCKETS = 2  # B output buckets; the header's reserved word holds B
VERSION_VARIANT = 3  # a variant's or mirrored net
MAX_BUCKETS = 8
INPUTS = 768
# The variants (v3 header numbers), pocket layout and guard: one definition, pbnn.py's.
sys.path.insert(0, str(Path(__file__).resolve().parent))
from pbnn import (  # noqa: E402
    CRAZYHOUSE,
    V3_EXT,
    VARIANTS,
    board_features,
    max_men,
    pack_file,
    pocket_features,
    split_pocket,
    v3_bytes,
    v3_extension,
    variant_inputs,
)

HIDDEN = 384         # the shipped width; a net's own width is its header's (64..1024)
ACTIVATION_SCRELU = 1
QA, QB, SCALE = 255, 64, 400
HEADER = struct.Struct("<8sIIIIiiiIQ")  # magic .. reserved, checksum
BUCKET_SIZE = 2 * HIDDEN * 2 + 4  # one bucket's out_weight and out_bias
FILE_SIZE = HEADER.size + INPUTS * HIDDEN * 2 + HIDDEN * 2 + BUCKET_SIZE  # a v1 net
FNV_BASIS, FNV_PRIME, MASK64 = 0xCBF29CE484222325, 0x100000001B3, (1 << 64) - 1
PIECES = "pnbrqk"


class NetError(ValueError):
    """A .pbnn file that is not a valid net of this format."""


def file_size(buckets: int, hidden: int = HIDDEN, variant: int = 0, v3: bool = False) -> int:
    """Bytes of a net with `buckets` output buckets (v1 when 1, else v2; v3 for a variant,
    or `v3` for a mirrored standard net)."""
    head = HEADER.size + (V3_EXT.size if variant or v3 else 0)
    return head + variant_inputs(variant) * hidden * 2 + hidden * 2 + buckets * (4 * hidden + 4)


def valid_hidden(hidden: int) -> bool:
    """The widths the engine builds for (nnue.h: PB_NNUE_HIDDEN)."""
    return 64 <= hidden <= 1024 and hidden % 64 == 0


def bucket(pieces: int, buckets: int) -> int:
    """Output bucket of a position with `pieces` pieces (kings included): docs/nnue.md."""
    return min(max(pieces - 2, 0) * buckets // 31, buckets - 1)


@dataclass
class QuantNet:
    ft_weight: np.ndarray   # int16 [inputs, H]: 768, or 828 for crazyhouse
    ft_bias: np.ndarray     # int16 [H]
    out_weight: np.ndarray  # int16 [B, 2H]: per bucket, side to move, then other side
    out_bias: list[int]     # int32 [B]
    variant: int = 0        # pbnn.VARIANTS index; 0 = standard chess (a v1/v2 file)
    mirrored: bool = False  # the v3 flag: mirrored inputs

    @property
    def buckets(self) -> int:
        return len(self.out_bias)

    @property
    def hidden(self) -> int:
        return len(self.ft_bias)

    @property
    def checksum(self) -> int:
        """Over what follows the 48-byte header: v3's variant words and the payload."""
        return fnv1a64(self.extension() + self.payload())

    @property
    def v3(self) -> bool:
        return bool(self.variant or self.mirrored)

    def extension(self) -> bytes:
        return v3_bytes(self.variant, self.mirrored) if self.v3 else b""

    @property
    def name(self) -> str:
        return f"pbnn-{self.checksum:016x}"[:13]

    def payload(self) -> bytes:
        return (self.ft_weight.astype("<i2").tobytes() + self.ft_bias.astype("<i2").tobytes()
                + self.out_weight.astype("<i2").tobytes()
                + struct.pack(f"<{self.buckets}i", *self.out_bias))


def fnv1a64(data: bytes) -> int:
    h = FNV_BASIS
    for b in data:
        h = ((h ^ b) * FNV_PRIME) & MASK64
    return h


def quantise(ft_w: np.ndarray, ft_b: np.ndarray, out_w: np.ndarray, out_b: np.ndarray,
             variant: int = 0, mirrored: bool = False) -> QuantNet:
    """Float weights (ft_w [inputs, H], ft_b [H], out_w [B, 2H], out_b [B]) -> integers."""
    def q16(x: np.ndarray, scale: int) -> np.ndarray:
        r = np.rint(np.asarray(x, dtype=np.float64) * scale)
        if np.abs(r).max(initial=0) > 32767:
            raise NetError("a weight does not fit int16 after quantisation; clip the weights")
        return r.astype(np.int16)
    biases = np.atleast_1d(np.asarray(out_b, dtype=np.float64))
    hidden = np.asarray(ft_b).size
    return QuantNet(q16(ft_w, QA).reshape(variant_inputs(variant), hidden),
                    q16(ft_b, QA).reshape(hidden),
                    q16(out_w, QB).reshape(len(biases), 2 * hidden),
                    [int(x) for x in np.rint(biases * QA * QB)], variant, mirrored)


def write_pbnn(path: Path, net: QuantNet) -> None:
    """A v1 file for one output bucket (as every net before buckets), else v2; a
    variant's or a mirrored net is v3."""
    if not 1 <= net.buckets <= MAX_BUCKETS:
        raise NetError(f"{net.buckets} output buckets; a net has 1..{MAX_BUCKETS}")
    if not valid_hidden(net.hidden):
        raise NetError(f"hidden width {net.hidden}; the engine builds for 64..1024 in steps "
                       "of 64")
    # np.asarray: a net's tables may be numpy arrays (the trainer's) or array.array
    # (pbnn.Net, make_random_net.py)
    guard = (int(np.abs(np.asarray(net.ft_bias, dtype=np.int32)).max())
             + max_men(net.variant)
             * int(np.abs(np.asarray(net.ft_weight, dtype=np.int32)).max()))
    if guard > 32767:
        raise NetError(f"weights too large for int16 accumulators ({guard} > 32767 with "
                       f"{max_men(net.variant)} men); clip the weights")
    Path(path).write_bytes(pack_file(net.payload(), net.hidden, net.buckets, net.variant,
                                     net.mirrored))


def read_pbnn(path: Path) -> QuantNet:
    data = Path(path).read_bytes()
    if len(data) < HEADER.size:
        raise NetError(f"{path}: {len(data)} bytes, a v1 net has {FILE_SIZE}")
    magic, version, inputs, hidden, act, qa, qb, scale, res, checksum = HEADER.unpack_from(data)
    if magic != MAGIC:
        raise NetError(f"{path}: not a pibot net (bad magic {magic!r})")
    variant, mirrored, v3 = 0, False, version == VERSION_VARIANT
    if v3:
        try:
            variant, mirrored = v3_extension(data)
        except ValueError as exc:
            raise NetError(f"{path}: {exc}") from None
    n_in = variant_inputs(variant)
    if version not in (VERSION, VERSION_BUCKETS, VERSION_VARIANT) or not valid_hidden(
            hidden) or (inputs, act, qa, qb, scale) != (n_in, ACTIVATION_SCRELU, QA, QB, SCALE):
        raise NetError(f"{path}: unsupported net (version {version}, {inputs}x{hidden}, "
                       f"activation {act}, QA {qa}, QB {qb}, SCALE {scale})")
    buckets = 1 if version == VERSION else res
    if not 1 <= buckets <= MAX_BUCKETS:
        raise NetError(f"{path}: bad output bucket count {buckets} in the v{version} header "
                       f"(1..{MAX_BUCKETS} allowed)")
    want = file_size(buckets, hidden, variant, v3)
    if len(data) != want:
        raise NetError(f"{path}: {len(data)} bytes, a v{version} net with {buckets} output "
                       f"bucket(s) and {hidden} hidden has {want}")
    if fnv1a64(data[HEADER.size:]) != checksum:
        raise NetError(f"{path}: checksum mismatch (file corrupted or truncated)")
    payload = data[HEADER.size + (V3_EXT.size if v3 else 0):]
    o = 0
    ft_w = np.frombuffer(payload, "<i2", n_in * hidden, o).reshape(n_in, hidden)
    o += n_in * hidden * 2
    ft_b = np.frombuffer(payload, "<i2", hidden, o)
    o += hidden * 2
    out_w = np.frombuffer(payload, "<i2", buckets * 2 * hidden, o).reshape(buckets, 2 * hidden)
    o += buckets * 2 * hidden * 2
    out_b = list(struct.unpack_from(f"<{buckets}i", payload, o))
    return QuantNet(ft_w.astype(np.int16), ft_b.astype(np.int16), out_w.astype(np.int16), out_b,
                    variant, mirrored)


def fen_pieces(fen: str) -> tuple[list[tuple[int, int, int]], int]:
    """([(colour, type, square)], side to move 0 white / 1 black) of a FEN (a crazyhouse
    pocket and promoted marks are left out: fen_pocket)."""
    fields = fen.split()
    if len(fields) < 2 or fields[1] not in ("w", "b"):
        raise ValueError(f"FEN {fen!r}: needs a board and a side to move (w or b)")
    ranks = split_pocket(fields[0])[0].replace("~", "").split("/")
    if len(ranks) != 8:
        raise ValueError(f"FEN {fen!r}: the board needs 8 ranks")
    pieces: list[tuple[int, int, int]] = []
    for i, row in enumerate(ranks):
        file = 0
        for ch in row:
            if ch.isdigit():
                file += int(ch)
                continue
            t = PIECES.find(ch.lower())
            if t < 0 or file > 7:
                raise ValueError(f"FEN {fen!r}: bad rank {row!r}")
            pieces.append((0 if ch.isupper() else 1, t, (7 - i) * 8 + file))
            file += 1
    return pieces, 0 if fields[1] == "w" else 1


def features(fen: str, variant: int = 0, mirrored: bool = False
             ) -> tuple[list[int], list[int], int]:
    """(White-perspective features, Black-perspective features, side to move): the board's
    (a mirrored net's by each perspective's king), then a crazyhouse net's pocket
    features."""
    pieces, stm = fen_pieces(fen)
    white, black = board_features(pieces, mirrored)
    if variant == CRAZYHOUSE:
        pw, pb = pocket_features(split_pocket(fen.split()[0])[1])
        white += pw
        black += pb
    return white, black, stm


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def evaluate(net: QuantNet, fen: str) -> int:
    """The contract's integer eval in centipawns, side to move's view."""
    fw, fb, stm = features(fen, net.variant, net.mirrored)
    accs = []
    for feats in (fw, fb):
        acc = net.ft_bias.astype(np.int64) + net.ft_weight[feats].astype(np.int64).sum(axis=0)
        accs.append(acc.astype(np.int16).astype(np.int64))  # int16 wraparound, as in C
    us, them = accs[stm], accs[1 - stm]
    k = bucket(sum(f < INPUTS for f in fw), net.buckets)  # pieces on the board
    ow = net.out_weight[k].astype(np.int64)
    h = net.hidden
    total = int((np.clip(us, 0, QA) ** 2 * ow[:h]).sum()
                + (np.clip(them, 0, QA) ** 2 * ow[h:]).sum())
    v = _trunc_div(total, QA) + net.out_bias[k]
    return _trunc_div(v * SCALE, QA * QB)


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        sys.stderr.write("usage: reference.py NET.pbnn FEN [FEN ...]\n")
        return 2
    try:
        net = read_pbnn(Path(argv[0]))
        for fen in argv[1:]:
            sys.stdout.write(f"{evaluate(net, fen):6d}  {fen}\n")
    except (NetError, ValueError, OSError) as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 1
    sys.stdout.write(f"net {net.name}, {net.buckets} output bucket(s), "
                     f"{VARIANTS[net.variant]}{', mirrored inputs' if net.mirrored else ''}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
