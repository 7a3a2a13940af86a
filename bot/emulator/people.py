"""Who the emulator knows: the accounts under test (by token) and the other
users (challengers, opponents, bots to challenge). Not thread-safe on its own:
the core holds its lock."""

from __future__ import annotations

from bot.emulator.config import AccountSpec, EmulatorConfig, UserSpec
from bot.emulator.errors import EmulatorUsageError
from bot.emulator.game import Player


class People:
    def __init__(self, config: EmulatorConfig) -> None:
        # Every token of every account (AccountSpec.other_tokens: one account, more tokens).
        self.accounts: dict[str, AccountSpec] = {
            t: a for a in config.accounts for t in (a.token, *a.other_tokens)}
        self.users: dict[str, UserSpec] = {u.username.lower(): u for u in config.users}

    def account_named(self, username: str) -> AccountSpec | None:
        for acc in self.accounts.values():
            if acc.username.lower() == username.lower():
                return acc
        return None

    def target(self, username: str | None) -> AccountSpec:
        """The account `username`, or the first configured one for None."""
        if username is None:
            return next(iter(self.accounts.values()))
        acc = self.account_named(username)
        if acc is None:
            raise EmulatorUsageError(f"no account named {username!r} in EmulatorConfig.accounts")
        return acc


def bot_player(account: AccountSpec) -> Player:
    return Player(account.username, account.title, account.rating)
