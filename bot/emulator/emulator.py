"""Public Python API of the emulator: start/stop, drive games, inject faults.

The rule of this facade: `Emulator` itself keeps the lifecycle (start, stop,
the context manager, url/port/token, the rival stream that stop() ends) and
what nearly every test does with a game: challenge_bot, start_game_directly,
game, games, wait_game_started, wait_game_over, wait_until, opponent_action,
pgn. Everything else is a facet, an attribute named for its one job
(facets.py):

    emu.challenges  status, decline_reason, wait_answered, cancel
    emu.chat        say (the opponent), spectator_say
    emu.arenas      create, json, finish
    emu.faults      inject, clear, active
    emu.traffic     count, requests, counters, reset, open_streams, engines_running
    emu.online      explorer, cloud eval and tablebase answers (online_api.py)
    emu.teams       the teams the bot may join: create, members, requests (teams.py)

The long keyword lists (challenge_bot, start_game_directly, arenas.create,
faults.inject) are typed keywords turned into one record (specs.py).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Unpack

from bot.emulator.api import build_routes
from bot.emulator.config import EmulatorConfig
from bot.emulator.control import build_control_routes
from bot.emulator.core import Core, GameSnapshot
from bot.emulator.errors import EmulatorUsageError
from bot.emulator.facets import (
    ArenaFacet,
    ChallengeFacet,
    ChatFacet,
    FaultFacet,
    TrafficFacet,
)
from bot.emulator.online_api import OnlineData, build_online_routes
from bot.emulator.rival import RivalEventStream
from bot.emulator.server import EmuHTTPServer
from bot.emulator.specs import ChallengeOptions, ChallengeSpec, GameOptions, GameSpec, build
from bot.emulator.teams import TeamData, build_team_routes

log = logging.getLogger(__name__)


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
        self.challenges = ChallengeFacet(self._core)
        self.chat = ChatFacet(self._core)
        self.arenas = ArenaFacet(self._core)
        self.faults = FaultFacet(self._core)
        self.traffic = TrafficFacet(self._core)
        self.teams = TeamData()  # POST /team/{id}/join (teams.py)

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> Emulator:
        if self._server is not None:
            return self
        if self._core.stopping:
            raise EmulatorUsageError("this Emulator was stopped; create a new Emulator to restart")
        routes = (build_control_routes(self) + build_routes(self._core)
                  + build_online_routes(self.online) + build_team_routes(self.teams))
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
    def challenge_bot(self, **kw: Unpack[ChallengeOptions]) -> str:
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
        Keywords and defaults: specs.ChallengeSpec.
        """
        spec = build(ChallengeSpec, dict(kw), "challenge_bot")
        return self._core.challenge_bot(spec)

    # ------------------------------------------------------------------ games
    def start_game_directly(self, **kw: Unpack[GameOptions]) -> str:
        """A game already in progress (e.g. to test resumption after a restart).

        source: "friend" (a challenge's game: lila never ends it for want of a first
        move) or "lobby" (a seek's or pool's: a side that does not make its first
        move in time gets it aborted, RoundGame.expirable).
        Keywords and defaults: specs.GameSpec."""
        spec = build(GameSpec, dict(kw), "start_game_directly")
        return self._core.start_game_directly(spec)

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

    def pgn(self, game_id: str) -> str:
        return self._core.export_pgn(game_id)

    def rival_event_stream(self, reconnect_s: float = 0.5,
                           token: str | None = None) -> RivalEventStream:
        """Emulate a second program on the default account: a thread that keeps the
        event stream open over real HTTP and re-opens it `reconnect_s` after it is
        closed. On the same token (the default) each opening closes the bot's own
        stream, as on lila; with `token` (another of the account's tokens,
        AccountSpec.other_tokens) both streams stay open and hear every event.
        Stop it with `.stop()` or use it as a context manager; stop() also ends it."""
        if not isinstance(reconnect_s, (int, float)) or reconnect_s < 0:
            raise EmulatorUsageError(f"reconnect_s={reconnect_s!r} must be a number >= 0")
        if token is not None and self._core.account_for_token(token) is None:
            raise EmulatorUsageError("rival_event_stream: that token is no account's "
                                     "(add it to AccountSpec.other_tokens)")
        rival = RivalEventStream(self.config.host, self.port, token or self.token,
                                 float(reconnect_s))
        self._rivals.append(rival)
        return rival.start()
