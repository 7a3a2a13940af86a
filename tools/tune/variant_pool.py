"""Pool variant games per variant: pibot's score, its Elo with a 95% interval,
and the games pibot lost on time, by an illegal move or by failing.

Reads every *.pgn in the directories given (tools/tune/variant_pass.sh's jobs,
bench/variant_match.py's --pgn); pibot is the player named "pibot", the
variant comes from the Event header ("variant match <variant>").

    python tools/tune/variant_pool.py docs/matches/variants/fsf-055edee
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path

import chess.pgn
from engine_match import Tally  # tools/tune/, beside this script

PIBOT = "pibot"


@dataclass
class Pool:
    tally: Tally = field(default_factory=Tally)
    faults: dict[str, int] = field(default_factory=dict)

    def add(self, score: float, termination: str) -> None:
        self.tally.add(score)
        for kind, words in (("time", "lost on time"), ("illegal", "illegal"),
                            ("failed", "failed")):
            if termination.startswith(PIBOT + " ") and words in termination:
                self.faults[kind] = self.faults.get(kind, 0) + 1


def pool(paths: list[Path]) -> dict[str, Pool]:
    pools: dict[str, Pool] = {}
    for path in paths:
        with path.open(encoding="utf-8", errors="replace") as fh:
            while (game := chess.pgn.read_headers(fh)) is not None:
                white, black = game.get("White"), game.get("Black")
                if white is None and black is None:
                    raise ValueError(f"{path}: not a PGN of games (no White or Black header)")
                if PIBOT not in (white, black):
                    raise ValueError(f"{path}: a game without a player named {PIBOT!r} "
                                     f"({white} vs {black})")
                event = game.get("Event", "")
                variant = event.removeprefix("variant match ").strip() or "?"
                result = game.get("Result", "*")
                if result not in ("1-0", "0-1", "1/2-1/2"):
                    raise ValueError(f"{path}: a game without a result ({result!r})")
                score = {"1-0": 1.0, "0-1": 0.0}.get(result, 0.5)
                if black == PIBOT:
                    score = 1.0 - score
                pools.setdefault(variant, Pool()).add(score, game.get("Termination", ""))
    return pools


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="+", type=Path, help="directories of PGNs (or PGN files)")
    args = ap.parse_args(argv)
    paths: list[Path] = []
    for d in args.dirs:
        if d.is_dir():
            paths.extend(sorted(d.glob("*.pgn")))
        elif d.is_file():
            paths.append(d)
        else:
            sys.stderr.write(f"variant_pool: {d}: no such directory or file\n")
            return 2
    try:
        pools = pool(paths)
    except (OSError, ValueError) as exc:
        sys.stderr.write(f"variant_pool: {exc}\n")
        return 2
    if not pools:
        sys.stderr.write("variant_pool: no games in " + ", ".join(map(str, args.dirs)) + "\n")
        return 2
    out = ["| variant | games | +W =D -L | score | Elo (95%) "
           "| pibot's time losses / illegal / failed |", "|---|---|---|---|---|---|"]
    for variant in sorted(pools):
        p, t = pools[variant], pools[variant].tally
        elo, half = t.elo()
        faults = " / ".join(str(p.faults.get(k, 0)) for k in ("time", "illegal", "failed"))
        out.append(f"| {variant} | {t.games} | +{t.wins} ={t.draws} -{t.losses} "
                   f"| {100 * t.score:.1f}% | {round(elo) + 0:+d} +/- {half:.0f} | {faults} |")
    sys.stdout.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
