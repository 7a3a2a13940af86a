"""`pibot check`: is this installation ready to play?  One line per finding
(`--json`: one JSON document, as `pibot status --json`); exit status 1 when
anything needs fixing."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import time

from bot.commands.run import resolve_config_path
from bot.config import Config, advice, load_config
from bot.errors import PibotError
from bot.lichess.client import Lichess, LichessError
from bot.lichess.token import Token, add_token_file_argument, command_token, scope_problem
from bot.play.records import directory_problem

LATENCY_SAMPLES = 5
SLOW_ROUND_TRIP_MS = 300  # bullet games start to feel it


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="PATH", default=None, help="config file")
    add_token_file_argument(parser)
    parser.add_argument("--json", action="store_true",
                        help="print the findings as one JSON document (for scripts)")


class Report:
    """Findings as lines while checking, or (as_json) one document at the end:
    {"ok": bool, "problems": int, "findings": [{"level": "ok"|"warning"|"problem",
    "text": str}]}."""

    def __init__(self, as_json: bool = False) -> None:
        self.problems = 0
        self.as_json = as_json
        self.findings: list[dict[str, str]] = []

    def _add(self, level: str, label: str, text: str) -> None:
        self.findings.append({"level": level, "text": text})
        if not self.as_json:
            print(f"{label} {text}")

    def ok(self, text: str) -> None:
        self._add("ok", "ok     ", text)

    def warn(self, text: str) -> None:
        self._add("warning", "warning", text)

    def bad(self, text: str) -> None:
        self.problems += 1
        self._add("problem", "PROBLEM", text)

    def summary(self) -> int:
        if self.as_json:
            print(json.dumps({"ok": not self.problems, "problems": self.problems,
                              "findings": self.findings}, indent=2))
        else:
            print(f"{self.problems} problem(s) found" if self.problems else "all checks passed")
        return 1 if self.problems else 0


async def _check_account(cfg: Config, token: Token, rep: Report) -> None:
    api = Lichess(cfg.url, token, cfg.network)
    try:
        info = await api.account.token_test(token)
    except LichessError as exc:
        rep.bad(f"cannot reach {cfg.url} to test the token: {exc}")
        return
    problem = scope_problem(info, api.url)
    if info is None:
        rep.bad(str(problem))
        return
    if problem:
        rep.bad(problem)
    else:
        rep.ok(f"token valid for {info.get('userId')} with bot:play")
    try:
        account = await api.account.profile()
    except LichessError as exc:
        rep.bad(f"cannot read the account: {exc}")
        return
    if account.is_bot:
        rep.ok(f"account {account.username} is a BOT account")
    else:
        rep.bad(f"account {account.username} is not a BOT account: run `pibot upgrade`")
    await _check_latency(api, cfg, rep)


async def _check_latency(api: Lichess, cfg: Config, rep: Report) -> None:
    """Time a few cheap requests (the connection is warm by now): every move
    the bot plays costs about one such round trip of its clock."""
    samples: list[float] = []
    try:
        for _ in range(LATENCY_SAMPLES):
            start = time.perf_counter()
            await api.account.profile()
            samples.append((time.perf_counter() - start) * 1000.0)
    except LichessError as exc:
        rep.warn(f"round trip to {cfg.url} not measured: {exc}")
        return
    median, worst = statistics.median(samples), max(samples)
    overhead = cfg.engine.move_overhead_ms
    line = (f"round trip to {cfg.url}: median {median:.0f} ms, max {worst:.0f} ms over "
            f"{len(samples)} requests; each move costs about one round trip of the clock "
            f"(Lichess gives bots no lag compensation): engine.move_overhead_ms ({overhead} ms) "
            f"is kept back per move, and games raise it to the latency they measure")
    if median > SLOW_ROUND_TRIP_MS:
        rep.warn(line + "; this link is slow for bullet: prefer blitz and slower "
                 "(challenge.time_controls)")
    else:
        rep.ok(line)


def _engine_backend() -> str | None:
    try:
        from bot.engine import backend
    except ImportError:  # engine not built (e.g. a docs-only checkout)
        return None
    return backend()


def _check_engine(cfg: Config, rep: Report) -> None:
    try:
        from bot.engine import backend
    except ImportError as exc:
        rep.bad(f"engine extension not importable ({exc}): reinstall with pip install -e .")
        return
    rep.ok(f"engine build: {backend()} move generation")
    if cfg.sizing is not None:  # what engine.threads / engine.hash_mb (auto or set) came to
        rep.ok(f"engine sizing: {cfg.sizing.describe()}")
        if cfg.sizing.hash_at_floor:
            rep.warn("memory is tight: engine.hash_mb auto fell to its floor; free memory "
                     "or lower challenge.concurrency")
    cores = os.cpu_count() or 1
    total = cfg.sized.threads * cfg.challenge.concurrency
    line = f"engine.threads={cfg.engine.threads} x concurrency={cfg.challenge.concurrency} " \
           f"= {total} search thread(s) on {cores} core(s)"
    (rep.warn if total > cores else rep.ok)(line + (" (oversubscribed)" if total > cores else ""))
    try:
        from bot.host import platform_info
    except ImportError as exc:
        rep.warn(f"platform report unavailable ({exc})")
        return
    # The same test `pibot run` refuses to start on: one table per game.
    problem = platform_info.check_hash_fits(cfg.sized.hash_mb, cfg.challenge.concurrency)
    what = f"hash {cfg.engine.hash_mb} MiB x {cfg.challenge.concurrency} game(s)"
    if problem:
        rep.bad(f"{what}: {problem}")
    else:
        rep.ok(f"{what} fits in memory")
    for key, value in platform_info.report(_engine_backend()).items():
        rep.ok(f"platform {key}: {value}")


def _check_move_sources(cfg: Config, rep: Report) -> None:
    from bot.sources.chain import check_lines

    for ok, line in check_lines(cfg):
        (rep.ok if ok else rep.bad)(line)


def _check_records(cfg: Config, rep: Report) -> None:
    if not cfg.pgn_directory:
        rep.ok("pgn_directory is null: finished games are not saved")
        return
    problem = directory_problem(cfg.pgn_directory, create=False)
    if problem:
        rep.bad(f"{problem}; fix the permissions or the path, or set pgn_directory: null")
    else:
        rep.ok(f"pgn_directory {cfg.pgn_directory} is writable")


def _check_running_records(rep: Report) -> None:
    """What the running service says of its records database (its status file)."""
    from bot.host import status_file

    running = status_file.read(status_file.candidate_paths()).status
    rec = running.get("records") if running is not None else None
    if rec is not None and rec["problem"]:
        rep.bad(f"the running service cannot write its records database {rec['path']}: "
                f"{rec['problem']} ({rec['dropped']} record(s) dropped; games go on)")


def _check_memory_and_alerts(cfg: Config, rep: Report) -> None:
    """The records database (issue 35) and where alerts go."""
    from bot.alerts.scrub import public_url
    from bot.store import db, paths

    if cfg.records.db is None:
        rep.ok("records.db is null: no history is kept (pibot history has nothing to show)")
    else:
        found = paths.find(cfg.records.db)
        if found is None:
            rep.ok(f"records.db {cfg.records.db}: no database yet; the service makes it in "
                   f"its working directory at the first start")
        else:
            problem = db.problem(found)
            if problem:
                rep.bad(problem)
            else:
                rep.ok(f"records database {found} is readable and writable")
    _check_running_records(rep)
    if cfg.alerts.url:
        rep.ok(f"alerts go to {public_url(cfg.alerts.url)}")
    else:
        rep.ok("alerts are off (alerts.url is null)")


def run(args: argparse.Namespace) -> int:
    rep = Report(as_json=args.json)
    path = resolve_config_path(args.config)
    try:
        cfg = load_config(path)
    except PibotError as exc:
        # Stop here: checking the rest against defaults would test the wrong
        # server (and send the token to lichess.org when `url` was the typo).
        rep.bad(str(exc))
        return rep.summary()
    rep.ok(f"config {path or '<built-in defaults>'} is valid")
    for line in advice(cfg):
        rep.warn(line)
    try:
        token = command_token(args.token_file, cfg.token_file, warn=rep.warn)
        rep.ok(f"token found ({token.source})")
        asyncio.run(_check_account(cfg, token, rep))
    except PibotError as exc:
        rep.bad(str(exc))
    _check_records(cfg, rep)
    _check_memory_and_alerts(cfg, rep)
    _check_engine(cfg, rep)
    _check_move_sources(cfg, rep)
    return rep.summary()
