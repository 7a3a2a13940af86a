"""The service as `pibot status` and the status page see it."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from bot.challenges.arenas import ArenaStatus
from bot.challenges.queue import QueuedChallenge
from bot.config import Config
from bot.engine.pool import EnginePool
from bot.host import status_file
from bot.play.clock import clock_running
from bot.play.game import GameRunner
from bot.service.shared import Shared


def state_of(waiting_for: str, draining: bool) -> str:
    return "connecting" if waiting_for else ("draining" if draining else "accepting")


@dataclass(frozen=True)
class Head:
    """Who the service is, where, and where it stands (state_of)."""

    account: str
    url: str
    state: str


@dataclass(frozen=True)
class Listings:
    """The rooms' own rows: the challenges waiting for a slot, the records
    database's state (RecordWriter.status()) and the arenas."""

    queued: list[QueuedChallenge] | None = None
    records: dict[str, object] | None = None
    arenas: list[ArenaStatus] | None = None


async def publish(writer: status_file.Writer, head: Head, cfg: Config, pool: EnginePool | None,
                  shared: Shared, runners: list[GameRunner], rows: Listings) -> str:
    """Rewrite the status file (in a thread); returns its one-line summary."""
    heat = shared.heat
    pool_slots = await asyncio.to_thread(pool.slot_status) if pool else []
    engine = status_file.EngineStatus(
        hash_mb=pool.hash_mb if pool else cfg.sized.hash_mb,
        threads=heat.configured, threads_now=heat.threads_now, slots=pool_slots)
    games = [game_status(r) for r in runners if r.st.full is not None]
    core = status_file.Essentials(
        account=head.account, url=head.url, state=head.state,
        concurrency=cfg.challenge.concurrency,
        free_slots=shared.slots.free(cfg.challenge.concurrency), games=games,
        engine=engine, heat=heat.status(), today=shared.tally.snapshot())
    extras = status_file.Extras(
        unsaved_pgns=shared.saver.pending, pgn_problem=shared.saver.problem,
        queue=[status_file.QueuedStatus(id=q.id, challenger=q.challenger, rating=q.rating,
                                        speed=q.speed, waiting_since=q.waiting_since,
                                        bot=q.bot) for q in rows.queued or []],
        records=_records(rows.records),
        arenas=[status_file.ArenaRow(id=a.id, name=a.name, state=a.state, source=a.source)
                for a in rows.arenas or []])
    return await asyncio.to_thread(writer.publish, core, extras)


def _records(rec: dict[str, object] | None) -> status_file.RecordsStatus | None:
    """RecordWriter.status() in the status file's shape."""
    if rec is None:
        return None
    problem = rec.get("problem")

    def count(key: str) -> int:
        v = rec.get(key)
        return v if isinstance(v, int) else 0

    return status_file.RecordsStatus(
        path=str(rec.get("path")), problem=None if problem is None else str(problem),
        dropped=count("dropped"), written=count("written"), pending=count("pending"))


def game_status(runner: GameRunner) -> status_file.GameStatus:
    """One game as the status file shows it."""
    st = runner.st
    now = time.monotonic()
    mine = theirs = None
    if st.clock is not None and st.clock.has_clock:
        to_move = st.to_move()
        running = clock_running(len(st.moves))
        other = "black" if st.color == "white" else "white"
        mine = int(st.clock.remaining_ms(st.color, to_move if running else "", now))
        theirs = int(st.clock.remaining_ms(other, to_move if running else "", now))
    res = runner.thinker.last if runner.thinker is not None else None
    recent = runner.latency.recent
    row = status_file.GameStatus(
        id=runner.game_id, opponent=st.opponent, color=st.color,
        time_control=st.full.time_control() if st.full is not None else "-",
        plies=len(st.moves), my_clock_ms=mine,
        opponent_clock_ms=theirs, eval_cp=res.score_cp if res is not None else None,
        mate=res.mate if res is not None else None, depth=res.depth if res is not None else None,
        latency_ms=recent[-1] if recent else None)
    if runner.terms is not None:
        row["strength"] = runner.terms.label
    return row
