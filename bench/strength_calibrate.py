"""Calibrate pibot's strength levels against Stockfish 15.1 at the same UCI_Elo.

    python bench/strength_calibrate.py [--levels 1400,1600,...,2800] [--games 100]
        [--tc 10+0.1] [--concurrency 2] [--out build/strength] [--seed 1]
    python bench/strength_calibrate.py --report [--levels ...]      # the table, no games
    python bench/strength_calibrate.py --acpl --levels 1500 [--depth 12]
    python bench/strength_calibrate.py --step 200 [--levels ...]    # pibot L against L+200
    python bench/strength_calibrate.py --full --levels 2600,2800    # the ceiling

For each level L it plays pibot (`UCI_LimitStrength=true UCI_Elo=L`, one thread)
against Stockfish 15.1 (`UCI_LimitStrength=true UCI_Elo=max(L, 1350)`, its own
range starting at 1350; one thread, 16 MB) with the shared match harness
(../shared/tools/match.py: its openings, clocks, flag and adjudication rules, and
its summary's statistics): each opening of ../shared/books/8moves_v3.pgn twice,
colours swapped. Every finished game is appended to OUT/level-L.pgn with the
opening's index and our colour in its headers, so a run stopped at any point
resumes where it was (the games already in the file are not played again) and a
long run can be split into chunks (`--games 40`, later `--games 100`). Per level it
prints games, W/D/L, score, the Elo difference with its 95% interval and the
difference expected (L minus Stockfish's UCI_Elo: 0 within Stockfish's range).

--acpl judges the moves of OUT/level-L.pgn after the opening with Stockfish at full
strength (depth >= 12): each position is evaluated once, and a move's loss is the
mover's eval before it minus after it (evals clamped to +-1000 cp, mates at the
clamp; negative losses count 0). It prints, for pibot's moves and for
Stockfish's, the average centipawn loss and the share of moves losing >= 300 cp;
the evals are kept in OUT/acpl-L.jsonl (one line per game, resumable).

--step S plays pibot at L against pibot at L + S (OUT/step-L.pgn): each step of
the ladder should win its head-to-head. docs/strength.md, "Strength levels", has
the table this fills and the commands.

--full plays pibot at full strength (no level) against Stockfish at L
(OUT/full-L.pgn): the most any level can score against Stockfish at L at this
clock. Where full strength itself is not well above even, no level at L can be
calibrated against Stockfish's L by weakening pibot.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import math
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chess
import chess.engine
import chess.pgn

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
SF_MIN_ELO, SF_MAX_ELO = 1350, 2850   # Stockfish 15.1's UCI_Elo range
DEFAULT_LEVELS = tuple(range(1400, 2801, 200))
CLAMP_CP = 1000
BLUNDER_CP = 300
ENGINE = "pibot"


def default_engine() -> str:
    """`pibot uci` of this checkout's virtual environment, else of the PATH."""
    exe = Path(sys.executable).parent / "pibot"
    if exe.is_file():
        return f"{exe} uci"
    return f"{sys.executable} -m bot.cli uci"


def load_match_tool(path: Path) -> Any:
    if not path.is_file():
        sys.exit(f"strength_calibrate: match.py not found at {path}; pass --match-tool PATH")
    spec = importlib.util.spec_from_file_location("shared_match", path)
    assert spec is not None and spec.loader is not None
    match: Any = importlib.util.module_from_spec(spec)  # the shared tool, loaded by path
    spec.loader.exec_module(match)
    return match


@dataclass(frozen=True)
class Side:
    """One engine of a pairing: its name in the PGN, command and UCI options."""

    name: str
    cmd: str
    options: dict[str, Any]


def pibot(cmd: str, elo: int) -> Side:
    return Side(f"{ENGINE}{elo}", cmd, {"Threads": 1, "Hash": 64, "UCI_LimitStrength": True,
                                        "UCI_Elo": elo})


def pibot_full(cmd: str) -> Side:
    return Side(f"{ENGINE}-full", cmd, {"Threads": 1, "Hash": 64})


def stockfish(cmd: str, elo: int) -> Side:
    return Side(f"sf{elo}", cmd, {"Threads": 1, "Hash": 16, "UCI_LimitStrength": True,
                                  "UCI_Elo": elo})


# ---- the games ----------------------------------------------------------------------

def played(pgn: Path) -> set[tuple[int, bool]]:
    """(opening index, we are white) of every game already in the file."""
    done = set()
    for game in read_games(pgn):
        h = game.headers
        if "OpeningIndex" in h:
            done.add((int(h["OpeningIndex"]), h["White"].startswith(ENGINE)))
    return done


def read_games(pgn: Path) -> Iterator[chess.pgn.Game]:
    if not pgn.is_file():
        return
    with pgn.open() as f:
        while (game := chess.pgn.read_game(f)) is not None:
            yield game


async def play_pairing(match: Any, us: Side, them: Side, openings: list[Any],
                       games: int, tc: str, concurrency: int, pgn: Path) -> int:
    """Play the games of 0..games-1 not yet in `pgn` (game i: opening i // 2, we are
    white when i is even), appending each as it ends. Returns how many were played."""
    base, inc = (float(x) for x in tc.split("+"))
    done = played(pgn)
    jobs = [(i // 2, i % 2 == 0) for i in range(games) if (i // 2, i % 2 == 0) not in done]
    sem = asyncio.Semaphore(concurrency)
    lock = asyncio.Lock()

    async def one(index: int, we_white: bool) -> None:
        async with sem:
            me = await match.open_engine("uci", us.cmd, us.options)
            opp = await match.open_engine("uci", them.cmd, them.options)
            try:
                white, black = (me, opp) if we_white else (opp, me)
                result, why, board = await match.play_game(white, black, openings[index],
                                                           base, inc)
            finally:
                for eng in (me, opp):
                    try:
                        await asyncio.wait_for(eng.quit(), 5)
                    except Exception:  # noqa: BLE001  (a dead engine is already gone)
                        pass
            game = chess.pgn.Game.from_board(board)
            game.headers["Event"] = f"{us.name} vs {them.name} at {tc}"
            game.headers["White"] = us.name if we_white else them.name
            game.headers["Black"] = them.name if we_white else us.name
            game.headers["Result"] = result
            game.headers["Termination"] = why
            game.headers["OpeningIndex"] = str(index)
            game.headers["OpeningPlies"] = str(len(openings[index]))
            async with lock:
                with pgn.open("a") as f:
                    print(game, file=f, end="\n\n", flush=True)

    await asyncio.gather(*(one(i, w) for i, w in jobs))
    return len(jobs)


# ---- the table ------------------------------------------------------------------------

@dataclass(frozen=True)
class Score:
    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.5

    def elo(self) -> tuple[float, float, float]:
        """Elo difference and its 95% interval, as match.py's summary computes them."""
        n, p = self.games, self.score
        if n < 2:
            return elo_from_score(p), -math.inf, math.inf
        var = (self.wins * (1 - p) ** 2 + self.draws * (0.5 - p) ** 2
               + self.losses * p ** 2) / n
        se = math.sqrt(var / n)
        return elo_from_score(p), elo_from_score(p - 1.96 * se), elo_from_score(p + 1.96 * se)


def elo_from_score(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return -400 * math.log10(1 / p - 1)


def tally(pgn: Path) -> Score:
    w = d = lo = 0
    for game in read_games(pgn):
        white_is_us = game.headers["White"].startswith(ENGINE)
        result = game.headers.get("Result", "*")
        ours = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}.get(result)
        if ours is None:
            continue
        if not white_is_us:
            ours = 1.0 - ours
        w, d, lo = w + (ours == 1.0), d + (ours == 0.5), lo + (ours == 0.0)
    return Score(w, d, lo)


def table_row(level: int, opponent: Side, opp_elo: int, score: Score) -> str:
    elo, lo, hi = (x + 0.0 for x in score.elo())  # + 0.0: no "-0"
    expected = level - opp_elo
    return (f"{level:5d}  {opponent.name:10s} {score.games:5d}  +{score.wins} ={score.draws} "
            f"-{score.losses}  {score.score:.3f}  {elo:+5.0f} [{lo:+.0f}, {hi:+.0f}]  "
            f"(expected {expected:+d}, off by {elo - expected:+.0f})")


def print_header() -> None:
    print("level  opponent   games  W/D/L  score  Elo [95%]", flush=True)


# ---- average centipawn loss ---------------------------------------------------------

def clamp_score(score: chess.engine.PovScore, turn: chess.Color) -> int:
    v = score.pov(turn).score(mate_score=100_000)
    assert v is not None
    return max(-CLAMP_CP, min(CLAMP_CP, v))


async def game_losses(sf: Any, game: chess.pgn.Game, depth: int) -> dict[str, list[int]]:
    """Loss of every move after the opening, by the mover's name."""
    board = game.board()
    moves = list(game.mainline_moves())
    skip = int(game.headers.get("OpeningPlies", "0"))
    for mv in moves[:skip]:
        board.push(mv)
    evals = []  # side to move's eval of each position from the end of the opening
    movers = []
    for i in range(skip, len(moves) + 1):
        if board.is_game_over(claim_draw=True):
            outcome = board.outcome(claim_draw=True)
            assert outcome is not None
            evals.append(0 if outcome.winner is None else
                         (CLAMP_CP if outcome.winner == board.turn else -CLAMP_CP))
        else:
            info = await sf.analyse(board, chess.engine.Limit(depth=depth))
            evals.append(clamp_score(info["score"], board.turn))
        if i == len(moves):
            break
        movers.append(game.headers["White"] if board.turn == chess.WHITE else game.headers["Black"])
        board.push(moves[i])
    losses: dict[str, list[int]] = {}
    for i, name in enumerate(movers):
        losses.setdefault(name, []).append(max(0, evals[i] + evals[i + 1]))
    return losses


async def acpl(level: int, out: Path, sf_cmd: str, depth: int) -> None:
    pgn, cache = out / f"level-{level}.pgn", out / f"acpl-{level}.jsonl"
    done = {}
    if cache.is_file():
        for line in cache.read_text().splitlines():
            row = json.loads(line)
            done[row["game"]] = row["losses"]
    _, sf = await chess.engine.popen_uci([sf_cmd])
    await sf.configure({"Threads": 1, "Hash": 64})
    try:
        for n, game in enumerate(read_games(pgn)):
            key = f"{n}:{game.headers.get('OpeningIndex')}:{game.headers['White']}"
            if key not in done:
                done[key] = await game_losses(sf, game, depth)
                with cache.open("a") as f:
                    f.write(json.dumps({"game": key, "losses": done[key]}) + "\n")
    finally:
        await sf.quit()
    by_side: dict[str, list[int]] = {}
    for losses in done.values():
        for name, values in losses.items():
            side = ENGINE if name.startswith(ENGINE) else "stockfish"
            by_side.setdefault(side, []).extend(values)
    print(f"level {level}: {len(done)} games judged by Stockfish at depth {depth}")
    for side in (ENGINE, "stockfish"):
        values = by_side.get(side, [])
        if values:
            share = sum(v >= BLUNDER_CP for v in values) / len(values)
            print(f"  {side:9s} moves {len(values):6d}  ACPL {sum(values) / len(values):6.1f}  "
                  f"losing >= {BLUNDER_CP} cp {100 * share:5.2f}%")


# ---- main ----------------------------------------------------------------------------

def parse_levels(text: str) -> list[int]:
    try:
        levels = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"levels: comma-separated Elos, got {text!r}") from None
    if not levels:
        raise argparse.ArgumentTypeError("levels: at least one")
    return levels


async def run(args: argparse.Namespace) -> None:
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    if args.acpl:
        for level in args.levels:
            await acpl(level, out, args.stockfish, args.depth)
        return
    match = None if args.report else load_match_tool(args.match_tool)
    openings = [] if match is None else match.load_openings(str(args.book),
                                                             args.games // 2 + 1, args.seed)
    print_header()
    for level in args.levels:
        # --full: the ceiling, full strength where the level would play.
        us = pibot_full(args.engine) if args.full else pibot(args.engine, level)
        if args.step:
            # Named apart from the pibot under test, whose colour the file records.
            opp_elo, pgn = level + args.step, out / f"step-{level}.pgn"
            them = pibot(args.engine, opp_elo)
            them = Side(f"vs-{them.name}", them.cmd, them.options)
        else:
            opp_elo = min(SF_MAX_ELO, max(SF_MIN_ELO, level))
            pgn = out / f"{'full' if args.full else 'level'}-{level}.pgn"
            them = stockfish(args.stockfish, opp_elo)
        if match is not None:
            await play_pairing(match, us, them, openings, args.games, args.tc,
                               args.concurrency, pgn)
        print(table_row(level, them, opp_elo, tally(pgn)), flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--levels", type=parse_levels, default=list(DEFAULT_LEVELS),
                    help="comma-separated Elos (default 1400..2800 step 200)")
    ap.add_argument("--games", type=int, default=100, help="games per level in all (even)")
    ap.add_argument("--tc", default="10+0.1")
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1, help="order of the openings")
    ap.add_argument("--book", type=Path, default=SHARED / "books" / "8moves_v3.pgn")
    ap.add_argument("--engine", default=default_engine(), help="UCI command of pibot")
    ap.add_argument("--stockfish", default="/usr/games/stockfish")
    ap.add_argument("--match-tool", type=Path, default=SHARED / "tools" / "match.py")
    ap.add_argument("--out", type=Path, default=ROOT / "build" / "strength",
                    help="directory of the per-level PGNs (appended, resumable)")
    ap.add_argument("--report", action="store_true", help="print the table of the PGNs only")
    ap.add_argument("--step", type=int, default=0, metavar="S",
                    help="play pibot L against pibot L+S instead of Stockfish")
    ap.add_argument("--full", action="store_true",
                    help="play pibot at full strength against Stockfish at each level")
    ap.add_argument("--acpl", action="store_true",
                    help="judge the moves of the levels' PGNs with Stockfish")
    ap.add_argument("--depth", type=int, default=12, help="--acpl: Stockfish's depth")
    args = ap.parse_args(argv)
    if args.games < 2 or args.games % 2:
        ap.error("--games: an even number, 2 or more (each opening twice)")
    if not args.report and not args.acpl and not args.book.is_file():
        ap.error(f"opening book {args.book} not found; pass --book PGN")
    if args.full and (args.step or args.acpl):
        ap.error("--full plays against Stockfish: not with --step or --acpl")
    if args.acpl and args.depth < 12:
        ap.error("--depth: 12 or more (issue 47 judges at depth >= 12)")
    if (args.acpl or not args.step) and shutil.which(args.stockfish) is None:
        ap.error(f"{args.stockfish} not found: install Debian's stockfish (15.1) "
                 "or pass --stockfish")
    asyncio.run(run(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
