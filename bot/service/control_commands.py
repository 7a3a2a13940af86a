"""The control socket's documented commands, each registered from the room that does it.

    challenge    {user, tc, rated, color, variant, games}  -> what was started
    queue                                                  -> the queued challenges
    arena.join   {id, team, password}                      -> the arena room's answer
    arena.leave  {id}
    arena.list

`challenge` is the desk's (bot/challenges/outgoing.py).  The challenge queue and
the arena room plug in as server()'s `queue` and `arenas` arguments (or
register_queue() / register_arenas() on a Registry): one each, with whatever
implements QueueListing / ArenaRoom.  A command whose
room this service lacks is not registered, and the peer reads "unknown command"
with the list of those it has.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from bot.challenges.desk import ChallengeDesk
from bot.challenges.outgoing import Order, parse_tc
from bot.errors import PibotError
from bot.host.control_socket import socket_path
from bot.service.control import ControlServer
from bot.service.control_registry import CommandError, Param, Registry


class Queued(Protocol):
    """One challenge waiting in the queue (what `pibot queue` lists)."""

    @property
    def id(self) -> str: ...
    @property
    def challenger(self) -> str: ...
    @property
    def rating(self) -> int | None: ...
    @property
    def speed(self) -> str: ...
    @property
    def waiting_since(self) -> float: ...  # time.time() it arrived


QueueListing = Callable[[], Iterable[Queued]]


class ArenaRoom(Protocol):
    async def join(self, id: str, team: str | None, password: str | None) -> Any: ...
    async def leave(self, id: str) -> Any: ...
    def list(self) -> Any: ...  # a JSON value, or an awaitable of one


def server(desk: ChallengeDesk, queue: QueueListing | None = None,
           arenas: ArenaRoom | None = None) -> ControlServer:
    """The control socket of a service with these rooms: the root passes the queue
    and the arena room once it has them, one argument each."""
    registry = Registry()
    register_challenge(registry, desk)
    if queue is not None:
        register_queue(registry, queue)
    if arenas is not None:
        register_arenas(registry, arenas)
    return ControlServer(socket_path(), registry)


def register_challenge(registry: Registry, desk: ChallengeDesk) -> None:
    async def challenge(args: dict[str, Any]) -> str:
        try:
            base_s, inc_s = parse_tc(args.get("tc") or "3+2")
            return desk.outgoing.start(Order(
                user=args["user"], base_s=base_s, inc_s=inc_s, rated=bool(args.get("rated")),
                color=args.get("color") or "random", variant=args.get("variant") or "standard",
                games=args.get("games") or 1))
        except ValueError as exc:
            raise CommandError(str(exc)) from None

    registry.add("challenge", challenge, {
        "user": Param(str, required=True), "tc": Param(str), "rated": Param(bool),
        "color": Param(str), "variant": Param(str), "games": Param(int)})


def register_queue(registry: Registry, listing: QueueListing) -> None:
    async def queue(args: dict[str, Any]) -> list[dict[str, Any]]:
        return [{"id": q.id, "challenger": q.challenger, "rating": q.rating,
                 "speed": q.speed, "waiting_since": q.waiting_since} for q in listing()]

    registry.add("queue", queue)


def register_arenas(registry: Registry, room: ArenaRoom) -> None:
    async def join(args: dict[str, Any]) -> Any:
        return await _room_call(room.join(args["id"], args.get("team"), args.get("password")))

    async def leave(args: dict[str, Any]) -> Any:
        return await _room_call(room.leave(args["id"]))

    async def listed(args: dict[str, Any]) -> Any:
        return await _room_call(room.list())

    registry.add("arena.join", join, {"id": Param(str, required=True), "team": Param(str),
                                      "password": Param(str)})
    registry.add("arena.leave", leave, {"id": Param(str, required=True)})
    registry.add("arena.list", listed)


async def _room_call(result: Any) -> Any:
    """A room's answer as JSON values (its frozen dataclasses as objects); its refusal
    (PibotError, ValueError) is the peer's one line."""
    try:
        value = await result if inspect.isawaitable(result) else result
    except (PibotError, ValueError) as exc:
        raise CommandError(str(exc)) from None
    return _plain(value)


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value
