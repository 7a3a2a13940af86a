"""The arena room: the tournaments the bot plays in (config `tournaments:`, or
joined by the owner through join()/leave(), for the control socket).

lila sends no event when an arena starts or ends (modules/api/src/main/
EventStream.scala), so each wanted arena is polled (GET /api/tournament/{id}):
before its start every network.tournament_poll_s, or sooner when it starts
sooner; it is joined when it has started (TournamentApi.join); then polled to
see the end.  Each arena we are in holds one slot (as BotLi does); its games,
which lila pairs and announces as gameStart with a tournamentId (no challenge),
use that slot.  We withdraw on stop and when an entry leaves the config; the
slot is let go when the arena ends.  Berserk is not offered: lila answers a BOT
400 "Cannot berserk" (PlayApi, lila commit c5446f8b).

A pairing is announced only on the account's event stream, and a game whose
first move does not come in time is lost (Finisher.noStart).  So while that
stream is held closed past a first move's grace (a 429 pause: the event
stream's `held`), the room is "deaf": it withdraws from its arenas, which lila
takes as a pause for a running arena (TournamentApi.selfPause: points and
streak kept; a game in progress plays on), and rejoins once the stream is open
again.  A pairing made in the second or two between the stream's drop and the
news that it is held was never announced: on going deaf the room reads each
arena once more after withdrawing, and a game its `me.gameId` names (tournament
JsonView.fetchCurrentGameId, withdrawn or not) is handed to the game supervisor
(`unheard`).  Such an arena keeps its slot meanwhile (we mean to return).  lila
refuses a rejoin until the pause is over (Pause.scala: 10 s the first time, up
to 120 s; GET shows `me.pauseDelay`): that refusal is waited out and retried,
never given up.

An arena's entry code is a shared secret: read from `password_file` when
joining, sent only in the request body, never logged.
"""

from __future__ import annotations

import asyncio
import builtins
import logging
import re
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bot.challenges.shared import ChallengeShared
from bot.config import LiveConfig
from bot.errors import UserError, read_user_file
from bot.lichess.client import ApiRejected, Lichess, LichessError
from bot.lichess.events import Tournament

log = logging.getLogger(__name__)

ID_RE = re.compile(r"^[A-Za-z0-9]{8}$")
MIN_POLL_S = 0.05
PAUSE_RETRY_S = 10.0  # a rejoin refused for our pause, the delay unknown: Pause.scala's first
DEAF_WHY = "the event stream is paused: not paired while we cannot hear pairings"


@dataclass(frozen=True)
class ArenaStatus:
    """One row of list(): an arena we want to be in, and where we stand."""

    id: str
    name: str
    # waiting (for its start or a slot) | joined | paused (withdrawn while the event
    # stream is held) | left (by command) | ended
    state: str
    source: str  # config | owner


@dataclass(frozen=True)
class _OwnerEntry:
    """An arena the owner joined by command; the entry code stays out of reprs."""

    id: str
    team: str | None = None
    password: str | None = field(default=None, repr=False)


def read_password(path_text: str) -> str:
    """The entry code in `password_file`; a file others may read gets a warning."""
    path = Path(path_text).expanduser()
    text = read_user_file(path, "tournaments password_file", "create it with the entry code "
                          "or fix the path", "check its permissions", encoding="utf-8-sig")
    mode = path.stat().st_mode
    if mode & (stat.S_IRGRP | stat.S_IROTH):
        who = "everyone" if mode & stat.S_IROTH else "its group"
        log.warning("tournaments password_file %s is readable by %s (mode %03o); anyone who "
                    "reads it can enter the arena: run chmod 600 %s", path, who,
                    stat.S_IMODE(mode), path)
    code = text.strip()
    if not code or "\n" in code:
        raise UserError(f"tournaments password_file {path} must hold the entry code alone, "
                        f"on one line")
    return code


async def _look_again(api: Lichess, tid: str) -> Tournament | None:
    """The arena as lila shows it to us now; None when that cannot be read."""
    try:
        return await api.arenas.get(tid)
    except LichessError as exc:
        log.warning("arena %s: could not look for a game paired while the event stream "
                    "was down: %s", tid, exc)
        return None


class Arenas:
    def __init__(self, api: Lichess, live: LiveConfig, shared: ChallengeShared,
                 unheard: Callable[[str, str], None]) -> None:
        """`unheard(game id, tournament id)`: play a game lila paired us into that the
        event stream did not announce."""
        self.api, self.live, self.shared, self.unheard = api, live, shared, unheard
        self.slots = shared.slots  # an arena we are in holds one
        self._owner: dict[str, _OwnerEntry] = {}  # joined by command
        self._left: set[str] = set()  # left by command: not rejoined from the config
        self.joined: set[str] = set()
        self._info: dict[str, Tournament] = {}
        self._ended: set[str] = set()  # finished or gone: never polled again
        self._said: dict[str, str] = {}  # tid -> the last problem logged (logged once)
        self._wake = asyncio.Event()
        self._deaf = False  # the event stream is held closed: not in any arena
        self._resting: set[str] = set()  # withdrawn while deaf; rejoined after, slot kept
        self._retry_at: dict[str, float] = {}  # tid -> when our pause allows a rejoin

    def name_of(self, tournament_id: str) -> str | None:
        """The arena's name as its GET /api/tournament/{id} gave it (fullName: what
        Lichess writes in its games' PGN Event); None for one this room never polled."""
        info = self._info.get(tournament_id)
        return info.name or None if info is not None else None

    # -- the owner's commands (the control socket) ----------------------------------
    async def join(self, tournament_id: str, team: str | None = None,
                   password: str | None = None) -> None:
        """Play in this arena (from its start); ValueError for a malformed id."""
        if not ID_RE.match(tournament_id):
            raise ValueError(f"{tournament_id!r} is not an arena id (8 letters and digits)")
        self._left.discard(tournament_id)
        self._ended.discard(tournament_id)
        self._owner[tournament_id] = _OwnerEntry(tournament_id, team, password)
        await self.sync()

    async def leave(self, tournament_id: str) -> None:
        """Withdraw from this arena and do not rejoin it (config entry or not)."""
        self._owner.pop(tournament_id, None)
        self._left.add(tournament_id)
        await self.sync()

    async def list(self) -> builtins.list[ArenaStatus]:
        return self.listing()

    def listing(self) -> builtins.list[ArenaStatus]:
        """The arenas we want to be in, and where we stand (`pibot arena list`, the
        status file)."""
        cfg_ids = {t.id for t in self.live.now.tournaments}
        out = []
        for tid in sorted(cfg_ids | set(self._owner) | self.joined):
            info = self._info.get(tid)
            state = "joined" if tid in self.joined else "ended" if tid in self._ended \
                else "left" if tid in self._left else "paused" if tid in self._resting \
                else "waiting"
            out.append(ArenaStatus(tid, info.name if info else "", state,
                                   "owner" if tid in self._owner else "config"))
        return out

    # -- the service -----------------------------------------------------------------
    def poke(self) -> None:
        """Look again now (a reload, a stop request)."""
        self._wake.set()

    def stream_held(self, wait_s: float) -> None:
        """The event stream stays closed `wait_s` s, past a first move's grace: we
        would not hear a pairing in time, so take a break from every arena."""
        if not self._deaf:
            self._deaf = True
            if self.joined:
                log.info("arenas: the event stream is held for %.0f s: withdrawing until "
                         "it is back", wait_s)
            self.poke()

    def stream_opened(self) -> None:
        """The event stream is open again: rejoin the arenas we paused at once."""
        if self._deaf:
            self._deaf = False
            if self._resting:
                log.info("arenas: the event stream is back: rejoining %s",
                         ", ".join(sorted(self._resting)))
            self.poke()

    async def run(self) -> None:
        """The supervised task: poll, join, withdraw, let go."""
        while True:
            self._wake.clear()
            await self.sync()
            try:
                await asyncio.wait_for(self._wake.wait(), timeout=self._next_poll_s())
            except TimeoutError:
                pass

    async def leave_all(self, timeout_s: float = 5.0) -> None:
        """On stop: withdraw from every arena we are in (lila would pair us again);
        within `timeout_s`, never hanging the exit."""
        async def each() -> None:
            for tid in sorted(self.joined):
                await self._withdraw(tid, "the bot is stopping")

        try:
            await asyncio.wait_for(each(), timeout=timeout_s)
        except TimeoutError:
            log.warning("arenas: withdrawing took over %.0f s; exiting anyway", timeout_s)

    async def sync(self) -> None:
        entries = self._wanted(deaf_too=True)
        wanted = self._wanted()
        for tid in sorted(self.joined - set(wanted)):
            if tid in entries:  # only the held stream keeps us out: back later
                await self._withdraw(tid, DEAF_WHY, rest=True)
                # A game paired while the stream was already down: lost by noStart
                # unless we play it now.
                info = await _look_again(self.api, tid)
                if info is not None and info.me_game_id:
                    self._info[tid] = info
                    self.unheard(info.me_game_id, tid)
                continue
            why = "the bot is stopping" if self.shared.draining else \
                "left by command" if tid in self._left else "no longer in the config"
            await self._withdraw(tid, why)
        for tid in sorted(self._resting - set(entries)):
            # Paused, then left by command, dropped from the config, or stopping.
            self._resting.discard(tid)
            self._retry_at.pop(tid, None)
            self.slots.release_arena(tid)
            log.info("arena %s: not rejoining it; its slot is free", tid)
        for tid, (team, password_file, password) in wanted.items():
            await self._visit(tid, team, password_file, password)

    def _wanted(self, deaf_too: bool = False
                ) -> dict[str, tuple[str | None, str | None, str | None]]:
        """tid -> (team, password_file, password) of every arena we want to be in now
        (`deaf_too`: also while the event stream is held)."""
        if self.shared.draining or (self._deaf and not deaf_too):
            return {}
        out: dict[str, tuple[str | None, str | None, str | None]] = {}
        for t in self.live.now.tournaments:
            out[t.id] = (t.team, t.password_file, None)
        for o in self._owner.values():
            out[o.id] = (o.team, None, o.password)
        return {k: v for k, v in out.items() if k not in self._ended and k not in self._left}

    async def _visit(self, tid: str, team: str | None, password_file: str | None,
                     password: str | None) -> None:
        try:
            info = await self.api.arenas.get(tid)
        except LichessError as exc:
            log.warning("arena %s: could not look at it: %s", tid, exc)
            return
        if info is None or info.finished:
            self._end(tid, "it has ended" if info else "lichess no longer has it")
            return
        self._info[tid] = info
        if tid in self.joined and info.me_withdrawn is None:
            # Removed before its start (an organiser's change): we are no longer in it.
            self.joined.discard(tid)
            self.slots.release_arena(tid)
        if info.joined and tid not in self.joined:
            # Joined before a restart (or on the website): lila pairs us, so it is ours.
            self.joined.add(tid)
            self._resting.discard(tid)
            self.slots.hold_arena(tid)
            log.info("arena %s: already in it (%s)", tid, info.name or "arena")
        if not info.started or info.joined or self._deaf:
            # Not yet (polled again before its start), in and playing, or the event
            # stream was held while we asked (stream_held): not now.
            return
        if info.me_pause_delay_s is not None:
            # Our pause (Pause.scala) is on: a join now would be refused.  lila rounds
            # the delay down (0 = under a second left): a second more.
            self._pause_not_over(tid, info.me_pause_delay_s + 1.0)
            return
        if self._retry_at.get(tid, 0.0) > time.monotonic():
            return
        await self._join(tid, team, password_file, password)

    async def _join(self, tid: str, team: str | None, password_file: str | None,
                    password: str | None) -> None:
        concurrency = self.live.now.challenge.concurrency
        # A paused arena kept its slot; one whose game plays on has it in that game.
        needs_slot = tid not in self.joined and tid not in self._resting \
            and tid not in self.slots.arena_games.values()
        if needs_slot and self.slots.free(concurrency) <= 0:
            self._say(tid, "waiting for a free slot (challenge.concurrency) to join")
            return
        try:
            code = read_password(password_file) if password_file else password
            await self.api.arenas.join(tid, team, code)
        except UserError as exc:
            self._say(tid, f"cannot join: {exc}", logging.ERROR)
            return
        except ApiRejected as exc:
            if "pause is not over" in str(exc):
                # Our own pause after a withdraw (Pause.scala): wait it out, never give up.
                self._pause_not_over(tid, PAUSE_RETRY_S)
                return
            # "Wrong entry code", "Tournament restrictions" (bots not allowed),
            # "Missing team" (Tournament.JoinResult): the owner must act
            self._say(tid, f"lichess refused to let us join: {exc}", logging.ERROR)
            return
        except LichessError as exc:
            log.warning("arena %s: join failed: %s", tid, exc)
            return
        self._said.pop(tid, None)
        self._retry_at.pop(tid, None)
        rejoined = tid in self._resting
        self._resting.discard(tid)
        if tid not in self.joined:
            self.joined.add(tid)
            self.slots.hold_arena(tid)
        log.info("arena %s: %s (%s)", tid, "rejoined" if rejoined else "joined",
                 self._info[tid].name or "arena")

    def _pause_not_over(self, tid: str, delay_s: float) -> None:
        """lila will not let us back yet (Pause.scala): look again in `delay_s`."""
        self._retry_at[tid] = time.monotonic() + delay_s
        log.info("arena %s: our pause after the withdraw is not over: rejoining in %.0f s",
                 tid, delay_s)

    async def _withdraw(self, tid: str, why: str, rest: bool = False) -> None:
        """Withdraw (lila: a pause in a running arena, TournamentApi.selfPause); `rest`:
        we mean to come back, so the arena keeps its slot.  A game in progress plays
        on (lila lets it finish): its runner is not ours to touch."""
        try:
            await self.api.arenas.withdraw(tid)
        except LichessError as exc:
            log.warning("arena %s: withdraw failed: %s", tid, exc)
        self.joined.discard(tid)
        if rest:
            self._resting.add(tid)
        else:
            self.slots.release_arena(tid)
        log.info("arena %s: withdrew (%s)", tid, why)

    def _end(self, tid: str, why: str) -> None:
        self._ended.add(tid)
        self._owner.pop(tid, None)
        self._retry_at.pop(tid, None)
        if tid in self.joined or tid in self._resting:
            self.joined.discard(tid)
            self._resting.discard(tid)
            self.slots.release_arena(tid)
            log.info("arena %s: %s; its slot is free", tid, why)
        else:
            log.info("arena %s: %s", tid, why)

    def _say(self, tid: str, text: str, level: int = logging.INFO) -> None:
        if self._said.get(tid) != text:
            self._said[tid] = text
            log.log(level, "arena %s: %s", tid, text)

    def _next_poll_s(self) -> float:
        poll = self.live.now.network.tournament_poll_s
        now = time.monotonic()
        for tid in self._wanted():
            if self._retry_at.get(tid, 0.0) > now:  # (one past is only not cleared yet)
                poll = min(poll, self._retry_at[tid] - now)
            info = self._info.get(tid)
            if info is None:
                continue
            if not info.started and info.seconds_to_start is not None:
                poll = min(poll, info.seconds_to_start + 0.5)
            elif info.started and info.seconds_to_finish is not None:
                poll = min(poll, info.seconds_to_finish + 1.0)
        return max(MIN_POLL_S, poll)
