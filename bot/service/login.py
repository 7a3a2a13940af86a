"""The account check at start-up: who we are, and may this token play."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from bot.config import LiveConfig
from bot.errors import UserError
from bot.lichess.client import ApiRejected, Lichess, LichessError, backoff_s
from bot.lichess.events import Profile
from bot.lichess.token import Token, scope_problem

log = logging.getLogger(__name__)


async def login(api: Lichess, token: Token | None, live: LiveConfig,
                waiting: Callable[[str, int], None]) -> Profile:
    """GET /api/account, retried forever on network trouble (a Pi often boots
    before its network is up): only a rejected token ends the process.
    `waiting(why, attempt)` is told of each failed try."""
    attempt = 0
    while True:
        try:
            account = await api.account.profile()
            if token is not None:
                # Without bot:play the event stream still opens (challenge:read), and
                # then every game stream answers 403: refuse to start instead.
                problem = scope_problem(await api.account.token_test(token), api.url)
                if problem:
                    raise UserError(problem)
            return account
        except ApiRejected as exc:
            if exc.status == 401:
                raise UserError("Lichess rejected the token (HTTP 401): it is revoked or "
                                "mistyped; create a new one with the bot:play scope"
                                ) from None
            raise UserError(f"Lichess refused the account check: {exc}") from None
        except LichessError as exc:  # network, 5xx, 429
            net = live.now.network
            delay = backoff_s(attempt, max(1.0, net.backoff_base_s), net.backoff_max_s)
            waiting(f"waiting for {api.url}: {exc}", attempt)
            (log.warning if attempt == 0 else log.info)(
                "cannot reach Lichess (%s); retrying in %.0f s", exc, delay)
            attempt += 1
            await asyncio.sleep(delay)


def check_bot(account: Profile) -> str:
    """Our name, once the account is known to be a BOT account."""
    me = account.username or account.id
    if not account.is_bot:
        # lila PlayApi answers 400 to every /api/bot/* call of a non-BOT account.
        raise UserError(f"account {me} is not a BOT account; run `pibot upgrade` "
                        "to upgrade it (irreversible), then start pibot again")
    return me
