"""`pibot check`: is this installation ready to play?  One line per finding;
exit status 1 when anything needs fixing."""

from __future__ import annotations

import argparse
import asyncio
import os

from bot.commands.run import resolve_config_path
from bot.config import Config, load_config
from bot.errors import PibotError
from bot.lichess import Lichess, LichessError
from bot.token import Token, load_token


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="PATH", default=None, help="config file")


class Report:
    def __init__(self) -> None:
        self.problems = 0

    def ok(self, text: str) -> None:
        print(f"ok      {text}")

    def warn(self, text: str) -> None:
        print(f"warning {text}")

    def bad(self, text: str) -> None:
        self.problems += 1
        print(f"PROBLEM {text}")


async def _check_account(cfg: Config, token: Token, rep: Report) -> None:
    api = Lichess(cfg.url, token, cfg.network)
    try:
        info = await api.token_test(token)
    except LichessError as exc:
        rep.bad(f"cannot reach {cfg.url} to test the token: {exc}")
        return
    if info is None:
        rep.bad("Lichess does not accept the token (revoked or mistyped): create a new one "
                "with the bot:play scope")
        return
    scopes = str(info.get("scopes") or "").split(",")
    if "bot:play" not in scopes:
        rep.bad(f"token lacks the bot:play scope (has: {','.join(s for s in scopes if s)}); "
                f"create a token with bot:play")
    else:
        rep.ok(f"token valid for {info.get('userId')} with bot:play")
    try:
        account = await api.account()
    except LichessError as exc:
        rep.bad(f"cannot read the account: {exc}")
        return
    if account.get("title") == "BOT":
        rep.ok(f"account {account.get('username')} is a BOT account")
    else:
        rep.bad(f"account {account.get('username')} is not a BOT account: run `pibot upgrade`")


def _check_engine(cfg: Config, rep: Report) -> None:
    try:
        from bot.engine import backend
    except ImportError as exc:
        rep.bad(f"engine extension not importable ({exc}): reinstall with pip install -e .")
        return
    rep.ok(f"engine build: {backend()} move generation")
    cores = os.cpu_count() or 1
    total = cfg.engine.threads * cfg.challenge.concurrency
    line = f"engine.threads={cfg.engine.threads} x concurrency={cfg.challenge.concurrency} " \
           f"= {total} search thread(s) on {cores} core(s)"
    (rep.warn if total > cores else rep.ok)(line + (" (oversubscribed)" if total > cores else ""))
    try:
        from bot import platform_info
    except ImportError as exc:
        rep.warn(f"platform report unavailable ({exc})")
        return
    hash_total = cfg.engine.hash_mb * cfg.challenge.concurrency
    warning = platform_info.check_hash_fits(hash_total)
    what = f"hash {cfg.engine.hash_mb} MiB x {cfg.challenge.concurrency} game(s)"
    if warning:
        rep.bad(f"{what}: {warning}")
    else:
        rep.ok(f"{what} fits in memory")
    for key, value in platform_info.report().items():
        rep.ok(f"platform {key}: {value}")


def _check_move_sources(cfg: Config, rep: Report) -> None:
    from bot.move_sources import check_lines

    for ok, line in check_lines(cfg):
        (rep.ok if ok else rep.bad)(line)


def run(args: argparse.Namespace) -> int:
    rep = Report()
    path = resolve_config_path(args.config)
    try:
        cfg = load_config(path)
        rep.ok(f"config {path or '<built-in defaults>'} is valid")
    except PibotError as exc:
        rep.bad(str(exc))
        cfg = Config()
    try:
        token = load_token(cfg.token_file)
        rep.ok(f"token found ({token.source})")
        asyncio.run(_check_account(cfg, token, rep))
    except PibotError as exc:
        rep.bad(str(exc))
    _check_engine(cfg, rep)
    _check_move_sources(cfg, rep)
    print(f"{rep.problems} problem(s) found" if rep.problems else "all checks passed")
    return 1 if rep.problems else 0
