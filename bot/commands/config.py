"""`pibot config import LICHESS_BOT_CONFIG.yml`: turn a lichess-bot config.yml
into a pibot config (bot/config/lichess_bot_import.py), one line per dropped key,
then the same validation `pibot check` starts with."""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path
from typing import Any

import yaml

from bot.config import load_config
from bot.config.lichess_bot_import import import_config, ordered
from bot.config.lichess_bot_keys import Result
from bot.errors import PibotError, UserError, read_user_file

# The shape bot.lichess.token accepts; lichess-bot's placeholder (all x) is not a token.
_TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_\-.]{8,256}")
_PLACEHOLDER = re.compile(r"x+")

HEADER = ("# pibot config imported from {src} by `pibot config import`.\n"
          "# Keys not listed keep pibot's defaults (see config.yml in the pibot repository).\n"
          "# Check it with: pibot check --config {out}\n")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="config_command", metavar="ACTION")
    imp = sub.add_parser("import", help="convert a lichess-bot config.yml to a pibot config",
                         description="convert a lichess-bot config.yml to a pibot config")
    imp.add_argument("source", metavar="LICHESS_BOT_CONFIG.yml")
    imp.add_argument("-o", "--output", metavar="PATH", default="config.yml",
                     help="pibot config to write (default: config.yml)")
    imp.add_argument("--force", action="store_true", help="overwrite --output (and --token-file)")
    imp.add_argument("--token-file", metavar="PATH", default=None,
                     help="write the lichess-bot config's token to this file (mode 0600) and "
                          "name it as token_file in the new config")


def _read_source(path: Path) -> Any:
    text = read_user_file(path, "lichess-bot config", "check the path",
                          "check the path and permissions")
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark else ""
        raise UserError(f"{path} is not valid YAML{where}: {getattr(exc, 'problem', exc)}; "
                        f"fix the syntax") from None


def _refuse_existing(path: Path, force: bool, option: str) -> None:
    if path.exists() and not force:
        raise UserError(f"{path} exists; pass --force to overwrite it or choose another "
                        f"{option}")


def _write_token(res: Result, path: Path, force: bool) -> bool:
    """Write the token to a new 0600 file; never echo it.  True when written."""
    token = (res.token or "").strip()
    if not _TOKEN_SHAPE.fullmatch(token) or _PLACEHOLDER.fullmatch(token):
        print(f"token: the lichess-bot config holds no Lichess token; nothing written to "
              f"{path}: put the token there yourself (chmod 600)")
        return False
    _refuse_existing(path, force, "--token-file")
    try:
        if force and path.exists():
            path.unlink()
        # Created 0600 from the start, so the token is never readable by others.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(token + "\n")
    except OSError as exc:
        raise UserError(f"cannot write the token file {path}: {exc.strerror}; "
                        f"choose a writable --token-file") from None
    print(f"token: written to {path} (mode 600), named by token_file")
    return True


def _import(args: argparse.Namespace) -> int:
    src, out = Path(args.source), Path(args.output)
    _refuse_existing(out, args.force, "-o/--output")
    res = import_config(_read_source(src))
    if not res.config and not res.dropped and res.token is None:
        raise UserError(f"{src} holds no lichess-bot settings (expected a mapping such as "
                        f"lichess-bot's config.yml); check the file")
    for line in res.converted:
        print(f"converted {line}")
    for line in res.dropped:
        print(f"dropped {line}")
    if args.token_file:
        token_path = Path(args.token_file).expanduser().absolute()
        if _write_token(res, token_path, args.force):
            res.config = ordered({**res.config, "token_file": str(token_path)})
    elif res.token is not None:
        print("token: not copied (pibot keeps it out of its config); put it in a file "
              "(chmod 600) and set token_file, or export LICHESS_BOT_TOKEN, or rerun with "
              "--token-file PATH; for the systemd service: deploy/install.sh --token-file "
              "FILE")
    text = HEADER.format(src=src, out=out) + (
        yaml.safe_dump(res.config, sort_keys=False, allow_unicode=True,
                       width=1000) if res.config else "")
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot write {out}: {exc.strerror}; choose a writable "
                        f"-o/--output") from None
    print(f"wrote {out}: {res.carried} setting(s) carried over, {len(res.dropped)} dropped")
    # What `pibot check` does first: the new file must load as pibot's config.
    try:
        load_config(out)
    except PibotError as exc:
        print(f"PROBLEM {exc}")
        return 1
    print(f"ok      config {out} is valid; next: pibot check --config {out}")
    return 0


def run(args: argparse.Namespace) -> int:
    if args.config_command == "import":
        return _import(args)
    raise UserError("say what to do: pibot config import LICHESS_BOT_CONFIG.yml")
