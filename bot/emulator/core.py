"""The emulator's state machine: accounts, challenges, games, streams, clocks.

Threading model: one re-entrant lock guards every bit of state. Streams wait
on their own Condition (sharing that lock); a single scheduler thread waits on
`_wake` until the next deadline (opponent move, flag fall, challenge expiry,
opponentGone countdown, first-move timeout). Nothing busy-loops.
"""

from __future__ import annotations

import logging
import math
import random
import string
import threading
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any

import chess

from bot.emulator.challenge import Challenge
from bot.emulator.clock import GameClock
from bot.emulator.config import AccountSpec, EmulatorConfig, OpponentSpec, UserSpec
from bot.emulator.errors import ApiError, EmulatorUsageError, bad_request, not_found
from bot.emulator.faults import Fault, FaultBook
from bot.emulator.game import ChatLine, Game, MoveRejected, Player, make_board
from bot.emulator.opponent import choose_move
from bot.emulator.payloads import DECLINE_REASONS, VARIANTS, speed_of
from bot.emulator.streams import Subscriber

log = logging.getLogger(__name__)

NOT_YOUR_TURN = "Not your turn, or game already over"
ID_CHARS = string.ascii_letters + string.digits


@dataclass(frozen=True)
class RequestRecord:
    t: float  # monotonic
    method: str
    path: str
    route: str  # e.g. "POST /api/bot/game/{id}/move/{move}"
    status: int


@dataclass(frozen=True)
class GameSnapshot:
    """A copy of a game's state for tests and the /emu API."""

    id: str
    status: str
    winner: str | None
    over: bool
    moves: list[str]
    fen: str
    initial_fen: str | None
    variant: str
    rated: bool
    bot_color: str
    white: str
    black: str
    wtime_ms: int
    btime_ms: int
    clock_running: bool
    draw_offers: dict[str, bool]
    takeback_offers: dict[str, bool]
    opponent_gone: bool
    chat: list[ChatLine] = field(default_factory=list)

    def json(self) -> dict[str, Any]:
        data = dict(self.__dict__)
        data["chat"] = [line.__dict__ for line in self.chat]
        return data


class Core:
    def __init__(self, config: EmulatorConfig) -> None:
        self.config = config
        self.lock = threading.RLock()
        self._wake = threading.Condition(self.lock)  # the scheduler
        self.changed = threading.Condition(self.lock)  # anything a waiter may watch
        self.rng = random.Random(config.seed)
        self.site = "http://127.0.0.1"
        self.accounts: dict[str, AccountSpec] = {a.token: a for a in config.accounts}
        self.users: dict[str, UserSpec] = {u.username.lower(): u for u in config.users}
        self.games: dict[str, Game] = {}
        self.challenges: dict[str, Challenge] = {}
        # Closed challenges, kept so late accepts get a clear 404 and tests can ask.
        self.declined: dict[str, Challenge] = {}
        self.expired: dict[str, Challenge] = {}
        self.event_subs: dict[str, Subscriber] = {}  # username(lower) -> the open event stream
        self.game_subs: dict[str, list[Subscriber]] = {}
        self.faults = FaultBook(self.rng)
        self.counters: Counter[str] = Counter()
        self.request_log: deque[RequestRecord] = deque(maxlen=20000)
        self._rate_windows: dict[int, deque[float]] = {}
        self._bot_vs_bot: dict[str, list[float]] = {}  # username -> wall times of challenges
        self.stopping = False
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        self._thread = threading.Thread(target=self._scheduler, name="emu-scheduler", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        with self.lock:
            self.stopping = True
            for sub in self._all_subs():
                sub.drop()
            self._wake.notify_all()
            self.changed.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=1.0)

    def _all_subs(self) -> list[Subscriber]:
        subs = list(self.event_subs.values())
        for lst in self.game_subs.values():
            subs.extend(lst)
        return subs

    def _new_id(self) -> str:
        while True:
            gid = "".join(self.rng.choice(ID_CHARS) for _ in range(8))
            if gid not in self.games and gid not in self.challenges:
                return gid

    def _touch(self) -> None:
        """State changed: wake the scheduler and anyone waiting for a game."""
        self._wake.notify_all()
        self.changed.notify_all()

    # ------------------------------------------------------------------ auth and accounts
    def account_for_token(self, token: str) -> AccountSpec | None:
        with self.lock:
            return self.accounts.get(token)

    def bot_player(self, account: AccountSpec) -> Player:
        return Player(account.username, account.title, account.rating)

    def _account_by_name(self, username: str) -> AccountSpec | None:
        for acc in self.accounts.values():
            if acc.username.lower() == username.lower():
                return acc
        return None

    def upgrade(self, account: AccountSpec) -> None:
        with self.lock:
            if account.title == "BOT":
                raise bad_request("This account is already a bot account.")
            if not account.can_upgrade:
                raise bad_request("No, this account has played games and cannot be upgraded.")
            account.title = "BOT"

    def user_json(self, username: str, with_online: bool = True) -> dict[str, Any]:
        with self.lock:
            acc = self._account_by_name(username)
            if acc is not None:
                name, title, rating, online = acc.username, acc.title, acc.rating, True
                online = acc.username.lower() in self.event_subs
            else:
                user = self.users.get(username.lower())
                if user is None:
                    raise not_found()
                name, title, rating, online = user.username, user.title, user.rating, user.online
            perfs = {
                k: {"games": 120, "rating": rating, "rd": 60, "prog": 0, "prov": False}
                for k in ("bullet", "blitz", "rapid", "classical", "correspondence")
            }
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

    def online_bots(self, exclude: str, limit: int | None) -> list[dict[str, Any]]:
        with self.lock:
            names = [
                u.username
                for u in self.users.values()
                if u.title == "BOT" and u.online and u.username.lower() != exclude.lower()
            ]
        out = [self.user_json(n, with_online=False) for n in names]
        return out[:limit] if limit else out

    # ------------------------------------------------------------------ request bookkeeping
    def record(self, method: str, path: str, route: str, status: int) -> None:
        with self.lock:
            self.counters[route] += 1
            self.request_log.append(RequestRecord(time.monotonic(), method, path, route, status))
            self.changed.notify_all()

    def rate_limited(self, method: str, path: str) -> bool:
        """True if a configured rate limit rejects this request (Lichess: 429)."""
        import fnmatch

        key = f"{method} {path}"
        now = time.monotonic()
        with self.lock:
            for idx, rule in enumerate(self.config.rate_limits):
                if not fnmatch.fnmatchcase(key, rule.pattern):
                    continue
                window = self._rate_windows.setdefault(idx, deque())
                while window and now - window[0] > rule.per_s:
                    window.popleft()
                if len(window) >= rule.max_requests:
                    return True
                window.append(now)
        return False

    def request_faults(self, method: str, path: str) -> list[Fault]:
        with self.lock:
            return self.faults.for_request(method, path)

    def add_fault(self, fault: Fault) -> Fault:
        with self.lock:
            self.faults.add(fault)
            # Wake every stream so an open one notices a stream fault right away.
            for sub in self._all_subs():
                sub.cond.notify()
            return fault

    # ------------------------------------------------------------------ streams
    def open_event_stream(self, account: AccountSpec) -> Subscriber:
        with self.lock:
            key = account.username.lower()
            old = self.event_subs.get(key)
            if old is not None:
                # Lichess allows one event stream per token: the new one wins.
                old.close()
            sub = Subscriber(self.lock, "event", key)
            self.event_subs[key] = sub
            now = time.monotonic()
            for game in self.games.values():
                if not game.over and game.bot_player.id == key:
                    sub.push({"type": "gameStart", "game": game.event_info(now)})
            for ch in self.challenges.values():
                if ch.status == "created" and ch.direction == "in" and ch.dest.id == key:
                    sub.push({"type": "challenge", "challenge": ch.json(), "compat": _COMPAT})
            return sub

    def open_game_stream(self, account: AccountSpec, game_id: str) -> Subscriber:
        with self.lock:
            game = self.games.get(game_id)
            if game is None or game.bot_player.id != account.username.lower():
                raise not_found("No such game")
            sub = Subscriber(self.lock, f"game:{game_id}", account.username.lower())
            sub.push(dict(game.full_json()))
            if game.over:
                sub.close()
            else:
                self.game_subs.setdefault(game_id, []).append(sub)
            return sub

    def close_stream(self, sub: Subscriber) -> None:
        with self.lock:
            if sub.key == "event":
                if self.event_subs.get(sub.owner) is sub:
                    del self.event_subs[sub.owner]
            else:
                lst = self.game_subs.get(sub.key[5:], [])
                if sub in lst:
                    lst.remove(sub)
            sub.closed = True

    def next_chunk(self, sub: Subscriber, keepalive_s: float) -> tuple[list[dict[str, Any]], str]:
        """Block until there is something to write on `sub`.

        Returns (payloads, action): action "send" (payloads; empty list means a
        keep-alive newline), "end" (send payloads then finish the response
        cleanly) or "drop" (cut the connection without a proper end).
        """
        with self.lock:
            deadline = time.monotonic() + keepalive_s
            while True:
                if self.stopping or sub.dropped:
                    return [], "drop"
                # A stream already being replaced/closed must not use up a fault.
                fault = None if sub.closed else self.faults.for_stream(sub.key)
                now = time.monotonic()
                if fault is not None:
                    if fault.kind == "drop_stream":
                        log.info("fault: dropping %s stream", sub.key)
                        return [], "drop"
                    duration = fault.duration_s
                    sub.silent_until = math.inf if duration is None else now + duration
                    log.info("fault: %s stream silent for %s s", sub.key, duration or "ever")
                if sub.silent_until is not None:
                    if now < sub.silent_until:
                        left = sub.silent_until - now
                        sub.cond.wait(None if math.isinf(left) else left)
                        continue
                    sub.silent_until = None
                    deadline = now  # silence over: resume with a keep-alive at once
                if sub.queue:
                    items = list(sub.queue)
                    sub.queue.clear()
                    return items, ("end" if sub.closed else "send")
                if sub.closed:
                    return [], "end"
                if now >= deadline:
                    return [], "send"
                sub.cond.wait(deadline - now)

    def _publish_event(self, username: str, payload: dict[str, Any]) -> None:
        sub = self.event_subs.get(username.lower())
        if sub is not None:
            sub.push(payload)

    def _publish_game(self, game: Game, payload: dict[str, Any]) -> None:
        for sub in self.game_subs.get(game.id, []):
            sub.push(payload)

    def _publish_state(self, game: Game, now: float) -> None:
        self._publish_game(game, dict(game.state_json(now)))
        self._touch()

    # ------------------------------------------------------------------ challenges
    def challenge_bot(
        self,
        *,
        challenger: str,
        rated: bool,
        variant: str,
        clock_limit_s: int | None,
        increment_s: int | None,
        days: int | None,
        color: str,
        challenger_title: str | None,
        challenger_rating: int,
        initial_fen: str | None,
        opponent: OpponentSpec,
        bot_username: str | None,
    ) -> str:
        variant = _check_variant(variant)
        if initial_fen is not None:
            if variant == "standard":
                variant = "fromPosition"
            _check_fen(variant, initial_fen)
        if color not in ("white", "black", "random"):
            raise EmulatorUsageError(f"color {color!r} is invalid; use white, black or random")
        if clock_limit_s is not None and (clock_limit_s < 0 or (increment_s or 0) < 0):
            raise EmulatorUsageError("clock_limit_s and increment_s must be >= 0")
        with self.lock:
            bot = self._target_account(bot_username)
            name_key = challenger.lower()
            if name_key not in self.users:
                self.users[name_key] = UserSpec(
                    challenger, title=challenger_title, rating=challenger_rating, opponent=opponent
                )
            final = color if color != "random" else self.rng.choice(("white", "black"))
            ch = Challenge(
                id=self._new_id(),
                challenger=Player(challenger, challenger_title, challenger_rating),
                dest=self.bot_player(bot),
                variant=variant,
                rated=rated,
                limit_s=clock_limit_s,
                increment_s=increment_s if clock_limit_s is not None else None,
                days=days if clock_limit_s is None else None,
                color=color,
                final_color=final,
                initial_fen=initial_fen,
                expires_at=time.monotonic() + self.config.challenge_expiry_s,
                direction="in",
                site=self.site,
                opponent=opponent,
            )
            self.challenges[ch.id] = ch
            self._publish_event(
                bot.username, {"type": "challenge", "challenge": ch.json(), "compat": _COMPAT}
            )
            self._touch()
            log.info("challenge %s from %s to %s", ch.id, challenger, bot.username)
            return ch.id

    def _target_account(self, username: str | None) -> AccountSpec:
        if username is None:
            return next(iter(self.accounts.values()))
        acc = self._account_by_name(username)
        if acc is None:
            raise EmulatorUsageError(f"no account named {username!r} in EmulatorConfig.accounts")
        return acc

    def _own_challenge(self, account: AccountSpec, cid: str, direction: str) -> Challenge:
        ch = self.challenges.get(cid)
        me = account.username.lower()
        if ch is None or ch.status != "created":
            raise not_found("Challenge not found")
        if direction == "in" and (ch.direction != "in" or ch.dest.id != me):
            raise not_found("Challenge not found")
        if direction == "out" and (ch.direction != "out" or ch.challenger.id != me):
            raise not_found("Challenge not found")
        return ch

    def accept_challenge(self, account: AccountSpec, cid: str) -> None:
        with self.lock:
            ch = self._own_challenge(account, cid, "in")
            ch.status = "accepted"
            del self.challenges[cid]
            self._start_game_from_challenge(ch, bot_is_challenger=False)

    def decline_challenge(self, account: AccountSpec, cid: str, reason: str | None) -> None:
        key = reason or "generic"
        if key not in DECLINE_REASONS:
            raise bad_request(f"Invalid decline reason {key!r}")
        with self.lock:
            ch = self._own_challenge(account, cid, "in")
            ch.status = "declined"
            ch.decline_key = key
            del self.challenges[cid]
            self.declined[cid] = ch
            self._touch()

    def cancel_challenge(self, account: AccountSpec, cid: str) -> None:
        with self.lock:
            ch = self._own_challenge(account, cid, "out")
            ch.status = "canceled"
            del self.challenges[cid]
            self._touch()

    def cancel_incoming(self, cid: str) -> None:
        """The challenger withdraws: challengeCanceled on the bot's event stream."""
        with self.lock:
            ch = self.challenges.get(cid)
            if ch is None or ch.direction != "in":
                raise EmulatorUsageError(f"no open incoming challenge {cid!r}")
            self._cancel(ch)

    def _cancel(self, ch: Challenge) -> None:
        ch.status = "canceled"
        self.challenges.pop(ch.id, None)
        if ch.direction == "in":
            self._publish_event(ch.dest.name, {"type": "challengeCanceled", "challenge": ch.json()})
        self._touch()

    def challenge_status(self, cid: str) -> str | None:
        with self.lock:
            if cid in self.challenges:
                return self.challenges[cid].status
            if cid in self.declined:
                return "declined"
            if cid in self.games:
                return "accepted"
            if cid in self.expired:
                return "canceled"
            return None

    def list_challenges(self, account: AccountSpec) -> dict[str, list[dict[str, Any]]]:
        me = account.username.lower()
        with self.lock:
            inc = [dict(c.json()) for c in self.challenges.values() if c.dest.id == me]
            out = [dict(c.json()) for c in self.challenges.values() if c.challenger.id == me]
        return {"in": inc, "out": out}

    def create_outgoing(self, account: AccountSpec, username: str, params: dict[str, Any]) -> dict:
        """POST /api/challenge/{username}: the bot challenges someone."""
        with self.lock:
            if username.lower() == account.username.lower():
                raise bad_request("You cannot challenge yourself")
            target = self.users.get(username.lower())
            if target is None:
                raise not_found("User not found")
            rated = _as_bool(params.get("rated"), False)
            limit = _as_int(params.get("clock.limit"), "clock.limit")
            inc = _as_int(params.get("clock.increment"), "clock.increment")
            days = _as_int(params.get("days"), "days")
            if limit is not None and not 0 <= limit <= 10800:
                raise bad_request("clock.limit must be between 0 and 10800 seconds")
            if inc is not None and not 0 <= inc <= 180:
                raise bad_request("clock.increment must be between 0 and 180 seconds")
            if limit is not None and inc is None:
                inc = 0
            color = str(params.get("color") or "random")
            if color not in ("white", "black", "random"):
                raise bad_request(f"Invalid color {color!r}")
            variant = str(params.get("variant") or "standard")
            if variant not in VARIANTS:
                raise bad_request(f"Invalid variant {variant!r}")
            fen = params.get("fen") or None
            if fen is not None:
                variant = "fromPosition" if variant == "standard" else variant
                try:
                    _check_fen(variant, str(fen))
                except EmulatorUsageError as exc:
                    raise bad_request(str(exc)) from None
            if target.title == "BOT" and self.config.bot_vs_bot_daily_limit is not None:
                self._check_bot_daily(account)
            now = time.monotonic()
            final = color if color != "random" else self.rng.choice(("white", "black"))
            ch = Challenge(
                id=self._new_id(),
                challenger=self.bot_player(account),
                dest=Player(target.username, target.title, target.rating),
                variant=variant,
                rated=rated,
                limit_s=limit,
                increment_s=inc,
                days=days if limit is None else None,
                color=color,
                final_color=final,
                initial_fen=str(fen) if fen else None,
                expires_at=now + self.config.challenge_expiry_s,
                direction="out",
                site=self.site,
                opponent=target.opponent,
                respond_at=(now + target.response_delay_s) if target.online else None,
                response=target.on_challenge if target.online else "ignore",
            )
            if ch.response == "decline":
                ch.decline_key = target.decline_reason
            self.challenges[ch.id] = ch
            self._touch()
            return dict(ch.json())

    def _check_bot_daily(self, account: AccountSpec) -> None:
        limit = self.config.bot_vs_bot_daily_limit
        assert limit is not None
        now = time.time()
        day_start = now - (now % 86400)
        times = [t for t in self._bot_vs_bot.get(account.username, []) if t >= day_start]
        if len(times) >= limit:
            seconds = int(day_start + 86400 - now) + 1
            raise ApiError(
                429,
                "Too many requests. Try again later.",
                ratelimit={"key": "bot.vsBot.day", "seconds": seconds},
            )
        times.append(now)
        self._bot_vs_bot[account.username] = times

    # ------------------------------------------------------------------ games
    def _start_game_from_challenge(self, ch: Challenge, bot_is_challenger: bool) -> Game:
        if bot_is_challenger:
            bot_color = chess.WHITE if ch.final_color == "white" else chess.BLACK
            bot, opp = ch.challenger, ch.dest
        else:
            bot_color = chess.BLACK if ch.final_color == "white" else chess.WHITE
            bot, opp = ch.dest, ch.challenger
        return self._create_game(
            gid=ch.id,
            bot=bot,
            opp=opp,
            bot_color=bot_color,
            variant=ch.variant,
            rated=ch.rated,
            limit_s=ch.limit_s,
            increment_s=ch.increment_s,
            days=ch.days,
            initial_fen=ch.initial_fen,
            opponent=ch.opponent,
            moves=[],
            source="friend",
        )

    def _create_game(
        self,
        *,
        gid: str,
        bot: Player,
        opp: Player,
        bot_color: chess.Color,
        variant: str,
        rated: bool,
        limit_s: int | None,
        increment_s: int | None,
        days: int | None,
        initial_fen: str | None,
        opponent: OpponentSpec,
        moves: list[str],
        source: str,
        wtime_ms: int | None = None,
        btime_ms: int | None = None,
    ) -> Game:
        if variant == "chess960" and initial_fen is None:
            initial_fen = chess.Board.from_chess960_pos(self.rng.randrange(960)).fen()
        board = make_board(variant, initial_fen)
        clock = GameClock(
            initial_ms=None if limit_s is None else limit_s * 1000,
            increment_ms=(increment_s or 0) * 1000,
        )
        game = Game(
            id=gid,
            variant=variant,
            rated=rated,
            speed=speed_of(limit_s, increment_s, days),
            clock=clock,
            days=days,
            white=bot if bot_color == chess.WHITE else opp,
            black=opp if bot_color == chess.WHITE else bot,
            bot_color=bot_color,
            board=board,
            initial_fen=initial_fen,
            opponent=opponent,
            rng=random.Random(opponent.seed if opponent.seed is not None else self.rng.random()),
            source=source,
            full_suffix="".join(self.rng.choice(ID_CHARS) for _ in range(4)),
        )
        now = time.monotonic()
        for uci in moves:
            try:
                mv = game.parse_move(uci)
            except MoveRejected as exc:
                raise EmulatorUsageError(f"start moves: {exc}") from None
            mover_is_bot = game.bot_to_move
            game.push(mv, now)
            if not mover_is_bot:
                game.opp_moves_made += 1
        if wtime_ms is not None:
            clock.white_ms = float(wtime_ms)
        if btime_ms is not None:
            clock.black_ms = float(btime_ms)
        if len(game.moves) < 2:
            game.first_move_deadline = now + self.config.first_move_timeout_s
        self.games[gid] = game
        if not game.bot_to_move:
            game.opp_due = now + opponent.think_time_s
        for text in opponent.chat:
            self._add_chat(game, "player", opp.name, text)
        self._publish_event(bot.name, {"type": "gameStart", "game": game.event_info(now)})
        self._touch()
        log.info("game %s started: %s vs %s", gid, game.white.name, game.black.name)
        return game

    def start_game_directly(self, **kw: Any) -> str:
        with self.lock:
            account = self._target_account(kw.pop("bot_username"))
            opp_name = kw.pop("opponent_name")
            opp = Player(opp_name, kw.pop("opponent_title"), kw.pop("opponent_rating"))
            if opp_name.lower() not in self.users:
                self.users[opp_name.lower()] = UserSpec(
                    opp_name, title=opp.title, rating=opp.rating
                )
            color = kw.pop("bot_color")
            if color == "random":
                color = self.rng.choice(("white", "black"))
            if color not in ("white", "black"):
                raise EmulatorUsageError(f"bot_color {color!r} is invalid; use white or black")
            variant = _check_variant(kw.pop("variant"))
            fen = kw.pop("initial_fen")
            if fen is not None:
                variant = "fromPosition" if variant == "standard" else variant
                _check_fen(variant, fen)
            game = self._create_game(
                gid=self._new_id(),
                bot=self.bot_player(account),
                opp=opp,
                bot_color=chess.WHITE if color == "white" else chess.BLACK,
                variant=variant,
                initial_fen=fen,
                source="friend",
                **kw,
            )
            return game.id

    def _game_for(self, account: AccountSpec, game_id: str) -> Game:
        game = self.games.get(game_id)
        if game is None or game.bot_player.id != account.username.lower():
            raise not_found("No such game")
        return game

    def _playing_game(self, account: AccountSpec, game_id: str) -> Game:
        game = self._game_for(account, game_id)
        if game.over:
            raise bad_request(NOT_YOUR_TURN)
        return game

    def bot_move(self, account: AccountSpec, game_id: str, uci: str, offering_draw: bool) -> None:
        with self.lock:
            game = self._playing_game(account, game_id)
            now = time.monotonic()
            if self._check_flag(game, now):
                raise bad_request(NOT_YOUR_TURN)
            if not game.bot_to_move:
                raise bad_request(NOT_YOUR_TURN)
            try:
                move = game.parse_move(uci)
            except MoveRejected as exc:
                raise bad_request(str(exc)) from None
            game.push(move, now)
            if self._after_move(game, now):
                return
            if offering_draw:
                game.draw_offer[game.bot_color] = True
            game.opp_due = now + game.opponent.think_time_s
            self._publish_state(game, now)
            if offering_draw:
                self._opponent_answers_draw(game, now)

    def _after_move(self, game: Game, now: float) -> bool:
        """Common bookkeeping after any move; True if the game ended."""
        if len(game.moves) >= 2:
            game.first_move_deadline = None
        elif game.first_move_deadline is not None:
            game.first_move_deadline = now + self.config.first_move_timeout_s
        end = game.natural_end()
        if end is not None:
            self._finish(game, end[0], end[1], now)
            return True
        return False

    def _finish(self, game: Game, status: str, winner: str | None, now: float) -> None:
        game.finish(status, winner, now)
        self._publish_game(game, dict(game.state_json(now)))
        for sub in self.game_subs.pop(game.id, []):
            sub.close()
        self._publish_event(
            game.bot_player.name, {"type": "gameFinish", "game": game.event_info(now)}
        )
        self._touch()
        log.info("game %s over: %s winner=%s", game.id, status, winner)

    def _check_flag(self, game: Game, now: float) -> bool:
        """End the game on time if the side to move has flagged."""
        if game.over or not game.clock.flagged(game.white_to_move, now):
            return False
        loser = game.board.turn
        winner: str | None = game.color_name(not loser)
        if game.board.has_insufficient_material(not loser):
            winner = None  # Lichess: flagging against a bare king is a draw
        self._finish(game, "outoftime", winner, now)
        return True

    def bot_chat(self, account: AccountSpec, game_id: str, room: str, text: str) -> None:
        if room not in ("player", "spectator"):
            raise bad_request(f"Invalid room {room!r}: use player or spectator")
        if not text:
            raise bad_request("Empty chat message")
        if len(text) > 140:
            raise bad_request("Chat message too long: at most 140 characters")
        with self.lock:
            game = self._game_for(account, game_id)
            self._add_chat(game, room, account.username, text)

    def _add_chat(self, game: Game, room: str, username: str, text: str) -> None:
        line = ChatLine(room, username, text)
        game.chat.append(line)
        self._publish_game(game, dict(game.chat_json(line)))
        self._touch()

    def chat_history(self, account: AccountSpec, game_id: str) -> list[dict[str, str]]:
        with self.lock:
            game = self._game_for(account, game_id)
            return [{"text": c.text, "user": c.username} for c in game.chat if c.room == "player"]

    def bot_abort(self, account: AccountSpec, game_id: str) -> None:
        with self.lock:
            game = self._playing_game(account, game_id)
            if len(game.moves) >= 2:
                raise bad_request("This game can no longer be aborted")
            self._finish(game, "aborted", None, time.monotonic())

    def bot_resign(self, account: AccountSpec, game_id: str) -> None:
        with self.lock:
            game = self._playing_game(account, game_id)
            now = time.monotonic()
            if self._check_flag(game, now):
                raise bad_request(NOT_YOUR_TURN)
            self._finish(game, "resign", game.color_name(not game.bot_color), now)

    def bot_draw(self, account: AccountSpec, game_id: str, accept: bool) -> None:
        with self.lock:
            game = self._playing_game(account, game_id)
            now = time.monotonic()
            opp = not game.bot_color
            if not accept:
                game.draw_offer[opp] = False
                self._publish_state(game, now)
                return
            if game.draw_offer[opp]:
                self._finish(game, "draw", None, now)
                return
            game.draw_offer[game.bot_color] = True
            self._publish_state(game, now)
            self._opponent_answers_draw(game, now)

    def _opponent_answers_draw(self, game: Game, now: float) -> None:
        if game.opponent.accept_draw and not game.opp_gone:
            self._finish(game, "draw", None, now)
        else:
            game.draw_offer[game.bot_color] = False
            self._publish_state(game, now)

    def bot_takeback(self, account: AccountSpec, game_id: str, accept: bool) -> None:
        with self.lock:
            game = self._playing_game(account, game_id)
            now = time.monotonic()
            opp = not game.bot_color
            if not accept:
                game.takeback_offer[opp] = False
                self._publish_state(game, now)
                return
            if game.takeback_offer[opp]:
                self._do_takeback(game, proposer=opp, now=now)
                return
            if not game.moves_by(game.bot_color):
                raise bad_request("No move to take back")
            game.takeback_offer[game.bot_color] = True
            self._publish_state(game, now)
            if game.opponent.accept_takeback and not game.opp_gone:
                self._do_takeback(game, proposer=game.bot_color, now=now)
            else:
                game.takeback_offer[game.bot_color] = False
                self._publish_state(game, now)

    def _do_takeback(self, game: Game, proposer: chess.Color, now: float) -> None:
        # The proposer's last move is undone; if the other side already replied, that too.
        plies = 2 if game.board.turn == proposer else 1
        plies = min(plies, len(game.moves))
        for i in range(plies):
            # Who made the i-th most recent move: the side NOT to move after it.
            mover = game.board.turn if i % 2 else not game.board.turn
            if mover != game.bot_color:
                game.opp_moves_made = max(0, game.opp_moves_made - 1)
        game.takeback(plies, now)
        game.opp_due = None if game.bot_to_move else now + game.opponent.think_time_s
        self._publish_state(game, now)

    def bot_claim_victory(self, account: AccountSpec, game_id: str) -> None:
        with self.lock:
            game = self._playing_game(account, game_id)
            now = time.monotonic()
            if not game.opp_gone or game.gone_claim_at is None or now < game.gone_claim_at:
                raise bad_request("You cannot claim the win on this game")
            self._finish(game, "timeout", game.color_name(game.bot_color), now)

    def playing(self, account: AccountSpec, nb: int | None) -> list[dict[str, Any]]:
        me = account.username.lower()
        with self.lock:
            now = time.monotonic()
            games = [g for g in self.games.values() if not g.over and g.bot_player.id == me]
            out = [dict(g.event_info(now)) for g in games]
        return out[:nb] if nb else out

    def export_pgn(self, game_id: str) -> str:
        with self.lock:
            game = self.games.get(game_id)
            if game is None:
                raise not_found("No such game")
            return game.pgn(self.site)

    # ------------------------------------------------------------------ opponent controls
    def opponent_action(self, game_id: str, action: str, text: str | None = None) -> None:
        """Make the built-in opponent do something now (tests, /emu API)."""
        with self.lock:
            game = self.games.get(game_id)
            if game is None:
                raise EmulatorUsageError(f"no game {game_id!r}")
            if game.over and action != "chat":
                raise EmulatorUsageError(f"game {game_id} is already over ({game.status})")
            now = time.monotonic()
            opp = not game.bot_color
            if action == "resign":
                self._finish(game, "resign", game.color_name(game.bot_color), now)
            elif action == "abort":
                self._finish(game, "aborted", None, now)
            elif action == "offer_draw":
                game.draw_offer[opp] = True
                self._publish_state(game, now)
            elif action == "propose_takeback":
                game.takeback_offer[opp] = True
                self._publish_state(game, now)
            elif action == "leave":
                self._go_gone(game, now)
            elif action == "return":
                game.opp_gone = False
                game.gone_claim_at = None
                game.gone_last_sent = None
                self._publish_game(game, {"type": "opponentGone", "gone": False})
                if not game.bot_to_move:
                    game.opp_due = now + game.opponent.think_time_s
                self._touch()
            elif action == "chat":
                self._add_chat(game, "player", game.opp_player.name, text or "")
            else:
                raise EmulatorUsageError(
                    f"unknown opponent action {action!r}; use resign, abort, offer_draw, "
                    "propose_takeback, leave, return or chat"
                )

    def _go_gone(self, game: Game, now: float) -> None:
        claim = self.config.opponent_gone_claim_s
        game.opp_gone = True
        game.opp_due = None
        game.gone_claim_at = now + claim
        game.gone_last_sent = claim
        self._publish_game(game, {"type": "opponentGone", "gone": True, "claimWinInSeconds": claim})
        self._touch()

    # ------------------------------------------------------------------ scheduler
    def _scheduler(self) -> None:
        with self.lock:
            while not self.stopping:
                try:
                    next_at = self._tick(time.monotonic())
                except Exception:  # a bug here must not kill every game: log and go on
                    log.exception("emulator scheduler tick failed")
                    next_at = time.monotonic() + 0.5
                timeout = 1.0 if next_at is None else max(0.0, min(1.0, next_at - time.monotonic()))
                if timeout > 0:
                    self._wake.wait(timeout)

    def _tick(self, now: float) -> float | None:
        """Process everything due at `now`; return the next deadline."""
        deadlines: list[float] = []
        for ch in list(self.challenges.values()):
            if ch.direction == "out" and ch.respond_at is not None:
                if now >= ch.respond_at:
                    self._outgoing_answer(ch)
                    continue
                deadlines.append(ch.respond_at)
            if now >= ch.expires_at:
                self.expired[ch.id] = ch
                self._cancel(ch)
            else:
                deadlines.append(ch.expires_at)
        for game in list(self.games.values()):
            if game.over:
                continue
            if self._check_flag(game, now):
                continue
            flag_at = game.clock.flag_deadline(game.white_to_move)
            if flag_at is not None:
                deadlines.append(flag_at)
            if game.first_move_deadline is not None:
                if now >= game.first_move_deadline:
                    self._no_start(game, now)
                    continue
                deadlines.append(game.first_move_deadline)
            if game.opp_gone and game.gone_claim_at is not None:
                secs = max(0, math.ceil(game.gone_claim_at - now))
                if secs != game.gone_last_sent:
                    game.gone_last_sent = secs
                    self._publish_game(
                        game, {"type": "opponentGone", "gone": True, "claimWinInSeconds": secs}
                    )
                if secs > 0:
                    deadlines.append(game.gone_claim_at - (secs - 1))
            if game.opp_due is not None and not game.bot_to_move and not game.opp_gone:
                if now >= game.opp_due:
                    self._opponent_move(game, now)
                else:
                    deadlines.append(game.opp_due)
        return min(deadlines) if deadlines else None

    def _no_start(self, game: Game, now: float) -> None:
        # lila: the side that never moved loses by noStart (abandoned, unrated).
        loser = game.board.turn
        self._finish(game, "noStart", game.color_name(not loser), now)

    def _outgoing_answer(self, ch: Challenge) -> None:
        ch.respond_at = None
        if ch.response == "accept":
            ch.status = "accepted"
            del self.challenges[ch.id]
            self._start_game_from_challenge(ch, bot_is_challenger=True)
        elif ch.response == "decline":
            ch.status = "declined"
            ch.decline_key = ch.decline_key or "generic"
            del self.challenges[ch.id]
            self.declined[ch.id] = ch
            self._publish_event(
                ch.challenger.name, {"type": "challengeDeclined", "challenge": ch.json()}
            )
            self._touch()
        # "ignore": leave it to expire

    def _opponent_move(self, game: Game, now: float) -> None:
        spec = game.opponent
        n = game.opp_moves_made
        game.opp_due = None
        if spec.resign_after is not None and n >= spec.resign_after:
            self._finish(game, "resign", game.color_name(game.bot_color), now)
            return
        if spec.leave_after is not None and n >= spec.leave_after:
            self._go_gone(game, now)
            return
        move = choose_move(game.board, spec, n, game.rng)
        game.push(move, now)
        game.opp_moves_made += 1
        if self._after_move(game, now):
            return
        if spec.offer_draw_at is not None and spec.offer_draw_at == n + 1:
            game.draw_offer[not game.bot_color] = True
        if spec.takeback_at is not None and spec.takeback_at == n + 1:
            game.takeback_offer[not game.bot_color] = True
        self._publish_state(game, now)

    # ------------------------------------------------------------------ snapshots / waiting
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
            )

    def wait_for(self, predicate: Any, timeout: float) -> bool:
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


_COMPAT = {"bot": True, "board": True}


def _check_variant(variant: str) -> str:
    if variant not in VARIANTS:
        raise EmulatorUsageError(f"unknown variant {variant!r}; use one of {sorted(VARIANTS)}")
    return variant


def _check_fen(variant: str, fen: str) -> None:
    try:
        board = make_board(variant, fen)
    except ValueError as exc:
        raise EmulatorUsageError(f"invalid FEN {fen!r}: {exc}") from None
    if not board.is_valid():
        raise EmulatorUsageError(f"invalid position in FEN {fen!r}: {board.status()!r}")


def _as_bool(value: Any, default: bool) -> bool:
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    return str(value).lower() in ("true", "1", "yes")


def _as_int(value: Any, name: str) -> int | None:
    if value is None or value == "":
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        raise bad_request(f"{name} must be an integer, got {value!r}") from None
