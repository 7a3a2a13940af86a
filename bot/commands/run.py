"""`pibot run`: the Lichess bot service."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys

from bot.config import advice, load_config
from bot.errors import UserError, config_errors
from bot.host.logsetup import setup_logging
from bot.lichess.token import load_token

log = logging.getLogger("bot.run")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="PATH", default=None,
                        help="config file (default: ./config.yml if present, else built-ins)")


def resolve_config_path(arg: str | None) -> str | None:
    if arg is not None:
        return arg
    return "config.yml" if os.path.exists("config.yml") else None


def _check_memory(hash_mb: int, games: int) -> None:
    """Refuse to start with hash tables that cannot fit (the Pi would swap or OOM)."""
    from bot.host import platform_info

    problem = platform_info.check_hash_fits(hash_mb, games)
    if problem:
        raise UserError(problem)


def run(args: argparse.Namespace) -> int:
    # `pibot run` takes no input but the config: whatever it refuses (config, token,
    # account, the books and tables it names) is a config error (EXIT_CONFIG), which
    # systemd does not restart.
    with config_errors():
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    path = resolve_config_path(args.config)
    cfg = load_config(path)  # UserError -> one clean line from the CLI
    token = load_token(cfg.token_file)
    if cfg.sizing is None or not cfg.sizing.hash_auto:
        # A hand-set size is checked; auto is sized within the same budget already.
        _check_memory(cfg.sized.hash_mb, cfg.challenge.concurrency)
    if cfg.pgn_directory:
        from bot.play.records import directory_problem

        problem = directory_problem(cfg.pgn_directory, create=True)
        if problem:  # else every game's record would be lost, each with one log line
            raise UserError(f"{problem}; fix the permissions or the path, or set "
                            f"pgn_directory: null to keep no records")
    setup_logging(cfg.log_level)
    for line in advice(cfg):
        log.warning("%s", line)
    if cfg.sizing is not None:
        log.info("engine sizing: %s", cfg.sizing.describe())
        if cfg.sizing.hash_at_floor:
            log.warning("memory is tight: engine.hash_mb auto fell to its floor of %d MiB",
                        cfg.sizing.hash_mb)
    from bot.service import Service  # imported late: config errors must not need the engine

    service = Service(cfg, token, config_path=path)
    code = asyncio.run(service.run())
    if service.hard_exit:
        # Second SIGTERM: don't wait for worker threads stuck in HTTP reads or searches.
        logging.shutdown()
        sys.stdout.flush()
        os._exit(code)
    return code
