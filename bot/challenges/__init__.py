"""The challenge desk: whom pibot plays, and how a game comes about.

`desk.py` (`ChallengeDesk`, what the service talks to), `incoming.py` (answers
to incoming challenges, held while Lichess may no longer wait for them),
`policy.py` (accept or decline: a pure decision), `slots.py` (concurrency
accounting shared with the game supervisor), `matchmaking.py` (our own
challenges to online bots, or to a gauntlet's named bots, in the types of
game of `mm_types.py`; the bots that declined them: `declines.py`),
`outgoing.py` (the owner's `pibot challenge` series), `blocklist.py` (the
online block lists), `arenas.py` (the tournaments we play in), `queue.py`
(challenges waiting for a slot), `answers.py` (the answers to our own
challenges), `ratings.py` (our own ratings, for rating_difference) and
`shared.py` (what the rooms are handed by the service: Protocols of its shared
state and its tasks).  Beside the games in the data flow (service ->
challenges -> lichess): it may import `bot.lichess`, `bot.config`,
`bot.errors` and `bot.lichess_limits` (the clocks a bot may challenge with),
never the service, `bot.play` or `bot.sources`.
"""
