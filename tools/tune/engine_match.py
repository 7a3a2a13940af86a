"""Self-play A/B match between two UCI engine commands (e.g. two eval builds).

Each opening of the book is played twice with colours swapped, at a fixed
node budget per move (deterministic, insensitive to machine load) or a
time control. Prints W/D/L from A's view and the Elo difference with a 95%
interval. Concurrency 1: the machine is shared.

    python3 tools/tune/engine_match.py --a 'pibot uci' --b /tmp/var/pibot-uci \\
        --games 100 --nodes 5000
"""

from __future__ import annotations

import argparse
import logging
import math
import random
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

import chess
import chess.engine
import chess.pgn

log = logging.getLogger("engine_match")

MAX_PLIES = 400  # a game this long is a draw (keeps runs bounded)


@dataclass
class Tally:
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.games

    def add(self, score: float) -> None:
        """One game: 1 a win, 0.5 a draw, 0 a loss."""
        if score == 1.0:
            self.wins += 1
        elif score == 0.5:
            self.draws += 1
        else:
            self.losses += 1

    def elo(self) -> tuple[float, float]:
        """Elo difference and half-width of its 95% interval."""
        n = self.games
        score = (self.wins + 0.5 * self.draws) / n
        var = (self.wins * (1 - score) ** 2 + self.draws * (0.5 - score) ** 2
               + self.losses * score ** 2) / n

        def to_elo(s: float) -> float:
            s = min(max(s, 1e-3), 1 - 1e-3)
            return -400 * math.log10(1 / s - 1)

        margin = 1.96 * math.sqrt(var / n)
        return to_elo(score), (to_elo(score + margin) - to_elo(score - margin)) / 2


def load_openings(path: Path, count: int, seed: int) -> list[chess.Board]:
    boards: list[chess.Board] = []
    with path.open(encoding="utf-8", errors="replace") as fh:
        while (game := chess.pgn.read_game(fh)) is not None:
            boards.append(game.end().board())
    random.Random(seed).shuffle(boards)
    return boards[:count]


def play(a: chess.engine.SimpleEngine, b: chess.engine.SimpleEngine, start: chess.Board,
         limits: tuple[chess.engine.Limit, chess.engine.Limit], a_white: bool) -> float:
    """One game; returns A's score. `limits` = (A's, B's) per-move limits."""
    board = start.copy()
    while not board.is_game_over(claim_draw=True) and board.ply() < MAX_PLIES:
        a_moves = (board.turn == chess.WHITE) == a_white
        mover = a if a_moves else b
        result = mover.play(board, limits[0] if a_moves else limits[1], game=start)
        if result.move is None:
            break
        board.push(result.move)
    outcome = board.outcome(claim_draw=True)
    if outcome is None or outcome.winner is None:
        return 0.5
    return 1.0 if (outcome.winner == chess.WHITE) == a_white else 0.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--a", required=True, help="UCI command of engine A (the new one)")
    ap.add_argument("--b", required=True, help="UCI command of engine B (the baseline)")
    ap.add_argument("--games", type=int, default=100, help="games (even: openings x 2)")
    ap.add_argument("--nodes", type=int, default=5000, help="nodes per move (default 5000)")
    ap.add_argument("--nodes-a", type=int, default=None,
                    help="A's nodes per move when it differs from B's (e.g. a faster eval "
                    "given the nodes it would search in the same time)")
    ap.add_argument("--option-a", action="append", default=[], metavar="NAME=VALUE",
                    help="a UCI option for A (repeatable)")
    ap.add_argument("--option-b", action="append", default=[], metavar="NAME=VALUE",
                    help="a UCI option for B (repeatable)")
    ap.add_argument("--movetime", type=float, default=None, help="seconds per move instead")
    ap.add_argument("--book", type=Path, default=Path("/work/shared/books/8moves_v3.pgn"))
    ap.add_argument("--seed", type=int, default=7, help="opening shuffle seed")
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    logging.getLogger("chess.engine").setLevel(logging.CRITICAL)
    if not args.book.is_file():
        ap.error(f"opening book {args.book} not found; pass --book with a PGN file")
    if args.games < 2 or args.games % 2:
        ap.error(f"--games must be an even number >= 2, got {args.games}")
    limit = (chess.engine.Limit(time=args.movetime) if args.movetime
             else chess.engine.Limit(nodes=args.nodes))
    limit_a = chess.engine.Limit(nodes=args.nodes_a) if args.nodes_a and not args.movetime \
        else limit
    try:
        options = [dict(o.split("=", 1) for o in opts)
                   for opts in (args.option_a, args.option_b)]
    except ValueError:
        ap.error("--option-a/--option-b take NAME=VALUE")
    openings = load_openings(args.book, args.games // 2, args.seed)
    tally = Tally()
    try:
        a = chess.engine.SimpleEngine.popen_uci(shlex.split(args.a), timeout=30)
        b = chess.engine.SimpleEngine.popen_uci(shlex.split(args.b), timeout=30)
    except (OSError, chess.engine.EngineError) as exc:
        ap.error(f"cannot start engine: {exc}; check the --a/--b commands")
    try:
        for engine, opts in zip((a, b), options, strict=True):
            engine.configure(opts)
        for i, start in enumerate(openings):
            for a_white in (True, False):
                for e in (a, b):
                    e.protocol.send_line("ucinewgame")
                tally.add(play(a, b, start, (limit_a, limit), a_white))
            if (i + 1) % 10 == 0:
                elo, err = tally.elo()
                log.info("games %d  +%d =%d -%d  Elo %+.1f +/- %.1f", tally.games, tally.wins,
                         tally.draws, tally.losses, elo, err)
    finally:
        a.quit()
        b.quit()
    elo, err = tally.elo()
    budget = f"movetime {args.movetime}s" if args.movetime else (
        f"nodes A {limit_a.nodes} / B {args.nodes}")
    sys.stdout.write(f"games {tally.games}  A: +{tally.wins} ={tally.draws} -{tally.losses}  "
                     f"Elo {elo:+.1f} +/- {err:.1f}  ({budget})\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
