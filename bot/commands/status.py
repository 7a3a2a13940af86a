"""`pibot status`: what the running service is doing now.

Reads the status file the service keeps in its runtime directory (see
bot/host/status_file.py).  Exit status as `systemctl status`: 0 running,
3 not running (or not responding).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bot.host import status_file

NOT_RUNNING = 3


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--instance", metavar="NAME", default=None,
                        help="the pibot@NAME service (default: pibot)")
    parser.add_argument("--file", metavar="PATH", default=None,
                        help="read this status file instead of looking for one")
    parser.add_argument("--json", action="store_true", help="print the raw status as JSON")


def run(args: argparse.Namespace) -> int:
    paths = [Path(args.file)] if args.file else status_file.candidate_paths(args.instance)
    reading = status_file.read(paths)
    if reading.problem is not None:
        print(reading.problem, file=sys.stderr)
        if reading.status is not None and not args.json:
            print("last known state:", file=sys.stderr)
            for line in status_file.render(reading.status):
                print(f"  {line}", file=sys.stderr)
        return NOT_RUNNING
    assert reading.status is not None
    if args.json:
        print(json.dumps(reading.status, indent=2))
        return 0
    for line in status_file.render(reading.status):
        print(line)
    return 0
