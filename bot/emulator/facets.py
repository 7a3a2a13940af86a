"""The Emulator's facets: one small class per job, reached as attributes
(`emu.challenges`, `emu.chat`, `emu.arenas`, `emu.faults`, `emu.traffic`).
Each gets the core when the Emulator is built and takes its lock itself."""

from __future__ import annotations

from typing import Any, Unpack

from bot.emulator.config import OpponentSpec
from bot.emulator.core import Core, RequestRecord
from bot.emulator.errors import EmulatorUsageError
from bot.emulator.faults import Fault, FaultError
from bot.emulator.specs import ArenaOptions, ArenaSpec, FaultOptions, build


class ChallengeFacet:
    """Where a challenge to the bot stands: `emu.challenges`."""

    def __init__(self, core: Core) -> None:
        self._core = core

    def status(self, challenge_id: str) -> str | None:
        """created | offline | accepted | declined | canceled, or None if unknown."""
        return self._core.challenge_status(challenge_id)

    def decline_reason(self, challenge_id: str) -> str | None:
        with self._core.lock:
            ch = self._core.challenges.declined.get(challenge_id)
            return ch.decline_key if ch else None

    def wait_answered(self, challenge_id: str, timeout: float = 10.0) -> str:
        """Wait until the bot accepted/declined (or it expired); returns the status."""
        ok = self._core.wait_for(
            lambda: self._core.challenge_status(challenge_id) not in ("created", None), timeout
        )
        status = self._core.challenge_status(challenge_id)
        if not ok or status is None:
            raise TimeoutError(f"challenge {challenge_id} still {status} after {timeout} s")
        return status

    def cancel(self, challenge_id: str) -> None:
        """The challenger withdraws the challenge (challengeCanceled event)."""
        self._core.cancel_incoming(challenge_id)


class ChatFacet:
    """Lines written in a game's chat by the others: `emu.chat`."""

    def __init__(self, core: Core) -> None:
        self._core = core

    def say(self, game_id: str, text: str) -> None:
        """The opponent writes in the player chat."""
        self._core.opponent_action(game_id, "chat", text)

    def spectator_say(self, game_id: str, text: str, username: str = "spectator1") -> None:
        """A spectator writes in the watcher chat: a `chatLine` with room "spectator"
        on the bot's game stream (lila sends BOTs the `<gameId>/w` chat too)."""
        self._core.spectator_say(game_id, text, username)


class ArenaFacet:
    """Arena tournaments (arena.py): `emu.arenas`."""

    def __init__(self, core: Core) -> None:
        self._core = core

    def create(self, **kw: Unpack[ArenaOptions]) -> str:
        """An arena; returns its id. `opponents` join it at once: a name,
        (name, rating) or (name, rating, OpponentSpec for its games vs the bot).
        Keywords and defaults: specs.ArenaSpec."""
        spec = build(ArenaSpec, dict(kw), "create_arena")
        joined: list[tuple[str, int, OpponentSpec]] = []
        for entry in spec.opponents:
            if isinstance(entry, str):
                entry = (entry, 1500)
            name_, rating = entry[0], entry[1]
            opp = entry[2] if len(entry) > 2 else OpponentSpec()
            if not isinstance(name_, str) or not isinstance(rating, int) \
                    or not isinstance(opp, OpponentSpec):
                raise EmulatorUsageError(f"opponent {entry!r}: use a name, (name, rating) or "
                                         "(name, rating, OpponentSpec)")
            joined.append((name_, rating, opp))
        return self._core.create_arena(spec, joined)

    def json(self, arena_id: str, username: str | None = None) -> dict[str, Any]:
        """The tournament's JSON as GET /api/tournament/{id} gives it (with `me` for the
        account `username`, if it joined)."""
        with self._core.lock:
            account = self._core.people.target(username) if username else None
        return self._core.arena_json(arena_id, account)

    def finish(self, arena_id: str) -> None:
        """End the arena now (as when its time is up)."""
        self._core.finish_arena(arena_id)


class FaultFacet:
    """Fault injection (faults.py): `emu.faults`."""

    def __init__(self, core: Core) -> None:
        self._core = core

    def inject(self, kind: str | Fault, target: str = "*", **kw: Unpack[FaultOptions]) -> Fault:
        """Add a fault; see faults.Fault for the keywords. Examples:

        inject("http_error", "POST /api/bot/game/*/move/*", status=429)
        inject("drop_stream", "event"); inject("silent_stream", "game", duration_s=3)
        inject("http_error", "*", status=503, count=None, probability=0.02)  # soak
        inject("stall", "POST /api/bot/game/*/move/*", duration_s=None, apply=True)
        inject("slow", "POST /api/challenge/*", duration_s=1, after=True)  # late answer
        inject("http_error", "POST /api/bot/game/*/move/*", status=400,
               error="Not your turn, or game already over")
        """
        if isinstance(kind, Fault):
            fault = kind
        else:
            try:
                fault = Fault(kind=kind, target=target, **kw)  # type: ignore[arg-type]
            except FaultError as exc:
                raise EmulatorUsageError(str(exc)) from None
        return self._core.add_fault(fault)

    def clear(self) -> None:
        with self._core.lock:
            self._core.faults.clear()

    def active(self) -> list[Fault]:
        with self._core.lock:
            return self._core.faults.active()


class TrafficFacet:
    """What went over the wire and what is still open: `emu.traffic`."""

    def __init__(self, core: Core) -> None:
        self._core = core

    def counters(self) -> dict[str, int]:
        """Requests per route, e.g. {"POST /api/bot/game/{id}/move/{move}": 12}."""
        with self._core.lock:
            return dict(self._core.traffic.counters)

    def count(self, pattern: str) -> int:
        """Requests whose route name or "METHOD /path" matches an fnmatch pattern."""
        return len(self.requests(pattern))

    def requests(self, pattern: str | None = None) -> list[RequestRecord]:
        with self._core.lock:
            return self._core.traffic.matching(pattern)

    def reset(self) -> None:
        """Forget the counters and the request log."""
        with self._core.lock:
            self._core.traffic.clear()

    def open_streams(self) -> dict[str, int]:
        """Streams with a live handler: {"event": n, "game": m} (leak checks, reconnects)."""
        with self._core.lock:
            subs = self._core.streams.all()
        events = sum(1 for s in subs if s.key == "event")
        return {"event": events, "game": len(subs) - events}

    def engines_running(self) -> int:
        """How many `uci` opponent engine processes are alive (closed when games end)."""
        return self._core.engines_running()
