"""`pibot uci`: the UCI protocol over the same Engine binding the bot uses.

One module a room:
  `protocol.py`  the output line (one lock, any thread) and argument reading
  `state.py`     the engine options, the engine (built on first use), the position
  `sources.py`   book and tablebase moves, configured by UCI options
  `options.py`   the options `uci` announces, and `setoption`
  `search.py`    `go` and `go perft` in a worker thread, and their output
  `session.py`   the command loop, its command table, and main()

A front end beside the service, not part of it: it may import `bot.engine`
(the search), `bot.sources` (the bot's own book and tablebase lookup),
`bot.config` (the sections that lookup is configured with), `bot.host` (how
much memory a Hash may take) and `bot.errors`, never the service or play.
"""

from bot.uci.session import UciSession, main

__all__ = ["UciSession", "main"]
