"""`pibot export --since DATE`: the games of a period as one PGN file, each as
Lichess exports it (%eval and %clk on every move; bot/store/pgn.py)."""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

from bot.commands import records_db
from bot.errors import UserError
from bot.store import pgn, queries


def add_arguments(parser: argparse.ArgumentParser) -> None:
    records_db.add_arguments(parser)
    parser.add_argument("--since", metavar="DATE", required=True,
                        help="first day, YYYY-MM-DD UTC")
    parser.add_argument("--until", metavar="DATE", default=None,
                        help="last day, YYYY-MM-DD UTC, included (default: today)")
    parser.add_argument("--out", metavar="FILE", default=None,
                        help="write here (default: standard output)")


def _write(out: Path, text: str) -> None:
    """Temp file + rename: an interrupted export never leaves half a file."""
    d = out.expanduser().absolute().parent
    try:
        fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-", suffix=".pgn")
    except OSError as exc:
        raise UserError(f"cannot write {out}: {exc.strerror or exc}; check the "
                        f"directory") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, out)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise UserError(f"cannot write {out}: {exc.strerror or exc}") from None


def run(args: argparse.Namespace) -> int:
    since = records_db.parse_date(args.since, "--since")
    until = records_db.parse_date(args.until, "--until") + 86400 if args.until \
        else time.time() + 1
    if since >= until:
        raise UserError("--since is after --until; swap them")
    conn, path = records_db.open_db(args)
    try:
        texts = [pgn.render(g, queries.moves_of(conn, g.game_id))
                 for g in queries.games_between(conn, since, until)]
    except sqlite3.Error as exc:
        raise UserError(f"cannot read records database {path}: {exc}") from None
    finally:
        conn.close()
    text = "".join(texts)
    if args.out:
        _write(Path(args.out), text)
    else:
        sys.stdout.write(text)
    print(f"{len(texts)} game(s) exported" + (f" to {args.out}" if args.out else ""),
          file=sys.stderr)
    return 0
