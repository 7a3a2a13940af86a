"""Configuration dataclasses for the Lichess emulator.

Everything that a test may want to tune (keep-alive gaps, expiry times,
rate limits, who the opponent is and how it plays) lives here so no timing
is hard-coded in the server.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

# The token `pibot demo` and the tests use; it only ever works on loopback.
DEFAULT_TOKEN = "lip_emulator_demo_token"
DEFAULT_BOT_NAME = "pibot"
ALL_BOT_SCOPES = ("bot:play", "challenge:read", "challenge:write", "board:play")

Policy = Literal["random", "greedy", "scripted", "uci"]
POLICIES: tuple[str, ...] = ("random", "greedy", "scripted", "uci")


@dataclass
class AccountSpec:
    """An account the emulator accepts a token for (the bot under test)."""

    token: str = field(default=DEFAULT_TOKEN, repr=False)  # never shown in reprs
    username: str = DEFAULT_BOT_NAME
    # More tokens of the same account (same scopes), e.g. a second program's: lila
    # closes an event stream only when the same token opens another
    # (modules/api/src/main/EventStream.scala, `eventStreamForBearer:<bearer>`).
    other_tokens: tuple[str, ...] = field(default=(), repr=False)
    title: str | None = "BOT"  # None = an ordinary account (to test `upgrade`)
    scopes: tuple[str, ...] = ALL_BOT_SCOPES
    rating: int = 1500
    # Lichess refuses to upgrade accounts that have played games.
    can_upgrade: bool = True


@dataclass
class OpponentSpec:
    """How the built-in opponent plays one game."""

    policy: Policy = "random"
    moves: list[str] = field(default_factory=list)  # for "scripted"; random after it runs out
    think_time_s: float = 0.05
    seed: int | None = None
    resign_after: int | None = None  # resign instead of making its (N+1)-th move
    offer_draw_at: int | None = None  # offer a draw together with its N-th move
    takeback_at: int | None = None  # propose a takeback right after its N-th move
    # how often: after an accepted takeback it replays its N-th move and asks again
    takeback_times: int = 1
    # propose a takeback when its (N+1)-th move is due, i.e. after the bot answered its
    # N-th: lila then takes back both (the bot's move too), and waits for the answer
    takeback_on_turn: int | None = None
    accept_draw: bool = False  # answer to draws offered by the bot
    accept_takeback: bool = False  # answer to takebacks proposed by the bot
    leave_after: int | None = None  # stop moving after N moves -> opponentGone
    stall_after: int | None = None  # stop moving after N moves, still connected (no opponentGone)
    chat: list[str] = field(default_factory=list)  # said in the player room at game start
    # policy="uci": a UCI engine process per game (python-chess SimpleEngine), started
    # on its first move, closed when the game ends. `engine` is a name looked up on
    # PATH and in /usr/games, or a path; skill_level is Stockfish's "Skill Level"
    # (0-20, None = full strength); movetime_ms is its time per move (on top of
    # think_time_s), charged to its clock as any move is.
    engine: str = "stockfish"
    skill_level: int | None = None
    movetime_ms: int = 100

    def __post_init__(self) -> None:
        from bot.emulator.errors import EmulatorUsageError
        from bot.emulator.validate import check_fields

        if self.policy not in POLICIES:
            raise EmulatorUsageError(
                f"OpponentSpec.policy={self.policy!r} is unknown; use one of {list(POLICIES)}"
            )
        check_fields(self, "OpponentSpec")
        if self.think_time_s < 0:
            raise EmulatorUsageError("OpponentSpec.think_time_s must be >= 0 seconds")
        if self.policy == "uci":
            from bot.emulator.uci_opponent import resolve_engine

            if resolve_engine(self.engine) is None:
                raise EmulatorUsageError(
                    f"OpponentSpec.engine={self.engine!r}: no such UCI engine (looked on PATH "
                    "and in /usr/games); install it or give the path to its executable"
                )
            if self.skill_level is not None and not 0 <= self.skill_level <= 20:
                raise EmulatorUsageError("OpponentSpec.skill_level must be within 0..20")
            if self.movetime_ms <= 0:
                raise EmulatorUsageError("OpponentSpec.movetime_ms must be > 0")


@dataclass
class UserSpec:
    """Another Lichess user known to the emulator (target of the bot's challenges)."""

    username: str
    title: str | None = "BOT"
    rating: int = 1500
    # Rated games per speed. 0 = never played: lila still lists the standard perfs,
    # as games 0, rating 1500, prov true (modules/user/src/main/JsonView.scala `select`:
    # perf.nb > 0 || a standard perf key), so 1500 there means "unknown".
    games: int = 120
    # Ratings in other perfs (a variant's key: atomic, chess960, ...), `games` games
    # each: lila lists a variant perf only once played (JsonView `select`).
    perfs: dict[str, int] = field(default_factory=dict)
    online: bool = True
    # What the user does with a challenge from the bot.
    on_challenge: Literal["accept", "decline", "ignore"] = "accept"
    decline_reason: str = "generic"
    response_delay_s: float = 0.2
    opponent: OpponentSpec = field(default_factory=OpponentSpec)
    # This BOT played its 100 bot games today: the bot's challenge to it gets
    # lila's 400 (BotLimit OpponentLimit) instead of reaching it.
    at_daily_limit: bool = False


def _default_users() -> list[UserSpec]:
    return [
        UserSpec("sparbot-weak", rating=1300),
        UserSpec("sparbot-mid", rating=1800, opponent=OpponentSpec(policy="greedy")),
        UserSpec("sparbot-strong", rating=2300, opponent=OpponentSpec(policy="greedy")),
        UserSpec("alice", title=None, rating=1500),
    ]


@dataclass
class RateLimit:
    """At most `max_requests` per `per_s` seconds on routes matching `pattern`."""

    pattern: str  # e.g. "POST /api/challenge/*" (fnmatch on "METHOD /path")
    max_requests: int
    per_s: float


@dataclass
class EmulatorConfig:
    host: str = "127.0.0.1"
    port: int = 0  # 0 = pick a free port
    accounts: list[AccountSpec] = field(default_factory=lambda: [AccountSpec()])
    users: list[UserSpec] = field(default_factory=_default_users)
    # lila: an empty line every 7 s on the event stream (modules/api/src/main/
    # EventStream.scala, `scheduleOnce(7.second, self, CheckOnline)`; 6 s before
    # lila 20cd2f84, api spec 5e55ca1 of 2025-08-22) and on game streams
    # (modules/bot/src/main/GameStateStream.scala, CheckOnline after 7 s).
    event_keepalive_s: float = 7.0
    game_keepalive_s: float = 7.0
    # lila (modules/challenge ChallengeApi.sweep + ChallengeRepo.realTimeUnseenSince):
    # a real-time challenge whose challenger has not been seen for 20 s goes
    # "offline" - no event, no longer listed, but still acceptable. "cancel"
    # (default, the older model) drops it with challengeCanceled; "offline" is lila's.
    challenge_expiry_s: float = 20.0
    challenge_expiry_mode: Literal["cancel", "offline"] = "cancel"
    # lila ChallengeRepo.offline: an offline challenge's expiresAt becomes now + 3 h;
    # the sweep then deletes it (no event) and an accept gets 404.
    challenge_offline_delete_s: float = 3 * 3600.0
    # lila ends a game nobody has moved in for long enough only if it is expirable
    # (modules/round/src/main/RoundGame.scala `expirable`: source lobby, arena, pool
    # or swiss, modules/core/src/main/game/misc.scala `Source.expirable`): a game
    # from a challenge (source friend) never. The wait is RoundGame `timeForFirstMove`
    # after the last move (None = lila's values by speed: 15/20/25/30/35 s, x5/4
    # in Chess960); a number overrides it for such a non-tournament game (tests).
    first_move_timeout_s: float | None = None
    # Arenas (arena.py). lila's StartedOrganizer looks at a small arena every 15 s;
    # tests shorten it. None for the first-move timer = lila's tournament values by
    # speed (RoundGame timeForFirstMove: bullet 16 s, blitz 21, rapid 25, else 30).
    arena_pairing_interval_s: float = 15.0
    arena_first_move_s: float | None = None
    # Two emulator opponents paired together play an unseen game this long.
    arena_virtual_game_s: float = 10.0
    opponent_gone_claim_s: int = 10  # countdown of opponentGone.claimWinInSeconds
    rate_limits: list[RateLimit] = field(default_factory=list)
    bot_vs_bot_daily_limit: int | None = None  # outgoing challenges to BOTs per day
    # lila's rule that BOTs cannot play UltraBullet (ChallengeGranter, ChallengeApi.accept):
    # off by default because older tests play 20+0 games against the bot.
    refuse_bot_ultrabullet: bool = False
    # Castling in game streams as king-takes-rook (`e1h1`) in every variant, standard
    # included: what lila sends since scalachess 167b2c60 (Sep 2025), whose UciDump
    # writes king-to-rook unless `legacyStandardCastling` is passed, and lila's
    # BotJsonView.gameState does not pass it. Off: the older `e1g1` in standard chess.
    castling_king_takes_rook: bool = False
    # Spectators typing in every running game's watcher chat (lila GameStateStream
    # also subscribes BOTs to the "<gameId>/w" chat): the lines in turn, one every
    # spectator_chat_interval_s seconds (0 = off).
    spectator_chat: list[str] = field(default_factory=list)
    spectator_chat_interval_s: float = 0.0
    # Network round-trip time per HTTP request, drawn uniformly from [lo, hi] ms
    # (seeded): half before the server handles the request, half before the
    # answer is written; stream lines arrive one one-way latency after they are
    # produced. lila gives BOTs no lag compensation, so transit costs clock time.
    rtt_ms: tuple[float, float] = (0.0, 0.0)
    seed: int | None = None
    handler_timeout_s: float = 60.0  # idle keep-alive HTTP connections are closed after this

    def __post_init__(self) -> None:
        # Imported here: errors.py pulls in bot.errors, config.py stays dependency-free.
        from bot.emulator.errors import EmulatorUsageError

        positive = {
            "event_keepalive_s": self.event_keepalive_s,
            "game_keepalive_s": self.game_keepalive_s,
            "challenge_expiry_s": self.challenge_expiry_s,
            "challenge_offline_delete_s": self.challenge_offline_delete_s,
            "first_move_timeout_s": 1.0 if self.first_move_timeout_s is None
            else self.first_move_timeout_s,
            "handler_timeout_s": self.handler_timeout_s,
            "arena_pairing_interval_s": self.arena_pairing_interval_s,
            "arena_virtual_game_s": self.arena_virtual_game_s,
            "arena_first_move_s": 1.0 if self.arena_first_move_s is None
            else self.arena_first_move_s,
        }
        for name, value in positive.items():
            if not value > 0:
                raise EmulatorUsageError(f"EmulatorConfig.{name}={value!r} must be > 0 seconds")
        if self.challenge_expiry_mode not in ("cancel", "offline"):
            raise EmulatorUsageError(
                f"EmulatorConfig.challenge_expiry_mode={self.challenge_expiry_mode!r}:"
                " use cancel or offline"
            )
        if self.spectator_chat_interval_s < 0:
            raise EmulatorUsageError(
                "EmulatorConfig.spectator_chat_interval_s must be >= 0 (0 = no spectators)"
            )
        try:
            lo, hi = (float(v) for v in self.rtt_ms)
        except (TypeError, ValueError):
            raise EmulatorUsageError(
                f"EmulatorConfig.rtt_ms={self.rtt_ms!r} must be two numbers (lo, hi) in ms"
            ) from None
        if not 0 <= lo <= hi:
            raise EmulatorUsageError(
                f"EmulatorConfig.rtt_ms={self.rtt_ms!r} needs 0 <= lo <= hi (milliseconds)"
            )
        self.rtt_ms = (lo, hi)
        if self.opponent_gone_claim_s < 0:
            raise EmulatorUsageError("EmulatorConfig.opponent_gone_claim_s must be >= 0")
        if not self.accounts:
            raise EmulatorUsageError("EmulatorConfig.accounts is empty; add an AccountSpec")
        tokens = [t for a in self.accounts for t in (a.token, *a.other_tokens)]
        if len(set(tokens)) != len(tokens):
            raise EmulatorUsageError(
                "two EmulatorConfig.accounts share a token; tokens must differ"
            )
        limit = self.bot_vs_bot_daily_limit
        if limit is not None and (
            isinstance(limit, bool) or not isinstance(limit, int) or limit < 0
        ):
            raise EmulatorUsageError(
                f"EmulatorConfig.bot_vs_bot_daily_limit={limit!r} must be an integer >= 0 or None"
            )
        if isinstance(self.port, bool) or not isinstance(self.port, int):
            raise EmulatorUsageError(f"EmulatorConfig.port={self.port!r} must be an integer")
        if not 0 <= self.port <= 65535:
            raise EmulatorUsageError(f"EmulatorConfig.port={self.port} is not a TCP port (0-65535)")
