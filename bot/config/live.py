"""The config in force while the service runs, and what a reload can change.

LiveConfig is the one object every room reads the config through; the
service's SIGHUP reload replaces its value, except for RESTART_KEYS, which are
read once at start (restart_keys_changed names those a new file changes).
"""

from __future__ import annotations

from typing import Any

from bot.config.schema import Config


class LiveConfig:
    """The config in force, handed to every room that reads it when the room is built.

    Each use reads `.now`, so a reload (SIGHUP) reaches every room at once, and a
    room never keeps a stale copy of its own.  Only the service's reload replaces it.
    """

    def __init__(self, cfg: Config) -> None:
        self._now = cfg

    @property
    def now(self) -> Config:
        return self._now

    def replace(self, cfg: Config) -> None:
        self._now = cfg


# Read once at start (the HTTP client, the books and tables): a SIGHUP cannot apply them.
RESTART_KEYS = ("url", "token_file", "network", "engine.polyglot", "engine.syzygy",
                "engine.online_moves", "status_page", "records", "alerts")


def restart_keys_changed(old: Config, new: Config) -> list[str]:
    """The RESTART_KEYS whose value differs between two configs."""
    def get(cfg: Config, key: str) -> Any:
        value: Any = cfg
        for part in key.split("."):
            value = getattr(value, part)
        return value

    return [k for k in RESTART_KEYS if get(old, k) != get(new, k)]

