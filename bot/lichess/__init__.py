"""The Lichess client: the one place that speaks HTTP to lichess.org's Bot API.

`client.py` (`Lichess`: the transport core with the API's areas as attributes,
`api.account`, `api.challenges`, `api.game`, `api.arenas`), `endpoints.py` (the
one module that knows the endpoints: `POLICIES`, each endpoint's path, method,
retries, rate class and 429 policy, declared once), `transport.py` (sessions,
timeouts, the request loop, the 429 pause book, the streams' start), `api_*.py`
(an area each: a small class naming its endpoints by their key in `POLICIES`,
never by path), `errors.py` (the client's exceptions; client.py re-exports them
with `backoff_s`), `streams.py` (a thread per NDJSON stream, feeding asyncio; it
gets what it needs from the transport as callables and never imports it back),
`events.py` (every payload parsed once into frozen dataclasses: nothing past
this wing reads a payload dict), `token.py` (where the token comes from) and
`latency.py` (the round-trip estimate behind the move overhead).  The end of the
data flow (service -> play -> sources -> lichess): it may import `bot.config`
and `bot.errors`, and nothing from `bot.play` or `bot.sources`.
"""
