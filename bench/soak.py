"""Soak benchmark: the real bot service plays many games against the emulator
with random faults on, and reports time losses, games lost through faults,
illegal moves, request rates per endpoint and the per-move overhead (position
received -> move posted, minus think time).

    python bench/soak.py                      # full run: 50 games, 1+0 and 3+2
    python bench/soak.py --games 10 --tc 60+0 # a shorter run
    python bench/soak.py --profile realistic --games 4   # lichess.org-like conditions
    python bench/soak.py --profile realistic --mix arena,direct,burst,own --games 8
                                              # issue 33: arena, bursts, own challenges
    python bench/soak.py --profile realistic \
        --mix arena,direct,burst,own,variant,matchmaking --games 40 --queue-max 4
                                              # issue 48: variants and matchmaking too

--profile realistic: 80-250 ms round trips (no lag compensation), spectators
typing (!help, !eval, !name ...), a slow chat endpoint and chat 429s, dropped
and silent streams, rare stalled move POSTs (applied or not), 429s on the other
endpoints, lila's keep-alive gaps, a Stockfish opponent (uci policy) for long
games, 30+0 / 60+0 / 180+2 mixed, two games at a time.

--mix: the bot also joins an emulator arena from its `tournaments:` config,
gets bursts of challenges while every slot is busy (answers classified, the
queue looked up through the control socket) and challenges emulator BOTs
through the control socket; `variant` makes one direct challenge in
--variant-every a variant game (the eight Lichess variants in turn, against
Fairy-Stockfish); `matchmaking` turns the bot's matchmaking on (standard and,
with `variant`, variant types) and, once in --mm-every slot fillings, lets the
bot go idle so that it challenges an emulator BOT on its own (with an arena in
the mix, only once the arena is over: the bot is never idle while it plays
one). The report adds a table per source and one per variant (docs/bot.md).

Not a unit test: it takes a long time (the bot really uses its clock).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.config import parse_config
from bot.emulator import (
    Emulator,
    EmulatorConfig,
    EmulatorUsageError,
    OpponentSpec,
    RequestRecord,
)
from bot.emulator.config import UserSpec
from bot.host import control_socket
from bot.host.logsetup import setup_logging
from bot.lichess.endpoints import POLICIES
from bot.lichess.token import Token
from bot.play.game_state import GameHooks
from bot.service import Service

log = logging.getLogger("soak")


@dataclass
class Stats:
    overhead_ms: list[float] = field(default_factory=list)
    think_ms: list[float] = field(default_factory=list)
    ends: dict[str, tuple[str, str | None, str]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def on_move(self, game_id: str, overhead: float, think: float) -> None:
        with self.lock:
            self.overhead_ms.append(overhead)
            self.think_ms.append(think)

    def on_end(self, game_id: str, status: str, winner: str | None, color: str) -> None:
        with self.lock:
            self.ends[game_id] = (status, winner, color)


def parse_tc(text: str) -> tuple[int, int]:
    base, inc = text.split("+")
    return int(base), int(inc)


def inject_faults(emu: Emulator, rate: float) -> None:
    """Random faults for the whole run (count=None: unlimited)."""
    if rate <= 0:
        return
    emu.faults.inject("http_error", "POST /api/bot/game/*/move/*", status=503, count=None,
                      probability=rate)
    emu.faults.inject("http_error", "POST /api/bot/game/*/move/*", status=429, count=None,
                      probability=rate / 2)
    emu.faults.inject("http_error", "GET /api/bot/game/stream/*", status=502, count=None,
                      probability=rate)
    emu.faults.inject("drop_stream", "game", count=None, probability=rate)
    emu.faults.inject("drop_stream", "event", count=None, probability=rate)
    emu.faults.inject("silent_stream", "game", count=None, probability=rate / 2, duration_s=None)
    emu.faults.inject("silent_stream", "event", count=None, probability=rate / 2, duration_s=None)
    emu.faults.inject("slow", "POST /api/bot/game/*/chat", count=None, probability=rate * 5,
                      duration_s=0.5)


# Spectators in the realistic profile: commands the bot answers, and chatter.
SPECTATOR_LINES = ["!help", "nice", "!eval", "what engine is this?", "!name", "gl"]
REALISTIC_TC = "30+0,60+0,180+2"


def inject_realistic_faults(emu: Emulator, rate: float) -> None:
    """Faults as a busy lichess.org produces them (count=None: for the whole run)."""
    if rate <= 0:
        return
    chat = "POST /api/bot/game/*/chat"
    move = "POST /api/bot/game/*/move/*"
    # Rates per opportunity (each request, or each time a stream wakes). Chat is the
    # part of Lichess most often slow; a 429 pauses its endpoint class for a minute,
    # so it stays rare, as it is for a bot that paces its own chat.
    emu.faults.inject("slow", chat, count=None, probability=min(1.0, rate * 15), duration_s=4.0)
    emu.faults.inject("http_error", chat, status=429, count=None, probability=rate)
    for target in ("GET /api/account*", "GET /api/stream/event", "GET /api/bot/game/stream/*",
                   "GET /api/challenge", "POST /api/challenge/*"):
        emu.faults.inject("http_error", target, status=429, count=None, probability=rate / 2)
    emu.faults.inject("drop_stream", "game", count=None, probability=rate / 2)
    emu.faults.inject("drop_stream", "event", count=None, probability=rate / 2)
    # A connection that dies without a FIN (Wi-Fi roaming, a NAT timeout): rarer than a
    # clean drop; a game stream wakes ~150 times a game, so this is ~1 game in 7.
    emu.faults.inject("silent_stream", "game", count=None, probability=rate / 20, duration_s=None)
    emu.faults.inject("silent_stream", "event", count=None, probability=rate / 20, duration_s=None)
    # Rare: a move POST that is never answered (the move landed, or it did not).
    emu.faults.inject("stall", move, count=None, probability=rate / 8, duration_s=None, apply=True)
    emu.faults.inject("stall", move, count=None, probability=rate / 8, duration_s=None, apply=False)


def max_in_window(times: list[float], window_s: float = 60.0) -> int:
    """The most events within any `window_s`-long interval."""
    times = sorted(times)
    best = lo = 0
    for hi, t in enumerate(times):
        while t - times[lo] >= window_s:
            lo += 1
        best = max(best, hi - lo + 1)
    return best


PER_GAME = ("/move/", "/chat", "/api/bot/game/stream/")
# "METHOD /path" -> the bot's rate class (bot.lichess.endpoints POLICIES), for the pause check.
_CLASS_OF = [(p.method, re.compile("^" + re.sub(r"\{[^}]+\}", "[^/]+", p.path) + "$"),
              p.rate_class, p.on_429) for p in POLICIES.values()]


def rate_class(method: str, path: str) -> tuple[str, str] | None:
    """(rate class, on_429) of a request, or None for a route the bot does not use."""
    for m, rx, cls, on_429 in _CLASS_OF:
        if m == method and rx.match(path):
            return cls, on_429
    return None


def sent_in_pause(records: list[RequestRecord], pause_s: float,
                  in_flight_s: float) -> dict[str, int]:
    """Per rate class: requests answered within `pause_s` after a 429 of their class
    (classes that are never paused excluded). The emulator logs a request when it
    answers it, so one answered within `in_flight_s` of the 429 may have been sent
    before it and is not counted."""
    out: dict[str, int] = {}
    paused: dict[str, float] = {}  # class -> when its pause began
    for r in sorted(records, key=lambda r: r.t):
        got = rate_class(r.method, r.path.split("?")[0])
        if got is None or got[1] == "through":
            continue
        cls = got[0]
        began = paused.get(cls)
        if began is not None and began + in_flight_s < r.t < began + pause_s:
            out[cls] = out.get(cls, 0) + 1
        if r.status == 429 and (began is None or r.t >= began + pause_s):
            paused[cls] = r.t
    return out


def move_400s(records: list[RequestRecord],
              finished_at: dict[str, float]) -> tuple[Counter[str], int, int]:
    """Move POSTs answered 400: (illegal moves per game id, retries after a stalled
    POST, moves posted after the game ended)."""
    illegal: Counter[str] = Counter()
    after_stall = after_end = 0
    last_status: dict[str, int] = {}  # game id -> status of its previous move POST
    for r in sorted((r for r in records if "/move/" in r.route), key=lambda r: r.t):
        gid = r.path.split("/")[4]
        if r.status == 400:
            if gid in finished_at and r.t >= finished_at[gid]:
                after_end += 1
            elif last_status.get(gid) == 0:
                after_stall += 1  # its previous move was stalled (maybe landed): a retry
            else:
                illegal[gid] += 1
        last_status[gid] = r.status
    return illegal, after_stall, after_end


def request_report(records: list[RequestRecord],
                   finished_at: dict[str, float] | None = None,
                   pause_s: float = 60.0, in_flight_s: float = 5.0) -> dict[str, Any]:
    """Per-endpoint request rates (per-game traffic excluded), illegal moves.

    A move answered 400 after its game ended (posted as the flag fell, or as
    the opponent resigned) is counted apart: the move was legal, the game gone.
    """
    finished_at = finished_at or {}
    by_route: dict[str, list[float]] = {}
    for r in records:
        if not any(p in r.route for p in PER_GAME):
            by_route.setdefault(r.route, []).append(r.t)
    windows = {route: max_in_window(ts) for route, ts in sorted(by_route.items())}
    # The issue: no endpoint polled more than once a minute per account. Polling = GETs
    # (the event stream is a long-lived connection and reported on its own).
    polled = {
        route: n for route, n in windows.items()
        if route.startswith("GET ") and route != "GET /api/stream/event" and n > 1
    }
    illegal_by_game, after_stall, after_end = move_400s(records, finished_at)
    illegal = sum(illegal_by_game.values())
    return {
        "max_requests_per_60s": windows,
        "account_playing_max_per_60s": windows.get("GET /api/account/playing", 0),
        "event_stream_opens": len(by_route.get("GET /api/stream/event", [])),
        "event_stream_opens_max_per_60s": windows.get("GET /api/stream/event", 0),
        "polled_more_than_once_a_minute": polled,
        "illegal_moves": illegal,
        "move_400_after_stall": after_stall,
        "move_400_after_game_end": after_end,
        "move_posts_stalled": sum(1 for r in records if "/move/" in r.route and r.status == 0),
        # Should be empty: nothing goes to a rate class within its pause after its 429.
        "sent_within_429_pause": sent_in_pause(records, pause_s, in_flight_s),
    }


def commit_id() -> str:
    try:
        out = subprocess.run(["git", "describe", "--always", "--dirty", "--abbrev=7"],
                             capture_output=True, text=True, timeout=10,
                             cwd=Path(__file__).resolve().parent)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip() or "unknown"


def parse_rtt(text: str) -> tuple[float, float]:
    try:
        lo, hi = (float(x) for x in text.split("-"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give LO-HI in ms, e.g. 20-60") from None
    if not 0 <= lo <= hi:
        raise argparse.ArgumentTypeError(f"{text!r}: need 0 <= LO <= HI")
    return lo, hi


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def emulator_config(args: argparse.Namespace) -> EmulatorConfig:
    if args.profile == "realistic":
        # lila's keep-alive gaps (EmulatorConfig defaults), real round trips.
        return EmulatorConfig(seed=args.seed, rtt_ms=args.rtt_ms,
                              spectator_chat=SPECTATOR_LINES, spectator_chat_interval_s=8.0,
                              challenge_expiry_mode=args.challenge_expiry_mode)
    return EmulatorConfig(seed=args.seed, event_keepalive_s=3.0, game_keepalive_s=3.0)


def service_config(args: argparse.Namespace, url: str) -> dict[str, Any]:
    data: dict[str, Any] = {
        "url": url, "pgn_directory": args.pgn_dir, "log_level": args.log_level,
        "engine": {"hash_mb": args.hash_mb, "threads": 1, "ponder": args.ponder},
        "challenge": {"concurrency": args.concurrency, "max_simultaneous_games_per_user": 64,
                      "time_controls": ["bullet", "blitz", "rapid"]},
    }
    if args.profile == "basic":
        data["greeting"] = {"hello": "", "hello_spectators": "", "goodbye": "",
                            "goodbye_spectators": ""}
        data["network"] = {"stream_read_timeout_s": 7.0, "backoff_base_s": 0.2,
                           "backoff_max_s": 2.0, "rate_limit_pause_s": 2.0}
    if args.queue_max:
        data["challenge"]["queue_max"] = args.queue_max
    mix = args.mix or []
    if "variant" in mix:
        data["challenge"]["variants"] = ["standard", *MIX_VARIANTS]
    if "matchmaking" in mix:
        clocks = [own_tc(*parse_tc(t)) for t in args.tc.split(",")]
        types: list[dict[str, Any]] = [{"tc": tc, "weight": 2} for tc in clocks]
        if "variant" in mix:
            types += [{"tc": clocks[k % len(clocks)], "variant": v}
                      for k, v in enumerate(MIX_VARIANTS)]
        data["matchmaking"] = {"allow_matchmaking": True, "challenge_timeout_s": MM_IDLE_S,
                               "opponents": [name for name, _ in MM_BOTS], "types": types}
    if args.move_overhead_ms is not None:
        data["engine"]["move_overhead_ms"] = args.move_overhead_ms
    if args.book:
        data["engine"]["polyglot"] = {"enabled": True, "book": {"standard": args.book}}
    if args.syzygy:
        data["engine"]["syzygy"] = {"enabled": True, "paths": args.syzygy}
    # realistic: the production greetings, chat commands and network settings.
    return data


def opponent_for(args: argparse.Namespace, i: int) -> OpponentSpec:
    if args.profile == "realistic":
        return OpponentSpec(policy="uci", engine=args.engine, skill_level=args.skill,
                            movetime_ms=args.movetime_ms, think_time_s=0.05)
    return OpponentSpec(policy="greedy" if i % 2 else "random", think_time_s=0.05,
                        seed=args.seed + i)


def variant_opponent(args: argparse.Namespace, i: int) -> OpponentSpec:
    """A variant game's opponent: Fairy-Stockfish (realistic; it lacks atomic, where the
    emulator's opponent plays random moves), else the basic profile's."""
    if args.profile == "realistic":
        return OpponentSpec(policy="uci", engine=args.variant_engine, skill_level=args.skill,
                            movetime_ms=args.movetime_ms, think_time_s=0.05)
    return opponent_for(args, i)


# -- the mixed mode (--mix): arena games, direct challenges, bursts, own challenges ------

MIX_ITEMS = ("arena", "direct", "burst", "own", "variant", "matchmaking")
# --mix variant: lila's keys, in turn (standard chess is every other challenge).
MIX_VARIANTS = ("chess960", "crazyhouse", "antichess", "atomic", "horde", "kingOfTheHill",
                "racingKings", "threeCheck")
# --mix matchmaking: the BOTs the bot's matchmaking challenges (its `opponents`), online
# only while the driver waits for a matchmaking game: an idle moment at the end of the
# run then finds nobody to play (its challenge expires unanswered, as on lichess.org).
MM_BOTS = (("mm-ava", 1700), ("mm-ben", 1750))
MM_IDLE_S = 5.0  # matchmaking.challenge_timeout_s: idle this long, then challenge
# A matchmaking phase: from the bot's last game's end, its challenge should have become
# a game within this (idle time, its 5-s check, the answer, the game's start).
MM_START_S = 60.0
ARENA_OPPONENTS = (("arena-ann", 1450), ("arena-bob", 1500), ("arena-cid", 1550),
                   ("arena-dee", 1600))
GAUNTLET = ("gauntlet-a", "gauntlet-b", "gauntlet-c")
# A burst challenge still open this long after it was sent is looked up in the bot's
# queue (`pibot queue`): queued, it may wait on (or is withdrawn by its challenger).
BURST_CHECK_S = 15.0
# One still open and not in the queue may be on its way: taken from the queue with
# its accept in flight, or an answer held by a 429 pause of challenge answers
# (network.rate_limit_pause_s, 60 s) or by a dead event stream. It is unanswered
# only if it stays open and out of the queue this long (lila would keep it
# acceptable for hours: ChallengeApi.sweep takes it offline, deletes it 3 h later).
BURST_ANSWER_GRACE_S = 120.0
QUEUE_LISTING_EVERY_S = 2.0  # the soak asks `pibot queue` at most this often
OWN_START_S = 60.0  # an own challenge's game should have started by then
OWN_SETTLE_S = 10.0  # a series is over this long after its game (no "already running")


def parse_mix(text: str) -> list[str]:
    items = [x.strip() for x in text.split(",") if x.strip()]
    bad = [x for x in items if x not in MIX_ITEMS]
    if not items or bad:
        raise argparse.ArgumentTypeError(
            f"{text!r}: a comma-separated list of {', '.join(MIX_ITEMS)}")
    if not {"arena", "direct", "own", "matchmaking"} & set(items):
        raise argparse.ArgumentTypeError(
            f"{text!r}: needs arena, direct, own or matchmaking (games)")
    if "variant" in items and not {"direct", "matchmaking"} & set(items):
        raise argparse.ArgumentTypeError(
            f"{text!r}: variant needs direct or matchmaking (whose games it varies)")
    return list(dict.fromkeys(items))


def own_tc(base: int, inc: int) -> str:
    """`pibot challenge --tc` takes MINUTES+SECONDS, as lichess.org writes it."""
    return f"{base / 60:g}+{inc}"


@dataclass
class Burst:
    sent_at: float
    withdraws: bool  # its challenger gives up at the check if the bot queued it
    outcome: str | None = None
    answered_after_s: float | None = None
    unqueued_since: float | None = None  # open, past its check, not seen in the queue
    # A burst's: when the driver saw every slot busy (the snapshot it was sent on);
    # accepted, whether a slot it counted came free between then and the accept.
    busy_seen_at: float | None = None
    slot_freed: bool | None = None


@dataclass
class Mix:
    """What the mixed driver saw, for the report."""

    items: list[str]
    arena_id: str | None = None
    arena_joined_after_s: float | None = None
    source_of: dict[str, str] = field(default_factory=dict)  # game id -> arena|challenge|own
    bursts: dict[str, Burst] = field(default_factory=dict)
    # direct challenges not answered yet (one may wait in the queue like a burst's)
    directs: dict[str, Burst] = field(default_factory=dict)
    bursts_sent: int = 0
    own_asked: int = 0
    own_refused: Counter[str] = field(default_factory=Counter)  # the socket's one line
    own_refused_by_lila: int = 0  # asked, its creation answered 429 (the series ends)
    own_unstarted: int = 0  # asked, no game within OWN_START_S
    mm_games: int = 0  # games the bot's matchmaking started
    mm_unstarted: int = 0  # matchmaking phases with no game within MM_START_S of idling
    variant_of: dict[str, str] = field(default_factory=dict)  # game id -> variant key
    queue_listing: str = "absent"  # `queue` on the control socket: absent | present
    listing: set[str] | None = None  # the last `queue` answer, and when it came
    listed_at: float = -1e9
    # when the driver saw a slot it counted come free (a game over, the arena ended,
    # a direct challenge turned down, an own challenge given up): a burst sent while
    # every slot was busy may be accepted once one of these has happened
    freed_at: list[float] = field(default_factory=list)

    def bursts_accepted_while_full(self) -> int:
        """Bursts accepted with no slot freed since they were sent on a full house:
        more games than `concurrency`, what the bot must never do."""
        return sum(1 for b in self.bursts.values() if b.slot_freed is False)

    def burst_answers(self) -> dict[str, int]:
        """accepted_from_queue, withdrawn_while_queued, declined:<reason>,
        canceled_by_expiry (the emulator's expiry, as `canceled` for direct ones),
        unanswered (at the end, open and out of the queue for BURST_ANSWER_GRACE_S)."""
        return dict(sorted(Counter(b.outcome or "unanswered"
                                   for b in self.bursts.values()).items()))


def game_facts(emu: Emulator, gid: str) -> tuple[str | None, str, str, str]:
    """(tournament id, clock BASE+INC, opponent name, variant) of an emulator game."""
    with emu._core.lock:  # noqa: SLF001 - the snapshot carries none of these
        g = emu._core.games[gid]  # noqa: SLF001
        base = (g.clock.initial_ms or 0) // 1000
        clock = f"{base}+{g.clock.increment_ms // 1000}"
        opp = g.black.name if g.bot_color else g.white.name
        return g.tournament_id, clock, opp, g.variant


def set_online(emu: Emulator, names: Sequence[str], online: bool) -> None:
    """Emulator users come online or go offline (listed by /api/bot/online, answering
    challenges), as BOTs on lichess.org do."""
    with emu._core.lock:  # noqa: SLF001 - no facet for it: only the soak needs it
        for name in names:
            emu._core.people.users[name.lower()].online = online  # noqa: SLF001


def queued_ids(sock: Path) -> set[str] | None:
    """The challenge ids in the bot's queue (`pibot queue`); None when the service
    has no queue (the command is unknown) or does not answer."""
    try:
        listing = control_socket.call(None, "queue", {}, str(sock))
    except (control_socket.NotRunning, control_socket.Refused):
        return None
    return {str(q.get("id")) for q in listing or [] if isinstance(q, dict)}


async def drive_mix(args: argparse.Namespace, emu: Emulator, mix: Mix, sock: Path,
                    tcs: list[tuple[int, int]], games: list[str], tc_of: dict[str, str],
                    declined: Counter[str]) -> None:
    """Fill the slots the arena leaves with direct and own challenges until --games
    games have started (arena games count), and burst challenges at the bot whenever
    every slot is busy; then end the arena and wait for every game and burst."""
    me = emu.config.accounts[0].username
    t0 = time.monotonic()
    if mix.arena_id is not None:
        joined = await asyncio.to_thread(
            emu.wait_until, lambda: "me" in emu.arenas.json(mix.arena_id or "", me), 90.0)
        if joined:
            mix.arena_joined_after_s = round(time.monotonic() - t0, 1)
        else:
            log.warning("the bot did not join arena %s in 90 s", mix.arena_id)
    arena_open = mix.arena_id is not None
    own_pending: dict[str, float] = {}  # gauntlet user -> when asked
    opp_of: dict[str, str] = {}  # game id -> opponent
    own_over_at: dict[str, float] = {}  # gauntlet user -> when its last game ended
    last_burst = -1e9
    n_fill = n_burst = n_direct = 0
    over: set[str] = set()
    mm_names = [name for name, _ in MM_BOTS]
    # A matchmaking phase: due (no slot filled until the bot's own game starts), and
    # since when the bot has been idle in it.
    mm_due = False
    mm_idle_at: float | None = None
    while True:
        now = time.monotonic()
        running_other = 0
        for snap in emu.games():
            if snap.id not in mix.source_of:
                tid, clock, opp, variant = game_facts(emu, snap.id)
                if tid is not None:
                    source = "arena"
                elif opp in GAUNTLET:
                    source = "own"
                    own_pending.pop(opp, None)
                elif opp in mm_names:
                    source = "matchmaking"
                    mix.mm_games += 1
                    if mm_due:
                        mm_due, mm_idle_at = False, None
                        await asyncio.to_thread(set_online, emu, mm_names, False)
                else:
                    source = "challenge"
                mix.source_of[snap.id] = source
                mix.variant_of[snap.id] = variant
                opp_of[snap.id] = opp
                games.append(snap.id)
                tc_of[snap.id] = clock
                log.warning("game %s started: %s %s against %s", snap.id, source, clock, opp)
            if snap.over and snap.id not in over:
                over.add(snap.id)
                mix.freed_at.append(now)
                own_over_at[opp_of[snap.id]] = now
                log.warning("game %d/%d %s (%s) over: %s %s (%d plies)", len(over),
                            len(games), snap.id, mix.source_of[snap.id], snap.status,
                            snap.winner or "", len(snap.moves))
            if not snap.over and mix.source_of[snap.id] != "arena":
                running_other += 1
        if own_pending:
            refused = own_refusals(await asyncio.to_thread(
                emu.traffic.requests, "POST /api/challenge/gauntlet-*"), own_pending)
            for user, t in refused.items():
                own_pending.pop(user)
                mix.own_refused_by_lila += 1
                mix.freed_at.append(t)
                log.warning("own challenge to %s refused with a 429: its slot is free", user)
        for user, asked in list(own_pending.items()):
            if now - asked > OWN_START_S:
                own_pending.pop(user)
                mix.own_unstarted += 1
                mix.freed_at.append(now)
        await check_bursts(emu, mix, sock, now, final=False)
        await check_bursts(emu, mix, sock, now, final=False, direct=True)
        for cid, b in list(mix.directs.items()):
            if b.outcome is not None:  # accepted: its game is picked up above
                del mix.directs[cid]
                if b.outcome != "accepted_from_queue":
                    mix.freed_at.append(now)
                if b.outcome.startswith("declined:"):
                    declined[b.outcome.split(":", 1)[1]] += 1
                elif b.outcome == "unanswered":
                    declined["created"] += 1
                elif b.outcome != "accepted_from_queue":
                    declined[b.outcome] += 1
        running = len(games) - len(over)
        arena_games = sum(1 for g in games if mix.source_of[g] == "arena")
        if arena_open and (len(games) >= args.games or arena_games >= args.arena_games):
            assert mix.arena_id is not None
            await asyncio.to_thread(emu.arenas.finish, mix.arena_id)
            arena_open = False
            mix.freed_at.append(now)
            log.warning("%d games started (%d in the arena): arena %s ended", len(games),
                        arena_games, mix.arena_id)
        if mm_due and len(games) < args.games:
            idle = running == 0 and not own_pending and not mix.directs
            if idle and mm_idle_at is None:
                mm_idle_at = now
                await asyncio.to_thread(set_online, emu, mm_names, True)
            elif mm_idle_at is not None and now - mm_idle_at > MM_START_S:
                mix.mm_unstarted += 1
                mm_due, mm_idle_at = False, None
                await asyncio.to_thread(set_online, emu, mm_names, False)
                log.warning("matchmaking: no game %.0f s after the bot went idle", MM_START_S)
            await check_bursts(emu, mix, sock, now, final=False)
            await asyncio.sleep(0.5)
            continue
        if len(games) >= args.games:
            if mm_due:
                mm_due, mm_idle_at = False, None
                await asyncio.to_thread(set_online, emu, mm_names, False)
            if running == 0 and not own_pending:
                await check_bursts(emu, mix, sock, time.monotonic(), final=True)
                await check_bursts(emu, mix, sock, time.monotonic(), final=True, direct=True)
                if all(b.outcome for b in mix.bursts.values()) and not mix.directs:
                    break
            await asyncio.sleep(0.5)
            continue
        arena_slot = 1 if arena_open and mix.arena_joined_after_s is not None else 0
        # A direct challenge not answered yet holds its slot (it may be queued).
        free = args.concurrency - arena_slot - running_other - len(own_pending) \
            - len(mix.directs)
        fillers = [x for x in ("direct", "own") if x in mix.items]
        # The bot is idle only with no arena to play in: a phase begins after it.
        if free > 0 and "matchmaking" in mix.items and not arena_open and (
                not fillers or n_fill % args.mm_every == args.mm_every - 1):
            mm_due = True
            n_fill += 1
            log.warning("matchmaking phase: no new challenges until the bot is idle and "
                        "challenges on its own")
        elif free > 0 and fillers:
            base, inc = tcs[n_fill % len(tcs)]
            kind = "own" if fillers == ["own"] or (
                "own" in fillers and n_fill % args.own_every == args.own_every - 1) \
                else "direct"
            # A gauntlet BOT with no series running: never asked, or its game over a
            # while ago (the series ends when the bot has seen the end), in turn.
            busy = set(own_pending) | {opp_of[g] for g in games if g not in over} | {
                u for u, t in own_over_at.items() if now - t < OWN_SETTLE_S}
            turn = [GAUNTLET[(mix.own_asked + k) % len(GAUNTLET)]
                    for k in range(len(GAUNTLET))]
            pick = next((u for u in turn if u not in busy), None)
            if kind == "own" and pick is None:
                kind = "direct" if "direct" in fillers else "none"
            if kind == "none":
                pass
            elif kind == "own":
                assert pick is not None
                try:
                    await asyncio.to_thread(
                        control_socket.call, None, "challenge",
                        {"user": pick, "tc": own_tc(base, inc), "games": 1}, str(sock))
                    own_pending[pick] = time.monotonic()
                    mix.own_asked += 1
                except (control_socket.NotRunning, control_socket.Refused) as exc:
                    mix.own_refused[str(exc)[:80]] += 1
                    await asyncio.sleep(1.0)
            else:
                # One direct challenge in --variant-every is a variant game.
                variant = "standard"
                if "variant" in mix.items and n_direct % args.variant_every == 0:
                    variant = MIX_VARIANTS[n_direct // args.variant_every % len(MIX_VARIANTS)]
                n_direct += 1
                opponent = opponent_for(args, n_fill) if variant == "standard" else \
                    variant_opponent(args, n_fill)
                # Its challenger waits on the challenge page (keeps it seen), as a
                # burst's does.
                cid = await asyncio.to_thread(
                    emu.challenge_bot, challenger=f"soak{n_fill % 7}", rated=False,
                    clock_limit_s=base, increment_s=inc, opponent=opponent,
                    variant=variant, keep_alive=True)
                # Answered (or queued, then answered) while the loop goes on:
                # check_bursts(direct=True) classifies it.
                mix.directs[cid] = Burst(sent_at=time.monotonic(), withdraws=False)
            n_fill += 1
        elif free <= 0 and "burst" in mix.items and now - last_burst >= args.burst_every_s:
            # Every slot is busy (the arena's included): what a queue is for.
            last_burst = now
            for k in range(args.burst_size):
                base, inc = tcs[(n_burst + k) % len(tcs)]
                # Its challenger waits on the challenge page, which keeps the
                # challenge seen (lila ChallengeApi.ping; an unseen one goes offline
                # after 20 s, and accepting it then gives a game nobody plays).
                cid = await asyncio.to_thread(
                    emu.challenge_bot, challenger=f"burst{(n_burst + k) % 11}", rated=False,
                    clock_limit_s=base, increment_s=inc,
                    opponent=opponent_for(args, 1000 + n_burst + k), keep_alive=True)
                # One in --burst-withdraw-every, counted from each burst's first (the
                # one most likely queued: a later one may find the queue full).
                mix.bursts[cid] = Burst(sent_at=time.monotonic(),
                                        withdraws=(n_burst + k) % args.burst_withdraw_every
                                        == 0, busy_seen_at=now)
            n_burst += args.burst_size
            mix.bursts_sent = n_burst
            log.warning("burst of %d challenges with every slot busy", args.burst_size)
        await asyncio.sleep(0.5)


async def check_bursts(emu: Emulator, mix: Mix, sock: Path, now: float, final: bool,
                       direct: bool = False) -> None:
    """Classify the burst challenges that got an answer. From BURST_CHECK_S on, one
    still open is looked up in the bot's queue: queued, it is withdrawn by its
    challenger (one in --burst-withdraw-every, and every one at the end, final) or
    left to wait; out of the queue, it may be on its way (an accept in flight, an
    answer held by a 429 pause or a dead event stream), and is unanswered only if,
    once every game is over (final), it has stayed open and out of the queue for
    BURST_ANSWER_GRACE_S (its challenger keeps it seen: lila never expires it).
    direct: the same for the direct challenges not answered yet (never withdrawn
    before the end)."""
    for cid, b in (mix.directs if direct else mix.bursts).items():
        if b.outcome is not None:
            continue
        if classify_answered(emu, cid, b, now, mix.freed_at):
            continue
        if not (final or now - b.sent_at >= BURST_CHECK_S):
            continue
        if now - mix.listed_at >= QUEUE_LISTING_EVERY_S:
            mix.listing = await asyncio.to_thread(queued_ids, sock)
            mix.listed_at = now
            if mix.listing is not None:
                mix.queue_listing = "present"
            if classify_answered(emu, cid, b, now, mix.freed_at):  # answered while we asked
                continue
        if mix.listing is not None and cid in mix.listing:
            b.unqueued_since = None
            if final or b.withdraws:
                try:
                    await asyncio.to_thread(emu.challenges.cancel, cid)
                except EmulatorUsageError:
                    continue  # taken from the queue meanwhile: its answer comes next
                b.outcome = "withdrawn_while_queued"
            continue
        if b.unqueued_since is None:
            b.unqueued_since = now
            log.warning("%s challenge %s: open %.0f s after it was sent and not in the "
                        "queue (an answer on its way?)", "direct" if direct else "burst", cid,
                        now - b.sent_at)
        elif final and now - b.unqueued_since >= BURST_ANSWER_GRACE_S:
            try:
                await asyncio.to_thread(emu.challenges.cancel, cid)
            except EmulatorUsageError:
                continue  # answered at the last moment
            b.outcome = "unanswered"
            log.warning("%s challenge %s: no answer %.0f s after it was sent, and not "
                        "in the queue", "direct" if direct else "burst", cid, now - b.sent_at)


def classify_answered(emu: Emulator, cid: str, b: Burst, now: float,
                      freed_at: Sequence[float] = ()) -> bool:
    """Set the burst's outcome if the emulator has its answer; True if it has one.
    freed_at: when slots came free. A game over is seen by the driver's scan, which
    comes before this check in each round, so a slot freed before the accept is
    always in it by the time the accept is seen."""
    status = emu.challenges.status(cid)
    if status == "accepted":
        b.outcome, b.answered_after_s = "accepted_from_queue", round(now - b.sent_at, 1)
        if b.busy_seen_at is not None:
            seen = b.busy_seen_at
            b.slot_freed = any(seen < t <= now for t in freed_at)
    elif status == "declined":
        b.outcome = f"declined:{emu.challenges.decline_reason(cid) or 'generic'}"
        b.answered_after_s = round(now - b.sent_at, 1)
    elif status == "canceled":
        b.outcome = "canceled_by_expiry"
    return b.outcome is not None


def own_refusals(records: Sequence[RequestRecord],
                 pending: dict[str, float]) -> dict[str, float]:
    """Pending own challenges lila refused: user -> when. A 429 on the challenge's
    creation (POST /api/challenge/{user}) after it was asked ends the bot's series
    at once (bot.challenges.outgoing), and with it the slot the bot held for it, so
    the driver must free that slot then, not OWN_START_S later."""
    out: dict[str, float] = {}
    for r in records:
        user = r.path.split("?")[0].removeprefix("/api/challenge/")
        if r.method == "POST" and r.status == 429 and user in pending \
                and r.t >= pending[user]:
            out.setdefault(user, r.t)
    return out


def flag_model_min_moves(clock: str, rtt_ms: tuple[float, float]) -> int:
    """The fewest moves bench/flag_model.py's model game reaches at this clock and
    round trip (its defaults: one stalled POST, stream drops), over 100 games: a
    flag before that is one the clock allowed the bot to avoid."""
    import random

    from flag_model import play  # bench/ is on sys.path when run as a script

    base, inc = parse_tc(clock)
    model = argparse.Namespace(rtt_lo=rtt_ms[0], rtt_hi=rtt_ms[1], extra=15.0, overhead=326,
                               drop_rate=0.08, drop_cost=250.0, stall_at=27, stall_s=3.1,
                               max_moves=400)
    rng = random.Random(1)
    return min(play(base * 1000, inc * 1000, model, rng)[0] for _ in range(100))


async def soak(args: argparse.Namespace) -> int:
    tcs = [parse_tc(t) for t in args.tc.split(",")]
    emu_cfg = emulator_config(args)
    mix: Mix | None = None
    sock = Path()
    # The control socket, the status file and the records, in a directory of this run's
    # own: never ./pibot.db, which would grow in (and race a copy of) the checkout.
    runtime = Path(tempfile.mkdtemp(prefix="pibot-soak-"))
    if args.mix:
        mix = Mix(items=args.mix)
        # Own challenges go to emulator BOTs that accept and play as the soak's opponents.
        emu_cfg.users += [UserSpec(name, rating=1500 + 100 * k,
                                   opponent=opponent_for(args, 2000 + k))
                          for k, name in enumerate(GAUNTLET)]
        # Matchmaking's opponents play every variant; offline until a phase needs them.
        emu_cfg.users += [UserSpec(name, rating=rating, online=False,
                                   opponent=variant_opponent(args, 3000 + k))
                          for k, (name, rating) in enumerate(MM_BOTS)]
        os.environ["RUNTIME_DIRECTORY"] = str(runtime)
        sock = control_socket.socket_path()
    emu = Emulator(emu_cfg).start()
    # A stop (Ctrl-C, SIGTERM) ends the run at once, with no report: the service's own
    # handler would drain, letting the games finish while this loop started more.
    this = asyncio.current_task()
    assert this is not None
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, this.cancel)
    service: Service | None = None
    run: asyncio.Task[int] | None = None
    try:
        stats = Stats()
        data = service_config(args, emu.url)
        data["records"] = {"db": args.db or str(runtime / "pibot.db")}
        if mix is not None and "arena" in mix.items:
            base, inc = parse_tc(args.arena_tc)
            mix.arena_id = emu.arenas.create(
                minutes=24 * 60, clock_limit_s=base, increment_s=inc, starts_in_s=0.0,
                name="Soak", opponents=[(name, rating, opponent_for(args, 500 + k))
                                        for k, (name, rating) in enumerate(ARENA_OPPONENTS)])
            data["tournaments"] = [{"id": mix.arena_id}]
        cfg = parse_config(data)
        service = Service(cfg, Token(emu.token, "emulator"),
                          hooks=GameHooks(stats.on_move, stats.on_end), handle_signals=False)
        run = asyncio.create_task(service.run())
        await asyncio.wait_for(service.ready.wait(), 30)
        if args.profile == "realistic":
            inject_realistic_faults(emu, args.fault_rate)
        else:
            inject_faults(emu, args.fault_rate)
        t0 = time.monotonic()
        commit = commit_id()  # the code this run started with
        games: list[str] = []
        tc_of: dict[str, str] = {}
        pending: set[str] = set()
        declined: Counter[str] = Counter()
        i = 0
        if mix is not None:
            await drive_mix(args, emu, mix, sock, tcs, games, tc_of, declined)
        while mix is None and (len(games) < args.games or pending):
            for gid in list(pending):
                if emu.game(gid).over:
                    pending.discard(gid)
                    snap = emu.game(gid)
                    log.warning("game %d/%d %s over: %s %s (%d plies)", len(games) - len(pending),
                                args.games, gid, snap.status, snap.winner or "", len(snap.moves))
            while len(games) < args.games and len(pending) < args.concurrency:
                base, inc = tcs[i % len(tcs)]
                opp = opponent_for(args, i)
                cid = await asyncio.to_thread(emu.challenge_bot, challenger=f"soak{i % 7}",
                                              rated=False, clock_limit_s=base, increment_s=inc,
                                              opponent=opp)
                i += 1
                status = await asyncio.to_thread(emu.challenges.wait_answered, cid, 25)
                if status != "accepted":
                    # A finding either way: the slot is free the moment a game ends, and
                    # "created" (no answer in 25 s) is an answer dropped or held too long.
                    declined[emu.challenges.decline_reason(cid) or status] += 1
                    await asyncio.sleep(1.0)
                    continue
                await asyncio.to_thread(emu.wait_game_started, cid, 25)
                games.append(cid)
                tc_of[cid] = f"{base}+{inc}"
                pending.add(cid)
            await asyncio.sleep(0.5)
        elapsed = time.monotonic() - t0
        records = emu.traffic.requests()
        emu.faults.clear()
        service.request_stop()
        await asyncio.wait_for(run, 60)
        fired = sum(emu._core.faults.fired.values())  # noqa: SLF001 - report only

        snaps = [emu.game(g) for g in games]
        results: Counter[str] = Counter()
        time_losses = fault_losses = 0
        lost_to_fault: set[str] = set()
        for s in snaps:
            outcome = "draw" if not s.winner else ("win" if s.winner == s.bot_color else "loss")
            results[f"{outcome} ({s.status})"] += 1
            # The bot's flag fell: a loss, or a draw when the opponent cannot mate.
            if s.status == "outoftime" and s.winner != s.bot_color:
                time_losses += 1
            if s.status in ("aborted", "noStart") or not s.over:
                fault_losses += 1
                lost_to_fault.add(s.id)
        net = cfg.network
        finished_at = {s.id: s.finished_at for s in snaps if s.finished_at is not None}
        requests_seen = request_report(records, finished_at,
                                       pause_s=net.rate_limit_pause_s,
                                       in_flight_s=min(5.0, net.rate_limit_pause_s / 2))
        report = {
            "profile": args.profile,
            "rtt_ms": list(args.rtt_ms) if args.profile == "realistic" else None,
            "games": len(snaps), "time_controls": args.tc, "concurrency": args.concurrency,
            "fault_rate": args.fault_rate, "faults_fired": fired, "minutes": round(elapsed / 60, 1),
            "results": dict(results), "challenges_declined": dict(declined),
            "time_losses": time_losses,
            "games_lost_through_faults": fault_losses, "moves": len(stats.overhead_ms),
            "overhead_ms_median": round(statistics.median(stats.overhead_ms), 2)
            if stats.overhead_ms else None,
            "overhead_ms_p95": round(percentile(stats.overhead_ms, 0.95), 2),
            "overhead_ms_p99": round(percentile(stats.overhead_ms, 0.99), 2),
            "overhead_ms_max": round(max(stats.overhead_ms), 2) if stats.overhead_ms else None,
            "plies_per_game": [len(s.moves) for s in snaps],
            **requests_seen,
        }
        rows: list[dict[str, Any]] = [
            {"id": s.id, "clock": tc_of[s.id], "status": s.status, "winner": s.winner,
             "bot_color": s.bot_color, "plies": len(s.moves)} for s in snaps]
        forbidden = unanswered = 0
        if mix is not None:
            illegal_of = move_400s(records, finished_at)[0]
            rtt = args.rtt_ms if args.profile == "realistic" else (0.0, 0.0)
            model: dict[str, int] = {}
            for row in rows:
                row["source"] = mix.source_of[row["id"]]
                row["variant"] = mix.variant_of[row["id"]]
                row["illegal"] = illegal_of.get(row["id"], 0)
                row["lost_to_fault"] = row["id"] in lost_to_fault
                if row["status"] == "outoftime" and row["winner"] != row["bot_color"]:
                    if row["clock"] not in model:
                        model[row["clock"]] = flag_model_min_moves(row["clock"], rtt)
                    row["model_min_moves"] = model[row["clock"]]
            bursts = mix.burst_answers()
            unanswered = declined.get("created", 0) + bursts.get("unanswered", 0)
            from soak_merge import source_report, variant_report  # bench/ is on sys.path

            by_source = source_report(rows, {"arena": None, "challenge": unanswered, "own": 0,
                                             "matchmaking": 0})
            forbidden = sum(v["time_losses_flag_model_forbids"] for v in by_source.values())
            waits = [b.answered_after_s for b in mix.bursts.values()
                     if b.outcome == "accepted_from_queue" and b.answered_after_s is not None]
            report.update({
                "mix": mix.items, "arena_id": mix.arena_id,
                "arena_joined_after_s": mix.arena_joined_after_s,
                "arena_tc": args.arena_tc if mix.arena_id else None,
                # direct challenges: challenges_declined, as in the plain mode
                "bursts_sent": mix.bursts_sent, "burst_answers": bursts,
                "bursts_accepted_while_full": mix.bursts_accepted_while_full(),
                "burst_queue_waits_s": sorted(waits),
                "queue_listing": mix.queue_listing,
                "own_challenges_asked": mix.own_asked,
                "own_challenges_refused": dict(mix.own_refused),
                "own_challenges_refused_by_lila": mix.own_refused_by_lila,
                "own_challenges_unstarted": mix.own_unstarted,
                "matchmaking_games": mix.mm_games,
                "matchmaking_unstarted": mix.mm_unstarted,
                "challenges_unanswered": unanswered,
                "time_losses_flag_model_forbids": forbidden,
                "flag_model_min_moves": model,
                "by_source": by_source,
                "by_variant": variant_report(rows),
            })
        print(json.dumps(report, indent=2))
        if args.report:
            # Everything bench/soak_merge.py needs to pool runs: raw samples, per-game rows.
            full = {**report, "commit": commit, "seed": args.seed, "book": bool(args.book),
                    "syzygy": bool(args.syzygy), "overhead_ms": stats.overhead_ms,
                    "game_rows": rows}
            Path(args.report).write_text(json.dumps(full, indent=1) + "\n")
        ok = time_losses == 0 and fault_losses == 0 and requests_seen["illegal_moves"] == 0
        if mix is not None:  # issue 33: no time loss the flag model says was avoidable
            # An own challenge lila refused (a 429 on challenge creation ends the series
            # with one log line) is reported, not failed; the socket refusing one is a bug.
            ok = forbidden == 0 and fault_losses == 0 and requests_seen["illegal_moves"] == 0 \
                and unanswered == 0 and not mix.own_refused \
                and mix.bursts_accepted_while_full() == 0 and mix.mm_unstarted == 0
        print("PASS" if ok else "FAIL")
        return 0 if ok else 1
    except asyncio.CancelledError:
        print("soak stopped by a signal: no report written", file=sys.stderr, flush=True)
        if service is not None and run is not None:
            service.request_stop()
            service.request_stop()  # the second request: exit without waiting for games
            await asyncio.wait({run}, timeout=15)
        return 130
    finally:
        emu.stop()
        shutil.rmtree(runtime, ignore_errors=True)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--profile", choices=("basic", "realistic"), default="basic",
                   help="basic: fast keep-alives, python opponents; realistic: lichess.org-like "
                   "(latency, spectators, chat and stream faults, stalls, Stockfish)")
    p.add_argument("--games", type=int, default=50)
    p.add_argument("--tc", default=None,
                   help="comma-separated BASE+INC list (default 60+0,180+2; realistic: "
                   f"{REALISTIC_TC})")
    p.add_argument("--engine", default="stockfish", help="realistic: the opponent's UCI engine")
    p.add_argument("--skill", type=int, default=6,
                   help="realistic: the opponent's Skill Level (0-20)")
    p.add_argument("--movetime-ms", type=int, default=100,
                   help="realistic: the opponent's time per move")
    p.add_argument("--concurrency", type=int, default=2)
    p.add_argument("--fault-rate", type=float, default=0.02,
                   help="probability of each random fault per opportunity")
    p.add_argument("--hash-mb", type=int, default=16)
    p.add_argument("--move-overhead-ms", type=int, default=None,
                   help="the overhead floor (default: the product default)")
    p.add_argument("--ponder", action="store_true")
    p.add_argument("--pgn-dir", default=None)
    p.add_argument("--db", default=None,
                   help="keep the bot's records in this SQLite file (default: a scratch "
                   "file, removed at the end)")
    p.add_argument("--book", action="append", default=[],
                   help="a polyglot .bin book for the bot (repeatable), e.g. "
                   "../shared/books/performance.bin")
    p.add_argument("--syzygy", action="append", default=[],
                   help="a Syzygy table directory for the bot (repeatable)")
    p.add_argument("--seed", type=int, default=1)
    # lila keeps an unseen challenge acceptable ("offline", ChallengeApi.sweep) for a
    # challenger who keeps the page open; "cancel" models an API challenger who left.
    p.add_argument("--challenge-expiry-mode", choices=("cancel", "offline"), default="cancel")
    p.add_argument("--rtt-ms", type=parse_rtt, default=(80.0, 250.0), metavar="LO-HI",
                   help="realistic: round-trip range in ms (default 80-250; a home line: "
                        "20-60)")
    p.add_argument("--log-level", default="warning")
    p.add_argument("--report", default=None,
                   help="also write the report with raw samples to this JSON file "
                   "(pool several with bench/soak_merge.py)")
    p.add_argument("--queue-max", type=int, default=0, metavar="N",
                   help="the bot's challenge.queue_max (0: no queue, busy is declined later)")
    p.add_argument("--mix", type=parse_mix, default=None, metavar="ITEMS",
                   help="mixed mode, a comma-separated list of: arena (the bot joins an "
                   "emulator arena from its tournaments: config and plays the games it is "
                   "paired into against 4 opponents), direct (users challenge it, as without "
                   "--mix), burst (challenges that arrive while every slot is busy), own "
                   "(`pibot challenge` through the control socket to emulator BOTs); "
                   "--games counts every source")
    p.add_argument("--arena-tc", default="60+0", help="--mix arena: the arena's clock")
    p.add_argument("--burst-size", type=int, default=3,
                   help="--mix burst: challenges per burst")
    p.add_argument("--burst-every-s", type=float, default=60.0,
                   help="--mix burst: at most one burst this often")
    p.add_argument("--burst-withdraw-every", type=int, default=3,
                   help="--mix burst: one burst challenge in N is withdrawn by its "
                   "challenger if the bot queued it")
    p.add_argument("--own-every", type=int, default=4,
                   help="--mix own (with direct): one slot filling in N is an own challenge")
    p.add_argument("--variant-every", type=int, default=3,
                   help="--mix variant: one direct challenge in N is a variant game")
    p.add_argument("--variant-engine", default="fairy-stockfish",
                   help="--mix variant, realistic: the variant games' opponent (UCI_Variant)")
    p.add_argument("--mm-every", type=int, default=6,
                   help="--mix matchmaking: one slot filling in N waits for the bot's own "
                   "matchmaking game instead")
    p.add_argument("--arena-games", type=int, default=None,
                   help="--mix arena: end the arena after N arena games (default: at the "
                   "end; with matchmaking, a third of --games, so that the bot can idle)")
    args = p.parse_args()
    if args.tc is None:
        args.tc = REALISTIC_TC if args.profile == "realistic" else "60+0,180+2"
    if args.games < 1:
        p.error("--games must be >= 1")
    if min(args.burst_size, args.burst_withdraw_every, args.own_every, args.variant_every,
           args.mm_every) < 1:
        p.error("--burst-size, --burst-withdraw-every, --own-every, --variant-every and "
                "--mm-every must be >= 1")
    if args.arena_games is None:
        with_mm = bool(args.mix) and "matchmaking" in args.mix
        args.arena_games = max(1, args.games // 3) if with_mm else args.games
    if args.mix and "arena" in args.mix:
        try:
            base, inc = parse_tc(args.arena_tc)
        except ValueError:
            p.error(f"--arena-tc {args.arena_tc!r}: use BASE+INC in seconds, e.g. 60+0")
        if base + 40 * inc < 30:
            p.error("--arena-tc: a bots-allowed arena needs Bullet or slower (lila)")
    try:
        [parse_tc(t) for t in args.tc.split(",")]
    except ValueError:
        p.error(f"--tc {args.tc!r}: use BASE+INC pairs in seconds, e.g. 60+0,180+2")
    if args.profile == "realistic":
        try:
            opponent_for(args, 0)  # a missing engine or bad skill: say so now
            if args.mix and {"variant", "matchmaking"} & set(args.mix):
                variant_opponent(args, 0)
        except EmulatorUsageError as exc:
            p.error(str(exc))
    setup_logging(args.log_level)
    logging.getLogger("soak").setLevel(logging.INFO)
    return asyncio.run(soak(args))


if __name__ == "__main__":
    sys.exit(main())
