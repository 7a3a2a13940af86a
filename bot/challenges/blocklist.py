"""Online block lists: text files of usernames (one a line) at URLs the owner
names in challenge.online_block_list / matchmaking.online_block_list.

Semantics follow lichess-bot (lib/blocklist.py): every URL is re-read with
If-None-Match, a 304 keeps the old names, a failed read keeps the last good
list and logs a warning.  Names compare case-insensitively, as Lichess ids do.
The bot's token is never sent: these are plain GETs on a session of their own.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

import requests

log = logging.getLogger(__name__)

TIMEOUT_S = 15.0


@dataclass
class _Listing:
    names: frozenset[str] = frozenset()
    etag: str | None = None


@dataclass
class OnlineBlockList:
    urls: list[str] = field(default_factory=list)
    _lists: dict[str, _Listing] = field(default_factory=dict)
    loaded: int = 0  # completed refresh rounds (tests and the log)

    def __post_init__(self) -> None:
        self._session = requests.Session()  # no token: these URLs are third parties

    def __contains__(self, name: str) -> bool:
        name = name.lower()
        return any(name in listing.names for listing in self._lists.values())

    def _read(self, url: str) -> None:
        old = self._lists.get(url, _Listing())
        headers = {"If-None-Match": old.etag} if old.etag else {}
        resp = self._session.get(url, headers=headers, timeout=TIMEOUT_S)
        if resp.status_code == 304:
            return
        resp.raise_for_status()
        names = frozenset(line.strip().lower() for line in resp.text.splitlines()
                          if line.strip())
        self._lists[url] = _Listing(names, resp.headers.get("ETag"))
        log.debug("online block list %s: %d name(s)", url, len(names))

    def refresh(self) -> None:
        """Re-read every URL (blocking); a failure keeps that URL's last list."""
        for url in list(self._lists):
            if url not in self.urls:  # dropped from the config by a reload
                del self._lists[url]
        for url in self.urls:
            try:
                self._read(url)
            except requests.RequestException as exc:
                log.warning("online block list %s: cannot read it (%s); keeping the last "
                            "list (%d name(s))", url, type(exc).__name__,
                            len(self._lists.get(url, _Listing()).names))
        self.loaded += 1

    async def run(self, urls: Callable[[], list[str]], period_s: Callable[[], float]) -> None:
        """Refresh now and then every `period_s()` (a supervised service task); the
        callables follow a reloaded config."""
        while True:
            self.urls = list(urls())
            if self.urls or self._lists:
                await asyncio.to_thread(self.refresh)
            await asyncio.sleep(period_s())
