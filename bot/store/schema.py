"""The database schema, as ordered migrations.

MIGRATIONS[i] takes a database from version i to i + 1 (version 0 is an empty
file).  The version lives in SQLite's `user_version` header field, which is
written in the same transaction as the migration, so a crash mid-migration
leaves the old version and the old tables.  A migration is never edited once
released: a change is a new step at the end.
"""

from __future__ import annotations

import logging
import sqlite3

log = logging.getLogger(__name__)

# Version 1: games and their moves.  moves.game_id's REFERENCES documents the link;
# foreign keys are not enforced (db.connect leaves them off), so a move whose
# GameStart was dropped while the disk was full is still kept.
_V1 = (
    """CREATE TABLE games (
        id TEXT PRIMARY KEY,               -- Lichess game id (8 characters)
        account TEXT NOT NULL,             -- our account's name
        color TEXT NOT NULL,               -- our colour: white | black
        opponent TEXT NOT NULL,
        opponent_title TEXT,               -- BOT, GM, ... or NULL
        my_rating INTEGER,                 -- ratings before the game, as Lichess gave them
        opponent_rating INTEGER,
        my_rating_after INTEGER,           -- after it (NULL: casual, or not reported)
        opponent_rating_after INTEGER,
        speed TEXT NOT NULL,               -- Lichess speed key: bullet, blitz, ...
        variant TEXT NOT NULL,             -- Lichess variant key: standard, chess960, ...
        initial_fen TEXT,                  -- NULL: the standard start
        clock_initial_ms INTEGER,          -- NULL: correspondence or unlimited
        clock_increment_ms INTEGER,
        days_per_turn INTEGER,
        rated INTEGER NOT NULL,
        tournament_id TEXT,
        tournament_name TEXT,
        site TEXT NOT NULL,                -- https://lichess.org
        started_at REAL NOT NULL,          -- Unix time
        ended_at REAL,                     -- NULL while the game runs
        status TEXT,                       -- Lichess status: mate, resign, outoftime, ...
        winner TEXT,                       -- white | black | NULL
        result TEXT                        -- ours: win | draw | loss; NULL: aborted/running
    )""",
    """CREATE TABLE moves (
        game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        ply INTEGER NOT NULL,              -- 0 = the first move of the game
        color TEXT NOT NULL,               -- who played it
        uci TEXT NOT NULL,
        san TEXT,
        clock_before_ms INTEGER,           -- the mover's clock when its turn began
        clock_after_ms INTEGER,            -- after the move, increment included (%clk)
        think_ms INTEGER,                  -- our search time (our moves)
        score_cp INTEGER,                  -- eval after the move, the MOVER's point of view
        mate INTEGER,                      -- mate in N (mover's point of view), else NULL
        depth INTEGER,
        nodes INTEGER,
        source TEXT,                       -- book | tablebase | online | engine | opponent
        latency_ms REAL,                   -- measured move round trip (our moves)
        at REAL,                           -- Unix time the move was recorded
        PRIMARY KEY (game_id, ply)
    )""",
)

# Version 2: service events, and the indexes the queries need.
_V2 = (
    """CREATE TABLE events (
        id INTEGER PRIMARY KEY,
        at REAL NOT NULL,                  -- Unix time
        kind TEXT NOT NULL,                -- start, stop, reload, rate_limit, daily_limit,
                                           -- throttled, failure, token
        detail TEXT NOT NULL DEFAULT '',
        until REAL,                        -- end of a pause or limit (Unix time)
        game_id TEXT
    )""",
    "CREATE INDEX events_kind_at ON events(kind, at)",
    "CREATE INDEX games_ended ON games(ended_at)",
    "CREATE INDEX games_opponent ON games(opponent COLLATE NOCASE, ended_at)",
)

# Version 3: CPU temperature samples for the status page's week of heat: one row
# per period (bot/service/memory.py: at most one every 10 minutes).
_V3 = (
    """CREATE TABLE heat (
        at REAL NOT NULL,                  -- Unix time, the end of the period
        temp_c REAL,                       -- the hottest reading of the period; NULL: no sensor
        throttled INTEGER NOT NULL         -- 1: throttled or capped at some tick of the period
    )""",
    "CREATE INDEX heat_at ON heat(at)",
)

# Version 4: the engine's level in each game (issue 47; NULL: a game played before).
_V4 = (
    "ALTER TABLE games ADD COLUMN strength TEXT",       # 'full' or an Elo ('1450')
    "ALTER TABLE games ADD COLUMN strength_rule TEXT",  # full, an Elo, match[+-N], fallback
)

# Version 5: the bots that declined matchmaking's challenges (issue 48), so that a
# restart does not challenge them again before `until`; one row per bot and aspect.
_V5 = (
    """CREATE TABLE declines (
        bot TEXT NOT NULL,                 -- the bot's id (lowercase)
        aspect TEXT NOT NULL,              -- '' = the whole bot; else the speed, rated or
                                           -- casual, or the variant it declined
        reason TEXT NOT NULL,              -- Lichess's declineReasonKey (lowercase)
        at REAL NOT NULL,                  -- Unix time of the decline
        until REAL NOT NULL,               -- not challenged (in that aspect) before this
        PRIMARY KEY (bot, aspect)
    ) WITHOUT ROWID""",
)

MIGRATIONS: tuple[tuple[str, ...], ...] = (_V1, _V2, _V3, _V4, _V5)
VERSION = len(MIGRATIONS)


class SchemaTooNew(sqlite3.DatabaseError):
    """The file was written by a newer pibot: never touched, never downgraded."""


def version(conn: sqlite3.Connection) -> int:
    row = conn.execute("PRAGMA user_version").fetchone()
    return int(row[0])


def migrate(conn: sqlite3.Connection, target: int = VERSION) -> int:
    """Bring the database to `target` (default: the newest); returns the old version.

    Each step runs in its own transaction with its version bump (SQLite's DDL is
    transactional), so an interrupted upgrade resumes from the last whole step.
    The version is read again inside each step's write lock: two connections
    migrating at once (the writer thread and the service's start-up read) take
    turns instead of applying a step twice."""
    old = version(conn)
    if old > VERSION:
        raise SchemaTooNew(f"schema version {old} is newer than this pibot's {VERSION}")
    while True:
        conn.execute("BEGIN IMMEDIATE")
        try:
            v = version(conn)
            if v >= target:
                conn.execute("COMMIT")
                return old
            for statement in MIGRATIONS[v]:
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {v + 1}")  # no bound parameters here
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        log.info("records database: schema version %d -> %d", v, v + 1)
