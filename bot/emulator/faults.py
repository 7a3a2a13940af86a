"""Fault injection rules: HTTP errors, slow answers, stalled requests, dropped
and silent streams.

A fault is either one-shot (`count` times, default once) or random (`probability`
per opportunity, usually with `count=None` for a soak run). Request faults are
checked when a request arrives; stream faults whenever a matching stream wakes
up (it opens, has an event or keep-alive to send, or a fault was just injected).
"""

from __future__ import annotations

import fnmatch
import itertools
import random
import typing
from dataclasses import asdict, dataclass
from http import HTTPStatus
from typing import Any, Literal

from bot.emulator.validate import describe, matches

FaultKind = Literal["http_error", "slow", "stall", "drop_stream", "silent_stream"]
FAULT_KINDS: tuple[str, ...] = ("http_error", "slow", "stall", "drop_stream", "silent_stream")
REQUEST_KINDS = ("http_error", "slow", "stall")
STREAM_KINDS = ("drop_stream", "silent_stream")

_ids = itertools.count(1)

# The JSON `error` text each status gets unless the fault names its own; 429 is
# Lichess's exact rate-limit body, the rest are short like lila's.
ERROR_TEXT = {
    400: "Bad request",
    401: "No such token",
    403: "Missing scope",
    404: "Not found",
    429: "Too many requests. Try again later.",
    500: "Internal server error",
    502: "Bad gateway",
    503: "Service unavailable",
}
SERVER_ERRORS = (500, 502, 503)


class FaultError(ValueError):
    """A fault description that cannot work; the message says what to change."""


@dataclass
class Fault:
    kind: FaultKind
    # Request faults: fnmatch pattern over "METHOD /path" (e.g. "POST /api/bot/game/*/move/*").
    # Stream faults: "event", "game" (any game stream) or "game:<gameId>".
    target: str = "*"
    status: int = 429  # http_error: any 4xx (400, 404, 429, ...) or 500, 502, 503
    error: str | None = None  # http_error: the body's {"error": ...}; None = ERROR_TEXT
    count: int | None = 1  # how many times it fires; None = unlimited
    probability: float = 1.0
    # silent_stream: None = forever; slow: the delay; stall: how long the connection
    # is held without an answer (None = until the client gives up)
    duration_s: float | None = None
    # stall: whether the server still handles the request (the move lands) before
    # holding the connection; False = the request is read and ignored
    apply: bool = True
    # slow: False = the wait comes before the request is handled (the way there is
    # slow); True = the request is handled at once and its answer waits (the way
    # back is slow), so what it did (a challenge sent, a move played) shows in the
    # streams before the client has the answer
    after: bool = False
    id: int = 0

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise FaultError(f"unknown fault kind {self.kind!r}; use one of {FAULT_KINDS}")
        for name, hint in typing.get_type_hints(Fault).items():
            # (status gets its own message below, with the statuses that work)
            if name != "status" and not matches(getattr(self, name), hint):
                raise FaultError(f"{name}={getattr(self, name)!r} must be {describe(hint)}")
        if self.kind == "http_error" and not (
            isinstance(self.status, int) and (400 <= self.status <= 499
                                              or self.status in SERVER_ERRORS)
        ):
            raise FaultError(
                f"http_error status {self.status!r} unsupported; use a 4xx (e.g. 400, 404, 429)"
                " or 500/502/503"
            )
        if not 0.0 <= self.probability <= 1.0:
            raise FaultError(f"probability {self.probability} must be within 0..1")
        if self.count is not None and self.count < 1:
            raise FaultError(f"count {self.count} must be >= 1 (or null for unlimited)")
        if not isinstance(self.apply, bool):
            raise FaultError(f"apply={self.apply!r} must be true or false")
        if not isinstance(self.after, bool):
            raise FaultError(f"after={self.after!r} must be true or false")
        if self.duration_s is not None and (
            isinstance(self.duration_s, bool)
            or not isinstance(self.duration_s, (int, float))
            or self.duration_s < 0
        ):
            raise FaultError(f"duration_s={self.duration_s!r} must be a number of seconds >= 0")
        if self.kind == "slow" and not self.duration_s:
            raise FaultError("a slow fault needs duration_s (seconds of delay)")
        if self.kind in STREAM_KINDS and not (
            self.target in ("event", "game", "*") or self.target.startswith("game:")
        ):
            raise FaultError(f"stream fault target {self.target!r}: use event, game or game:<id>")
        if not self.id:
            self.id = next(_ids)

    def error_text(self) -> str:
        """The `error` field of the JSON body an http_error fault answers with."""
        if self.error is not None:
            return self.error
        if self.status in ERROR_TEXT:
            return ERROR_TEXT[self.status]
        try:
            return HTTPStatus(self.status).phrase
        except ValueError:  # a 4xx with no registered name, e.g. 499
            return "Client error"

    def json(self) -> dict[str, Any]:
        return asdict(self)


class FaultBook:
    """The active faults. Not thread-safe on its own: core.py holds its lock."""

    def __init__(self, rng: random.Random) -> None:
        self._faults: list[Fault] = []
        self._rng = rng
        self.fired: dict[int, int] = {}

    def add(self, fault: Fault) -> Fault:
        self._faults.append(fault)
        return fault

    def clear(self) -> None:
        self._faults.clear()

    def active(self) -> list[Fault]:
        return list(self._faults)

    def _take(self, fault: Fault) -> bool:
        if fault.probability < 1.0 and self._rng.random() >= fault.probability:
            return False
        self.fired[fault.id] = self.fired.get(fault.id, 0) + 1
        if fault.count is not None:
            fault.count -= 1
            if fault.count <= 0:
                self._faults.remove(fault)
        return True

    def for_request(self, method: str, path: str) -> list[Fault]:
        """Faults that fire for this request (at most one of each kind)."""
        key = f"{method} {path}"
        fired: list[Fault] = []
        kinds_seen: set[str] = set()
        for fault in list(self._faults):
            if fault.kind not in REQUEST_KINDS or fault.kind in kinds_seen:
                continue
            if fnmatch.fnmatchcase(key, fault.target) and self._take(fault):
                kinds_seen.add(fault.kind)
                fired.append(fault)
        return fired

    def for_stream(self, stream_key: str) -> Fault | None:
        """A stream fault that fires now on stream `stream_key` ("event" or "game:<id>")."""
        for fault in list(self._faults):
            if fault.kind not in STREAM_KINDS:
                continue
            t = fault.target
            matches = (
                t == "*" or t == stream_key or (t == "game" and stream_key.startswith("game:"))
            )
            if matches and self._take(fault):
                return fault
        return None
