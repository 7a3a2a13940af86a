"""The binary position records of engine_c/tools/datagen.c: open, decode, features.

A file is a 32-byte header, then fixed 32-byte little-endian records (the layout is
in datagen.c and docs/tuning.md). `open_records` maps the file (numpy memmap: nothing
is read until used, so a 30M-position file costs no RAM); `features` turns a slice of
records into the trainer's inputs and `record_fen` turns one back into a FEN (tests,
debugging). Needs numpy only.
"""

from __future__ import annotations

import logging
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

log = logging.getLogger("nnue-posdata")

MAGIC = b"PIBOTPOS"
VERSION = 1
HEADER = struct.Struct("<8sIIQII")  # magic, version, record size, seed, nodes, eval
RECORD_SIZE = 32
RECORD = np.dtype([("occ", "<u8"), ("pieces", "u1", (16,)), ("stm_ep", "u1"),
                   ("halfmove", "u1"), ("fullmove", "<u2"), ("score", "<i2"),
                   ("result", "u1"), ("game", "u1")])
assert RECORD.itemsize == RECORD_SIZE and HEADER.size == 32
UNMOVED_ROOK = 6  # a rook that still has its castling right
INPUTS = 768
PAD = INPUTS  # empty piece slot (the trainer's EmbeddingBag padding row)


class DataError(ValueError):
    """The file is not datagen output; the message names the file and the problem."""


@dataclass(frozen=True)
class Header:
    version: int
    seed: int
    nodes: int
    eval: str  # "hce" or "nnue"


def open_records(path: Path) -> tuple[Header, np.ndarray]:
    """The header and a read-only memmap of the whole records (a torn last record,
    from a run killed mid-write, is left out with a warning)."""
    size = path.stat().st_size
    with path.open("rb") as fh:
        head = fh.read(HEADER.size)
    if len(head) < HEADER.size or head[:8] != MAGIC:
        raise DataError(f"{path} is not a datagen file (no {MAGIC.decode()} header)")
    _magic, version, rec_size, seed, nodes, ev = HEADER.unpack(head)
    if version != VERSION or rec_size != RECORD_SIZE:
        raise DataError(f"{path}: datagen format version {version} with {rec_size}-byte "
                        f"records; this reader knows version {VERSION} ({RECORD_SIZE} bytes)")
    n, torn = divmod(size - HEADER.size, RECORD_SIZE)
    if torn:
        log.warning("%s: ignoring a torn last record (%d bytes)", path, torn)
    header = Header(version, seed, nodes, "nnue" if ev == 1 else "hce")
    if n == 0:
        return header, np.zeros(0, dtype=RECORD)
    return header, np.memmap(path, dtype=RECORD, mode="r", offset=HEADER.size, shape=(n,))


def _nibbles(recs: np.ndarray) -> np.ndarray:
    """(n, 32) piece codes in occupancy order (low nibble of each byte first)."""
    raw = recs["pieces"]
    out = np.empty((len(recs), 32), dtype=np.uint8)
    out[:, 0::2] = raw & 15
    out[:, 1::2] = raw >> 4
    return out


def features(recs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """White-perspective feature indices (n, 32), PAD-filled (colour * 384 + 64 * type +
    square, reference.fen_pieces' order of terms), and the side to move (0/1)."""
    n = len(recs)
    # The occupancy's 8 little-endian bytes unpacked low bit first: square order.
    occ = np.ascontiguousarray(recs["occ"]).view(np.uint8).reshape(n, 8)
    bits = np.unpackbits(occ, axis=1, bitorder="little").view(bool)
    slot = np.cumsum(bits, axis=1, dtype=np.int8) - 1
    rows, sqs = np.nonzero(bits)
    slots = slot[rows, sqs]
    code = _nibbles(recs)[rows, slots].astype(np.int16)
    kind = code & 7
    kind = np.where(kind == UNMOVED_ROOK, 3, kind)
    feats = np.full((n, 32), PAD, dtype=np.int16)
    feats[rows, slots] = (code >> 3) * 384 + 64 * kind + sqs
    return feats, (recs["stm_ep"] >> 7).astype(np.int8)


def record_fen(rec: np.void) -> str:
    """The FEN of one record (standard chess castling letters)."""
    occ = int(rec["occ"])
    codes = _nibbles(np.array([rec], dtype=RECORD))[0]
    board: dict[int, tuple[int, int]] = {}
    i = 0
    for sq in range(64):
        if occ >> sq & 1:
            board[sq] = (int(codes[i]) >> 3, int(codes[i]) & 7)
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
            row += ch.upper() if colour == 0 else ch
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
    return (f"{'/'.join(rows)} {side} {castling or '-'} {ep_str} {int(rec['halfmove'])} "
            f"{int(rec['fullmove'])}")
