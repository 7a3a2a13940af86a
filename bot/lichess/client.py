"""`Lichess`: the client the bot holds, a transport core with its endpoints by area.

The rule: one module knows the endpoints (bot.lichess.endpoints, `POLICIES`:
each endpoint's method, path, retries and what a 429 does, declared once per
rate class); one applies them (bot.lichess.transport: sessions, the request
loop, the 429 pause book, the streams); each area of the API is a small class
in a module of its own, built here with the transport and reached as an
attribute:

* `api.account`    (bot.lichess.api_account):    profile, playing, token_test,
  upgrade, online_bots;
* `api.challenges` (bot.lichess.api_challenges): accept, decline, create, cancel;
* `api.game`       (bot.lichess.api_game):       move, chat, abort, resign, draw,
  takeback, claim_victory, claim_draw;
* `api.arenas`     (bot.lichess.api_arenas):     get, join, withdraw;
* `api.teams`      (bot.lichess.api_teams):      join.

The transport's own calls (the pause book, `bot_limit_until`, the streams) are
the client's: `api.paused_for(...)`, `api.start_game_stream(...)`.  An area
names its endpoints by their key in `POLICIES`, never by path.  The errors and
`backoff_s` are importable from here, as every caller of the client needs them.
"""

from __future__ import annotations

from bot.config import NetworkConfig
from bot.lichess.api_account import AccountApi
from bot.lichess.api_arenas import ArenasApi
from bot.lichess.api_challenges import ChallengesApi
from bot.lichess.api_game import GameApi
from bot.lichess.api_teams import TeamsApi
from bot.lichess.errors import (
    ApiRejected,
    DailyLimitReached,
    LichessError,
    NetworkError,
    OpponentAtDailyLimit,
    RateLimited,
)
from bot.lichess.token import Token
from bot.lichess.transport import Observer, Transport, backoff_s

__all__ = ["ApiRejected", "DailyLimitReached", "Lichess", "LichessError", "NetworkError",
           "OpponentAtDailyLimit", "RateLimited", "backoff_s"]


class Lichess(Transport):
    """Async client for the endpoints pibot uses, with the retry policy applied."""

    def __init__(self, url: str, token: Token | None, net: NetworkConfig,
                 observer: Observer | None = None) -> None:
        super().__init__(url, token, net, observer)
        self.account = AccountApi(self)
        self.challenges = ChallengesApi(self)
        self.game = GameApi(self)
        self.arenas = ArenasApi(self)
        self.teams = TeamsApi(self)
