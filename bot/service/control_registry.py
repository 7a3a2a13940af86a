"""The control socket's commands: a registry of names, their parameters and handlers.

A room plugs a verb in with one call:

    registry.add("queue", queue_handler)
    registry.add("arena.join", join, {"id": Param(str, required=True),
                                      "team": Param(str), "password": Param(str)})

The registry checks a request against the command's parameters before the
handler runs (unknown command or parameter, missing or mistyped value: one
error line), so a handler gets clean arguments.  A handler answers with a JSON
value, or raises CommandError with the one line the peer should read.
Arguments are never logged (an arena password travels as one).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)

HANDLER_TIMEOUT_S = 30.0  # a command that waits on Lichess longer answers an error
Handler = Callable[[dict[str, Any]], Awaitable[Any]]


class CommandError(Exception):
    """What the peer reads when its command cannot be done (one line)."""


@dataclass(frozen=True)
class Param:
    kind: type  # str, int or bool
    required: bool = False


@dataclass(frozen=True)
class Command:
    name: str
    handler: Handler
    params: Mapping[str, Param]


def ok(result: Any) -> dict[str, Any]:
    return {"ok": True, "result": result}


def error(line: str) -> dict[str, Any]:
    return {"ok": False, "error": line}


class Registry:
    def __init__(self) -> None:
        self._commands: dict[str, Command] = {}

    def add(self, name: str, handler: Handler,
            params: Mapping[str, Param] | None = None) -> None:
        if name in self._commands:
            raise ValueError(f"control command {name!r} registered twice")
        self._commands[name] = Command(name, handler, dict(params or {}))

    def names(self) -> list[str]:
        return sorted(self._commands)

    async def answer(self, request: object) -> dict[str, Any]:
        """The response to one parsed request (any JSON value)."""
        if not isinstance(request, dict) or not isinstance(request.get("cmd"), str):
            return error('a request is one JSON object: {"cmd": NAME, "args": {...}}')
        extra = set(request) - {"cmd", "args"}
        if extra:
            return error(f"unknown request field(s): {', '.join(sorted(extra))}")
        cmd = self._commands.get(request["cmd"])
        if cmd is None:
            return error(f"unknown command {request['cmd'][:40]!r}; this service accepts: "
                         f"{', '.join(self.names())}")
        args = request.get("args", {})
        if not isinstance(args, dict):
            return error(f"{cmd.name}: 'args' must be an object")
        problem = _check(cmd, args)
        if problem:
            return error(f"{cmd.name}: {problem}")
        log.info("control: %s", cmd.name)
        try:
            return ok(await asyncio.wait_for(cmd.handler(args), HANDLER_TIMEOUT_S))
        except CommandError as exc:
            return error(f"{cmd.name}: {exc}")
        except TimeoutError:
            return error(f"{cmd.name}: no answer within {HANDLER_TIMEOUT_S:.0f} s")
        except Exception:  # a room's bug: logged here, one line to the peer
            log.exception("control: %s failed", cmd.name)
            return error(f"{cmd.name}: failed (the service's log says why)")


def _check(cmd: Command, args: dict[str, Any]) -> str | None:
    unknown = set(args) - set(cmd.params)
    if unknown:
        return f"unknown argument(s): {', '.join(sorted(unknown)[:5])}"
    for key, p in cmd.params.items():
        if key not in args or args[key] is None:
            if p.required:
                return f"'{key}' is required"
            continue
        value = args[key]
        # bool is an int in Python: a count of True games is not a count.
        if not isinstance(value, p.kind) or (p.kind is int and isinstance(value, bool)):
            return f"'{key}' must be {p.kind.__name__}"
    return None
