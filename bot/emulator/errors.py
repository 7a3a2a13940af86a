"""Errors the emulator turns into HTTP answers, and bad control input."""

from __future__ import annotations

from typing import Any

from bot.errors import UserError


class ApiError(Exception):
    """An HTTP error answer with a Lichess-style JSON body."""

    def __init__(self, status: int, error: Any, **extra: Any) -> None:
        super().__init__(f"{status}: {error}")
        self.status = status
        self.body: dict[str, Any] = {"error": error, **extra}


class EmulatorUsageError(UserError, ValueError):
    """A control call (Python or /emu/...) with bad arguments; says what to fix."""


def not_found(what: str = "Not found") -> ApiError:
    return ApiError(404, what)


def bad_request(message: str) -> ApiError:
    return ApiError(400, message)
