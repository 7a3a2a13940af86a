"""What a book and Syzygy tables are worth in play (issue 10, docs/strength.md):
pibot with OwnBook + BookFile + SyzygyPath against Phalanx, then plain pibot
against Phalanx, on the same openings, colours swapped, concurrency 1.

    nice -n 19 python bench/sources_match.py --book-file ../shared/books/performance.bin \\
        --syzygy-path ../shared/syzygy --games 200 --tc 10+0.1

Both matches are played by the shared match tool (`match.py`: paired openings
from 8moves_v3.pgn chosen by --seed, its own clocks, a flag is a loss), the
tool every earlier strength figure in docs/strength.md comes from, so the two
runs differ only in the UCI options. Prints match.py's lines for each run,
then both scores with Elo and 95% error bars, and the difference.

The 8moves_v3 openings end at ply 16, where few positions are in a book (11 of
100 in performance.bin): --opening-plies N (default 6) cuts each opening to its
first N plies and drops duplicates, so the book is reached (6 plies: 3,633
distinct openings, 61% of them in performance.bin), and both runs still start
from the same varied positions. --book-depth (BookDepth, plies from the start)
defaults to 40, not the bot's 8. BookSeed makes the book's random choices repeat
from run to run.
"""

from __future__ import annotations

import argparse
import math
import random
import re
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import chess.pgn
import chess.polyglot

ROOT = Path(__file__).resolve().parent.parent

# match.py's summary line, e.g. "phalanx    n= 200 +170 =23 -7 score=0.907 elo=+397 [+338,+478]"
_SUMMARY = re.compile(r"^(?P<opp>\S+)\s+n=\s*(?P<n>\d+) \+(?P<w>\d+) =(?P<d>\d+) -(?P<l>\d+) "
                      r"score=(?P<score>[\d.]+) elo=(?P<elo>[-+]\d+) \[(?P<lo>[-+]\d+),"
                      r"(?P<hi>[-+]\d+)\]")


@dataclass(frozen=True)
class Result:
    wins: int
    draws: int
    losses: int
    elo_lo: int  # match.py's 95% interval
    elo_hi: int

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.games

    @property
    def score_se(self) -> float:
        p, n = self.score, self.games
        var = (self.wins * (1 - p) ** 2 + self.draws * (0.5 - p) ** 2
               + self.losses * p ** 2) / n
        return math.sqrt(var / n)

    @property
    def elo(self) -> float:
        return _elo(self.score)

    def line(self, name: str) -> str:
        return (f"{name:<8} {self.games} games +{self.wins} ={self.draws} -{self.losses}  "
                f"score {100 * self.score:.1f}%  Elo {self.elo:+.0f} "
                f"[{self.elo_lo:+d}, {self.elo_hi:+d}]")


def _elo(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return -400 * math.log10(1 / p - 1) + 0.0  # + 0.0: no "-0" for an even score


def pgn_result(pgn: Path) -> Result:
    """pibot's W/D/L in a match.py PGN ("engine" is pibot), with a 95% interval
    from the normal approximation of the score (for runs whose log is lost)."""
    wins = draws = losses = 0
    with pgn.open() as f:
        while (headers := chess.pgn.read_headers(f)) is not None:
            white = headers.get("White") == "engine"
            outcome = headers.get("Result")
            if outcome == "1/2-1/2":
                draws += 1
            elif outcome in ("1-0", "0-1"):
                if (outcome == "1-0") == white:
                    wins += 1
                else:
                    losses += 1
    res = Result(wins, draws, losses, 0, 0)
    if res.games == 0:
        raise SystemExit(f"sources_match: no finished game in {pgn}")
    lo, hi = (round(_elo(res.score + k * 1.96 * res.score_se)) for k in (-1, 1))
    return Result(wins, draws, losses, lo, hi)


def parse_summary(text: str) -> Result | None:
    for line in text.splitlines():
        m = _SUMMARY.match(line.strip())
        if m:
            return Result(int(m["w"]), int(m["d"]), int(m["l"]), int(m["lo"]), int(m["hi"]))
    return None


def difference(with_: Result, without: Result) -> tuple[float, float]:
    """Elo(with) - Elo(without) and the half-width of its 95% interval, treating the
    two runs as independent (the shared openings make the true error smaller)."""
    def slope(p: float) -> float:  # d Elo / d score
        p = min(max(p, 0.01), 0.99)
        return 400 / (math.log(10) * p * (1 - p))

    se = math.hypot(slope(with_.score) * with_.score_se, slope(without.score) * without.score_se)
    return with_.elo - without.elo, 1.96 * se


def shared_dir() -> Path:
    for d in (ROOT.parent, ROOT.parent.parent):
        if (d / "shared").is_dir():
            return d / "shared"
    return ROOT.parent / "shared"


def default_engine() -> str:
    pibot = Path(sys.executable).with_name("pibot")
    return f"{shlex.quote(str(pibot))} uci" if pibot.exists() else "pibot uci"


def truncated_openings(source: Path, plies: int, out: Path) -> int:
    """Write each opening of `source` cut to its first `plies` plies, first
    occurrence only, as a PGN match.py reads; returns how many."""
    seen: set[tuple[str, ...]] = set()
    with source.open() as f, out.open("w") as dst:
        while (game := chess.pgn.read_game(f)) is not None:
            moves = list(game.mainline_moves())[:plies]
            key = tuple(m.uci() for m in moves)
            if len(moves) < plies or key in seen:
                continue
            seen.add(key)
            short = chess.pgn.Game()
            short.headers.clear()
            short.add_line(moves)
            print(short, file=dst, end="\n\n")
    return len(seen)


def book_hits(openings: Path, book: Path, n: int, seed: int) -> tuple[int, int]:
    """Of the n openings match.py will choose (its own shuffle), how many end in
    a position the book knows."""
    games = []
    with openings.open() as f:
        while (game := chess.pgn.read_game(f)) is not None:
            games.append(game.end().board())
    random.Random(seed).shuffle(games)
    chosen = games[:n]
    with chess.polyglot.open_reader(book) as reader:
        hits = sum(1 for board in chosen if reader.get(board) is not None)
    return hits, len(chosen)


def source_moves(pgn: Path, book: Path, book_depth: int, probe_limit: int,
                 opening_plies: int) -> tuple[int, int, int]:
    """(games, book moves, tablebase moves) of pibot ("engine" in match.py's PGN)
    after the first opening_plies (the harness's opening): the positions where it
    was to move with a book entry of weight >= 1 inside book_depth plies, or with
    at most probe_limit pieces and no castling rights, which `pibot uci` answers
    from the book or the tables without searching."""
    games = book_moves = tb_moves = 0
    with pgn.open() as f, chess.polyglot.open_reader(book) as reader:
        while (game := chess.pgn.read_game(f)) is not None:
            games += 1
            side = chess.WHITE if game.headers.get("White") == "engine" else chess.BLACK
            board = game.board()
            for move in game.mainline_moves():
                if board.turn == side and board.ply() >= opening_plies:
                    if (board.ply() < book_depth
                            and next(reader.find_all(board, minimum_weight=1), None)):
                        book_moves += 1
                    elif (chess.popcount(board.occupied) <= probe_limit
                          and not board.castling_rights):
                        tb_moves += 1
                board.push(move)
    return games, book_moves, tb_moves


def run_match(args: argparse.Namespace, name: str, options: list[str]) -> Result:
    cmd = [sys.executable, str(args.match_tool), "--engine", args.engine,
           "--engine-opt", f"Hash={args.hash}", "--engine-opt", "Threads=1",
           *[x for opt in options for x in ("--engine-opt", opt)],
           "--opp", args.opp, "--games", str(args.games), "--tc", args.tc,
           "--concurrency", "1", "--seed", str(args.seed)]
    if args.openings:
        cmd += ["--book", str(args.openings)]
    if args.pgn_dir:
        args.pgn_dir.mkdir(parents=True, exist_ok=True)
        cmd += ["--pgn", str(args.pgn_dir / f"{name}.pgn")]
    print(f"== {name}: {shlex.join(cmd)}", flush=True)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, check=False)
    print(proc.stdout, end="", flush=True)
    result = parse_summary(proc.stdout)
    if proc.returncode != 0 or result is None:
        raise SystemExit(f"sources_match: the {name} match failed (exit {proc.returncode}); "
                         f"see match.py's output above")
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--book-file", required=True, type=Path, help="polyglot .bin (BookFile)")
    ap.add_argument("--syzygy-path", required=True, type=Path,
                    help="directory of 3-4-piece .rtbw/.rtbz tables (SyzygyPath)")
    ap.add_argument("--book-depth", type=int, default=40, help="BookDepth, plies (default 40)")
    ap.add_argument("--book-selection", default="weighted_random",
                    choices=("weighted_random", "uniform_random", "best_move"))
    ap.add_argument("--book-seed", type=int, default=1, help="BookSeed (default 1)")
    ap.add_argument("--probe-limit", type=int, default=4,
                    help="SyzygyProbeLimit, most pieces probed (default 4)")
    ap.add_argument("--games", type=int, default=200, help="games per run (even)")
    ap.add_argument("--tc", default="10+0.1", help="seconds+increment (default 10+0.1)")
    ap.add_argument("--opp", default="phalanx", help="match.py opponent (default phalanx)")
    ap.add_argument("--seed", type=int, default=1, help="match.py opening seed (default 1)")
    ap.add_argument("--hash", type=int, default=64, help="Hash MB (default 64)")
    ap.add_argument("--engine", default=default_engine(), help="UCI command of pibot")
    ap.add_argument("--match-tool", type=Path, default=shared_dir() / "tools" / "match.py")
    ap.add_argument("--openings", type=Path, help="PGN of openings (default: the shared "
                    "8moves_v3.pgn)")
    ap.add_argument("--opening-plies", type=int, default=6,
                    help="cut the openings to this many plies, duplicates dropped "
                    "(default 6; 0 = play them whole)")
    ap.add_argument("--pgn-dir", type=Path, help="write with.pgn and without.pgn here")
    ap.add_argument("--only", choices=("with", "without"), help="play one of the two runs")
    ap.add_argument("--report", action="store_true",
                    help="play nothing: score with.pgn and without.pgn in --pgn-dir (e.g. "
                    "after two --only runs side by side) and count the book and tablebase "
                    "moves in them")
    args = ap.parse_args(argv)
    if args.report and not args.pgn_dir:
        ap.error("--report needs --pgn-dir, the directory holding with.pgn and without.pgn")
    if args.games < 2 or args.games % 2:
        ap.error("--games must be even (each opening is played with both colours)")
    for label, path, is_dir in (("--book-file", args.book_file, False),
                                ("--syzygy-path", args.syzygy_path, True),
                                ("--match-tool", args.match_tool, False)):
        if not (path.is_dir() if is_dir else path.is_file()):
            ap.error(f"{label} {path} does not exist")
    if args.openings is None:
        args.openings = shared_dir() / "books" / "8moves_v3.pgn"
    if not args.openings.is_file():
        ap.error(f"--openings {args.openings} does not exist")
    if args.opening_plies < 0:
        ap.error("--opening-plies must be 0 (whole openings) or more")
    if args.opening_plies and not args.report:
        short = Path(tempfile.mkdtemp(prefix="sources_match_")) / "openings.pgn"
        count = truncated_openings(args.openings, args.opening_plies, short)
        print(f"openings: {args.openings} cut to {args.opening_plies} plies: {count} distinct",
              flush=True)
        args.openings = short
    sources = ["OwnBook=true", f"BookFile={args.book_file.resolve()}",
               f"BookDepth={args.book_depth}", f"BookSelection={args.book_selection}",
               f"BookSeed={args.book_seed}", f"SyzygyPath={args.syzygy_path.resolve()}",
               f"SyzygyProbeLimit={args.probe_limit}"]
    results: dict[str, Result] = {}
    if args.report:
        for name in ("with", "without"):
            pgn = args.pgn_dir / f"{name}.pgn"
            if not pgn.is_file():
                ap.error(f"--report: {pgn} does not exist")
            results[name] = pgn_result(pgn)
    else:
        hits, chosen = book_hits(args.openings, args.book_file, args.games // 2 + 1, args.seed)
        print(f"openings in the book: {hits} of the {chosen} match.py plays", flush=True)
        if args.only != "without":
            results["with"] = run_match(args, "with", sources)
        if args.only != "with":
            results["without"] = run_match(args, "without", [])
    print(f"\n{args.opp}, {args.tc}, seed {args.seed}, pibot's view "
          f"(with = {', '.join(sources)}):")
    for name, res in results.items():
        print("  " + res.line(name))
    if len(results) == 2:
        diff, margin = difference(results["with"], results["without"])
        print(f"  with - without: {diff:+.0f} +- {margin:.0f} Elo (95%, runs taken as "
              f"independent)")
    if args.pgn_dir:
        for name in results:
            games, book, tb = source_moves(args.pgn_dir / f"{name}.pgn", args.book_file,
                                           args.book_depth, args.probe_limit, args.opening_plies)
            print(f"  {name}: pibot to move in a book position {book} times, in a "
                  f"tablebase position {tb} times, in {games} games")
    return 0


if __name__ == "__main__":
    sys.exit(main())
