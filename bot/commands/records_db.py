"""What `pibot history` and `pibot export` share: finding and opening the records
database read-only, and reading dates.  Every problem is one UserError line."""

from __future__ import annotations

import argparse
import datetime as dt
import sqlite3
from pathlib import Path

from bot.errors import UserError
from bot.store import db, paths


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="PATH", default=None,
                        help="config file naming records.db (default: ./config.yml if present)")
    parser.add_argument("--db", metavar="PATH", default=None,
                        help="read this database instead of the one the config names")
    parser.add_argument("--instance", metavar="NAME", default=None,
                        help="the pibot@NAME service's database (/var/lib/pibot/NAME)")


def parse_date(text: str, flag: str) -> float:
    """YYYY-MM-DD (UTC midnight) as Unix time."""
    try:
        day = dt.date.fromisoformat(text.strip())
    except ValueError:
        raise UserError(f"{flag} {text!r} is not a date; write it as YYYY-MM-DD "
                        f"(e.g. {dt.datetime.now(dt.UTC):%Y-%m-%d})") from None
    return dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC).timestamp()


def find(args: argparse.Namespace) -> Path:
    if args.db:
        return Path(args.db).expanduser()
    from bot.commands.run import resolve_config_path
    from bot.config import load_config

    cfg = load_config(resolve_config_path(args.config))
    if cfg.records.db is None:
        raise UserError("records are off in the config (records.db: null); set "
                        "records.db to keep them")
    found = paths.find(cfg.records.db, args.instance)
    if found is None:
        where = ", ".join(str(p) for p in paths.candidates(cfg.records.db, args.instance))
        raise UserError(f"no records database found (looked for {where}); the service "
                        f"creates it with its first game, or pass --db PATH")
    return found


def open_db(args: argparse.Namespace) -> tuple[sqlite3.Connection, Path]:
    path = find(args)
    try:
        return db.connect_readonly(path), path
    except FileNotFoundError:
        raise UserError(f"records database {path} does not exist; check the path") from None
    except PermissionError:
        raise UserError(f"cannot read records database {path} (permission denied); run "
                        f"as the service's user: sudo -u pibot pibot ...") from None
    except (sqlite3.Error, OSError) as exc:
        raise UserError(f"cannot read records database {path}: {exc}") from None
