"""Shared harness for the service tests: a real emulator on loopback and the
real Service in a background event-loop thread (no mocks).  Timeouts and
keep-alives are shortened so the whole suite stays fast on 2 cores."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.config import Config, parse_config
from bot.emulator import Emulator, EmulatorConfig
from bot.lichess.token import Token
from bot.play.game import GameHooks
from bot.service import Service


def engine_ready() -> bool:
    try:
        from bot.engine import Engine, SearchLimits  # noqa: F401
    except ImportError:
        return False
    return True


needs_engine = pytest.mark.skipif(not engine_ready(), reason="engine search not built yet")

FAST_NETWORK = {"connect_timeout_s": 2, "request_timeout_s": 4, "stream_read_timeout_s": 1.5,
                "backoff_base_s": 0.05, "backoff_max_s": 0.5, "rate_limit_pause_s": 1.0,
                "watchdog_s": 0.5}


def fast_emulator_config(**kw: Any) -> EmulatorConfig:
    base: dict[str, Any] = {"event_keepalive_s": 0.5, "game_keepalive_s": 0.5,
                            "opponent_gone_claim_s": 1, "seed": 1}
    base.update(kw)
    return EmulatorConfig(**base)


def bot_config(url: str, tmp: Path | None = None, **sections: Any) -> Config:
    data: dict[str, Any] = {"url": url, "pgn_directory": str(tmp / "games") if tmp else None,
                            # Never the default ./pibot.db: the tests' cwd is the checkout.
                            "records": {"db": str(tmp / "pibot.db") if tmp else None},
                            "shutdown_grace_s": 30, "log_level": "debug",
                            "network": dict(FAST_NETWORK),
                            "engine": {"hash_mb": 8, "threads": 1, "move_overhead_ms": 50},
                            "challenge": {"time_controls": ["bullet", "blitz",
                                                            "rapid"]}}
    for key, value in sections.items():
        if isinstance(value, dict) and isinstance(data.get(key), dict):
            data[key] = {**data[key], **value}
        else:
            data[key] = value
    return parse_config(data)


class RunningBot:
    """Service.run() on its own loop in a thread, controllable from the test."""

    def __init__(self, cfg: Config, token: str, hooks: GameHooks | None = None) -> None:
        self.cfg = cfg
        self.loop = asyncio.new_event_loop()
        self.service: Service | None = None
        self._token = token
        self._hooks = hooks
        self.result: int | None = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._main, daemon=True, name="bot-under-test")

    def _main(self) -> None:
        asyncio.set_event_loop(self.loop)

        async def go() -> int:
            self.service = Service(self.cfg, Token(self._token, "test"), hooks=self._hooks,
                                   handle_signals=False)
            return await self.service.run()

        try:
            self.result = self.loop.run_until_complete(go())
        except BaseException as exc:  # surfaced by stop()
            self.error = exc
        finally:
            # What asyncio.run() does for `pibot run`: tasks still pending get their
            # cancellation and run to take it (else they are destroyed mid-cancel).
            left = asyncio.all_tasks(self.loop)
            for t in left:
                t.cancel()
            if left:
                self.loop.run_until_complete(asyncio.wait(left, timeout=5.0))

    def start(self, timeout: float = 10.0) -> RunningBot:
        self.thread.start()
        assert wait_until(lambda: self.service is not None and self.service.ready.is_set(),
                          timeout), f"bot not ready (error: {self.error!r})"
        return self

    def call(self, fn: Callable[[], Any]) -> None:
        self.loop.call_soon_threadsafe(fn)

    def stop(self, timeout: float = 15.0) -> None:
        if self.service is not None and self.thread.is_alive():
            self.call(self.service.request_stop)
            self.call(self.service.request_stop)
        self.thread.join(timeout)
        assert not self.thread.is_alive(), "bot did not stop"
        if self.error is not None:
            raise self.error


def wait_until(pred: Callable[[], bool], timeout: float, step: float = 0.05) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(step)
    return pred()


@contextlib.contextmanager
def bot_and_emulator(tmp: Path | None = None, emu_cfg: EmulatorConfig | None = None,
                     hooks: GameHooks | None = None, **sections: Any
                     ) -> Iterator[tuple[Emulator, RunningBot]]:
    emu = Emulator(emu_cfg or fast_emulator_config()).start()
    bot = RunningBot(bot_config(emu.url, tmp, **sections), emu.token, hooks)
    try:
        bot.start()
        yield emu, bot
    finally:
        try:
            bot.stop()
        finally:
            emu.stop()
