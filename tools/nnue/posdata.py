"""The binary position records of engine_c/tools/datagen.c: open, decode, features.

A file is a 32-byte header, then fixed 32-byte little-endian records (the layout is
in datagen.c and docs/tuning.md); a variant's file (version 2) a 64-byte header naming
the variant and 64-byte records (the 32 bytes, then pieces 33..64, the variant, the
crazyhouse pockets and promoted marks, three-check's checks left). `open_records`
maps the file (numpy memmap: nothing is read until used, so a 30M-position file costs
no RAM); `features` turns a slice of records into the trainer's inputs (a crazyhouse
record's pocket features too) and `record_fen` turns one back into a FEN (tests,
debugging). Needs numpy only.
"""

from __future__ import annotations

import logging
import struct
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pbnn import (  # noqa: E402
    CRAZYHOUSE,
    INPUTS,
    POCKET_BASE,
    POCKET_CAP,
    POCKET_INPUTS,
    VARIANTS,
    max_men,
    variant_inputs,
)

log = logging.getLogger("nnue-posdata")

MAGIC = b"PIBOTPOS"
VERSION = 1
VERSION_VARIANT = 2
HEADER = struct.Struct("<8sIIQII")  # magic, version, record size, seed, nodes, eval
HEADER_VARIANT = struct.Struct("<8sIIQIII28x")  # ... and the variant (VAR_*)
RECORD_SIZE = 32
RECORD_SIZE_VARIANT = 64
_BASE_FIELDS = [("occ", "<u8"), ("pieces", "u1", (16,)), ("stm_ep", "u1"),
                ("halfmove", "u1"), ("fullmove", "<u2"), ("score", "<i2"),
                ("result", "u1"), ("game", "u1")]
RECORD = np.dtype(_BASE_FIELDS)
RECORD_VARIANT = np.dtype([*_BASE_FIELDS, ("pieces2", "u1", (16,)), ("variant", "u1"),
                           ("pockets", "u1", (2, 5)), ("checks", "u1"), ("promoted", "<u4")])
assert RECORD.itemsize == RECORD_SIZE and HEADER.size == 32
assert RECORD_VARIANT.itemsize == RECORD_SIZE_VARIANT and HEADER_VARIANT.size == 64
UNMOVED_ROOK = 6  # a rook that still has its castling right
PAD = INPUTS  # empty piece slot (the trainer's EmbeddingBag padding row; a crazyhouse
#               net's is after its pocket inputs: variant_pad)


class DataError(ValueError):
    """The file is not datagen output; the message names the file and the problem."""


@dataclass(frozen=True)
class Header:
    version: int
    seed: int
    nodes: int
    eval: str  # "hce" or "nnue": what played
    variant: int = 0  # pbnn.VARIANTS index (VAR_* of engine_c/types.h); 0 standard chess


def variant_pad(variant: int) -> int:
    """The padding feature of a net of this variant: its input count."""
    return variant_inputs(variant)


def open_records(path: Path) -> tuple[Header, np.ndarray]:
    """The header and a read-only memmap of the whole records (a torn last record,
    from a run killed mid-write, is left out with a warning)."""
    size = path.stat().st_size
    with path.open("rb") as fh:
        head = fh.read(HEADER.size)
    if len(head) < HEADER.size or head[:8] != MAGIC:
        raise DataError(f"{path} is not a datagen file (no {MAGIC.decode()} header)")
    _magic, version, rec_size, seed, nodes, ev = HEADER.unpack(head)
    variant, hsize, dtype = 0, HEADER.size, RECORD
    if version == VERSION_VARIANT and rec_size == RECORD_SIZE_VARIANT:
        with path.open("rb") as fh:
            head = fh.read(HEADER_VARIANT.size)
        if len(head) < HEADER_VARIANT.size:
            raise DataError(f"{path}: shorter than a version {version} header")
        variant = HEADER_VARIANT.unpack(head)[6]
        if not 0 < variant < len(VARIANTS):
            raise DataError(f"{path}: the header names variant {variant}, not one of 1.."
                            f"{len(VARIANTS) - 1}")
        hsize, dtype = HEADER_VARIANT.size, RECORD_VARIANT
    elif version != VERSION or rec_size != RECORD_SIZE:
        raise DataError(f"{path}: datagen format version {version} with {rec_size}-byte "
                        f"records; this reader knows version {VERSION} ({RECORD_SIZE} bytes) "
                        f"and {VERSION_VARIANT} ({RECORD_SIZE_VARIANT} bytes, a variant)")
    n, torn = divmod(size - hsize, dtype.itemsize)
    if torn:
        log.warning("%s: ignoring a torn last record (%d bytes)", path, torn)
    header = Header(version, seed, nodes, "nnue" if ev == 1 else "hce", variant)
    if n == 0:
        return header, np.zeros(0, dtype=dtype)
    return header, np.memmap(path, dtype=dtype, mode="r", offset=hsize, shape=(n,))


def _nibbles(recs: np.ndarray) -> np.ndarray:
    """(n, 32) piece codes in occupancy order (low nibble of each byte first); (n, 64)
    for a variant's records (pieces 33..64: the horde's)."""
    raw = recs["pieces"]
    if recs.dtype == RECORD_VARIANT:
        raw = np.concatenate([raw, recs["pieces2"]], axis=1)
    out = np.empty((len(recs), 2 * raw.shape[1]), dtype=np.uint8)
    out[:, 0::2] = raw & 15
    out[:, 1::2] = raw >> 4
    return out


# The 60 pocket features (White's perspective) and, for each, the colour, type and
# count it stands for: feature 768 + 30 c + POCKET_BASE[t] + k is on when the pocket
# of colour c holds more than k men of type t (pawn 0 .. queen 4).
_POCKET_FEATURE = np.arange(INPUTS, INPUTS + POCKET_INPUTS, dtype=np.int16)
_POCKET_COLOUR = np.repeat([0, 1], POCKET_INPUTS // 2)
_POCKET_TYPE = np.tile(np.repeat(np.arange(5), POCKET_CAP), 2)
_POCKET_K = np.tile(np.concatenate([np.arange(c) for c in POCKET_CAP]), 2)
assert all(POCKET_BASE[t] == int(np.argmax(_POCKET_TYPE == t)) for t in range(5))


def features(recs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """White-perspective feature indices (n, 32), PAD-filled (colour * 384 + 64 * type +
    square, reference.fen_pieces' order of terms), and the side to move (0/1).

    A variant's records (all of one variant): (n, max_men) indices, the board's first,
    then a crazyhouse record's pocket features, padded with variant_pad(variant)."""
    n = len(recs)
    variant = int(recs["variant"][0]) if recs.dtype == RECORD_VARIANT and n else 0
    width = 32 if recs.dtype == RECORD else 64
    # The occupancy's 8 little-endian bytes unpacked low bit first: square order.
    occ = np.ascontiguousarray(recs["occ"]).view(np.uint8).reshape(n, 8)
    bits = np.unpackbits(occ, axis=1, bitorder="little").view(bool)
    slot = np.cumsum(bits, axis=1, dtype=np.int8) - 1
    rows, sqs = np.nonzero(bits)
    slots = slot[rows, sqs]
    code = _nibbles(recs)[rows, slots].astype(np.int16)
    kind = code & 7
    kind = np.where(kind == UNMOVED_ROOK, 3, kind)
    pad = variant_pad(variant)
    feats = np.full((n, width), pad, dtype=np.int16)
    feats[rows, slots] = (code >> 3) * 384 + 64 * kind + sqs
    stm = (recs["stm_ep"] >> 7).astype(np.int8)
    if recs.dtype == RECORD:
        return feats, stm
    if n and np.any(recs["variant"] != variant):
        raise DataError("records of several variants in one slice: train one variant a net")
    if variant == CRAZYHOUSE:
        counts = recs["pockets"][:, _POCKET_COLOUR, _POCKET_TYPE]      # (n, 60)
        pocket = np.where(_POCKET_K < counts, _POCKET_FEATURE, pad).astype(np.int16)
        feats = np.concatenate([feats, pocket], axis=1)
    # Active features first (board, then pockets), at most the variant's men of them.
    order = np.argsort(feats == pad, axis=1, kind="stable")
    feats = np.take_along_axis(feats, order, axis=1)[:, :max_men(variant)]
    return np.ascontiguousarray(feats), stm


def record_fen(rec: np.void) -> str:
    """The FEN of one record (standard chess castling letters; a crazyhouse pocket in
    brackets and promoted pieces marked ~, three-check's checks left as "3+3" after the
    en-passant field: the FENs python-chess writes)."""
    occ = int(rec["occ"])
    var = rec.dtype == RECORD_VARIANT
    codes = _nibbles(np.array([rec], dtype=rec.dtype))[0]
    board: dict[int, tuple[int, int]] = {}
    promoted: set[int] = set()
    i = 0
    for sq in range(64):
        if occ >> sq & 1:
            board[sq] = (int(codes[i]) >> 3, int(codes[i]) & 7)
            if var and i < 32 and int(rec["promoted"]) >> i & 1:
                promoted.add(sq)
            i += 1
    rows = []
    for rank in range(7, -1, -1):
        row, empty = "", 0
        for file in range(8):
            piece = board.get(rank * 8 + file)
            if piece is None:
                empty += 1
                continue
            if empty:
                row, empty = row + str(empty), 0
            colour, kind = piece
            ch = "pnbrqk"[3 if kind == UNMOVED_ROOK else kind]
            row += (ch.upper() if colour == 0 else ch) + ("~" if rank * 8 + file in promoted
                                                          else "")
        rows.append(row + (str(empty) if empty else ""))
    castling = ""
    for colour, letters in ((0, "KQ"), (1, "kq")):
        king = next((sq for sq, p in board.items() if p == (colour, 5)), None)
        rooks = sorted(sq for sq, p in board.items() if p == (colour, UNMOVED_ROOK))
        if king is None:
            continue
        castling += "".join(letters[0] for sq in rooks if sq > king)
        castling += "".join(letters[1] for sq in rooks if sq < king)
    ep = int(rec["stm_ep"]) & 127
    ep_str = "-" if ep == 64 else "abcdefgh"[ep % 8] + str(ep // 8 + 1)
    side = "b" if int(rec["stm_ep"]) >> 7 else "w"
    placement, checks = "/".join(rows), ""
    variant = int(rec["variant"]) if var else 0
    if variant == CRAZYHOUSE:
        pockets = rec["pockets"]
        placement += "[" + "".join(("PNBRQ" if c == 0 else "pnbrq")[t] * int(pockets[c][t])
                                   for c in (0, 1) for t in range(5)) + "]"
    elif VARIANTS[variant] == "3check":
        checks = f" {int(rec['checks']) & 15}+{int(rec['checks']) >> 4}"
    return (f"{placement} {side} {castling or '-'} {ep_str}{checks} {int(rec['halfmove'])} "
            f"{int(rec['fullmove'])}")
