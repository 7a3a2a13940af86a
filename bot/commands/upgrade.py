"""`pibot upgrade`: turn the Lichess account into a BOT account (irreversible)."""

from __future__ import annotations

import argparse
import asyncio
import sys

from bot.commands.run import resolve_config_path
from bot.config import load_config
from bot.errors import PibotError, UserError, config_errors
from bot.lichess.client import ApiRejected, Lichess, LichessError
from bot.lichess.token import add_token_file_argument, command_token

# `--check`: the account is not a BOT account yet (as `pibot status` uses 3 for
# "not running": an answer, not a failure). deploy/install.sh reads it.
EXIT_NOT_BOT = 3


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="PATH", default=None, help="config file")
    add_token_file_argument(parser)
    parser.add_argument("--yes", action="store_true",
                        help="do not ask for confirmation (required when not on a terminal)")
    parser.add_argument("--check", action="store_true",
                        help="change nothing: exit 0 if the account is a BOT account, "
                             f"{EXIT_NOT_BOT} if it is not yet")


def _confirm(username: str) -> bool:
    print(f"Upgrading {username} to a BOT account is irreversible: it can then never "
          f"play as a human again.")
    try:
        answer = input(f"Type the account name ({username}) to confirm: ").strip()
    except EOFError:  # Ctrl-D at the prompt is a "no"
        print()
        return False
    return answer.lower() == username.lower()


async def _upgrade(api: Lichess, yes: bool, check: bool) -> int:
    account = await api.account.profile()
    name = account.username or "?"
    if account.is_bot:
        print(f"{name} is a BOT account." if check
              else f"{name} is already a BOT account; nothing to do.")
        return 0
    if check:
        print(f"{name} is not a BOT account yet: `pibot upgrade` turns it into one.")
        return EXIT_NOT_BOT
    if not yes:
        if not sys.stdin.isatty():
            raise UserError("refusing to upgrade without confirmation: pass --yes "
                            "(stdin is not a terminal)")
        if not _confirm(name):
            print("Not confirmed; the account was not changed.")
            return 1
    try:
        await api.account.upgrade()
    except ApiRejected as exc:
        raise UserError(f"Lichess refused the upgrade ({exc}); an account that has played "
                        f"games cannot become a BOT: create a fresh account") from None
    print(f"{name} is now a BOT account.")
    return 0


def run(args: argparse.Namespace) -> int:
    with config_errors():
        cfg = load_config(resolve_config_path(args.config))
        token = command_token(args.token_file, cfg.token_file)
    api = Lichess(cfg.url, token, cfg.network)
    try:
        return asyncio.run(_upgrade(api, args.yes, args.check))
    except LichessError as exc:
        # Not the user's input: a failure (exit 1), which trying again may cure.
        raise PibotError(f"cannot reach Lichess at {cfg.url}: {exc}") from None
