"""The Lichess client: the one place that speaks HTTP to lichess.org's Bot API.

`client.py` (the `Lichess` class: endpoints, timeouts, retries and the 429 policy
per endpoint class), `streams.py` (a thread per NDJSON stream, feeding asyncio;
it gets what it needs from the client as callables and never imports it back),
`events.py` (every payload parsed once into frozen dataclasses: nothing past
this wing reads a payload dict), `token.py` (where the token comes from) and
`latency.py` (the round-trip estimate behind the move overhead).  The end of the
data flow (service -> play -> sources -> lichess): it may import `bot.config`
and `bot.errors`, and nothing from `bot.play` or `bot.sources`.
"""
