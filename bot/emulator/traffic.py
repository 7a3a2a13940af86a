"""The requests the server answered: counts per route, the request log, and
the windows of the configured rate limits. Not thread-safe on its own: the
core holds its lock."""

from __future__ import annotations

import fnmatch
from collections import Counter, deque

from bot.emulator.config import RateLimit
from bot.emulator.snapshot import RequestRecord


class Traffic:
    def __init__(self) -> None:
        self.counters: Counter[str] = Counter()
        self.log: deque[RequestRecord] = deque(maxlen=200000)  # a long soak's worth
        self._rate_windows: dict[int, deque[float]] = {}

    def add(self, record: RequestRecord) -> None:
        self.counters[record.route] += 1
        self.log.append(record)

    def clear(self) -> None:
        """Forget the counts and the log (the rate-limit windows keep running)."""
        self.counters.clear()
        self.log.clear()

    def matching(self, pattern: str | None) -> list[RequestRecord]:
        """Records whose route name or "METHOD /path" matches an fnmatch pattern."""
        if pattern is None:
            return list(self.log)
        return [
            r
            for r in self.log
            if fnmatch.fnmatchcase(r.route, pattern)
            or fnmatch.fnmatchcase(f"{r.method} {r.path}", pattern)
        ]

    def rate_limited(self, rules: list[RateLimit], key: str, now: float) -> bool:
        """True if one of `rules` rejects request `key` ("METHOD /path") at `now`."""
        for idx, rule in enumerate(rules):
            if not fnmatch.fnmatchcase(key, rule.pattern):
                continue
            window = self._rate_windows.setdefault(idx, deque())
            while window and now - window[0] > rule.per_s:
                window.popleft()
            if len(window) >= rule.max_requests:
                return True
            window.append(now)
        return False
