"""The .pbnn net file (docs/nnue.md, engine_c/nnue.h): read, write, and evaluate it in
pure Python with exactly the integer arithmetic the C engine uses. Format v1 has one
output bucket; v2 has B (1..8), chosen per position by its piece count on the board;
v3 is a variant's net (its variant in the header; a crazyhouse net has 60 pocket
inputs after the 768 board ones) or a mirrored one (a header flag: each perspective's
squares mirrored a<->h when its own king stands on files e..h).

The reference evaluator ties the C engine to the trainer's contract: tests compare
engine_c/nnue.c against `evaluate()` here on the same file.
"""

from __future__ import annotations

import struct
from array import array
from dataclasses import dataclass

MAGIC = b"PIBOTNN\0"
VERSION = 1          # one output bucket
VERSION_BUCKETS = 2  # B output buckets; the header's reserved word holds B
VERSION_VARIANT = 3  # a variant's or mirrored net: v2's header, u32 variant, u32 flags,
#                      8 zero bytes
MAX_BUCKETS = 8
INPUTS = 768
# The variant numbers of a v3 header: engine_c/types.h's VAR_*, as UCI_Variant names them.
VARIANTS = ("chess", "kingofthehill", "3check", "racingkings", "horde", "antichess", "atomic",
            "crazyhouse")
CRAZYHOUSE = VARIANTS.index("crazyhouse")
# Crazyhouse pocket inputs per colour (pawn .. queen): the k-th man of a type in a
# pocket, k = 1 .. its cap (nnue.h NnuePocketCap / NnuePocketBase).
POCKET_CAP = (16, 4, 4, 4, 2)
POCKET_BASE = (0, 16, 20, 24, 28)
POCKET_INPUTS = 2 * sum(POCKET_CAP)  # 60
V3_EXT = struct.Struct("<II8x")  # after the 48-byte header: the variant, flags, zeros
FLAG_MIRRORED = 1  # v3 flags: mirrored inputs (`mirror_xor`)
# The variants whose nets cannot mirror: the mirror follows each side's one king.
NO_MIRROR = ("horde", "antichess")


def variant_inputs(variant: int) -> int:
    """Inputs of a net of this variant; 0 where no net can serve (atomic)."""
    if variant == CRAZYHOUSE:
        return INPUTS + POCKET_INPUTS
    return 0 if VARIANTS[variant] == "atomic" else INPUTS


def max_men(variant: int) -> int:
    """The overflow guard's piece count (pocket men included): horde 52, else 32."""
    return 52 if VARIANTS[variant] == "horde" else 32


def v3_extension(data: bytes) -> tuple[int, bool]:
    """(variant, mirrored) of a v3 file's 16 header bytes after the 48; ValueError
    naming what is wrong (engine_c/nnue.c refuses the same)."""
    if len(data) < 48 + V3_EXT.size:
        raise ValueError(f"{len(data)} bytes, shorter than a v3 header")
    variant, flags = V3_EXT.unpack_from(data, 48)
    if variant >= len(VARIANTS) or not variant_inputs(variant):
        raise ValueError(f"the v3 header names variant {variant}, which no net serves")
    if flags & ~FLAG_MIRRORED:
        raise ValueError(f"unknown flags {flags:#x} in the v3 header (bit 0 = mirrored "
                         "inputs; the other bits must be zero)")
    if any(data[56:64]):
        raise ValueError("bytes 56..63 of a v3 header must be zero")
    mirrored = bool(flags & FLAG_MIRRORED)
    if mirrored and VARIANTS[variant] in NO_MIRROR:
        raise ValueError(f"a mirrored net follows each side's king, and {VARIANTS[variant]} "
                         f"does not keep exactly one a side: no mirrored {VARIANTS[variant]} "
                         "net")
    return variant, mirrored


def v3_bytes(variant: int, mirrored: bool) -> bytes:
    """The 16 header bytes after the 48 of a v3 file."""
    return V3_EXT.pack(variant, FLAG_MIRRORED if mirrored else 0)


def mirror_xor(king_sq: int, mirrored: bool) -> int:
    """What a perspective's squares are XORed with: 7 (a<->h) in a mirrored net when
    its own king stands on files e..h, else 0."""
    return 7 if mirrored and king_sq & 4 else 0


def feature(p: int, c: int, t: int, s: int, m: int = 0) -> int:
    """Board feature of a piece of colour c, type t (0 pawn .. 5 king) on square s for
    perspective p, whose mirror XOR is m (docs/nnue.md)."""
    return (0 if c == p else 384) + 64 * t + ((s if p == 0 else s ^ 56) ^ m)
HIDDEN = 384  # the shipped width; a net's own is its header's (64..1024, steps of 64)
ACT_SCRELU = 1
QA, QB, SCALE = 255, 64, 400
HEADER = struct.Struct("<8sIIIIiiiIQ")  # 48 bytes
BUCKET_BYTES = 2 * HIDDEN * 2 + 4  # one bucket's out_weight and out_bias
PAYLOAD_BYTES = INPUTS * HIDDEN * 2 + HIDDEN * 2 + BUCKET_BYTES
FILE_BYTES = HEADER.size + PAYLOAD_BYTES  # 592,180: a v1 net


def file_bytes(buckets: int, hidden: int = HIDDEN, variant: int = 0, v3: bool = False) -> int:
    """Size of a net with `buckets` output buckets (v1 when 1, else v2; v3 for a variant,
    or `v3` for a mirrored standard net)."""
    if variant or v3:
        return (HEADER.size + V3_EXT.size + variant_inputs(variant) * hidden * 2 + hidden * 2
                + buckets * (4 * hidden + 4))
    if hidden != HIDDEN:
        return HEADER.size + INPUTS * hidden * 2 + hidden * 2 + buckets * (4 * hidden + 4)
    return FILE_BYTES + (buckets - 1) * BUCKET_BYTES


def bucket(pieces: int, buckets: int) -> int:
    """Output bucket of a position with `pieces` pieces (kings included): docs/nnue.md."""
    return min(max(pieces - 2, 0) * buckets // 31, buckets - 1)


def fnv1a64(data: bytes) -> int:
    h = 0xCBF29CE484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


@dataclass
class Net:
    ft_weight: array[int]   # int16, inputs * HIDDEN, feature-major
    ft_bias: array[int]     # int16, HIDDEN
    out_weight: array[int]  # int16, buckets * 2 * HIDDEN: bucket-major, side to move first
    out_bias: list[int]  # int32, one per bucket
    variant: int = 0     # VARIANTS index; 0 = standard chess (a v1/v2 file)
    mirrored: bool = False  # the v3 flag: mirrored inputs

    @property
    def buckets(self) -> int:
        return len(self.out_bias)

    @property
    def hidden(self) -> int:
        return len(self.ft_bias)

    def payload(self) -> bytes:
        return (self.ft_weight.tobytes() + self.ft_bias.tobytes() + self.out_weight.tobytes()
                + struct.pack(f"<{self.buckets}i", *self.out_bias))

    def to_bytes(self) -> bytes:
        return pack_file(self.payload(), self.hidden, self.buckets, self.variant, self.mirrored)


def pack_file(payload: bytes, hidden: int, buckets: int, variant: int, mirrored: bool) -> bytes:
    """Header + payload: v1 for one bucket (as every net before buckets), else v2; a
    variant's or a mirrored net is v3 (the checksum covers its variant and flags too).
    The one writer of the header, for pbnn.Net and the trainer's QuantNet alike."""
    if variant or mirrored:
        body = v3_bytes(variant, mirrored) + payload
        return HEADER.pack(MAGIC, VERSION_VARIANT, variant_inputs(variant), hidden,
                           ACT_SCRELU, QA, QB, SCALE, buckets, fnv1a64(body)) + body
    one = buckets == 1
    return HEADER.pack(MAGIC, VERSION if one else VERSION_BUCKETS, INPUTS, hidden, ACT_SCRELU,
                       QA, QB, SCALE, 0 if one else buckets, fnv1a64(payload)) + payload


def name_of(data: bytes) -> str:
    """'pbnn-' + the first 8 hex digits of the checksum field."""
    return f"pbnn-{HEADER.unpack_from(data)[9]:016x}"[:13]


def parse(data: bytes) -> Net:
    """A .pbnn file's weights; ValueError naming the problem if it is not one."""
    if len(data) < HEADER.size or data[:8] != MAGIC:
        raise ValueError("bad magic")
    magic, version, inputs, hidden, act, qa, qb, scale, res, checksum = HEADER.unpack_from(data)
    if version not in (VERSION, VERSION_BUCKETS, VERSION_VARIANT):
        raise ValueError(f"version {version}")
    variant, mirrored = v3_extension(data) if version == VERSION_VARIANT else (0, False)
    n_in = variant_inputs(variant)
    if (inputs, act, qa, qb, scale) != (n_in, ACT_SCRELU, QA, QB, SCALE) or not (
            64 <= hidden <= 1024 and hidden % 64 == 0):
        raise ValueError("unsupported dims/activation/quantisation")
    buckets = 1 if version == VERSION else res
    if not 1 <= buckets <= MAX_BUCKETS:
        raise ValueError(f"bad output bucket count {buckets} (1..{MAX_BUCKETS} allowed)")
    want = file_bytes(buckets, hidden, variant, version == VERSION_VARIANT)
    if len(data) != want:
        raise ValueError(f"size {len(data)}, a net with {buckets} output buckets has {want}")
    if fnv1a64(data[HEADER.size:]) != checksum:
        raise ValueError("checksum")
    body = data[HEADER.size + (V3_EXT.size if version == VERSION_VARIANT else 0):]
    o = 0
    ft_w = array("h", body[o:o + n_in * hidden * 2])
    o += n_in * hidden * 2
    ft_b = array("h", body[o:o + hidden * 2])
    o += hidden * 2
    out_w = array("h", body[o:o + buckets * 4 * hidden])
    o += buckets * 4 * hidden
    out_b = list(struct.unpack_from(f"<{buckets}i", body, o))
    return Net(ft_w, ft_b, out_w, out_b, variant, mirrored)


_TYPES = "pnbrqk"


def split_pocket(placement: str) -> tuple[str, str]:
    """(board, pocket) of a crazyhouse placement: "...[Pp]" (python-chess, Lichess) or a
    ninth rank "/Pp" (Lichess); the pocket is "" when there is none."""
    if placement.endswith("]") and "[" in placement:
        board, _, pocket = placement[:-1].partition("[")
        return board, pocket
    ranks = placement.split("/")
    if len(ranks) == 9:
        return "/".join(ranks[:8]), ranks[8]
    return placement, ""


def pocket_features(pocket: str) -> tuple[list[int], list[int]]:
    """Crazyhouse pocket features of White's and Black's perspective: the k-th man of a
    type in a pocket, k up to the type's cap."""
    white: list[int] = []
    black: list[int] = []
    for c in (0, 1):
        for t in range(5):
            letter = _TYPES[t].upper() if c == 0 else _TYPES[t]
            for k in range(min(pocket.count(letter), POCKET_CAP[t])):
                base = INPUTS + POCKET_BASE[t] + k
                white.append(base + (0 if c == 0 else POCKET_INPUTS // 2))
                black.append(base + (0 if c == 1 else POCKET_INPUTS // 2))
    return white, black


def board_features(pieces: list[tuple[int, int, int]], mirrored: bool = False
                   ) -> tuple[list[int], list[int]]:
    """White's and Black's board features of (colour, type, square) pieces, in their
    order; a mirrored net's perspective is mirrored by its own king's file."""
    kings = {c: s for c, t, s in pieces if t == 5}
    m = [mirror_xor(kings.get(p, 0), mirrored) for p in (0, 1)]
    return ([feature(0, c, t, s, m[0]) for c, t, s in pieces],
            [feature(1, c, t, s, m[1]) for c, t, s in pieces])


def features(fen: str, variant: int = 0, mirrored: bool = False
             ) -> tuple[list[int], list[int], int]:
    """Active feature indices for White's and Black's perspective, and the side to move
    (the board's first, in FEN order, then a crazyhouse net's pocket features, which
    never mirror)."""
    placement, side = fen.split()[:2]
    placement, pocket = split_pocket(placement)
    pieces: list[tuple[int, int, int]] = []
    rank = 7
    for row in placement.split("/"):
        file = 0
        for ch in row:
            if ch == "~":  # crazyhouse: the piece before was a pawn
                continue
            if ch.isdigit():
                file += int(ch)
                continue
            pieces.append((0 if ch.isupper() else 1, _TYPES.index(ch.lower()), rank * 8 + file))
            file += 1
        rank -= 1
    white, black = board_features(pieces, mirrored)
    if variant == CRAZYHOUSE:
        pw, pb = pocket_features(pocket)
        white += pw
        black += pb
    return white, black, 0 if side == "w" else 1


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def evaluate(net: Net, fen: str) -> int:
    """Centipawns from the side to move's view, as docs/nnue.md specifies."""
    white, black, stm = features(fen, net.variant, net.mirrored)
    k = bucket(sum(f < INPUTS for f in white), net.buckets)  # pieces on the board
    h = net.hidden
    ow = net.out_weight[k * 2 * h:(k + 1) * 2 * h]
    accs = []
    for feats in (white, black):
        acc = list(net.ft_bias)
        for f in feats:
            row = net.ft_weight[f * h:(f + 1) * h]
            acc = [a + w for a, w in zip(acc, row, strict=True)]
        accs.append(acc)
    us, them = accs[stm], accs[1 - stm]
    total = 0
    for i in range(h):
        total += min(max(us[i], 0), QA) ** 2 * ow[i]
        total += min(max(them[i], 0), QA) ** 2 * ow[h + i]
    v = _trunc_div(total, QA) + net.out_bias[k]
    return _trunc_div(v * SCALE, QA * QB)
