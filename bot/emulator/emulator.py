"""Public Python API of the emulator: start/stop, drive games, inject faults."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from typing import Any

from bot.emulator.api import build_routes
from bot.emulator.config import EmulatorConfig, OpponentSpec
from bot.emulator.control import build_control_routes
from bot.emulator.core import Core, GameSnapshot, RequestRecord
from bot.emulator.errors import EmulatorUsageError
from bot.emulator.faults import Fault, FaultError
from bot.emulator.online_api import OnlineData, build_online_routes
from bot.emulator.rival import RivalEventStream
from bot.emulator.server import EmuHTTPServer
from bot.emulator.validate import check_kwargs

log = logging.getLogger(__name__)


def _args(frame_locals: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in frame_locals.items() if k != "self"}


class Emulator:
    """A Lichess Bot API on loopback. Use as a context manager or start()/stop()."""

    def __init__(self, config: EmulatorConfig | None = None) -> None:
        self.config = config or EmulatorConfig()
        self._core = Core(self.config)
        self._server: EmuHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._rivals: list[RivalEventStream] = []
        # Opening explorer, cloud eval and tablebase answers (see online_api.py).
        self.online = OnlineData()

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> Emulator:
        if self._server is not None:
            return self
        if self._core.stopping:
            raise EmulatorUsageError("this Emulator was stopped; create a new Emulator to restart")
        routes = (build_control_routes(self) + build_routes(self._core)
                  + build_online_routes(self.online))
        try:
            self._server = EmuHTTPServer((self.config.host, self.config.port), self._core, routes)
        except OSError as exc:
            raise EmulatorUsageError(
                f"cannot listen on {self.config.host}:{self.config.port} ({exc.strerror}); "
                "pick another address or port (port 0 = any free one)"
            ) from None
        self._core.site = self.url
        self._core.start()
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.1},
            name="emu-http",
            daemon=True,
        )
        self._thread.start()
        log.info("Lichess emulator listening on %s", self.url)
        return self

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        for rival in self._rivals:
            rival.stop()
        self._core.stop()
        server.shutdown()
        server.close_all_connections()
        server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=1.0)
        self.online.close()
        log.info("Lichess emulator stopped")

    def __enter__(self) -> Emulator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._server is None:
            raise EmulatorUsageError("the emulator is not running; call start() first")
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://{self.config.host}:{self.port}"

    @property
    def token(self) -> str:
        """The first configured account's token (the demo/test bot token)."""
        return self.config.accounts[0].token

    # ------------------------------------------------------------------ challenges
    def challenge_bot(
        self,
        challenger: str = "alice",
        rated: bool = True,
        variant: str = "standard",
        clock_limit_s: int | None = 60,
        increment_s: int | None = 1,
        color: str = "random",
        challenger_title: str | None = None,
        challenger_rating: int = 1500,
        initial_fen: str | None = None,
        opponent: OpponentSpec | None = None,
        days: int | None = None,
        bot_username: str | None = None,
        force: bool = False,
        keep_alive: bool = False,
    ) -> str:
        """A user challenges the bot; returns the challenge id (= the game id if accepted).

        keep_alive: the challenger keeps the challenge seen (lila: the challenge page
        open, or keepAliveStream=true), so it never expires while unanswered.

        clock_limit_s=None makes a correspondence (`days`) or unlimited challenge.
        variant: any Lichess key (crazyhouse, atomic, antichess, kingOfTheHill,
        threeCheck, horde, racingKings too), refereed by python-chess's
        chess.variant boards. initial_fen with a variant of its own rules starts
        that game there (pockets `[Qn]` for crazyhouse), which lila never does
        (its games start at the variant's start, gameFull `initialFen: "startpos"`):
        a test's way to reach a position.
        With EmulatorConfig.refuse_bot_ultrabullet, an UltraBullet clock to a BOT
        raises EmulatorUsageError with lila's reason (lila never delivers such a
        challenge) unless force=True.
        """
        check_kwargs(Emulator.challenge_bot, _args(locals()), "challenge_bot")
        return self._core.challenge_bot(
            challenger=challenger,
            rated=rated,
            variant=variant,
            clock_limit_s=clock_limit_s,
            increment_s=increment_s,
            days=days,
            color=color,
            challenger_title=challenger_title,
            challenger_rating=challenger_rating,
            initial_fen=initial_fen,
            opponent=opponent or OpponentSpec(),
            bot_username=bot_username,
            force=force,
            keep_alive=keep_alive,
        )

    def cancel_challenge(self, challenge_id: str) -> None:
        """The challenger withdraws the challenge (challengeCanceled event)."""
        self._core.cancel_incoming(challenge_id)

    def challenge_status(self, challenge_id: str) -> str | None:
        """created | offline | accepted | declined | canceled, or None if unknown."""
        return self._core.challenge_status(challenge_id)

    def decline_reason(self, challenge_id: str) -> str | None:
        with self._core.lock:
            ch = self._core.challenges.declined.get(challenge_id)
            return ch.decline_key if ch else None

    def wait_challenge_answered(self, challenge_id: str, timeout: float = 10.0) -> str:
        """Wait until the bot accepted/declined (or it expired); returns the status."""
        ok = self._core.wait_for(
            lambda: self._core.challenge_status(challenge_id) not in ("created", None), timeout
        )
        status = self._core.challenge_status(challenge_id)
        if not ok or status is None:
            raise TimeoutError(f"challenge {challenge_id} still {status} after {timeout} s")
        return status

    # ------------------------------------------------------------------ games
    def start_game_directly(
        self,
        bot_color: str = "white",
        moves: Iterable[str] = (),
        variant: str = "standard",
        initial_fen: str | None = None,
        clock_limit_s: int | None = 60,
        increment_s: int | None = 0,
        days: int | None = None,
        rated: bool = False,
        opponent: OpponentSpec | None = None,
        opponent_name: str = "alice",
        opponent_title: str | None = None,
        opponent_rating: int = 1500,
        wtime_ms: int | None = None,
        btime_ms: int | None = None,
        bot_username: str | None = None,
        source: str = "friend",
    ) -> str:
        """A game already in progress (e.g. to test resumption after a restart).

        source: "friend" (a challenge's game: lila never ends it for want of a first
        move) or "lobby" (a seek's or pool's: a side that does not make its first
        move in time gets it aborted, RoundGame.expirable)."""
        check_kwargs(Emulator.start_game_directly, _args(locals()), "start_game_directly")
        return self._core.start_game_directly(
            bot_color=bot_color,
            moves=list(moves),
            variant=variant,
            initial_fen=initial_fen,
            limit_s=clock_limit_s,
            increment_s=increment_s,
            days=days,
            rated=rated,
            opponent=opponent or OpponentSpec(),
            opponent_name=opponent_name,
            opponent_title=opponent_title,
            opponent_rating=opponent_rating,
            wtime_ms=wtime_ms,
            btime_ms=btime_ms,
            bot_username=bot_username,
            source=source,
        )

    def game(self, game_id: str) -> GameSnapshot:
        return self._core.snapshot(game_id)

    def games(self) -> list[GameSnapshot]:
        with self._core.lock:
            ids = list(self._core.games)
        return [self._core.snapshot(g) for g in ids]

    def wait_game_over(self, game_id: str, timeout: float = 60.0) -> GameSnapshot:
        """Block until the game ends; TimeoutError (with the state) otherwise."""
        return self._core.wait_game_over(game_id, timeout)

    def wait_game_started(self, challenge_id: str, timeout: float = 10.0) -> str:
        return self._core.wait_game_started(challenge_id, timeout)

    def wait_until(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Wait (no polling) until `predicate()` holds; re-checked on every state change."""
        return self._core.wait_for(predicate, timeout)

    def opponent_action(self, game_id: str, action: str, text: str | None = None) -> None:
        """resign | abort | offer_draw | propose_takeback | leave | return | chat."""
        self._core.opponent_action(game_id, action, text)

    def say(self, game_id: str, text: str) -> None:
        """The opponent writes in the player chat."""
        self._core.opponent_action(game_id, "chat", text)

    def spectator_say(self, game_id: str, text: str, username: str = "spectator1") -> None:
        """A spectator writes in the watcher chat: a `chatLine` with room "spectator"
        on the bot's game stream (lila sends BOTs the `<gameId>/w` chat too)."""
        self._core.spectator_say(game_id, text, username)

    def pgn(self, game_id: str) -> str:
        return self._core.export_pgn(game_id)

    def rival_event_stream(self, reconnect_s: float = 0.5) -> RivalEventStream:
        """Emulate a second program on the default account's token: a thread that
        keeps the event stream open over real HTTP and re-opens it `reconnect_s`
        after it is closed (each opening closes the bot's own stream, as on lila).
        Stop it with `.stop()` or use it as a context manager; stop() also ends it."""
        if not isinstance(reconnect_s, (int, float)) or reconnect_s < 0:
            raise EmulatorUsageError(f"reconnect_s={reconnect_s!r} must be a number >= 0")
        rival = RivalEventStream(self.config.host, self.port, self.token, float(reconnect_s))
        self._rivals.append(rival)
        return rival.start()

    # ------------------------------------------------------------------ arenas
    def create_arena(
        self,
        minutes: float = 10.0,
        clock_limit_s: int = 60,
        increment_s: int = 0,
        starts_in_s: float = 0.0,
        bots_allowed: bool = True,
        password: str | None = None,
        team: str | None = None,
        rated: bool = True,
        name: str = "Emulator",
        opponents: Iterable[str | tuple[str, int] | tuple[str, int, OpponentSpec]] = (),
    ) -> str:
        """An arena tournament (arena.py); returns its id. `opponents` join it at once:
        a name, (name, rating) or (name, rating, OpponentSpec for its games vs the bot)."""
        check_kwargs(Emulator.create_arena, _args(locals()), "create_arena")
        joined: list[tuple[str, int, OpponentSpec]] = []
        for entry in opponents:
            if isinstance(entry, str):
                entry = (entry, 1500)
            name_, rating = entry[0], entry[1]
            spec = entry[2] if len(entry) > 2 else OpponentSpec()
            if not isinstance(name_, str) or not isinstance(rating, int) \
                    or not isinstance(spec, OpponentSpec):
                raise EmulatorUsageError(f"opponent {entry!r}: use a name, (name, rating) or "
                                         "(name, rating, OpponentSpec)")
            joined.append((name_, rating, spec))
        return self._core.create_arena(
            minutes=minutes, clock_limit_s=clock_limit_s, increment_s=increment_s,
            starts_in_s=starts_in_s, bots_allowed=bots_allowed, password=password, team=team,
            rated=rated, name=name, opponents=joined)

    def arena(self, arena_id: str, username: str | None = None) -> dict[str, Any]:
        """The tournament's JSON as GET /api/tournament/{id} gives it (with `me` for the
        account `username`, if it joined)."""
        with self._core.lock:
            account = self._core.people.target(username) if username else None
        return self._core.arena_json(arena_id, account)

    def finish_arena(self, arena_id: str) -> None:
        """End the arena now (as when its time is up)."""
        self._core.finish_arena(arena_id)

    # ------------------------------------------------------------------ faults
    def inject(
        self,
        kind: str | Fault,
        target: str = "*",
        *,
        status: int = 429,
        error: str | None = None,
        count: int | None = 1,
        probability: float = 1.0,
        duration_s: float | None = None,
        apply: bool = True,
        after: bool = False,
    ) -> Fault:
        """Add a fault; see faults.Fault. Examples:

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
                fault = Fault(
                    kind=kind,  # type: ignore[arg-type]
                    target=target,
                    status=status,
                    error=error,
                    count=count,
                    probability=probability,
                    duration_s=duration_s,
                    apply=apply,
                    after=after,
                )
            except FaultError as exc:
                raise EmulatorUsageError(str(exc)) from None
        return self._core.add_fault(fault)

    def clear_faults(self) -> None:
        with self._core.lock:
            self._core.faults.clear()

    def faults(self) -> list[Fault]:
        with self._core.lock:
            return self._core.faults.active()

    def engines_running(self) -> int:
        """How many `uci` opponent engine processes are alive (closed when games end)."""
        return self._core.engines_running()

    def open_streams(self) -> dict[str, int]:
        """Streams with a live handler: {"event": n, "game": m} (leak checks, reconnects)."""
        with self._core.lock:
            subs = list(self._core.streams.live)
        events = sum(1 for s in subs if s.key == "event")
        return {"event": events, "game": len(subs) - events}

    # ------------------------------------------------------------------ counters
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

    def reset_counters(self) -> None:
        with self._core.lock:
            self._core.traffic.clear()
