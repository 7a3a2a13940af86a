"""How many moves a sudden-death game can last before the bot's flag falls,
when Lichess charges it every round trip (BOTs get no lag compensation).

Plays the bot's side of many model games against the engine's own time manager
(`time_budget`, the C code the search uses): each move costs the search (a
random 0.6-1.3x of its soft budget, capped by the hard one), a round trip drawn
from the realistic soak's range, the bot's own processing, now and then a
dropped stream's re-open, and optionally one stalled move POST. Prints, per
time control, the moves reached (min / 5% / median), the thinking per move
early in the game, and the bound at zero thinking.

    python bench/flag_model.py                      # the realistic soak's conditions
    python bench/flag_model.py --rtt 20-60 --extra 10 --stall-s 0   # a European home line
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys

from bot.engine.engine import SearchLimits, time_budget


def play(base_ms: int, inc_ms: int, args: argparse.Namespace, rng: random.Random,
         think: bool = True) -> tuple[int, list[float]]:
    """Moves the bot completes before its clock runs out (capped at args.max_moves)
    and its thinking per move."""
    clock, thoughts = float(base_ms), []
    for move in range(args.max_moves):
        soft, hard = time_budget(SearchLimits(wtime=int(clock), btime=int(clock), winc=inc_ms,
                                              binc=inc_ms), True, args.overhead,
                                 moves_played=move)
        spent = min(hard, soft * rng.uniform(0.6, 1.3)) if think else 0.0
        thoughts.append(spent)
        clock -= spent + rng.uniform(args.rtt_lo, args.rtt_hi) + args.extra
        if rng.random() < args.drop_rate:
            clock -= args.drop_cost
        if move == args.stall_at:
            clock -= args.stall_s * 1000
        if clock <= 0:
            return move, thoughts
        clock += inc_ms
    return args.max_moves, thoughts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tc", default="30+0,60+0", help="comma-separated base+inc in seconds")
    ap.add_argument("--rtt", default="80-250", help="round trip range in ms (uniform)")
    ap.add_argument("--extra", type=float, default=15.0,
                    help="the bot's own ms per move beyond the round trip (the soak "
                    "measures a 178-187 ms median overhead against a 165 ms mean round trip)")
    ap.add_argument("--overhead", type=int, default=326,
                    help="the move overhead the bot plans with (p95 + margin; 326 ms in "
                    "the soak's flagged 60+0 game)")
    ap.add_argument("--drop-rate", type=float, default=0.08, help="stream drops per move")
    ap.add_argument("--drop-cost", type=float, default=250.0, help="ms a re-open costs")
    ap.add_argument("--stall-at", type=int, default=27, help="move with a stalled POST")
    ap.add_argument("--stall-s", type=float, default=3.1, help="what the stall costs (s)")
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--max-moves", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    try:
        args.rtt_lo, args.rtt_hi = (float(x) for x in args.rtt.split("-"))
        tcs = [tuple(int(float(x) * 1000) for x in tc.split("+")) for tc in args.tc.split(",")]
    except ValueError:
        ap.error("--rtt takes LO-HI in ms, --tc takes BASE+INC in seconds, e.g. 30+0")
    out = sys.stdout
    out.write(f"round trip {args.rtt} ms + {args.extra:.0f} ms, planned overhead "
              f"{args.overhead} ms, drops {args.drop_rate}/move x {args.drop_cost:.0f} ms, "
              f"stall {args.stall_s} s at move {args.stall_at}, {args.games} games\n")
    out.write("tc        moves reached: min    5%  median   think ms/move (moves 1-40)  "
              "zero-think median\n")
    for base, inc in tcs:
        rng = random.Random(args.seed)
        reached, early = [], []
        for _ in range(args.games):
            n, thoughts = play(base, inc, args, rng)
            reached.append(n)
            early.append(statistics.fmean(thoughts[:40]))
        reached.sort()
        rng0 = random.Random(args.seed)
        bound = statistics.median(play(base, inc, args, rng0, think=False)[0]
                                  for _ in range(min(args.games, 100)))
        out.write(f"{base // 1000}+{inc // 1000:<6} {reached[0]:>20} "
                  f"{reached[len(reached) // 20]:>5} {statistics.median(reached):>7.0f} "
                  f"{statistics.fmean(early):>27.0f} {bound:>19.0f}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
