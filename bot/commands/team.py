"""`pibot team join ID [--message TEXT] [--password-file F | --ask-password]`: the
bot's account joins a Lichess team (BotLi's `join`), so that team arenas
(`pibot arena join ID --team T`) can be entered.

`POST /team/{ID}/join` with the token's `team:write` scope (lila
app/controllers/Team.scala `join`).  A team's entry code is a secret: read from a
file or asked at the terminal, never from argv (every user sees it in `ps`), and
sent in the form body only.  Each refusal of lila's is one line that says what to
do; the spec (lichess-org/api team-teamId-join.yaml) gives 403 for a wrong code or
a missing message where lila's code answers 400 with a form error: both are read.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import re
import sys

from bot.commands.arena import MAX_PASSWORD, read_password
from bot.commands.run import resolve_config_path
from bot.config import load_config
from bot.errors import PibotError, UserError, config_errors
from bot.lichess.client import ApiRejected, Lichess, LichessError, RateLimited
from bot.lichess.token import add_token_file_argument, command_token

_TEAM_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$")  # lila's team slugs
MESSAGE_MIN, MESSAGE_MAX = 30, 2000  # lila TeamForm requestMessage
SCOPE = "team:write"
TOKEN_URL = "https://lichess.org/account/oauth/token/create"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", required=True)
    join = verbs.add_parser("join", help="join a team (its arenas then let the bot in)")
    join.add_argument("id", metavar="ID", help="the team's id (lichess.org/team/ID)")
    join.add_argument("--message", metavar="TEXT", default=None,
                      help=f"for a team whose leaders review requests: why the bot asks to "
                           f"join ({MESSAGE_MIN}-{MESSAGE_MAX} characters)")
    secret = join.add_mutually_exclusive_group()
    secret.add_argument("--password-file", metavar="F", default=None,
                        help="a file holding the team's entry code (first line)")
    secret.add_argument("--ask-password", action="store_true",
                        help="ask for the team's entry code at the terminal")
    join.add_argument("--config", metavar="PATH", default=None, help="config file")
    add_token_file_argument(join)


def _password(args: argparse.Namespace) -> str | None:
    if args.password_file:
        return read_password(args.password_file)
    if not args.ask_password:
        return None
    if not sys.stdin.isatty():
        raise UserError("--ask-password needs a terminal; put the entry code in a file and "
                        "pass --password-file")
    code = getpass.getpass("The team's entry code: ").strip()
    if not code or len(code) > MAX_PASSWORD:
        raise UserError("no entry code given")
    return code


def _field_errors(exc: ApiRejected) -> dict[str, str]:
    """lila's form errors ({"error": {"password": ["..."]}}) by field, lowercased."""
    errors = exc.payload.get("error")
    if not isinstance(errors, dict):
        return {}
    return {str(k): " ".join(map(str, v if isinstance(v, list) else [v])).lower()
            for k, v in errors.items()}


def refusal(exc: ApiRejected, team: str, password: bool) -> str:
    """The one line for lila's refusal of a join (without the password, ever)."""
    fields = _field_errors(exc)
    text = str(exc.payload.get("error", "")).lower() if not fields else ""
    if "scope" in text or (exc.status == 401 and not text):
        return (f"the token lacks the {SCOPE} scope Lichess asks for to join a team: create "
                f"a token with {SCOPE} (and bot:play) at {TOKEN_URL} and put it where the "
                f"bot reads it (token_file or --token-file)")
    if exc.status == 401:
        return f"Lichess does not accept the token ({text}); check token_file"
    if exc.status == 404:
        return f"Lichess has no team {team!r}: copy the id from lichess.org/team/ID"
    if "too many teams" in text:
        return ("the account has joined too many teams (lila allows 50, 150 when verified): "
                "leave one at lichess.org/team/me, then join again")
    if "password" in fields or "password" in text or "entry code" in text:
        return (f"team {team} has an entry code and the one given is wrong; check the file"
                if password else
                f"team {team} has an entry code: give it with --password-file F or "
                f"--ask-password")
    if "message" in fields or "confirmation" in text:
        if "length" in fields.get("message", ""):
            return f"--message: Lichess wants {MESSAGE_MIN} to {MESSAGE_MAX} characters"
        return (f"team {team}'s leaders review join requests: say why with --message "
                f"(\"{MESSAGE_MIN} to {MESSAGE_MAX} characters\")")
    if "cannot join" in text:
        return f"team {team} does not let this account join (its leaders blocked it)"
    return f"Lichess refused to let the bot join team {team}: {exc}"


async def _join(api: Lichess, team: str, message: str | None, password: str | None) -> None:
    try:
        await api.teams.join(team, message, password)
    except RateLimited as exc:
        raise UserError(f"Lichess asks to wait before joining ({exc}); try again in a "
                        f"minute") from None
    except ApiRejected as exc:
        raise UserError(refusal(exc, team, password is not None)) from None


def run(args: argparse.Namespace) -> int:
    team, message = args.id, args.message
    if not _TEAM_ID.match(team):
        raise UserError(f"{team[:40]!r} is not a team id: copy it from lichess.org/team/ID")
    if message is not None and not MESSAGE_MIN <= len(message.strip()) <= MESSAGE_MAX:
        raise UserError(f"--message: Lichess wants {MESSAGE_MIN} to {MESSAGE_MAX} characters, "
                        f"this one has {len(message.strip())}")
    with config_errors():
        cfg = load_config(resolve_config_path(args.config))
        token = command_token(args.token_file, cfg.token_file)
    password = _password(args)
    api = Lichess(cfg.url, token, cfg.network)
    try:
        asyncio.run(_join(api, team, message, password))
    except LichessError as exc:
        # Not the owner's input: a failure (exit 1), which trying again may cure.
        raise PibotError(f"cannot reach Lichess at {cfg.url}: {exc}") from None
    print(f"team {team}: joined" if message is None else
          f"team {team}: joined, or asked to join (a team whose leaders review requests "
          f"lets them decide)")
    return 0
