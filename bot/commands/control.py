"""What the CLI verbs that talk to the running service share (`pibot challenge`,
`pibot queue`, `pibot arena`): the --instance/--socket options and the call."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from bot.host import control_socket

NOT_RUNNING = 3  # as `pibot status` and `systemctl status`


def add_socket_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--instance", metavar="NAME", default=None,
                        help="the pibot@NAME service (default: pibot)")
    parser.add_argument("--socket", metavar="PATH", default=None,
                        help="the service's control socket (default: its runtime directory)")


class Failed(Exception):
    """Printed already; the exit status to return."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def call(args: argparse.Namespace, cmd: str, params: dict[str, Any]) -> Any:
    """The service's answer; on failure its one line is printed and Failed raised."""
    try:
        return control_socket.call(args.instance, cmd, params, args.socket)
    except control_socket.NotRunning as exc:
        print(f"pibot {args.command}: {exc}", file=sys.stderr)
        raise Failed(NOT_RUNNING) from None
    except control_socket.Refused as exc:
        print(f"pibot {args.command}: the service refused: {exc}", file=sys.stderr)
        raise Failed(1) from None
