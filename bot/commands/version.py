"""`pibot version`: package version and engine build."""

from __future__ import annotations

import argparse
import platform


def add_arguments(parser: argparse.ArgumentParser) -> None:
    del parser  # no options


def run(args: argparse.Namespace) -> int:
    from bot import __version__
    from bot.engine import backend
    from bot.engine.engine import DEFAULT_EVAL, default_net_name

    print(f"pibot {__version__}")
    print(f"engine slider index: {backend()}")
    print(f"engine eval: {DEFAULT_EVAL} by default (engine.eval / UseNNUE); "
          f"net {default_net_name()}")
    print(f"platform: {platform.machine()} {platform.system()}, Python {platform.python_version()}")
    return 0
