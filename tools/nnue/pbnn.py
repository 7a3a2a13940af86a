"""The .pbnn net file (docs: /work/notes/nnue_format.md, engine_c/nnue.h): read, write, and
evaluate it in pure Python with exactly the integer arithmetic the C engine uses.

The reference evaluator ties the C engine to the trainer's contract: tests compare
engine_c/nnue.c against `evaluate()` here on the same file.
"""

from __future__ import annotations

import struct
from array import array
from dataclasses import dataclass

MAGIC = b"PIBOTNN\0"
VERSION = 1
INPUTS = 768
HIDDEN = 256
ACT_SCRELU = 1
QA, QB, SCALE = 255, 64, 400
HEADER = struct.Struct("<8sIIIIiiiIQ")  # 48 bytes
PAYLOAD_BYTES = INPUTS * HIDDEN * 2 + HIDDEN * 2 + 2 * HIDDEN * 2 + 4
FILE_BYTES = HEADER.size + PAYLOAD_BYTES  # 394,804


def fnv1a64(data: bytes) -> int:
    h = 0xCBF29CE484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


@dataclass
class Net:
    ft_weight: array   # int16, INPUTS * HIDDEN, feature-major
    ft_bias: array     # int16, HIDDEN
    out_weight: array  # int16, 2 * HIDDEN (side to move first)
    out_bias: int

    def payload(self) -> bytes:
        return (self.ft_weight.tobytes() + self.ft_bias.tobytes() + self.out_weight.tobytes()
                + struct.pack("<i", self.out_bias))

    def to_bytes(self) -> bytes:
        body = self.payload()
        head = HEADER.pack(MAGIC, VERSION, INPUTS, HIDDEN, ACT_SCRELU, QA, QB, SCALE, 0,
                           fnv1a64(body))
        return head + body


def name_of(data: bytes) -> str:
    """'pbnn-' + the first 8 hex digits of the checksum field."""
    return f"pbnn-{HEADER.unpack_from(data)[9]:016x}"[:13]


def parse(data: bytes) -> Net:
    """A .pbnn file's weights; ValueError naming the problem if it is not one."""
    if len(data) < HEADER.size or data[:8] != MAGIC:
        raise ValueError("bad magic")
    magic, version, inputs, hidden, act, qa, qb, scale, _res, checksum = HEADER.unpack_from(data)
    if version != VERSION:
        raise ValueError(f"version {version}")
    if (inputs, hidden, act, qa, qb, scale) != (INPUTS, HIDDEN, ACT_SCRELU, QA, QB, SCALE):
        raise ValueError("unsupported dims/activation/quantisation")
    if len(data) != FILE_BYTES:
        raise ValueError(f"size {len(data)}")
    body = data[HEADER.size:]
    if fnv1a64(body) != checksum:
        raise ValueError("checksum")
    o = 0
    ft_w = array("h", body[o:o + INPUTS * HIDDEN * 2])
    o += INPUTS * HIDDEN * 2
    ft_b = array("h", body[o:o + HIDDEN * 2])
    o += HIDDEN * 2
    out_w = array("h", body[o:o + 4 * HIDDEN])
    o += 4 * HIDDEN
    (out_b,) = struct.unpack_from("<i", body, o)
    return Net(ft_w, ft_b, out_w, out_b)


_TYPES = "pnbrqk"


def features(fen: str) -> tuple[list[int], list[int], int]:
    """Active feature indices for White's and Black's perspective, and the side to move."""
    placement, side = fen.split()[:2]
    white: list[int] = []
    black: list[int] = []
    rank = 7
    for row in placement.split("/"):
        file = 0
        for ch in row:
            if ch.isdigit():
                file += int(ch)
                continue
            sq = rank * 8 + file
            c = 0 if ch.isupper() else 1
            t = _TYPES.index(ch.lower())
            white.append((0 if c == 0 else 384) + 64 * t + sq)
            black.append((0 if c == 1 else 384) + 64 * t + (sq ^ 56))
            file += 1
        rank -= 1
    return white, black, 0 if side == "w" else 1


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def evaluate(net: Net, fen: str) -> int:
    """Centipawns from the side to move's view, as nnue_format.md specifies."""
    white, black, stm = features(fen)
    accs = []
    for feats in (white, black):
        acc = list(net.ft_bias)
        for f in feats:
            row = net.ft_weight[f * HIDDEN:(f + 1) * HIDDEN]
            acc = [a + w for a, w in zip(acc, row, strict=True)]
        accs.append(acc)
    us, them = accs[stm], accs[1 - stm]
    total = 0
    for i in range(HIDDEN):
        total += min(max(us[i], 0), QA) ** 2 * net.out_weight[i]
        total += min(max(them[i], 0), QA) ** 2 * net.out_weight[HIDDEN + i]
    v = _trunc_div(total, QA) + net.out_bias
    return _trunc_div(v * SCALE, QA * QB)
