"""What the running service is doing, as a small JSON file for `pibot status`.

The service rewrites the file on each watchdog tick (atomically: temp file +
rename, so a reader never sees half a file) under its runtime directory:

1. `$RUNTIME_DIRECTORY` (systemd sets it from `RuntimeDirectory=pibot`, i.e.
   /run/pibot; /run/pibot-NAME for `pibot@NAME`);
2. else `$XDG_RUNTIME_DIR/pibot` (a `pibot run` from a login shell);
3. else `/tmp/pibot-UID`.

`pibot status` looks in the same places (plus /run/pibot) and takes the
newest file.  The service is "not running" when there is no file, when the
recorded PID is gone, or when the file is older than STALE_PERIODS update
periods (a hung or killed service stops refreshing it).

No secrets: the file holds the account name, games, clocks, engine and
machine state -- never the token -- and is world-readable (0644) so the
owner can run `pibot status` without sudo.
"""

from __future__ import annotations

import datetime as dt
import errno
import json
import logging
import math
import os
import stat
import tempfile
import threading
import time
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

log = logging.getLogger(__name__)

SCHEMA = 1
FILENAME = "status.json"
# Stale after this many update periods without a rewrite (plus a little slack).
STALE_PERIODS = 3
STALE_SLACK_S = 5.0


class _GameLevel(TypedDict, total=False):
    # The engine's level: "full" or an Elo ("1450"); absent in files older pibots wrote
    # (a class of its own: NotRequired is not seen under postponed annotations in 3.11).
    strength: str


class GameStatus(_GameLevel):
    id: str
    opponent: str
    color: str                    # our colour: "white" / "black"
    time_control: str             # "180+2", "1d" (correspondence), "-"
    plies: int
    my_clock_ms: int | None
    opponent_clock_ms: int | None
    eval_cp: int | None           # our point of view, last search
    mate: int | None
    depth: int | None
    latency_ms: float | None      # last move: position received -> move accepted, minus think


class SlotStatus(TypedDict):
    slot: int
    busy: bool
    clearing: bool
    hash_mb: int | None
    hashfull: int | None          # per mille


class EngineStatus(TypedDict):
    hash_mb: int
    threads: int                  # configured (auto resolved)
    threads_now: int              # after the thermal limit
    slots: list[SlotStatus]


class HeatStatus(TypedDict):
    temp_c: float | None
    throttled: int | None         # raw firmware flags; None where there are none
    flags: list[str]              # names of the flags set now


class TodayStatus(TypedDict):
    date: str                     # UTC day, YYYY-MM-DD
    wins: int
    draws: int
    losses: int
    bot_games: int                # games against BOT accounts today
    bot_limit: int | None         # Lichess's daily bot-vs-bot cap, if known


class QueuedStatus(TypedDict):
    id: str
    challenger: str
    rating: int | None
    speed: str
    waiting_since: float          # Unix time it arrived
    bot: bool


class ArenaRow(TypedDict):
    """An arena the bot wants to be in (config `tournaments:` or `pibot arena join`)."""

    id: str
    name: str                     # "" until Lichess has been asked
    state: str                    # waiting | joined | paused | left | ended
    source: str                   # config | owner


class _RequiredStatus(TypedDict):
    schema: int
    pid: int
    account: str
    url: str
    state: str                    # "connecting", "accepting", "draining"
    started_at: float             # Unix time
    updated_at: float
    period_s: float               # how often the file is rewritten
    concurrency: int
    free_slots: int
    games: list[GameStatus]
    engine: EngineStatus
    heat: HeatStatus
    today: TodayStatus


class RecordsStatus(TypedDict):
    """The records database (bot.store's RecordWriter.status())."""

    path: str
    problem: str | None           # why records are not written now
    dropped: int
    written: int
    pending: int


class ServiceStatus(_RequiredStatus, total=False):
    # Added later: older files lack them.
    unsaved_pgns: int             # finished games whose PGN waits for the disk
    pgn_problem: str | None       # why they wait
    queue: list[QueuedStatus]     # challenges waiting for a free slot, the next one first
    records: RecordsStatus | None  # None: records.db is null
    arenas: list[ArenaRow]        # the arena room's list, as `pibot arena list` gives it


# -- where --------------------------------------------------------------------------

def write_dir(env: dict[str, str] | None = None) -> Path:
    """Where the service writes (see the module doc)."""
    env = dict(os.environ) if env is None else env
    runtime = env.get("RUNTIME_DIRECTORY", "").split(":")[0]
    if runtime:
        return Path(runtime)
    xdg = env.get("XDG_RUNTIME_DIR")
    if xdg:
        return Path(xdg) / "pibot"
    return Path(tempfile.gettempdir()) / f"pibot-{os.getuid()}"


def candidate_paths(instance: str | None = None,
                    env: dict[str, str] | None = None) -> list[Path]:
    """Where `pibot status` looks, most specific first."""
    env = dict(os.environ) if env is None else env
    name = "pibot" if not instance else f"pibot-{instance}"
    paths = [Path("/run") / name / FILENAME]
    if not instance:
        paths.insert(0, write_dir(env) / FILENAME)
    elif env.get("XDG_RUNTIME_DIR"):
        paths.append(Path(env["XDG_RUNTIME_DIR"]) / name / FILENAME)
    seen: list[Path] = []
    for p in paths:
        if p not in seen:
            seen.append(p)
    return seen


# -- writing ------------------------------------------------------------------------

def _own_directory(d: Path) -> None:
    """Make `d` (0755) or check it is ours: a directory (not a link), owned by us and
    writable by no one else, so no other user can plant or swap the status file."""
    d.mkdir(mode=0o755, parents=True, exist_ok=True)
    st = os.lstat(d)
    if not stat.S_ISDIR(st.st_mode):
        raise OSError(errno.ENOTDIR, "not a directory (a symbolic link?)")
    if st.st_uid != os.geteuid():
        raise OSError(errno.EPERM, f"the directory belongs to uid {st.st_uid}, not to us")
    if st.st_mode & 0o022:
        raise OSError(errno.EPERM, f"the directory is writable by others "
                                   f"(mode {stat.S_IMODE(st.st_mode):03o})")


def write(path: Path, status: ServiceStatus) -> None:
    """Atomically replace `path` with `status` (mode 0644, whatever the umask)."""
    _own_directory(path.parent)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".status-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            os.fchmod(f.fileno(), 0o644)
            json.dump(status, f, separators=(",", ":"))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def remove(path: Path, pid: int | None = None) -> None:
    """On a clean exit: no file means "not running" at once, not after it goes stale.

    With `pid`, only a file that process wrote: another instance sharing the
    directory keeps its own."""
    if pid is not None:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        if not isinstance(data, dict) or data.get("pid") != pid:
            return
    path.unlink(missing_ok=True)


@dataclass(frozen=True)
class Essentials:
    """What every status file says (the Writer adds the schema, pid and times)."""

    account: str
    url: str
    state: str                    # "connecting", "accepting", "draining"
    concurrency: int
    free_slots: int
    games: list[GameStatus]
    engine: EngineStatus
    heat: HeatStatus
    today: TodayStatus


@dataclass(frozen=True)
class Extras:
    """The keys added later (ServiceStatus's optional ones): older files lack them."""

    unsaved_pgns: int = 0
    pgn_problem: str | None = None
    queue: list[QueuedStatus] = field(default_factory=list)
    records: RecordsStatus | None = None
    arenas: list[ArenaRow] = field(default_factory=list)


class Writer:
    """The service's side: publish the state each watchdog tick, remove it on exit.

    A failed write (read-only or full file system) is logged once and
    otherwise ignored: the status file must never cost a game.
    """

    def __init__(self, period_s: float, path: Path | None = None) -> None:
        self.path = path if path is not None else write_dir() / FILENAME
        self.period_s = period_s
        self.started_at = time.time()
        self._failed = False
        self.last: ServiceStatus | None = None  # what was last published (the status page)
        self._closed = False  # after close(), a late tick (from a worker thread) writes nothing
        # A tick runs in a worker thread: without the lock it could check _closed,
        # then write after close() removed the file (a failed start left one behind).
        self._lock = threading.Lock()

    def publish(self, core: Essentials, extras: Extras | None = None) -> str:
        """Write the file; returns the one-line summary (for sdnotify.status)."""
        more = extras if extras is not None else Extras()
        status = ServiceStatus(
            schema=SCHEMA, pid=os.getpid(), account=core.account, url=core.url,
            state=core.state, started_at=self.started_at, updated_at=time.time(),
            period_s=self.period_s, concurrency=core.concurrency, free_slots=core.free_slots,
            games=core.games, engine=core.engine, heat=core.heat, today=core.today,
            unsaved_pgns=more.unsaved_pgns, pgn_problem=more.pgn_problem, queue=more.queue,
            records=more.records, arenas=more.arenas)
        self.last = status
        with self._lock:
            if self._closed:
                return summary(status)
            try:
                write(self.path, status)
                if self._failed:
                    log.info("status file %s written again", self.path)
                self._failed = False
            except OSError as exc:
                if not self._failed:
                    log.warning("cannot write the status file %s (%s); `pibot status` will "
                                "say the bot is not running", self.path, exc.strerror or exc)
                self._failed = True
        return summary(status)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            try:
                remove(self.path, os.getpid())
            except OSError:
                pass


@dataclass
class DailyTally:
    """Today's results (UTC day), for the status file; rolls over at midnight UTC."""

    date: str = ""
    wins: int = 0
    draws: int = 0
    losses: int = 0
    bot_games: int = 0
    bot_limit: int | None = None
    _now: Any = field(default=None, repr=False)  # tests inject a clock

    def _roll(self) -> None:
        now = self._now() if self._now else dt.datetime.now(dt.UTC)
        today = now.strftime("%Y-%m-%d")
        if today != self.date:
            self.date, self.wins, self.draws, self.losses, self.bot_games = today, 0, 0, 0, 0

    def game_over(self, winner: str | None, my_color: str, opponent_is_bot: bool) -> None:
        self._roll()
        if winner is None:
            self.draws += 1
        elif winner == my_color:
            self.wins += 1
        else:
            self.losses += 1
        if opponent_is_bot:
            self.bot_games += 1

    def snapshot(self) -> TodayStatus:
        self._roll()
        return TodayStatus(date=self.date, wins=self.wins, draws=self.draws,
                           losses=self.losses, bot_games=self.bot_games,
                           bot_limit=self.bot_limit)


# -- reading ------------------------------------------------------------------------

@dataclass(frozen=True)
class Reading:
    """What `pibot status` found: a live status, or why there is none."""

    status: ServiceStatus | None
    problem: str | None           # None when the service is running
    path: Path | None


# A status file is a few KiB (64 games at most).
MAX_BYTES = 1 << 20
_MAX_PID = 1 << 22  # Linux's pid_max limit: a larger "pid" is not one


def _conforms(value: Any, tp: Any) -> bool:
    """`value` (parsed JSON) has the shape of `tp` (a TypedDict, list, union or scalar):
    rendering a file that passed can't fail."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        return any(_conforms(value, a) for a in typing.get_args(tp))
    if origin is list:
        (item,) = typing.get_args(tp)
        return isinstance(value, list) and all(_conforms(v, item) for v in value)
    if typing.is_typeddict(tp):
        if not isinstance(value, dict):
            return False
        hints = typing.get_type_hints(tp)
        return all(k in value for k in tp.__required_keys__) and \
            all(_conforms(value[k], hints[k]) for k in hints if k in value)
    if tp is type(None):
        return value is None
    if tp is bool:
        return isinstance(value, bool)
    if tp is int:
        return isinstance(value, int) and not isinstance(value, bool) and abs(value) < 1 << 53
    if tp is float:
        return isinstance(value, int | float) and not isinstance(value, bool) \
            and math.isfinite(value) and abs(value) < 1e15
    return isinstance(value, tp)


def _pid_alive(pid: int) -> bool:
    if not 0 < pid < _MAX_PID:  # 0 and negatives would name process groups
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, run by another user (pibot)
        return True
    except OSError:
        return False
    return True


def read(paths: list[Path], now: float | None = None) -> Reading:
    """The newest status among `paths`, checked for liveness."""
    found: list[tuple[float, Path, Any]] = []
    problems: list[str] = []
    for p in paths:
        try:
            if not stat.S_ISREG(p.stat().st_mode):
                problems.append(f"{p} is not a pibot status file (not a regular file)")
                continue
            with p.open("rb") as f:
                raw = f.read(MAX_BYTES + 1)
        except FileNotFoundError:
            continue
        except OSError as exc:
            problems.append(f"cannot read {p}: {exc.strerror or exc}")
            continue
        try:
            data = json.loads(raw.decode("utf-8"))
        except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
            data = None
        if len(raw) > MAX_BYTES or not _conforms(data, ServiceStatus) \
                or data.get("schema") != SCHEMA or not 0 < data["pid"] < _MAX_PID:
            problems.append(f"{p} is not a pibot status file (or one of another version)")
            continue
        found.append((float(data["updated_at"]), p, data))
    if not found:
        where = ", ".join(str(p) for p in paths)
        detail = "; ".join(problems) if problems else f"no status file ({where})"
        return Reading(None, f"pibot is not running: {detail}", None)
    updated, path, data = max(found, key=lambda t: t[0])
    now = time.time() if now is None else now
    age = now - updated
    limit = STALE_PERIODS * float(data["period_s"]) + STALE_SLACK_S
    if not _pid_alive(int(data["pid"])):
        return Reading(data, f"pibot is not running: process {data['pid']} recorded in {path} "
                             f"is gone (last update {ago(age)} ago)", path)
    if age > limit:
        return Reading(data, f"pibot is not responding: {path} was last updated {ago(age)} ago "
                             f"(expected every {float(data['period_s']):g} s)", path)
    return Reading(data, None, path)


def ago(seconds: float) -> str:
    s = int(max(0.0, seconds))
    if s < 120:
        return f"{s} s"
    if s < 7200:
        return f"{s // 60} min"
    return f"{s // 3600} h {s % 3600 // 60} min"


# -- formatting ---------------------------------------------------------------------

def _clock(ms: int | None) -> str:
    if ms is None:
        return "-"
    s = max(0, ms) // 1000
    if s < 3600:
        return f"{s // 60}:{s % 60:02d}"
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


def _eval(g: GameStatus) -> str:
    if g["mate"] is not None:
        return f"#{g['mate']}"
    if g["eval_cp"] is not None:
        return f"{g['eval_cp'] / 100:+.2f}"
    return "-"


def _heat(h: HeatStatus) -> str:
    if h["temp_c"] is None and h["throttled"] is None:
        return "temperature unknown"
    temp = f"{h['temp_c']:.1f} C" if h["temp_c"] is not None else "temperature unknown"
    if h["throttled"] is None:
        return temp
    return f"{temp}, {', '.join(h['flags']) if h['flags'] else 'not throttled'}"


def _tables(e: EngineStatus) -> str:
    fills = [s["hashfull"] for s in e["slots"] if s["hashfull"] is not None]
    fill = f", {max(fills) / 10:.0f}% full" if fills else ""
    return f"{e['hash_mb']} MiB{fill}"


def summary(s: ServiceStatus) -> str:
    """One line: `systemctl status` (STATUS=) and the top of `pibot status`."""
    games = s["games"]
    playing = ", ".join(f"vs {g['opponent']}" for g in games[:3])
    if len(games) > 3:
        playing += f" +{len(games) - 3}"
    t = s["today"]
    threads = f"{s['engine']['threads_now']}/{s['engine']['threads']}" \
        if s["engine"]["threads_now"] != s["engine"]["threads"] else str(s["engine"]["threads"])
    parts = [f"{s['state']}, {len(games)} game(s)" + (f" ({playing})" if playing else ""),
             f"{s['free_slots']} free slot(s)",
             f"{threads} thread(s), {_tables(s['engine'])}",
             _heat(s["heat"]),
             f"today +{t['wins']} ={t['draws']} -{t['losses']}"]
    if s.get("unsaved_pgns"):
        parts.append(f"{s['unsaved_pgns']} PGN(s) not saved")
    if s.get("queue"):
        parts.insert(2, f"{len(s.get('queue', []))} challenge(s) waiting")
    joined = sum(1 for a in s.get("arenas", []) if a["state"] == "joined")
    if joined:
        parts.insert(2, f"in {joined} arena(s)")
    rec = s.get("records")
    if rec is not None and rec["problem"]:
        parts.append("records database in trouble")
    return "; ".join(parts)


def render(s: ServiceStatus, now: float | None = None) -> list[str]:
    """The multi-line `pibot status` report."""
    now = time.time() if now is None else now
    e, t = s["engine"], s["today"]
    lines = [
        f"pibot {s['state']} as {s['account'] or '?'} on {s['url']} "
        f"(pid {s['pid']}, up {ago(now - s['started_at'])})",
        f"games: {len(s['games'])} of {s['concurrency']}, {s['free_slots']} slot(s) free",
    ]
    for g in s["games"]:
        latency = f"{g['latency_ms']:.0f} ms" if g["latency_ms"] is not None else "-"
        depth = f"depth {g['depth']}" if g["depth"] is not None else "depth -"
        level = f", level {g['strength']}" if "strength" in g else ""
        lines.append(
            f"  {g['id']}  vs {g['opponent']} ({g['color']}, {g['time_control']}, "
            f"ply {g['plies']}{level})  clocks {_clock(g['my_clock_ms'])} / "
            f"{_clock(g['opponent_clock_ms'])}  eval {_eval(g)} {depth}  latency {latency}")
    queue = s.get("queue", [])
    if queue:
        lines.append(f"queue: {len(queue)} challenge(s) waiting for a free slot")
    for q in queue:
        rating = q["rating"] if q["rating"] is not None else "?"
        lines.append(f"  {q['id']}  {q['challenger']}{' (BOT)' if q['bot'] else ''} "
                     f"{rating}, {q['speed']}, waiting {ago(now - q['waiting_since'])}")
    arenas = s.get("arenas", [])
    if arenas:
        joined = sum(1 for a in arenas if a["state"] == "joined")
        lines.append(f"arenas: in {joined} of {len(arenas)} (each one joined holds a slot)")
    for a in arenas:
        name = f" {a['name']}" if a["name"] else ""
        lines.append(f"  {a['id']}{name}: {a['state']} (from the {a['source']})")
    threads = f"{e['threads_now']} of {e['threads']}" if e["threads_now"] != e["threads"] \
        else f"{e['threads']}"
    lines.append(f"engine: {threads} thread(s) per game, table {e['hash_mb']} MiB per slot")
    for sl in e["slots"]:
        state = "in a game" if sl["busy"] else ("clearing" if sl["clearing"] else "ready")
        fill = f", {sl['hashfull'] / 10:.1f}% full" if sl["hashfull"] is not None else ""
        size = f"{sl['hash_mb']} MiB" if sl["hash_mb"] is not None else "not created"
        lines.append(f"  slot {sl['slot']}: {state}, {size}{fill}")
    lines.append(f"cpu: {_heat(s['heat'])}")
    limit = f" of {t['bot_limit']}" if t["bot_limit"] is not None else ""
    lines.append(f"today ({t['date']} UTC): {t['wins']} won, {t['draws']} drawn, "
                 f"{t['losses']} lost; {t['bot_games']}{limit} game(s) against bots")
    if s.get("unsaved_pgns"):
        lines.append(f"PGN: {s['unsaved_pgns']} finished game(s) not saved yet "
                     f"({s.get('pgn_problem') or 'unknown reason'}); kept in memory and "
                     f"retried (logged in full if pibot stops first)")
    rec = s.get("records")
    if rec:
        if rec["problem"]:
            lines.append(f"records: {rec['path']}: {rec['problem']}; {rec['dropped']} "
                         f"record(s) dropped, games go on (see `pibot check`)")
        else:
            lines.append(f"records: {rec['path']}, {rec['written']} written this run"
                         + (f", {rec['dropped']} dropped" if rec["dropped"] else ""))
    lines.append(f"updated {ago(now - s['updated_at'])} ago")
    return lines
