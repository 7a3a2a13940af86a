"""Opening the records database."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

from bot.store import schema

BUSY_TIMEOUT_MS = 5000  # a reader (pibot history) holds a lock for milliseconds


def connect(path: str | Path, max_bytes: int | None = None) -> sqlite3.Connection:
    """The writer's connection: WAL, migrated to the current schema.

    WAL lets `pibot history` and the status page read while the service writes.
    synchronous=FULL syncs each commit: a move handed over survives a power cut,
    not only a killed process; it costs an fsync per move on the writer thread,
    never on the game's.  `max_bytes` caps the file (PRAGMA max_page_count): past
    it a write fails with SQLITE_FULL, as on a full disk."""
    conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000,
                           isolation_level=None, check_same_thread=False)
    try:
        _enter_wal(conn)
        conn.execute("PRAGMA synchronous=FULL")
        if max_bytes is not None:
            page = int(conn.execute("PRAGMA page_size").fetchone()[0])
            conn.execute(f"PRAGMA max_page_count = {max(1, max_bytes // page)}")
        schema.migrate(conn)
    except BaseException:
        conn.close()
        raise
    return conn


def _enter_wal(conn: sqlite3.Connection) -> None:
    """PRAGMA journal_mode=WAL, retried while another connection holds the file.

    Switching an old rollback-journal file to WAL needs an exclusive lock, and
    SQLite answers "database is locked" at once -- without its busy handler --
    when another connection is switching it at the same moment (the writer
    thread and the start-up read both open the file at the service's start)."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    pause = 0.001
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() >= deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.05)


def connect_readonly(path: str | Path) -> sqlite3.Connection:
    """A reader's connection (the CLI): never creates, migrates or writes the file.

    Raises FileNotFoundError for a missing file (sqlite3 would only say "unable to
    open"), sqlite3.DatabaseError for one it cannot read."""
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(str(p))
    # With the service running, its -wal and -shm files exist and a read-only reader
    # shares them.  Without it they do not, and a reader would create them -- owned by
    # whoever runs `sudo pibot history`, which would then lock the service out of its
    # own database.  No -wal means no writer has the file open: read it immutable,
    # which creates nothing.
    wal = p.with_name(p.name + "-wal")
    mode = "mode=ro" if wal.exists() else "mode=ro&immutable=1"
    conn = sqlite3.connect(f"{p.resolve().as_uri()}?{mode}", uri=True,
                           timeout=BUSY_TIMEOUT_MS / 1000)
    try:
        have = schema.version(conn)
        if have > schema.VERSION:
            raise schema.SchemaTooNew(f"schema version {have} is newer than this "
                                      f"pibot's {schema.VERSION}")
        if have < schema.VERSION:
            # The service migrates at its start; an older file is read as it is
            # only if it has every table the queries use.
            raise sqlite3.DatabaseError(f"schema version {have}: start the service once "
                                        f"to upgrade it to {schema.VERSION}")
    except BaseException:
        conn.close()
        raise
    return conn


def problem(path: str | Path) -> str | None:
    """Why the service could not keep records in this existing file (None: it can).

    For `pibot check`: reads only (an integrity check of the whole file: seconds
    for years of games), and probes that the file and its directory, where
    SQLite puts its -wal and -shm files, are writable."""
    p = Path(path)
    try:
        conn = connect_readonly(p)
    except schema.SchemaTooNew as exc:
        return f"records database {p}: {exc}; upgrade pibot or set records.db to another file"
    except (sqlite3.Error, OSError) as exc:
        return f"records database {p} cannot be read ({exc}); if it is damaged, move it " \
               f"aside and restart: a new one is made"
    try:
        verdict = conn.execute("PRAGMA quick_check").fetchone()[0]
    except sqlite3.Error as exc:
        verdict = str(exc)
    finally:
        conn.close()
    if verdict != "ok":
        return f"records database {p} is damaged ({verdict}); move it aside and restart: " \
               f"a new one is made"
    for what in (p, p.parent):
        if not os.access(what, os.W_OK):
            return f"records database {p}: {what} is not writable by this user; the " \
                   f"service keeps no records (fix the owner: chown pibot)"
    return None
