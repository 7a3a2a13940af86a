"""RecordWriter: the only writer of the records database.

The service hands records over with `put`, which never blocks and never
raises: a record goes into a bounded queue and a thread writes it, one
transaction (and one commit) per record, so a `kill -9` loses at most what is
still queued -- milliseconds of records -- and the database always opens
afterwards (WAL: an interrupted transaction is rolled back on open).

Whatever goes wrong with the file -- a full disk, the records.max_mb cap, an
unwritable directory, a corrupt or too-new file -- is logged once (one line
per distinct problem), kept in `problem` for `pibot check` and the status
file, and the records meanwhile are dropped and counted.  The games go on.
The writer tries again with each later record (reopening a file it could not
open at most every `retry_s`), and says so when the records flow again.
"""

from __future__ import annotations

import logging
import queue
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

from bot.store import db, schema
from bot.store.model import (
    Declined,
    GameEnd,
    GameStart,
    HeatSample,
    MoveRecord,
    RatingsAfter,
    Record,
    ServiceEvent,
    result_for,
)

log = logging.getLogger(__name__)

QUEUE_SIZE = 10_000  # a day of bullet moves; only a stuck disk fills it
RETRY_S = 60.0       # reopen a database that could not be opened at most this often
# Temperature samples older than this are deleted as new ones come: the status
# page draws a week; a month stays for a look at the file (~4,500 rows).
HEAT_KEEP_S = 31 * 86400

_MOVE_COLS = ("san", "clock_before_ms", "clock_after_ms", "think_ms", "score_cp", "mate",
              "depth", "nodes", "source", "latency_ms", "at")
# A later record for the same ply fills in what it knows (the opponent's move first,
# its eval from our next search); a different move at that ply (a takeback) replaces
# the row whole.
_MOVE_SQL = (
    "INSERT INTO moves (game_id, ply, color, uci, " + ", ".join(_MOVE_COLS) + ") "
    "VALUES (" + ", ".join("?" * (4 + len(_MOVE_COLS))) + ") "
    "ON CONFLICT (game_id, ply) DO UPDATE SET color = excluded.color, "
    + ", ".join(f"{c} = CASE WHEN moves.uci = excluded.uci THEN "
                f"COALESCE(excluded.{c}, moves.{c}) ELSE excluded.{c} END"
                for c in _MOVE_COLS)
    + ", uci = excluded.uci")

_GAME_COLS = ("account", "color", "opponent", "opponent_title", "my_rating", "opponent_rating",
              "speed", "variant", "initial_fen", "clock_initial_ms", "clock_increment_ms",
              "days_per_turn", "rated", "tournament_id", "tournament_name", "site", "started_at",
              "strength", "strength_rule")
# A game resumed after a restart sends its GameStart again: the first one stands
# (its level too, whatever a reload changed since), except for what it did not know.
_GAME_SQL = (
    "INSERT INTO games (id, " + ", ".join(_GAME_COLS) + ") VALUES ("
    + ", ".join("?" * (1 + len(_GAME_COLS))) + ") ON CONFLICT (id) DO UPDATE SET "
    + ", ".join(f"{c} = COALESCE(games.{c}, excluded.{c})"
                for c in ("opponent_title", "my_rating", "opponent_rating", "tournament_id",
                          "tournament_name", "strength", "strength_rule")))


def _describe(exc: BaseException) -> str:
    if isinstance(exc, sqlite3.DatabaseError) and \
            getattr(exc, "sqlite_errorname", "") == "SQLITE_FULL":
        return "the disk (or records.max_mb) is full"
    if isinstance(exc, schema.SchemaTooNew):
        return f"{exc}: it was written by a newer pibot; upgrade pibot or set records.db " \
               f"to another file"
    if isinstance(exc, sqlite3.DatabaseError) and \
            getattr(exc, "sqlite_errorname", "") in ("SQLITE_NOTADB", "SQLITE_CORRUPT"):
        return f"the file is damaged ({exc}); move it aside and restart: a new one is made"
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    return str(exc)


class RecordWriter:
    def __init__(self, path: str | Path, max_bytes: int | None = None,
                 queue_size: int = QUEUE_SIZE, retry_s: float = RETRY_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        # Resolved now: the service's working directory is its state directory.
        self.path = Path(path).expanduser().absolute()
        self.max_bytes = max_bytes
        self.retry_s = retry_s
        self._clock = clock
        self._queue: queue.Queue[Record | None] = queue.Queue(queue_size)
        self._lock = threading.Condition()
        self._handed = 0      # records accepted by put
        self._done = 0        # of those, written or dropped
        self._dropped = 0
        self._written = 0
        self._problem: str | None = None
        self._queue_full = False
        self._conn: sqlite3.Connection | None = None
        self._next_open = 0.0
        self._thread: threading.Thread | None = None
        self._closed = False

    # -- the service's side ------------------------------------------------------------

    def start(self) -> None:
        """Start the writer thread (the file is opened there: an SD card that is slow
        to open, or a long migration, delays no one)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="records-writer",
                                            daemon=True)
            self._thread.start()

    def put(self, record: Record) -> bool:
        """Hand a record over; never blocks.  False: dropped (the queue is full, or
        the writer is closed: a game that ends after the service's shutdown)."""
        if self._closed:
            with self._lock:
                self._dropped += 1
            log.warning("records database %s: %s after close, dropped", self.path,
                        type(record).__name__)
            return False
        try:
            self._queue.put_nowait(record)
        except queue.Full:
            with self._lock:
                self._dropped += 1
                first = not self._queue_full
                self._queue_full = True
            if first:
                log.error("records database %s: %d records wait for the disk; dropping "
                          "new ones until it catches up", self.path, self._queue.maxsize)
            return False
        with self._lock:
            self._handed += 1
            self._queue_full = False
        return True

    def flush(self, timeout: float) -> bool:
        """Wait until every record handed over so far is written (or dropped)."""
        deadline = time.monotonic() + timeout
        with self._lock:
            target = self._handed
            while self._done < target:
                left = deadline - time.monotonic()
                if left <= 0 or self._thread is None or not self._thread.is_alive():
                    return False
                self._lock.wait(left)
        return True

    def close(self, timeout: float = 5.0) -> None:
        """Write what is queued (within `timeout`), then close the file."""
        self._closed = True
        if self._thread is None:
            return
        try:
            self._queue.put(None, timeout=timeout)
        except queue.Full:
            log.error("records database %s: closing with %d records unwritten", self.path,
                      self._queue.qsize())
            return
        self._thread.join(timeout)
        self._thread = None

    @property
    def problem(self) -> str | None:
        """Why records are not being written now (None: they are)."""
        with self._lock:
            return self._problem

    @property
    def dropped(self) -> int:
        with self._lock:
            return self._dropped

    @property
    def written(self) -> int:
        with self._lock:
            return self._written

    def status(self) -> dict[str, object]:
        """For the status file and `pibot status`: JSON-able, no secrets."""
        with self._lock:
            return {"path": str(self.path), "problem": self._problem,
                    "dropped": self._dropped, "written": self._written,
                    "pending": self._handed - self._done}

    # -- the writer thread -------------------------------------------------------------

    def _run(self) -> None:
        try:
            while True:
                record = self._queue.get()
                if record is None:
                    return
                try:
                    ok = self._write(record)
                except Exception:  # a bug must not end the thread and, with it, all records
                    log.exception("records database: %s skipped", type(record).__name__)
                    ok = False
                with self._lock:
                    self._done += 1
                    if ok:
                        self._written += 1
                    else:
                        self._dropped += 1
                    self._lock.notify_all()
        finally:
            if self._conn is not None:
                try:
                    self._conn.close()
                except sqlite3.Error:
                    pass
                self._conn = None
            with self._lock:
                self._lock.notify_all()

    def _fail(self, exc: BaseException, record: Record) -> None:
        reason = _describe(exc)
        with self._lock:
            known = self._problem
            self._problem = reason
        if reason != known:
            log.error("records database %s: %s; the games go on, records are dropped "
                      "until it can be written (first: %s)", self.path, reason,
                      type(record).__name__)

    def _open(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        return db.connect(self.path, self.max_bytes)

    def _write(self, record: Record) -> bool:
        if self._conn is None:
            now = self._clock()
            if now < self._next_open:
                return False
            try:
                self._conn = self._open()
            except (sqlite3.Error, OSError) as exc:
                self._next_open = now + self.retry_s
                self._fail(exc, record)
                return False
        conn = self._conn
        try:
            conn.execute("BEGIN IMMEDIATE")
            applied = _apply(conn, record)
            conn.execute("COMMIT")
        except (sqlite3.IntegrityError, sqlite3.ProgrammingError,
                sqlite3.InterfaceError) as exc:
            # This record is at fault, not the file: skip it, keep writing.
            _rollback(conn)
            log.warning("records database: %s skipped (%s)", type(record).__name__, exc)
            return False
        except (sqlite3.Error, OSError) as exc:
            _rollback(conn)
            if isinstance(exc, sqlite3.DatabaseError) and \
                    getattr(exc, "sqlite_errorname", "") in ("SQLITE_NOTADB", "SQLITE_CORRUPT"):
                self._close_broken()
            self._fail(exc, record)
            return False
        if not applied:
            # Nothing to write (a GameEnd whose GameStart was dropped): no sign that the
            # file takes writes again, so the problem stands.
            return False
        with self._lock:
            recovered, self._problem = self._problem, None
        if recovered is not None:
            log.info("records database %s: writable again (%d record(s) were dropped)",
                     self.path, self._dropped)
        return True

    def _close_broken(self) -> None:
        conn, self._conn = self._conn, None
        self._next_open = self._clock() + self.retry_s
        if conn is not None:
            try:
                conn.close()
            except sqlite3.Error:
                pass


def _rollback(conn: sqlite3.Connection) -> None:
    try:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
    except sqlite3.Error:
        pass  # SQLite rolled back by itself (SQLITE_FULL may do that)


def _apply(conn: sqlite3.Connection, r: Record) -> bool:
    """Write one record; False when there was nothing to write."""
    if isinstance(r, MoveRecord):
        conn.execute(_MOVE_SQL, (r.game_id, r.ply, r.color, r.uci,
                                 *(getattr(r, c) for c in _MOVE_COLS)))
    elif isinstance(r, GameStart):
        conn.execute(_GAME_SQL, (r.game_id, *(getattr(r, c) for c in _GAME_COLS)))
    elif isinstance(r, GameEnd):
        row = conn.execute("SELECT color FROM games WHERE id = ?", (r.game_id,)).fetchone()
        if row is None:
            return False  # its GameStart was dropped: nothing to finish
        conn.execute(
            "UPDATE games SET ended_at = ?, status = ?, winner = ?, result = ?, "
            "my_rating_after = COALESCE(?, my_rating_after), "
            "opponent_rating_after = COALESCE(?, opponent_rating_after) WHERE id = ?",
            (r.ended_at, r.status, r.winner, result_for(row[0], r.status, r.winner),
             r.my_rating_after, r.opponent_rating_after, r.game_id))
        if r.plies is not None:
            # Moves taken back and never replayed.
            conn.execute("DELETE FROM moves WHERE game_id = ? AND ply >= ?",
                         (r.game_id, r.plies))
    elif isinstance(r, RatingsAfter):
        cur = conn.execute(
            "UPDATE games SET my_rating_after = COALESCE(my_rating + ?, my_rating_after), "
            "opponent_rating_after = COALESCE(?, opponent_rating_after) WHERE id = ?",
            (r.my_rating_diff, r.opponent_rating_after, r.game_id))
        return cur.rowcount > 0  # no row: its GameStart was dropped
    elif isinstance(r, ServiceEvent):
        conn.execute("INSERT INTO events (at, kind, detail, until, game_id) "
                     "VALUES (?, ?, ?, ?, ?)", (r.at, r.kind, r.detail, r.until, r.game_id))
    elif isinstance(r, HeatSample):
        conn.execute("INSERT INTO heat (at, temp_c, throttled) VALUES (?, ?, ?)",
                     (r.at, r.temp_c, int(r.throttled)))
        conn.execute("DELETE FROM heat WHERE at < ?", (r.at - HEAT_KEEP_S,))
    elif isinstance(r, Declined):
        conn.execute("INSERT INTO declines (bot, aspect, reason, at, until) "
                     "VALUES (?, ?, ?, ?, ?) ON CONFLICT (bot, aspect) DO UPDATE SET "
                     "reason = excluded.reason, at = excluded.at, until = excluded.until",
                     (r.bot, r.aspect, r.reason, r.at, r.until))
        conn.execute("DELETE FROM declines WHERE until < ?", (r.at,))  # those run out
    else:
        raise sqlite3.ProgrammingError(f"not a record: {type(r).__name__}")
    return True
