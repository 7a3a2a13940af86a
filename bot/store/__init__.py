"""The bot's memory: games, moves and service events in one SQLite file.

- `model`: the records the service hands over (GameStart, MoveRecord, GameEnd,
  RatingsAfter, ServiceEvent, HeatSample, Declined);
- `schema`: the versioned schema and its ordered migrations;
- `db`: opening a connection (WAL, timeouts), read-only for the CLI;
- `writer`: RecordWriter, the only writer: a thread fed by a queue, so no write
  is ever on a move's critical path, and a broken disk never raises;
- `queries`: what the service and the CLI read back (farming memory, today's
  counts, the daily bot-game limit, the bots that declined, history, games of a
  period);
- `pgn`: a game from the database as Lichess exports it (%eval, %clk);
- `retention`: old PGN files gzipped (records.keep_days);
- `paths`: where the database is when `pibot history` looks for it.

It imports no other package of the bot (plain records in, rows out), so the
service, the game runner and the commands may all import it.
"""
