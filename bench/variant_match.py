"""Play pibot against a random mover or a UCI engine in Lichess's variants.

python-chess (chess.variant) referees: it holds the board, checks every move,
keeps both clocks and decides the end (checkmate, a variant's win, stalemate,
insufficient material, the fifty-move rule, threefold repetition; a game past
--max-plies is a draw). pibot plays through `pibot uci` with UCI_Variant
(python-chess sets it from the board), the opponent is either python-chess's
random legal move ("random") or a UCI engine such as Fairy-Stockfish. Each
opening (--random-plies seeded random moves, none by default) is played
twice, colours swapped; the engines stay up for all the games of a variant
(ucinewgame between games). One line per game and a summary per variant:

    python bench/variant_match.py --variant all --opponent random --games 10 --tc 1+0.02
    python bench/variant_match.py --variant atomic --opponent /usr/games/fairy-stockfish \\
        --opp-opt "Skill Level=0" --games 10 --tc 5+0.05 --random-plies 2
"""

from __future__ import annotations

import argparse
import random
import shlex
import sys
import time
from dataclasses import dataclass, field

import chess
import chess.engine
import chess.pgn
import chess.variant
from match_engine import UciValue, uci_option  # bench/, beside this script

from bot.variants import ENGINE_BOARDS

VARIANTS = ENGINE_BOARDS  # UCI_Variant name -> python-chess board (bot/variants.py)


def _tc(text: str) -> tuple[float, float]:
    base, _, inc = text.partition("+")
    try:
        return float(base), float(inc or 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected BASE+INC in seconds, got {text!r}") from None


@dataclass
class Tally:
    wins: int = 0
    draws: int = 0
    losses: int = 0
    notes: list[str] = field(default_factory=list)

    def line(self) -> str:
        n = self.wins + self.draws + self.losses
        pct = 100.0 * (self.wins + 0.5 * self.draws) / n if n else 0.0
        return f"+{self.wins} ={self.draws} -{self.losses} ({pct:.1f}% of {n})"


class Player:
    """pibot, a UCI engine, or the random mover, with a per-move limit."""

    def __init__(self, name: str, command: str, options: dict[str, UciValue],
                 nodes: int | None, rng: random.Random) -> None:
        self.name = name
        self.rng = rng
        self.nodes = nodes
        self.engine: chess.engine.SimpleEngine | None = None
        if command != "random":
            self.engine = chess.engine.SimpleEngine.popen_uci(shlex.split(command))
            if options:
                self.engine.configure(options)

    def plays(self, variant: str) -> bool:
        """Does this player know the variant (a UCI engine: in its UCI_Variant list)?"""
        if self.engine is None:
            return True
        option = self.engine.options.get("UCI_Variant")
        return option is not None and option.var is not None and variant in option.var

    def move(self, board: chess.Board, clocks: dict[bool, float], inc: float,
             game: object) -> chess.Move:
        if self.engine is None:
            return self.rng.choice(list(board.legal_moves))
        if self.nodes:
            limit = chess.engine.Limit(nodes=self.nodes)
        else:
            limit = chess.engine.Limit(white_clock=clocks[chess.WHITE],
                                       black_clock=clocks[chess.BLACK],
                                       white_inc=inc, black_inc=inc)
        result = self.engine.play(board, limit, game=game)
        if result.move is None:
            raise chess.engine.EngineError(f"{self.name} gave no move")
        return result.move

    def close(self) -> None:
        if self.engine is not None:
            self.engine.quit()


def play_game(variant: str, white: Player, black: Player, opening: list[chess.Move],
              tc: tuple[float, float], max_plies: int, game_id: object,
              times: list[float]) -> tuple[str, str, chess.Board]:
    """(result "1-0"/"0-1"/"1/2-1/2", why, final board); `times` gets the
    seconds each move after the opening took (a failed one's too)."""
    board = VARIANTS[variant]()
    for move in opening:
        board.push(move)
    base, inc = tc
    clocks = {chess.WHITE: base, chess.BLACK: base}
    players = {chess.WHITE: white, chess.BLACK: black}
    while True:
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            return outcome.result(), outcome.termination.name.lower(), board
        if board.ply() >= max_plies:
            return "1/2-1/2", "max plies", board
        side = board.turn
        player = players[side]
        started = time.monotonic()
        try:
            move = player.move(board, clocks, inc, game_id)
        except (chess.engine.EngineError, chess.IllegalMoveError) as exc:
            return ("0-1" if side == chess.WHITE else "1-0"), f"{player.name} failed: {exc}", board
        spent = time.monotonic() - started
        times.append(spent)
        if player.engine is not None and player.nodes is None:
            clocks[side] -= spent
            if clocks[side] < 0:
                lost = "0-1" if side == chess.WHITE else "1-0"
                return lost, f"{player.name} lost on time", board
            clocks[side] += inc
        if move not in board.legal_moves:
            return ("0-1" if side == chess.WHITE else "1-0"), f"{player.name} illegal {move}", board
        board.push(move)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", action="append", required=True,
                    help=f"one of {', '.join(VARIANTS)} or 'all' (repeatable)")
    ap.add_argument("--engine", default=f"{shlex.quote(sys.executable)} -m bot uci",
                    help="pibot's UCI command (default: this Python's `-m bot uci`)")
    ap.add_argument("--engine-opt", type=uci_option, action="append", default=None,
                    metavar="NAME=VALUE", help="pibot UCI option (default Hash=16 Threads=1)")
    ap.add_argument("--engine-nodes", type=int, default=None, help="pibot: fixed nodes per move")
    ap.add_argument("--opponent", default="random", help="'random' or a UCI engine command")
    ap.add_argument("--opp-name", default=None, help="the opponent's name in the output")
    ap.add_argument("--opp-opt", type=uci_option, action="append", default=None,
                    metavar="NAME=VALUE",
                    help="opponent UCI option (repeatable; e.g. 'Skill Level=0')")
    ap.add_argument("--opp-nodes", type=int, default=None, help="opponent: fixed nodes per move")
    ap.add_argument("--games", type=int, default=10, help="games per variant (even: colours swap)")
    ap.add_argument("--tc", type=_tc, default=(5.0, 0.05), help="BASE+INC seconds (default 5+0.05)")
    ap.add_argument("--random-plies", type=int, default=0,
                    help="seeded random opening plies (each opening played with both colours)")
    ap.add_argument("--max-plies", type=int, default=400, help="a longer game is a draw")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--pgn", default=None, help="append the games to this PGN file")
    args = ap.parse_args(argv)
    variants = list(VARIANTS) if "all" in args.variant else args.variant
    for v in variants:
        if v not in VARIANTS:
            ap.error(f"unknown variant {v!r}; one of {', '.join(VARIANTS)}")
    opp_name = args.opp_name or ("random" if args.opponent == "random"
                                 else shlex.split(args.opponent)[0].rsplit("/", 1)[-1])
    rng = random.Random(args.seed)
    totals = Tally()
    for variant in variants:
        ours = Player("pibot", args.engine, dict(args.engine_opt or [("Hash", 16), ("Threads", 1)]),
                      args.engine_nodes, rng)
        theirs = Player(opp_name, args.opponent, dict(args.opp_opt or []), args.opp_nodes, rng)
        tally = Tally()
        opening: list[chess.Move] = []
        try:
            missing = [p.name for p in (ours, theirs) if not p.plays(variant)]
            for name in missing:
                print(f"== {variant}: skipped, {name} does not play it", flush=True)
            for g in range(0 if missing else args.games):
                if g % 2 == 0:   # a new opening for each pair of games
                    board = VARIANTS[variant]()
                    opening = []
                    for _ in range(args.random_plies):
                        if board.is_game_over():
                            break
                        move = rng.choice(list(board.legal_moves))
                        board.push(move)
                        opening.append(move)
                pibot_white = g % 2 == 0
                white, black = (ours, theirs) if pibot_white else (theirs, ours)
                times: list[float] = []
                result, why, final = play_game(variant, white, black, opening, args.tc,
                                               args.max_plies, (variant, g), times)
                ours_score = {"1-0": 1.0, "0-1": 0.0}.get(result, 0.5)
                if not pibot_white:
                    ours_score = 1.0 - ours_score
                if ours_score == 1.0:
                    tally.wins += 1
                elif ours_score == 0.0:
                    tally.losses += 1
                else:
                    tally.draws += 1
                print(f"{variant} game {g + 1}: pibot {'white' if pibot_white else 'black'} "
                      f"{result} ({why}, {final.ply()} plies)", flush=True)
                if args.pgn:
                    pgn = chess.pgn.Game.from_board(final)
                    # The time each move took ([%emt]), after the opening.
                    nodes = list(pgn.mainline())[len(opening):]
                    for node, spent in zip(nodes, times, strict=False):
                        node.comment = f"[%emt {spent:.3f}]"
                    pgn.headers.update(Event=f"variant match {variant}", Round=str(g + 1),
                                       White=white.name, Black=black.name, Result=result,
                                       Termination=why)
                    with open(args.pgn, "a", encoding="utf-8") as fh:
                        print(pgn, file=fh, end="\n\n")
        finally:
            ours.close()
            theirs.close()
        if missing:
            continue
        print(f"== {variant}: pibot vs {opp_name}: {tally.line()}", flush=True)
        totals.wins += tally.wins
        totals.draws += tally.draws
        totals.losses += tally.losses
    print(f"== all: pibot vs {opp_name}: {totals.line()}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
