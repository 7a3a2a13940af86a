"""`pibot arena join ID [--team T] [--password-file F]` / `pibot arena leave ID` /
`pibot arena list`: arena tournaments, through the running service.

An arena's password is a shared secret: it is read from a file (never argv,
which every user can see in `ps`) and sent over the control socket only.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from bot.commands.control import Failed, add_socket_arguments, call
from bot.errors import UserError

MAX_PASSWORD = 1000  # lila's tournament passwords are short; a bigger file is a wrong file


def add_arguments(parser: argparse.ArgumentParser) -> None:
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", required=True)
    join = verbs.add_parser("join", help="join an arena that lets bots in")
    join.add_argument("id", metavar="ID", help="the tournament id (lichess.org/tournament/ID)")
    join.add_argument("--team", metavar="T", default=None, help="the team to play for")
    join.add_argument("--password-file", metavar="F", default=None,
                      help="a file holding the arena's password (first line)")
    leave = verbs.add_parser("leave", help="withdraw from an arena")
    leave.add_argument("id", metavar="ID")
    listed = verbs.add_parser("list", help="the arenas the service is in")
    for verb in (join, leave, listed):
        add_socket_arguments(verb)


def read_password(path: str) -> str:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"cannot read the password file {path}: "
                        f"{getattr(exc, 'strerror', None) or exc}") from None
    lines = text.splitlines()
    password = lines[0].strip() if lines else ""
    if not password or len(password) > MAX_PASSWORD:
        raise UserError(f"the password file {path} has no password on its first line")
    return password


def run(args: argparse.Namespace) -> int:
    if args.verb == "join":
        params = {"id": args.id, "team": args.team,
                  "password": read_password(args.password_file) if args.password_file
                  else None}
        cmd = "arena.join"
    else:
        params = {"id": args.id} if args.verb == "leave" else {}
        cmd = f"arena.{args.verb}"
    try:
        answer = call(args, cmd, params)
    except Failed as exc:
        return exc.code
    print(answer if isinstance(answer, str) else json.dumps(answer, indent=2))
    return 0
