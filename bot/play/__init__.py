"""A game's play: everything one game needs between its stream and its moves.

`game.py` (`GameRunner`, one task per game, built from one `GameContext` of
`context.py`) and its rooms: the game's terms, its level and strength profile
(`terms.py`), the game stream kept open (`game_stream.py`), the
opponent's draw offers and takebacks (`offers.py`), one think at a time
(`think_schedule.py`), choosing a move and delivering it (`moves.py`, `choice.py`),
the game's chat (`game_chat.py`, saying what `chat.py`'s table of commands and
`chat_facts.py` word), the abort and
claim timers (`timers.py`); its state, clock, rules for draws and resigning, the
`Thinker` around the engine, the outbox for everything but the move, PGN
records, correspondence parking, the game's question to the move sources
(`game_sources.py`), the stream's move spellings (`move_forms.py`) and the
openings not to repeat (`farming.py`), and the game's records for the owner's
database and its PGN (`journal.py`).  Below the service in the data flow
(service -> play -> sources -> lichess): it may import `bot.sources`,
`bot.lichess`, `bot.host`, `bot.engine`, `bot.config` and
`bot.store` (the records, which import nothing of the bot) and `bot.variants`
(which python-chess board and engine name a game's variant has), never
the service, the challenge desk or the other top-level modules.
"""
