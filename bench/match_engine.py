"""Play the shared match.py against a UCI engine its opponent table does not list.

match.py (../shared/tools/match.py) is the harness of every 10+0.1 run in
docs/strength.md: same openings, clock rules and summary line. Its opponents are
a fixed table; this registers one more (by default Ethereal 12.00 from Debian's
ethereal-chess, one thread, 64 MB, as issue 11 asks) and hands the remaining
arguments to match.py unchanged:

    python bench/match_engine.py --engine "pibot uci" --engine-opt Hash=64 \\
        --engine-opt Threads=1 --games 200 --tc 10+0.1 --concurrency 2 --seed 1 \\
        --pgn /tmp/ethereal.pgn

`--skip-openings K` plays the openings after the first K of the seed's order: with
--games 200 --skip-openings 100 it plays games 201-400 of a 400-game run with the
same seed (match.py gives opening i//2 to games i and i+1, from one shuffle of the
book that does not depend on --games), so a 400-game run can be made of two halves.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _shared_match_tool() -> Path:
    # The repository sits beside ../shared on the team's machines and in CI.
    return Path(__file__).resolve().parents[1].parent / "shared" / "tools" / "match.py"


# A UCI option's value as python-chess's configure() takes it.
UciValue = str | int | bool | None


def uci_option(text: str) -> tuple[str, UciValue]:
    """NAME=VALUE of a UCI option from the command line (ints and booleans typed)."""
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    if value.lstrip("-").isdigit():
        return name, int(value)
    return name, {"true": True, "false": False}.get(value.lower(), value)


OpeningLoader = Callable[[str, int, int], list[Any]]


def skipping(load: OpeningLoader, skip: int) -> OpeningLoader:
    """match.py's load_openings(path, n, seed), starting after the first `skip`."""
    def later(path: str, n: int, seed: int) -> list[Any]:
        return load(path, n + skip, seed)[skip:]
    return later


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog="Other arguments go to match.py (--engine, --games, "
                                        "--tc, --concurrency, --seed, --book, --pgn).")
    ap.add_argument("--opp-name", default="ethereal", help="name in the summary line")
    ap.add_argument("--opp-cmd", default="/usr/games/ethereal-chess",
                    help="UCI command of the opponent")
    ap.add_argument("--opp-opt", type=uci_option, action="append", default=None,
                    metavar="NAME=VALUE",
                    help="opponent UCI option (repeatable; default Threads=1 Hash=64)")
    ap.add_argument("--match-tool", type=Path, default=_shared_match_tool())
    ap.add_argument("--skip-openings", type=int, default=0, metavar="K",
                    help="start after the seed's first K openings (a later part of a longer run)")
    args, rest = ap.parse_known_args(argv)
    if args.skip_openings < 0:
        ap.error("--skip-openings: 0 or more")
    if not args.match_tool.is_file():
        ap.error(f"match.py not found at {args.match_tool}; pass --match-tool PATH")
    exe = args.opp_cmd.split()[0]
    if shutil.which(exe) is None:
        ap.error(f"opponent {exe} not found; install it (ethereal-chess: "
                 "`sudo apt-get install ethereal-chess`) or pass --opp-cmd")
    if "--opp" in rest:
        ap.error("--opp is set by this script; use --opp-name/--opp-cmd")
    spec = importlib.util.spec_from_file_location("shared_match", args.match_tool)
    assert spec is not None and spec.loader is not None
    match: Any = importlib.util.module_from_spec(spec)  # the shared tool, loaded by path
    spec.loader.exec_module(match)
    options = dict(args.opp_opt or [("Threads", 1), ("Hash", 64)])
    match.OPPONENTS[args.opp_name] = ("uci", args.opp_cmd, options)
    if args.skip_openings:
        match.load_openings = skipping(match.load_openings, args.skip_openings)
    sys.argv = [str(args.match_tool), "--opp", args.opp_name, *rest]
    asyncio.run(match.main())
    return 0


if __name__ == "__main__":
    sys.exit(main())
