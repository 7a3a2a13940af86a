"""Compare two builds or nets by their games against the same third engine.

Each PGN holds one candidate's games against a common opponent (a gauntlet),
played on the same openings in the same colours (fastchess with the same
`-srand`, or match.py with the same `--seed`). Games are matched by their
variant, their first 16 plies (`--plies`) and the candidate's colour, games of
one key in file order, and the per-pair score difference
gives the comparison with its 95% interval: the opponent's strength cancels,
and the pairing removes part of the opening noise. Against a third engine a
change shows what it is worth outside self-play, where a net trained on its
own engine's games can look better than it is (docs/strength.md, "NNUE round
3").

    python tools/tune/paired_score.py NEW.pgn OLD.pgn --name pibot

`--name` is the candidate's name in the PGN's White/Black tags (fastchess:
the engine's `name=`; match.py: "engine"). bench/variant_match.py's games
open with its seeded random plies and part after them: `--plies 2` for
`--random-plies 2`, both sides' job PGNs joined in the same order.
"""

from __future__ import annotations

import argparse
import gzip
import math
import re
import sys
import zlib
from dataclasses import dataclass
from pathlib import Path

OPENING_PLIES = 16
_TAG = re.compile(r"\[(\w+)\s+\"([^\"]*)\"\]")
_COMMENT = re.compile(r"\{[^}]*\}")
_MOVE_NUMBER = re.compile(r"^\d+\.+$|^\d+\.\.\.$")
_RESULTS = {"1-0", "0-1", "1/2-1/2", "*"}


class PgnError(ValueError):
    """A PGN this tool cannot score."""


@dataclass(frozen=True)
class Comparison:
    pairs: int
    score_new: float          # fractions of the paired games
    score_old: float
    diff: float               # mean per-pair difference (new - old), in game points
    half_width: float         # 95% half-width of `diff`

    @property
    def elo_new(self) -> float:
        return elo(self.score_new)

    @property
    def elo_old(self) -> float:
        return elo(self.score_old)

    def elo_diff(self) -> tuple[float, float]:
        """Elo difference and its 95% half-width (the delta method at the
        pooled score: d Elo / d score = 400 / (ln 10 * s * (1 - s)))."""
        s = (self.score_new + self.score_old) / 2
        slope = 400 / (math.log(10) * s * (1 - s)) if 0 < s < 1 else float("inf")
        return self.elo_new - self.elo_old, slope * self.half_width


def elo(score: float) -> float:
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


Key = tuple[str, str, bool]   # (variant, opening plies, candidate is White)


def load(path: Path, name: str, plies: int = OPENING_PLIES) -> dict[Key, list[float]]:
    """(variant, the first `plies` plies, candidate is White) -> the candidate's
    scores, in file order."""
    try:
        raw = path.read_bytes()
        if raw[:2] == b"\x1f\x8b":  # gzip, as the PGNs in docs/matches/ are kept
            raw = gzip.decompress(raw)
    except OSError as exc:
        raise PgnError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except (EOFError, zlib.error) as exc:
        raise PgnError(f"{path}: a damaged gzip file ({exc}); gunzip -t names the fault")\
            from None
    text = raw.decode("utf-8", errors="replace")
    games: dict[Key, list[float]] = {}
    blocks = re.split(r"\n\s*\n(?=\[)", text.strip())
    for block in blocks:
        tags = dict(_TAG.findall(block))
        if "White" not in tags or "Result" not in tags:
            continue
        if name not in (tags["White"], tags.get("Black")):
            raise PgnError(f"{path}: a game without {name!r} as White or Black "
                           f"({tags['White']} vs {tags.get('Black')}); pass --name")
        result = tags["Result"]
        if result not in ("1-0", "0-1", "1/2-1/2"):
            continue        # unfinished
        movetext = _COMMENT.sub(" ", _TAG.sub(" ", block))
        moves = [t for t in movetext.split() if not _MOVE_NUMBER.match(t) and t not in _RESULTS]
        white = tags["White"] == name
        score = 0.5 if result == "1/2-1/2" else float((result == "1-0") == white)
        key = (tags.get("Variant", ""), " ".join(moves[:plies]), white)
        games.setdefault(key, []).append(score)
    if not games:
        raise PgnError(f"{path}: no finished games found")
    return games


def compare(new: dict[Key, list[float]], old: dict[Key, list[float]]) -> Comparison:
    diffs: list[float] = []
    sn = so = 0.0
    for key, scores in new.items():
        for a, b in zip(scores, old.get(key, []), strict=False):  # extra games: no twin
            diffs.append(a - b)
            sn += a
            so += b
    n = len(diffs)
    if n < 2:
        raise PgnError(f"only {n} game(s) share an opening and colour; "
                       "were both played with the same openings and seed?")
    mean = sum(diffs) / n
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1))
    return Comparison(n, sn / n, so / n, mean, 1.96 * sd / math.sqrt(n))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("new", type=Path, help="PGN of the candidate's games")
    ap.add_argument("old", type=Path, help="PGN of the baseline's games (same openings)")
    ap.add_argument("--name", default="pibot", help="the candidate's name in the PGNs")
    ap.add_argument("--plies", type=int, default=OPENING_PLIES,
                    help=f"the opening's length in plies, the games' key (default {OPENING_PLIES}, "
                         "a book's 8 moves; bench/variant_match.py: its --random-plies)")
    args = ap.parse_args(argv)
    if args.plies < 1:
        sys.stderr.write(f"paired_score: --plies {args.plies}: the opening has at least 1 ply\n")
        return 2
    try:
        new, old = load(args.new, args.name, args.plies), load(args.old, args.name, args.plies)
        c = compare(new, old)
    except PgnError as exc:
        sys.stderr.write(f"paired_score: {exc}\n")
        return 2
    d, h = c.elo_diff()

    def scope(games: dict[Key, list[float]]) -> str:
        # the scores are the paired games' only: say so when a file has more
        total = sum(len(v) for v in games.values())
        return "" if total == c.pairs else f" on its {c.pairs} paired games of {total}"

    sys.stdout.write(
        f"{args.new}: {100 * c.score_new:.1f}%{scope(new)} "
        f"({c.elo_new:+.0f} Elo against the opponent)\n"
        f"{args.old}: {100 * c.score_old:.1f}%{scope(old)} "
        f"({c.elo_old:+.0f} Elo against the opponent)\n"
        f"paired games {c.pairs}: difference {100 * c.diff:+.2f} +/- {100 * c.half_width:.2f} "
        f"points (95%), {d:+.1f} +/- {h:.1f} Elo\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
