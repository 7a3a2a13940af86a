"""Arena tournaments, as lila runs them for BOT accounts.

Sources (lichess-org/lila; see docs/research/lila-arenas-and-queue.md):
- joining and withdrawing: app/controllers/Tournament.scala (apiJoin, apiWithdraw),
  modules/tournament/src/main/TournamentApi.scala (join, selfPause),
  Tournament.JoinResult (the error texts), Pause.scala (the pause after a withdraw);
- the bot entry condition: modules/gathering/src/main/Condition.scala (Bots),
  TournamentCondition.scala (absent = bots refused);
- pairing: StartedOrganizer.scala (a small arena every 15 s; pairingsClosed),
  WaitingUsers.scala (waitSeconds), TournamentApi.makePairings, arena/PairingSystem.scala
  (adjacent ranks, no rematch of the last opponent; the weighted matching of big
  arenas is approximated by pairing neighbours in the ranking);
- games: AutoPairing.scala (source arena, tournamentId, already started);
  RoundGame timeForFirstMove + Finisher.noStart (a mover-less game is lost, not
  aborted) and TournamentApi.withdrawNonMover;
- scoring: arena/ArenaSheet.scala (2/1/0, streaks: 4 for a win and 2 for a draw after
  two wins in a row; a draw under 20 plies scores 0; the V2 draw-streak rule is not
  modelled);
- the end: TournamentApi.finish (no pairings: deleted; games still playing do not count;
  withdrawn flags cleared). lila sends no event for a start or an end.

Emulator opponents joined to an arena play the account under test with their
OpponentSpec; two opponents paired together play an unseen game of
`arena_virtual_game_s` with a random result.  Accounts are paired only with
emulator opponents (the emulator's games have one account side).
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import logging
import time
from dataclasses import dataclass, field
from typing import Any

import chess

from bot.emulator.config import AccountSpec, EmulatorConfig, OpponentSpec
from bot.emulator.errors import ApiError, EmulatorUsageError, bad_request
from bot.emulator.game import Game, Player
from bot.emulator.payloads import speed_of
from bot.emulator.people import bot_player
from bot.emulator.specs import ArenaSpec
from bot.emulator.state import CoreState, NewGame

log = logging.getLogger(__name__)

RECENTLY_STARTED_S = 15.0  # Tournament.isRecentlyStarted: pair by adjacent rank
TOP_PAUSED = 7  # a self-withdraw pauses only a player ranked in the top 7


@dataclass
class ArenaPlayer:
    name: str
    rating: int
    account: bool  # the bot under test (plays real games over the API)
    opponent: OpponentSpec = field(default_factory=OpponentSpec)
    title: str | None = "BOT"
    withdrawn: bool = False
    results: list[int] = field(default_factory=list)  # points, oldest first
    wins_in_row: int = 0
    playing: str | None = None  # game id (or virtual pairing id)
    waiting_since: float = 0.0  # monotonic: since when free to be paired
    last_opponent: str | None = None
    pauses: int = 0
    paused_until: float = 0.0

    @property
    def score(self) -> int:
        return sum(self.results)


@dataclass
class Pairing:
    id: str
    white: str  # lower-case names
    black: str
    ends_at: float | None = None  # virtual games only
    done: bool = False


@dataclass
class Arena:
    id: str
    name: str
    limit_s: int
    increment_s: int
    minutes: float
    starts_at: float  # monotonic
    starts_at_wall: float
    bots_allowed: bool
    password: str | None = field(default=None, repr=False)
    team: str | None = None
    rated: bool = True
    status: str = "created"  # created | started | finished
    players: dict[str, ArenaPlayer] = field(default_factory=dict)
    pairings: dict[str, Pairing] = field(default_factory=dict)
    next_pairing_at: float = 0.0

    @property
    def finishes_at(self) -> float:
        return self.starts_at + self.minutes * 60

    def estimate_s(self) -> float:
        return self.limit_s + 40 * self.increment_s

    def pairings_closed(self, now: float) -> bool:
        # Tournament.pairingsClosed: max(30 s, min(limit / 2, 120 s)) before the end.
        return self.finishes_at - now < max(30.0, min(self.limit_s / 2, 120.0))

    def ranking(self) -> list[ArenaPlayer]:
        return sorted(self.players.values(), key=lambda p: (-p.score, -p.rating, p.name))

    def rank_of(self, key: str) -> int:
        return [p.name.lower() for p in self.ranking()].index(key)


def _iso(wall: float) -> str:
    stamp = datetime.datetime.fromtimestamp(wall, datetime.UTC)
    return stamp.strftime("%Y-%m-%dT%H:%M:%S.") + f"{stamp.microsecond // 1000:03d}Z"


def _wait_seconds(estimate_s: float) -> float:
    # WaitingUsers.waitSeconds.
    if estimate_s < 30:
        return 8
    if estimate_s < 60:
        return 10
    return min(50.0, max(15.0, estimate_s / 10 + 6))


def _pause_s(arena: Arena, pauses: int) -> float:
    # Pause.scala: 10 s the first time, then estimate/15 per earlier pause, 10..120 s.
    if pauses <= 1:
        return 10.0
    return min(120.0, max(10.0, arena.estimate_s() / 15 * (pauses - 1)))


class ArenaOps(CoreState):
    def __init__(self, config: EmulatorConfig) -> None:
        super().__init__(config)
        self.arenas: dict[str, Arena] = {}

    def _arena_state(self) -> dict[str, Arena]:
        return self.arenas

    # -- the control API ---------------------------------------------------------------
    def create_arena(self, spec: ArenaSpec,
                     opponents: list[tuple[str, int, OpponentSpec]]) -> str:
        """A new arena; `opponents` (name, rating, spec) stand for spec.opponents."""
        limit_s, increment_s, starts_in_s = spec.clock_limit_s, spec.increment_s, spec.starts_in_s
        if limit_s + 40 * increment_s < 30 and spec.bots_allowed:
            # TournamentForm.validClockForBots: Bullet or slower.
            raise EmulatorUsageError("a bots-allowed arena needs a Bullet or slower clock "
                                     "(lila TournamentForm validClockForBots)")
        if spec.minutes <= 0 or starts_in_s < 0:
            raise EmulatorUsageError("minutes must be > 0 and starts_in_s >= 0")
        with self.lock:
            arenas = self._arena_state()
            aid = self._new_id()
            now = time.monotonic()
            arena = Arena(id=aid, name=spec.name, limit_s=limit_s, increment_s=increment_s,
                          minutes=spec.minutes, starts_at=now + starts_in_s,
                          starts_at_wall=time.time() + starts_in_s,
                          bots_allowed=spec.bots_allowed, password=spec.password,
                          team=spec.team, rated=spec.rated)
            for opp_name, rating, opp_spec in opponents:
                arena.players[opp_name.lower()] = ArenaPlayer(opp_name, rating, False, opp_spec)
            arenas[aid] = arena
            self._touch()
            log.info("arena %s created: %s+%s, %s min, starts in %.0f s", aid,
                     limit_s, increment_s, spec.minutes, starts_in_s)
            return aid

    def finish_arena(self, aid: str) -> None:
        """The organiser ends it now (lila's `kill` goes through the same finish)."""
        with self.lock:
            arena = self._arena(aid)
            if arena.status != "finished":
                self._arena_finish(arena, time.monotonic())

    def arena_json(self, aid: str, me: AccountSpec | None = None) -> dict[str, Any]:
        """GET /api/tournament/{id} (JsonView.apply + commonTournamentJson)."""
        with self.lock:
            arena = self._arena(aid)
            now = time.monotonic()
            speed = speed_of(arena.limit_s, arena.increment_s, None)
            data: dict[str, Any] = {
                "id": arena.id, "createdBy": "lichess", "system": "arena",
                "fullName": f"{arena.name} Arena", "minutes": arena.minutes,
                "startsAt": _iso(arena.starts_at_wall),
                "clock": {"limit": arena.limit_s, "increment": arena.increment_s},
                "variant": "standard", "rated": arena.rated,
                "perf": {"key": speed, "name": speed.capitalize()},
                "nbPlayers": len(arena.players), "duels": [],
                "standing": {"page": 1, "players": self._standing(arena)},
            }
            # lila writes these booleans only when true.
            if arena.status == "created":
                data["secondsToStart"] = max(0, int(arena.starts_at - now))
            elif arena.status == "started":
                data["isStarted"] = True
                data["secondsToFinish"] = max(0, int(arena.finishes_at - now))
                if arena.pairings_closed(now):
                    data["pairingsClosed"] = True
            else:
                data["isFinished"] = True
            if arena.bots_allowed:
                data["botsAllowed"] = True
            if arena.password is not None:
                data["private"] = True
            if me is not None and me.username.lower() in arena.players:
                p = arena.players[me.username.lower()]
                mine: dict[str, Any] = {"rank": arena.rank_of(me.username.lower()) + 1,
                                        "withdraw": p.withdrawn}
                if p.playing in self.games:
                    mine["gameId"] = p.playing
                if p.paused_until > now:
                    mine["pauseDelay"] = int(p.paused_until - now)
                data["me"] = mine
            return data

    def _standing(self, arena: Arena) -> list[dict[str, Any]]:
        out = []
        for rank, p in enumerate(arena.ranking(), 1):
            row: dict[str, Any] = {"name": p.name, "rank": rank, "rating": p.rating,
                                   "score": p.score,
                                   "sheet": {"scores": "".join(str(r) for r in
                                                               reversed(p.results)),
                                             "fire": p.wins_in_row >= 2}}
            if p.title:
                row["title"] = p.title
            if p.withdrawn:
                row["withdraw"] = True
            out.append(row)
        return out

    def _arena(self, aid: str) -> Arena:
        arena = self._arena_state().get(aid)
        if arena is None:
            raise EmulatorUsageError(f"no arena {aid!r}")
        return arena

    # -- the Lichess API ------------------------------------------------------------
    def arena_show(self, aid: str, me: AccountSpec | None) -> dict[str, Any]:
        with self.lock:
            if aid not in self._arena_state():
                raise ApiError(404, "Not found")
            return self.arena_json(aid, me)

    def arena_join(self, account: AccountSpec, aid: str, password: str | None,
                   team: str | None) -> None:
        with self.lock:
            arena = self._arena_state().get(aid)
            now = time.monotonic()
            if arena is None or arena.status == "finished":
                raise bad_request("This tournament no longer exists")
            key = account.username.lower()
            player = arena.players.get(key)
            if player is not None and not player.withdrawn:
                return  # already in: lila answers ok
            if arena.password is not None and not self._entry_code_ok(arena, key, password):
                raise bad_request("Wrong entry code")
            rejoin = player is not None and arena.status == "started"
            if not rejoin and account.title == "BOT" and not arena.bots_allowed:
                raise bad_request("Tournament restrictions")
            if arena.team is not None and team != arena.team:
                raise bad_request("Missing team")
            if player is not None and player.paused_until > now:
                raise bad_request("Your pause is not over yet")
            if player is None:
                player = ArenaPlayer(account.username, account.rating, True,
                                     title=account.title)
                arena.players[key] = player
            player.withdrawn = False
            player.waiting_since = now
            log.info("arena %s: %s joined", aid, account.username)
            self._touch()

    @staticmethod
    def _entry_code_ok(arena: Arena, user_id: str, given: str | None) -> bool:
        if not given or arena.password is None:
            return False
        # The plain code, or HMAC-SHA256(code, userId) in hex (TournamentApi.join).
        mac = hmac.new(arena.password.encode(), user_id.encode(), hashlib.sha256).hexdigest()
        return hmac.compare_digest(given, arena.password) or hmac.compare_digest(given, mac)

    def arena_withdraw(self, account: AccountSpec, aid: str) -> None:
        with self.lock:
            arena = self._arena_state().get(aid)
            if arena is None:
                raise ApiError(404, "No such tournament")
            key = account.username.lower()
            player = arena.players.get(key)
            if player is None or arena.status == "finished":
                return  # selfPause: a no-op, still {"ok":true}
            if arena.status == "created":
                del arena.players[key]
            elif not player.withdrawn:
                if arena.rank_of(key) < TOP_PAUSED:
                    player.pauses += 1
                    player.paused_until = time.monotonic() + _pause_s(arena, player.pauses)
                player.withdrawn = True
            log.info("arena %s: %s withdrew", aid, account.username)
            self._touch()

    # -- the organiser (called from the scheduler's tick) ------------------------------
    def _arena_tick(self, now: float) -> list[float]:
        deadlines: list[float] = []
        for arena in list(self._arena_state().values()):
            if arena.status == "finished":
                continue
            if arena.status == "created":
                if now < arena.starts_at:
                    deadlines.append(arena.starts_at)
                    continue
                arena.status = "started"
                # The organiser's next tick, not the start itself, makes the first pairing.
                arena.next_pairing_at = now + self.config.arena_pairing_interval_s
                log.info("arena %s started", arena.id)
            if now >= arena.finishes_at:
                self._arena_finish(arena, now)
                continue
            deadlines.append(arena.finishes_at)
            for pairing in list(arena.pairings.values()):
                if pairing.ends_at is not None and not pairing.done:
                    if now >= pairing.ends_at:
                        self._virtual_over(arena, pairing)
                    else:
                        deadlines.append(pairing.ends_at)
            if now >= arena.next_pairing_at:
                arena.next_pairing_at = now + self.config.arena_pairing_interval_s
                if not arena.pairings_closed(now):
                    self._make_pairings(arena, now)
            deadlines.append(arena.next_pairing_at)
        return deadlines

    def _make_pairings(self, arena: Arena, now: float) -> None:
        active = [p for p in arena.players.values() if not p.withdrawn]
        waiting = [p for p in arena.ranking() if not p.withdrawn and p.playing is None]
        if len(active) < 2 or len(waiting) < 2:
            return
        # makePairings: the first pairing, or a small arena with nbActive <= 1.5 x waiting
        # (players who waited over waitSeconds also qualify; in a small arena the
        # ratio rule is the one that decides).
        waited = sum(1 for p in waiting
                     if now - p.waiting_since > _wait_seconds(arena.estimate_s()))
        if arena.pairings and waited < 2 and \
                not (len(arena.players) < 30 and len(active) <= 1.5 * len(waiting)):
            return
        pool = list(waiting)
        if len(pool) % 2:  # evenNumber: the one who waited least is left out
            pool.remove(max(pool, key=lambda p: (p.waiting_since, p.name)))
        while len(pool) >= 2:
            a = pool.pop(0)
            # The nearest in rank who was not a's last opponent (lastOpponents), unless
            # only two players are active (duelScore allows anything).
            pick = next((b for b in pool if b.name.lower() != a.last_opponent
                         and a.name.lower() != b.last_opponent), None)
            if pick is None:
                if len(active) > 2:
                    continue
                pick = pool[0]
            pool.remove(pick)
            if a.account and pick.account:
                continue  # one account side per emulator game
            self._pair(arena, a, pick, now)

    def _pair(self, arena: Arena, a: ArenaPlayer, b: ArenaPlayer, now: float) -> None:
        white, black = (a, b) if self.rng.random() < 0.5 else (b, a)
        gid = self._new_id()
        pairing = Pairing(gid, white.name.lower(), black.name.lower())
        arena.pairings[gid] = pairing
        a.playing = b.playing = gid
        a.last_opponent, b.last_opponent = b.name.lower(), a.name.lower()
        if not (a.account or b.account):
            pairing.ends_at = now + self.config.arena_virtual_game_s
            return
        acc, opp = (a, b) if a.account else (b, a)
        account = self.people.target(acc.name)
        self._create_game(NewGame(
            gid=gid, bot=bot_player(account), opp=Player(opp.name, opp.title, opp.rating),
            bot_color=chess.WHITE if white is acc else chess.BLACK, variant="standard",
            rated=arena.rated, limit_s=arena.limit_s, increment_s=arena.increment_s, days=None,
            initial_fen=None, opponent=opp.opponent, source="arena", tournament_id=arena.id))

    def _virtual_over(self, arena: Arena, pairing: Pairing) -> None:
        roll = self.rng.random()
        winner = "white" if roll < 0.45 else "black" if roll < 0.9 else None
        self._score(arena, pairing, winner, plies=40)

    def _arena_game_over(self, game: Game) -> None:
        arena = self._arena_state().get(game.tournament_id or "")
        pairing = arena.pairings.get(game.id) if arena is not None else None
        if arena is None or pairing is None or pairing.done:
            return
        self._score(arena, pairing, game.winner, plies=len(game.moves))
        if game.status == "noStart":
            # withdrawNonMover: the player who did not move is withdrawn, no pause.
            culprit = pairing.white if game.winner == "black" else pairing.black
            arena.players[culprit].withdrawn = True
            log.info("arena %s: %s did not move; withdrawn", arena.id, culprit)

    def _score(self, arena: Arena, pairing: Pairing, winner: str | None, plies: int) -> None:
        pairing.done = True
        for side, key in (("white", pairing.white), ("black", pairing.black)):
            p = arena.players.get(key)
            if p is None:
                continue
            p.playing = None
            p.waiting_since = time.monotonic()
            on_fire = p.wins_in_row >= 2
            if winner == side:
                p.results.append(4 if on_fire else 2)
                p.wins_in_row += 1
            elif winner is None:
                p.results.append(2 if on_fire else 0 if plies < 20 else 1)
                p.wins_in_row = 0
            else:
                p.results.append(0)
                p.wins_in_row = 0
        self._touch()

    def _arena_finish(self, arena: Arena, now: float) -> None:
        if not arena.pairings:
            del self.arenas[arena.id]  # destroy: GET answers 404 from now on
            log.info("arena %s ended without pairings: deleted", arena.id)
            self._touch()
            return
        arena.status = "finished"
        for p in arena.players.values():
            p.withdrawn = False  # unWithdraw
            p.playing = None  # removePlaying: games still on the board do not count
        for pairing in arena.pairings.values():
            pairing.done = True
        log.info("arena %s finished", arena.id)
        self._touch()
