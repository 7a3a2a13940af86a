"""`pibot queue`: the challenges waiting in the running service's queue for a slot."""

from __future__ import annotations

import argparse
import json
import time

from bot.commands.control import Failed, add_socket_arguments, call


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the raw list as JSON")
    add_socket_arguments(parser)


def run(args: argparse.Namespace) -> int:
    try:
        queued = call(args, "queue", {})
    except Failed as exc:
        return exc.code
    if args.json:
        print(json.dumps(queued, indent=2))
        return 0
    if not queued:
        print("no challenge is waiting")
        return 0
    now = time.time()
    for q in queued:
        rating = q.get("rating") if q.get("rating") is not None else "?"
        waited = max(0.0, now - float(q.get("waiting_since") or now))
        print(f"{q.get('id')}  {q.get('challenger')} ({rating})  {q.get('speed')}  "
              f"waiting {waited:.0f} s")
    return 0
