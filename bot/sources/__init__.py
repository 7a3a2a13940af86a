"""Move sources: moves that need no search.

`chain.py` (`MoveSources`: opening book, then Syzygy tables, then the Lichess
online sources, in that order), `book.py` (polyglot), `tablebase.py` (Syzygy)
and `online.py` (the Lichess opening explorer, cloud eval and tablebase); `pibot
uci` configures the same lookup by UCI options (bot/uci/sources.py).  Between
play and the client in the data flow (service -> play -> sources -> lichess): it may
import `bot.lichess`, `bot.config`, `bot.errors`, and the variants'
tables `bot.variants` and `bot.lichess_limits`, never `bot.play` or the
top-level modules above it.
"""
