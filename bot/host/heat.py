"""Watch the SoC while the bot plays: log throttling, and (optionally, with
`engine.thermal_limit_c`) search with fewer threads while it is too hot.

The service calls `poll()` from its watchdog loop (every few seconds: a Pi's
temperature moves over tens of seconds) and gives each new search
`threads_now` threads.  The decisions themselves are the pure functions in
bot.host.machine (thermal_threads, ThrottleWatch).
"""

from __future__ import annotations

import logging

from bot.host.machine import Heat, Machine, ThrottleWatch, thermal_threads, throttle_flags
from bot.host.status_file import HeatStatus

log = logging.getLogger(__name__)


class HeatMonitor:
    def __init__(self, configured_threads: int, limit_c: float | None = None,
                 machine: Machine | None = None) -> None:
        self.configured = max(1, configured_threads)
        self.limit_c = limit_c
        self.machine = machine or Machine()
        self.threads_now = self.configured
        self.last = Heat(None, None, None)
        self._watch = ThrottleWatch()

    def reconfigure(self, configured_threads: int, limit_c: float | None) -> None:
        """A reloaded config (SIGHUP): new thread count and limit, from the next search."""
        held_back = self.configured - self.threads_now  # threads the heat currently costs
        self.configured = max(1, configured_threads)
        self.limit_c = limit_c
        self.threads_now = self.configured if limit_c is None \
            else max(1, self.configured - held_back)

    def poll(self) -> Heat:
        heat = self.machine.heat()
        self.last = heat
        change = self._watch.update(heat)
        if change is not None:
            (log.warning if heat.throttling else log.info)("%s", change)
        threads = thermal_threads(heat.temp_c, self.limit_c, self.configured, self.threads_now)
        if threads != self.threads_now:
            if threads < self.threads_now:
                log.warning("CPU at %.1f C, at or above engine.thermal_limit_c=%g: searching "
                            "with %d thread(s) instead of %d", heat.temp_c or 0.0,
                            self.limit_c or 0.0, threads, self.configured)
            else:
                log.info("CPU down to %.1f C: searching with %d of %d thread(s)",
                         heat.temp_c or 0.0, threads, self.configured)
            self.threads_now = threads
        return heat

    def status(self) -> HeatStatus:
        h = self.last
        return HeatStatus(temp_c=h.temp_c, throttled=h.throttled,
                          flags=throttle_flags(h.throttled) if h.throttled is not None else [])
