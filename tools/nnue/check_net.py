"""Sanity figures of a .pbnn net, through the integer reference (tools/nnue/reference.py).

The first line names the net: its output buckets, its variant and its inputs (plain, or
mirrored by each side's king file: the v3 flag, docs/nnue.md).
1. Evals of fixed positions: the start position (near 0), a queen up for
   either side (strongly positive for the side with the queen), and colour
   symmetry (every position and its colour-flipped twin evaluate the same).
2. With a data file (position records of engine_c/tools/datagen.c): on every
   10th position of the validation games (game number 9 mod 10, as train.py
   splits them), the mean absolute difference from the labelling search's
   score, for the net and for the engine's static HCE (the built engine,
   through cffi).

    python3 tools/nnue/check_net.py engine_c/nets/candidate.pbnn [--data /tmp/nnue/data.bin]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pbnn  # noqa: E402
import posdata  # noqa: E402
import reference as ref  # noqa: E402

FIXED = {
    "start, White to move": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "start, Black to move": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1",
    "White a queen up, White to move": "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "White a queen up, Black to move": "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1",
    "Italian, White to move": "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "Q+3P v 3P, Black to move": "6k1/5ppp/8/8/8/8/5PPP/3Q2K1 b - - 0 1",
}


def flip(fen: str) -> str:
    """The colour-flipped position: ranks mirrored, colours and side to move swapped."""
    board, side, *rest = fen.split()
    flipped = "/".join(reversed(board.split("/"))).swapcase()
    castling = rest[0] if rest else "-"
    castling = "".join(sorted(castling.swapcase(), key="KQkq".find)) if castling != "-" else "-"
    ep = rest[1] if len(rest) > 1 else "-"
    if ep != "-":
        ep = ep[0] + ("6" if ep[1] == "3" else "3")
    tail = rest[2:] or ["0", "1"]
    return " ".join([flipped, "b" if side == "w" else "w", castling, ep, *tail])


def out(text: str) -> None:
    sys.stdout.write(text + "\n")


def fixed(net: ref.QuantNet) -> bool:
    ok = True
    for name, fen in FIXED.items():
        a, b = ref.evaluate(net, fen), ref.evaluate(net, flip(fen))
        ok &= a == b
        out(f"{a:7d} cp  (flipped {b:7d})  {name}")
    out("colour symmetry: " + ("ok" if ok else "BROKEN"))
    return ok


def against_data(net: ref.QuantNet, data: Path) -> None:
    from bot.engine import search_bindings as sb

    header, recs = posdata.open_records(data)
    if header.variant != net.variant:
        raise posdata.DataError(f"{data} holds {pbnn.VARIANTS[header.variant]} positions, the "
                                f"net is {pbnn.VARIANTS[net.variant]}'s")
    rows = np.flatnonzero(recs["game"] % 10 == 9)[::10]
    engine = sb.engine_new(16, 1)
    sb.set_eval(engine, "hce")  # the default eval is the embedded net since pbnn-1580058a
    variant = pbnn.VARIANTS[header.variant]  # a variant's static eval: its hand-crafted one
    hce, nnue, score = [], [], []
    for i in rows:
        fen = posdata.record_fen(recs[i])
        sign = 1 if fen.split()[1] == "w" else -1
        sb.set_position(engine, fen, [], False, variant)
        hce.append(sb.evaluate(engine))
        nnue.append(ref.evaluate(net, fen))
        score.append(int(recs[i]["score"]) * sign)  # White's view -> side to move's
    h, n, s = np.array(hce), np.array(nnue), np.array(score)
    out(f"{len(rows)} validation positions, mean |eval - search score|: "
        f"net {np.abs(n - s).mean():.1f} cp, static HCE {np.abs(h - s).mean():.1f} cp; "
        f"correlation net {np.corrcoef(n, s)[0, 1]:.4f}, HCE {np.corrcoef(h, s)[0, 1]:.4f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("net", type=Path)
    ap.add_argument("--data", type=Path,
                    help="position records of engine_c/tools/datagen.c to compare against")
    args = ap.parse_args()
    try:
        net = ref.read_pbnn(args.net)
    except (ref.NetError, OSError) as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 1
    inputs = "mirrored inputs (by each side's king file)" if net.mirrored else "plain inputs"
    out(f"net {net.name} ({args.net}), {net.buckets} output bucket(s), "
        f"{pbnn.VARIANTS[net.variant]}, {inputs}")
    ok = fixed(net)
    if args.data:
        try:
            against_data(net, args.data)
        except (posdata.DataError, OSError) as exc:
            sys.stderr.write(f"error: {exc}\n")
            return 1
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
