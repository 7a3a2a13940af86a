"""`pibot uci`: speak UCI on stdin/stdout (GUIs, match tools, cutechess)."""

from __future__ import annotations

import argparse
import logging
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--log-level", default="WARNING",
                        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
                        help="log level for stderr (stdout carries only the protocol)")


def run(args: argparse.Namespace) -> int:
    # stdout belongs to the protocol: logs go to stderr only.
    logging.basicConfig(stream=sys.stderr, level=args.log_level,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    from bot.uci import main

    return main()
