"""`pibot` command line: a thin dispatcher.

Each subcommand lives in its own module under bot/commands/ and exposes
`add_arguments(parser)` and `run(args) -> int`; modules are imported only
when their command runs, so a broken optional piece cannot stop the others.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from bot import __version__
from bot.errors import EXIT_CONFIG, EXIT_FAILURE, EXIT_USAGE, ConfigError, PibotError, UserError

# name -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("bot.commands.run", "run the Lichess bot service"),
    "demo": ("bot.commands.demo", "play a full demo game against the built-in Lichess emulator"),
    "check": ("bot.commands.check", "validate config, token, account, engine build and platform"),
    "config": ("bot.commands.config", "convert a lichess-bot config.yml (config import FILE)"),
    "status": ("bot.commands.status", "what the running bot service is doing now"),
    "challenge": ("bot.commands.challenge", "the running bot challenges USER (N games, "
                                            "colours alternating)"),
    "queue": ("bot.commands.queue", "the challenges waiting for a slot in the running bot"),
    "arena": ("bot.commands.arena", "the running bot joins or leaves an arena tournament"),
    "team": ("bot.commands.team", "the bot's account joins a Lichess team (team join ID)"),
    "history": ("bot.commands.history", "results, opponents and rating over months (records)"),
    "export": ("bot.commands.export", "the games of a period as one PGN file (records)"),
    "alert": ("bot.commands.alert", "send a test alert, or a failure alert for systemd OnFailure="),
    "upgrade": ("bot.commands.upgrade", "upgrade the Lichess account to a BOT account"),
    "uci": ("bot.commands.uci", "speak UCI on stdin/stdout (for GUIs and match tools)"),
    "bench": ("bot.commands.bench", "fixed-depth search benchmark (node-count signature)"),
    "perft": ("bot.commands.perft", "count move-generation paths (Stockfish-style output)"),
    "version": ("bot.commands.version", "print version and engine build"),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pibot", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"pibot {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, help_text) in COMMANDS.items():
        sp = sub.add_parser(name, help=help_text, description=help_text)
        try:
            mod = importlib.import_module(module)
        except ImportError as exc:
            sp.set_defaults(_import_error=exc)
            continue
        mod.add_arguments(sp)
        sp.set_defaults(_run=mod.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return EXIT_USAGE
    err = getattr(args, "_import_error", None)
    if err is not None:
        print(f"pibot {args.command}: not available in this build ({err})", file=sys.stderr)
        return EXIT_FAILURE
    try:
        return int(args._run(args) or 0)
    except PibotError as exc:
        print(f"pibot {args.command}: error: {exc}", file=sys.stderr)
        if isinstance(exc, ConfigError):
            return EXIT_CONFIG
        return EXIT_USAGE if isinstance(exc, UserError) else EXIT_FAILURE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`pibot perft 7 --divide | head`): stop quietly
        # like other Unix tools, and keep the exit-time flush from failing too.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, what a shell reports for `yes | head`


if __name__ == "__main__":
    sys.exit(main())
