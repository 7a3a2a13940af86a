"""The only module that knows Lichess's HTTP endpoints: `POLICIES`, one row each.

A row says, once, an endpoint's method and path and how it is retried and what
a 429 does to it; the transport (bot.lichess.transport) applies it, and the
area objects (bot.lichess.api_*) name their endpoints by key, never by path.

Rate limits are per endpoint class, as lila counts them (its limiters are
separate keys: chat, challenge creation, BotLimit, ...): a 429 pauses only the
class of the endpoint that answered it, as lichess-bot pauses the path that
answered (lib/lichess.py `rate_limit_timers`). Moves and game streams are never
paused: a game cannot wait a minute.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# What a 429 (or the endpoint's class already paused by one) does to a request:
#   wait    hold it until its class's pause ends, then send it (a 429 answer is
#           waited out and retried), unless the caller no longer wants it
#   drop    raise RateLimited at once (chat, matchmaking: try again later or never)
#   through never paused (moves, and the game streams moves depend on): a 429
#           is retried after retry_429_s, within what the clock allows
On429 = Literal["wait", "drop", "through"]


@dataclass(frozen=True)
class EndpointPolicy:
    method: str
    path: str  # template: formatted with the call's arguments
    attempts: int  # tries on network errors / 5xx; 0 = until the move's clock budget runs out
    rate_class: str  # a 429 pauses every endpoint of this class (see POLICIES)
    on_429: On429 = "wait"
    timeout_s: float | None = None  # read timeout; None = network.request_timeout_s
    retry_429_s: float = 0.0  # "through" endpoints: wait this long after a 429, then retry


# Classes follow lila's separate limiters: chat; challenge answers; challenge
# creation (app/controllers/Challenge.scala `limit.challenge*`); in-game actions
# (abort, resign, claim victory or draw, draw/takeback answers); account reads; the
# event stream; moves and game streams (never paused).
POLICIES: dict[str, EndpointPolicy] = {
    "event_stream": EndpointPolicy("GET", "/api/stream/event", 1, "event_stream"),
    "game_stream": EndpointPolicy("GET", "/api/bot/game/stream/{id}", 1, "game_stream",
                                  "through"),
    # per attempt: a quarter of the clock budget, within MOVE_MIN_ATTEMPT_S..timeout_s
    "move": EndpointPolicy("POST", "/api/bot/game/{id}/move/{uci}", 0, "move", "through", 3.0,
                           0.5),
    "chat": EndpointPolicy("POST", "/api/bot/game/{id}/chat", 1, "chat", "drop", 3.0),
    "abort": EndpointPolicy("POST", "/api/bot/game/{id}/abort", 4, "game_action"),
    "resign": EndpointPolicy("POST", "/api/bot/game/{id}/resign", 4, "game_action"),
    "draw": EndpointPolicy("POST", "/api/bot/game/{id}/draw/{answer}", 3, "game_action"),
    "takeback": EndpointPolicy("POST", "/api/bot/game/{id}/takeback/{answer}", 3,
                               "game_action"),
    "claim_victory": EndpointPolicy("POST", "/api/bot/game/{id}/claim-victory", 4,
                                    "game_action"),
    # lila PlayApi.scala `claim-draw` (BotPlayer.claimDraw), api spec 72cd46a (2025-07)
    "claim_draw": EndpointPolicy("POST", "/api/bot/game/{id}/claim-draw", 4, "game_action"),
    "accept": EndpointPolicy("POST", "/api/challenge/{id}/accept", 3, "challenge_answer"),
    "decline": EndpointPolicy("POST", "/api/challenge/{id}/decline", 3, "challenge_answer"),
    "challenge": EndpointPolicy("POST", "/api/challenge/{user}", 2, "challenge_create", "drop"),
    "cancel": EndpointPolicy("POST", "/api/challenge/{id}/cancel", 2, "challenge_create"),
    "account": EndpointPolicy("GET", "/api/account", 4, "account"),
    "playing": EndpointPolicy("GET", "/api/account/playing", 4, "account"),
    "online_bots": EndpointPolicy("GET", "/api/bot/online", 2, "online_bots", "drop"),
    "token_test": EndpointPolicy("POST", "/api/token/test", 3, "account"),
    "upgrade": EndpointPolicy("POST", "/api/bot/account/upgrade", 1, "account"),
    # Arenas (app/controllers/Tournament.scala; join/withdraw under limit.tourJoinOrResume)
    "tournament": EndpointPolicy("GET", "/api/tournament/{id}", 3, "tournament"),
    "tournament_join": EndpointPolicy("POST", "/api/tournament/{id}/join", 3, "tournament"),
    "tournament_withdraw": EndpointPolicy("POST", "/api/tournament/{id}/withdraw", 3,
                                          "tournament"),
    # Teams (app/controllers/Team.scala `join`: scope team:write; `pibot team join`)
    "team_join": EndpointPolicy("POST", "/team/{id}/join", 2, "team"),
}
