"""Write a deterministic test net (small pseudo-random weights, fixed seed) in the .pbnn
format, as a stand-in for engine_c/nets/default.pbnn until the trainer ships a real one.

    python3 tools/nnue/make_random_net.py [OUT] [--seed N] [--buckets B] [--hidden H]
        [--variant NAME] [--mirrored]

--buckets B > 1 writes a v2 net with B output buckets (each its own random weights);
the default, 1, writes the same v1 file as before buckets existed. --hidden H (a
multiple of 64, default the shipped 384) makes a net for an engine built for that width
(`make NET=...` in engine_c/), e.g. to measure a wider net's speed. --variant NAME
(UCI_Variant's, e.g. crazyhouse) writes a v3 net of that variant (a crazyhouse net has
the 60 pocket inputs too). --mirrored sets the v3 flag of mirrored inputs (the same
random weights, read by each perspective's king half: docs/nnue.md).

The weights mean nothing for chess strength; they exercise every code path with values
inside the contract's ranges (|ft| <= 505, |out| <= 127).
"""

from __future__ import annotations

import argparse
import random
import sys
from array import array
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pbnn import (  # noqa: E402
    HIDDEN,
    MAX_BUCKETS,
    NO_MIRROR,
    VARIANTS,
    Net,
    name_of,
    variant_inputs,
)

ROOT = Path(__file__).resolve().parents[2]


def make(seed: int, buckets: int = 1, hidden: int = HIDDEN, variant: int = 0,
         mirrored: bool = False) -> Net:
    rng = random.Random(seed)
    ft_w = array("h", (rng.randint(-12, 12) for _ in range(variant_inputs(variant) * hidden)))
    ft_b = array("h", (rng.randint(20, 120) for _ in range(hidden)))
    # (In this order one bucket draws exactly what the v1-only version drew.)
    out_w = array("h", (rng.randint(-40, 40) for _ in range(buckets * 2 * hidden)))
    return Net(ft_w, ft_b, out_w, [rng.randint(-2000, 2000) for _ in range(buckets)], variant,
               mirrored)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", nargs="?", default=str(ROOT / "engine_c/nets/default.pbnn"))
    ap.add_argument("--seed", type=int, default=20261123)
    ap.add_argument("--buckets", type=int, default=1,
                    help=f"output buckets, 1..{MAX_BUCKETS} (1: a v1 file, more: v2)")
    ap.add_argument("--hidden", type=int, default=HIDDEN,
                    help=f"hidden width, a multiple of 64 in 64..1024 (default {HIDDEN})")
    ap.add_argument("--variant", default="chess", choices=VARIANTS,
                    help="the net's variant (default chess: a v1/v2 file; else v3)")
    ap.add_argument("--mirrored", action="store_true",
                    help="mirrored inputs (a v3 file with the flag)")
    args = ap.parse_args()
    if not variant_inputs(VARIANTS.index(args.variant)):
        ap.error(f"--variant {args.variant}: no net of this engine serves it")
    if args.mirrored and args.variant in NO_MIRROR:
        ap.error(f"--mirrored: {args.variant} nets cannot mirror (not one king a side)")
    if not 1 <= args.buckets <= MAX_BUCKETS:
        ap.error(f"--buckets {args.buckets}: use 1..{MAX_BUCKETS}")
    if not (64 <= args.hidden <= 1024 and args.hidden % 64 == 0):
        ap.error(f"--hidden {args.hidden}: use a multiple of 64 in 64..1024")
    data = make(args.seed, args.buckets, args.hidden, VARIANTS.index(args.variant),
                args.mirrored).to_bytes()
    Path(args.out).write_bytes(data)
    sys.stdout.write(f"{args.out}: {len(data)} bytes, {name_of(data)}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
