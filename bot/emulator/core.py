"""The emulator core: the state machine behind the HTTP routes, assembled from
one mixin per concern (streams, challenges, play, claims, scheduler; shared state
and primitives in state.py). Public entry points take the lock themselves.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from bot.emulator.challenge_ops import ChallengeOps
from bot.emulator.claim_ops import ClaimOps
from bot.emulator.config import AccountSpec
from bot.emulator.errors import EmulatorUsageError, bad_request, not_found
from bot.emulator.faults import Fault
from bot.emulator.play_ops import PlayOps
from bot.emulator.scheduler import Scheduler
from bot.emulator.snapshot import GameSnapshot, RequestRecord
from bot.emulator.stream_ops import StreamOps

log = logging.getLogger(__name__)

__all__ = ["Core", "GameSnapshot", "RequestRecord"]

ONLINE_BOT_VISIBLE = 200  # lila onlineBotVisible: the online bots list's size, at most
ONLINE_NB_DEFAULT, ONLINE_NB_MAX = 100, 512  # the api spec's `nb` of /api/bot/online


class Core(StreamOps, ChallengeOps, PlayOps, ClaimOps, Scheduler):
    def start(self) -> None:
        self._thread = threading.Thread(target=self._scheduler, name="emu-scheduler", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        with self.lock:
            self.stopping = True
            for sub in self.streams.all():
                sub.drop()
            self._wake.notify_all()
            self.changed.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=1.0)
        with self.lock:
            players = list(self.uci_players.values())
            self.uci_players.clear()
        for player in players:
            player.close()
        # Searches and closes in flight end within one movetime once engines quit.
        for thread in threading.enumerate():
            if thread.name.startswith("emu-uci-") and thread is not threading.current_thread():
                thread.join(timeout=2.0)

    def engines_running(self) -> int:
        """UCI opponent engine processes alive (policy="uci")."""
        with self.lock:
            return sum(1 for p in self.uci_players.values() if p.running)

    def account_for_token(self, token: str) -> AccountSpec | None:
        with self.lock:
            return self.people.accounts.get(token)

    def upgrade(self, account: AccountSpec) -> None:
        with self.lock:
            if account.title == "BOT":
                raise bad_request("This account is already a bot account.")
            if not account.can_upgrade:
                raise bad_request("No, this account has played games and cannot be upgraded.")
            account.title = "BOT"

    def user_json(self, username: str, with_online: bool = True) -> dict[str, Any]:
        with self.lock:
            acc = self.people.account_named(username)
            if acc is not None:
                name, title, rating, online = acc.username, acc.title, acc.rating, True
                online = bool(self.streams.event_streams(acc.username))
                games = 120
            else:
                user = self.people.users.get(username.lower())
                if user is None:
                    raise not_found()
                name, title, rating, online = user.username, user.title, user.rating, user.online
                games = user.games
            perfs = {
                k: {"games": games, "rating": rating if games else 1500, "rd": 60 if games else 500,
                    "prog": 0, "prov": games == 0}
                for k in ("bullet", "blitz", "rapid", "classical", "correspondence")
            }
            extra = self.people.users[username.lower()].perfs if acc is None and games else {}
            perfs.update({k: {"games": games, "rating": r, "rd": 60, "prog": 0, "prov": False}
                          for k, r in extra.items()})
            data: dict[str, Any] = {
                "id": name.lower(),
                "username": name,
                "perfs": perfs,
                "createdAt": 1600000000000,
                "seenAt": int(time.time() * 1000),
                "playTime": {"total": 3600, "tv": 0},
                "url": f"{self.site}/@/{name}",
                "count": {"all": 120, "rated": 100},
            }
            if title:
                data["title"] = title
            if with_online:
                data["online"] = online
            return data

    def online_bots(self, exclude: str, nb: int | None) -> list[dict[str, Any]]:
        """GET /api/bot/online: at most ONLINE_BOT_VISIBLE bots whatever `nb` asks
        (lila modules/user/src/main/package.scala `onlineBotVisible = Max(200)`, the
        limit of UserApi.visibleBotsByIds), then the first `nb` of them (lila
        OnlineApiUsers.getNdJson `take(nb)`; api doc/specs/tags/bot/api-bot-online.yaml:
        1..512, default 100, api 4b980c5)."""
        with self.lock:
            names = [
                u.username
                for u in self.people.users.values()
                if u.title == "BOT" and u.online and u.username.lower() != exclude.lower()
            ][:ONLINE_BOT_VISIBLE]
        take = ONLINE_NB_DEFAULT if nb is None else min(max(nb, 1), ONLINE_NB_MAX)
        return [self.user_json(n, with_online=False) for n in names[:take]]

    def record(self, method: str, path: str, route: str, status: int) -> None:
        with self.lock:
            self.traffic.add(RequestRecord(time.monotonic(), method, path, route, status))
            self.changed.notify_all()

    def rate_limited(self, method: str, path: str) -> bool:
        """True if a configured rate limit rejects this request (Lichess: 429)."""
        now = time.monotonic()
        with self.lock:
            return self.traffic.rate_limited(self.config.rate_limits, f"{method} {path}", now)

    def one_way_s(self) -> float:
        """Half of a round-trip time drawn from EmulatorConfig.rtt_ms, in seconds."""
        lo, hi = self.config.rtt_ms
        if hi <= 0:
            return 0.0
        with self.lock:
            return self.net_rng.uniform(lo, hi) / 2000.0

    def request_faults(self, method: str, path: str) -> list[Fault]:
        with self.lock:
            return self.faults.for_request(method, path)

    def add_fault(self, fault: Fault) -> Fault:
        with self.lock:
            self.faults.add(fault)
            # Wake every stream so an open one notices a stream fault right away.
            for sub in self.streams.all():
                sub.cond.notify()
            return fault

    def snapshot(self, game_id: str) -> GameSnapshot:
        with self.lock:
            game = self.games.get(game_id)
            if game is None:
                raise EmulatorUsageError(f"no game {game_id!r}")
            now = time.monotonic()
            wtm = game.white_to_move
            return GameSnapshot(
                id=game.id,
                status=game.status,
                winner=game.winner,
                over=game.over,
                moves=list(game.moves),
                fen=game.board.fen(),
                initial_fen=game.initial_fen,
                variant=game.variant,
                rated=game.rated,
                bot_color=game.color_name(game.bot_color),
                white=game.white.name,
                black=game.black.name,
                wtime_ms=int(max(0.0, game.clock.remaining_ms(True, wtm, now))),
                btime_ms=int(max(0.0, game.clock.remaining_ms(False, wtm, now))),
                clock_running=game.clock.running and not game.over,
                draw_offers={"white": game.draw_offer[True], "black": game.draw_offer[False]},
                takeback_offers={
                    "white": game.takeback_offer[True],
                    "black": game.takeback_offer[False],
                },
                opponent_gone=game.opp_gone,
                chat=list(game.chat),
                finished_at=game.finished_at,
            )

    def wait_for(self, predicate: Callable[[], bool], timeout: float) -> bool:
        with self.lock:
            return self.changed.wait_for(predicate, timeout)

    def wait_game_over(self, game_id: str, timeout: float) -> GameSnapshot:
        def over() -> bool:
            game = self.games.get(game_id)
            return game is not None and game.over

        with self.lock:
            if game_id not in self.games:
                raise EmulatorUsageError(f"no game {game_id!r}")
            if not self.changed.wait_for(over, timeout):
                snap = self.snapshot(game_id)
                raise TimeoutError(
                    f"game {game_id} not over after {timeout} s "
                    f"(status {snap.status}, {len(snap.moves)} moves)"
                )
            return self.snapshot(game_id)

    def wait_game_started(self, challenge_id: str, timeout: float) -> str:
        """Wait until challenge `challenge_id` became a game; returns the game id."""
        with self.lock:
            if not self.changed.wait_for(lambda: challenge_id in self.games, timeout):
                raise TimeoutError(f"challenge {challenge_id} not accepted within {timeout} s")
            return challenge_id
