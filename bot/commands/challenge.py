"""`pibot challenge USER`: the running service challenges a player or bot, for N
games with colours alternating (each next game once the previous has ended)."""

from __future__ import annotations

import argparse
import sys

from bot.challenges.outgoing import COLORS, MAX_GAMES, VARIANTS, clock_problem, parse_tc
from bot.commands.control import Failed, add_socket_arguments, call
from bot.errors import UserError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("user", metavar="USER", help="the Lichess player or bot to challenge")
    parser.add_argument("--tc", default="3+2", metavar="MIN+SEC",
                        help="clock: minutes + increment seconds (default 3+2; no UltraBullet)")
    parser.add_argument("--rated", action="store_true", help="rated games (default casual)")
    parser.add_argument("--color", choices=COLORS, default="random",
                        help="our colour in the first game; the next ones alternate")
    parser.add_argument("--variant", choices=VARIANTS, default="standard")
    parser.add_argument("--games", type=int, default=1, metavar="N",
                        help=f"games to play, one after another (1-{MAX_GAMES})")
    add_socket_arguments(parser)


def run(args: argparse.Namespace) -> int:
    # Checked here too, so a typo is one line before anything is sent.
    try:
        base_s, inc_s = parse_tc(args.tc)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    problem = clock_problem(base_s, inc_s)
    if problem:
        raise UserError(f"--tc {args.tc}: {problem}")
    if not 1 <= args.games <= MAX_GAMES:
        raise UserError(f"--games {args.games}: 1 to {MAX_GAMES} (lila's bot-vs-bot day)")
    try:
        answer = call(args, "challenge", {"user": args.user, "tc": args.tc,
                                          "rated": args.rated, "color": args.color,
                                          "variant": args.variant, "games": args.games})
    except Failed as exc:
        return exc.code
    print(answer)
    print("the games appear in `pibot status` and the service's log", file=sys.stderr)
    return 0
