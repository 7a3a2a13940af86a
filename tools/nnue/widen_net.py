"""Write a net widened to another hidden width by appending neurons whose feature
weights, bias and output weights are all 0: SCReLU(0) = 0, so every eval is the
original's, exactly. It lets a net of an old width keep serving as a test net
(tests/data/) in an engine built for a wider one.

    python3 tools/nnue/widen_net.py NET.pbnn [OUT_DIR] [--hidden H]

writes OUT_DIR/<its pbnn name>.pbnn (OUT_DIR defaults to NET's directory; H to the
shipped width).
"""

from __future__ import annotations

import argparse
import sys
from array import array
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pbnn import HIDDEN, Net, name_of, parse  # noqa: E402


def widen(net: Net, hidden: int) -> Net:
    """`net` with zero neurons appended up to `hidden`."""
    h = net.hidden
    if not (h <= hidden <= 1024 and hidden % 64 == 0):
        raise ValueError(f"cannot widen a {h}-wide net to {hidden}")
    pad = array("h", bytes(2 * (hidden - h)))

    def rows(a: array[int], n: int) -> array[int]:
        out = array("h")
        for i in range(n):
            out.extend(a[i * h:(i + 1) * h])
            out.extend(pad)
        return out

    # ft_weight is feature-major; out_weight holds, per bucket, both perspectives' halves.
    return Net(rows(net.ft_weight, len(net.ft_weight) // h), rows(net.ft_bias, 1),
               rows(net.out_weight, 2 * net.buckets), list(net.out_bias), net.variant,
               net.mirrored)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("net", type=Path)
    ap.add_argument("out_dir", type=Path, nargs="?")
    ap.add_argument("--hidden", type=int, default=HIDDEN,
                    help=f"the new width, a multiple of 64 up to 1024 (default {HIDDEN})")
    args = ap.parse_args()
    try:
        data = widen(parse(args.net.read_bytes()), args.hidden).to_bytes()
    except (OSError, ValueError) as e:
        ap.error(f"{args.net}: {e}")
    out = (args.out_dir or args.net.parent) / f"{name_of(data)}.pbnn"
    out.write_bytes(data)
    sys.stdout.write(f"{out}: {len(data)} bytes\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
