"""The /emu/... JSON control API: the Python controls over HTTP, so another
process (the soak benchmark, `pibot demo` in a subprocess) can drive games."""

from __future__ import annotations

from dataclasses import fields
from typing import TYPE_CHECKING, Any

from bot.emulator.config import OpponentSpec
from bot.emulator.errors import ApiError, EmulatorUsageError
from bot.emulator.faults import FAULT_KINDS, Fault, FaultError
from bot.emulator.server import Reply, Request, Route
from bot.emulator.specs import ArenaSpec, ChallengeSpec, GameSpec
from bot.emulator.validate import check_kwargs

if TYPE_CHECKING:
    from bot.emulator.emulator import Emulator


def dataclass_from(cls: Any, data: Any, what: str) -> Any:
    """Build a config dataclass from JSON, naming unknown keys."""
    if data is None:
        return cls()
    if not isinstance(data, dict):
        raise EmulatorUsageError(f"{what} must be a JSON object")
    names = {f.name for f in fields(cls)}
    unknown = sorted(set(data) - names)
    if unknown:
        raise EmulatorUsageError(f"{what}: unknown keys {unknown}; known keys: {sorted(names)}")
    try:
        return cls(**data)
    except (TypeError, ValueError) as exc:
        raise EmulatorUsageError(f"{what}: {exc}") from None


def _kwargs_for(spec: Any, body: dict[str, Any], what: str) -> dict[str, Any]:
    """The keywords of record `spec` (specs.py) that a JSON body gives."""
    params = {f.name for f in fields(spec)}
    unknown = sorted(set(body) - params)
    if unknown:
        raise EmulatorUsageError(f"{what}: unknown keys {unknown}; known keys: {sorted(params)}")
    kwargs = dict(body)
    if "opponent" in kwargs:
        kwargs["opponent"] = dataclass_from(OpponentSpec, kwargs["opponent"], "opponent")
    check_kwargs(spec, kwargs, what)
    return kwargs


def _timeout(req: Request, default: float) -> float:
    try:
        return float(req.query.get("timeout", default))
    except ValueError:
        raise EmulatorUsageError("timeout must be a number of seconds") from None


def build_control_routes(emu: Emulator) -> list[Route]:
    def challenge(req: Request) -> Reply:
        kwargs = _kwargs_for(ChallengeSpec, req.body, "/emu/challenge")
        return Reply(body={"id": emu.challenge_bot(**kwargs)})

    def challenge_get(req: Request) -> Reply:
        cid = req.params["id"]
        status = emu.challenges.status(cid)
        if status is None:
            raise ApiError(404, f"no challenge {cid}")
        reason = emu.challenges.decline_reason(cid)
        return Reply(body={"id": cid, "status": status, "declineReason": reason})

    def challenge_cancel(req: Request) -> Reply:
        emu.challenges.cancel(req.params["id"])
        return Reply()

    def game_create(req: Request) -> Reply:
        kwargs = _kwargs_for(GameSpec, req.body, "/emu/game")
        return Reply(body={"id": emu.start_game_directly(**kwargs)})

    def games(req: Request) -> Reply:
        return Reply(body=[g.json() for g in emu.games()])

    def game(req: Request) -> Reply:
        return Reply(body=emu.game(req.params["id"]).json())

    def game_wait(req: Request) -> Reply:
        try:
            snap = emu.wait_game_over(req.params["id"], _timeout(req, 30.0))
        except TimeoutError as exc:
            raise ApiError(408, str(exc)) from None
        return Reply(body=snap.json())

    def opponent(req: Request) -> Reply:
        text = req.body.get("text")
        if text is not None and not isinstance(text, str):
            raise EmulatorUsageError(f"text={text!r} must be a string")
        emu.opponent_action(req.params["id"], req.params["action"], text)
        return Reply()

    def spectator(req: Request) -> Reply:
        unknown = sorted(set(req.body) - {"text", "username"})
        if unknown:
            raise EmulatorUsageError(
                f"/emu/game/{{id}}/spectator: unknown keys {unknown}; known: text, username"
            )
        emu.chat.spectator_say(
            req.params["id"], req.body.get("text", ""), req.body.get("username", "spectator1")
        )
        return Reply()

    def fault_add(req: Request) -> Reply:
        names = {f.name for f in fields(Fault)} - {"id"}
        unknown = sorted(set(req.body) - names)
        if unknown:
            raise EmulatorUsageError(f"/emu/fault: unknown keys {unknown}; known: {sorted(names)}")
        if "kind" not in req.body:
            raise EmulatorUsageError(
                "/emu/fault needs a kind: " + ", ".join(FAULT_KINDS)
            )
        try:
            fault = emu.faults.inject(Fault(**req.body))
        except (FaultError, TypeError) as exc:
            raise EmulatorUsageError(str(exc)) from None
        return Reply(body=fault.json())

    def faults(req: Request) -> Reply:
        return Reply(body=[f.json() for f in emu.faults.active()])

    def faults_clear(req: Request) -> Reply:
        emu.faults.clear()
        return Reply()

    def arena_create(req: Request) -> Reply:
        body = dict(req.body)
        opponents = body.pop("opponents", [])
        if not isinstance(opponents, list):
            raise EmulatorUsageError("/emu/arena: opponents must be a list")
        kwargs = _kwargs_for(ArenaSpec, body, "/emu/arena")
        joined: list[Any] = []
        for opp in opponents:
            if isinstance(opp, str):
                joined.append(opp)
            elif isinstance(opp, dict) and isinstance(opp.get("name"), str):
                spec = dataclass_from(OpponentSpec, opp.get("opponent"), "opponent")
                joined.append((opp["name"], int(opp.get("rating", 1500)), spec))
            else:
                raise EmulatorUsageError(
                    f"/emu/arena: opponent {opp!r}: a name or {{name, rating, opponent}}")
        return Reply(body={"id": emu.arenas.create(**kwargs, opponents=joined)})

    def arena_get(req: Request) -> Reply:
        return Reply(body=emu.arenas.json(req.params["id"], req.query.get("user")))

    def arena_finish(req: Request) -> Reply:
        emu.arenas.finish(req.params["id"])
        return Reply()

    def counters(req: Request) -> Reply:
        return Reply(body=emu.traffic.counters())

    def requests(req: Request) -> Reply:
        recs = emu.traffic.requests(req.query.get("pattern"))
        return Reply(body=[r.__dict__ for r in recs])

    def reset(req: Request) -> Reply:
        emu.traffic.reset()
        return Reply()

    return [
        Route("POST", "/emu/challenge", challenge),
        Route("GET", "/emu/challenge/{id}", challenge_get),
        Route("POST", "/emu/challenge/{id}/cancel", challenge_cancel),
        Route("POST", "/emu/game", game_create),
        Route("GET", "/emu/games", games),
        Route("GET", "/emu/game/{id}", game),
        Route("GET", "/emu/game/{id}/wait", game_wait),
        Route("POST", "/emu/game/{id}/opponent/{action}", opponent),
        Route("POST", "/emu/game/{id}/spectator", spectator),
        Route("POST", "/emu/arena", arena_create),
        Route("GET", "/emu/arena/{id}", arena_get),
        Route("POST", "/emu/arena/{id}/finish", arena_finish),
        Route("POST", "/emu/fault", fault_add),
        Route("GET", "/emu/faults", faults),
        Route("DELETE", "/emu/faults", faults_clear),
        Route("POST", "/emu/faults/clear", faults_clear),
        Route("GET", "/emu/counters", counters),
        Route("GET", "/emu/requests", requests),
        Route("POST", "/emu/counters/reset", reset),
    ]
