"""Opening the records database."""

from __future__ import annotations

import sqlite3
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
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        if max_bytes is not None:
            page = int(conn.execute("PRAGMA page_size").fetchone()[0])
            conn.execute(f"PRAGMA max_page_count = {max(1, max_bytes // page)}")
        schema.migrate(conn)
    except BaseException:
        conn.close()
        raise
    return conn


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
