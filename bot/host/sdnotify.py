"""systemd service notifications (sd_notify) without libsystemd.

The protocol is one AF_UNIX datagram of newline-separated KEY=VALUE fields to
the socket named by $NOTIFY_SOCKET (a path, or '@name' for the abstract
namespace).  Without $NOTIFY_SOCKET -- a shell, a test, a container -- every
call is a no-op, so the bot calls these unconditionally.

A failed notification is logged and swallowed: a service that plays chess fine
must not crash because the supervisor's socket hiccuped.  (If READY=1 or the
watchdog ping really never arrives, systemd itself restarts us.)
"""

from __future__ import annotations

import logging
import os
import socket
import time

log = logging.getLogger(__name__)


def _address(raw: str) -> str | bytes | None:
    if raw.startswith("@"):
        # Abstract namespace: the name starts with a NUL byte instead of '@'.
        return b"\0" + raw[1:].encode()
    if raw.startswith("/"):
        return raw
    log.warning("ignoring NOTIFY_SOCKET=%r: only absolute paths and @abstract names "
                "are supported", raw)
    return None


def notify(*fields: str) -> bool:
    """Send KEY=VALUE fields in one datagram; True if sent, False if no-op or failed."""
    raw = os.environ.get("NOTIFY_SOCKET")
    if not raw:
        return False
    addr = _address(raw)
    if addr is None:
        return False
    payload = "\n".join(fields).encode("utf-8", "replace")
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            # Never block the event loop: a reader whose queue is full (not reading)
            # loses this datagram instead of stalling every game.
            sock.setblocking(False)
            sock.sendto(payload, addr)
    except OSError as exc:
        log.warning("sd_notify to %s failed: %s", raw, exc)
        return False
    return True


def ready() -> bool:
    """Startup (or a reload) finished: the event stream is up."""
    return notify("READY=1")


def stopping() -> bool:
    """Shutdown began; systemd now waits up to TimeoutStopSec."""
    return notify("STOPPING=1")


def reloading() -> bool:
    """A reload (SIGHUP) began; call ready() when it is done.

    MONOTONIC_USEC is what Type=notify-reload requires; plain Type=notify
    ignores it, so sending it keeps both unit styles working.
    """
    usec = time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000
    return notify("RELOADING=1", f"MONOTONIC_USEC={usec}")


def status(text: str) -> bool:
    """One-line status shown by `systemctl status pibot`."""
    # A newline would start a new KEY=VALUE field and could forge e.g. READY=1.
    one_line = " ".join(text.split())
    return notify(f"STATUS={one_line}")


def watchdog_ping() -> bool:
    """Tell systemd's watchdog (WatchdogSec=) that the event loop is alive."""
    return notify("WATCHDOG=1")


def watchdog_interval_s() -> float | None:
    """The watchdog timeout in seconds, or None if no watchdog is armed for us.

    Ping at least every half of this (sd_watchdog_enabled(3) advice).
    """
    usec = os.environ.get("WATCHDOG_USEC")
    if not usec:
        return None
    pid = os.environ.get("WATCHDOG_PID")
    # A child that inherited the environment must not ping for its parent.
    if pid and pid.strip() != str(os.getpid()):
        return None
    try:
        value = int(usec)
    except ValueError:
        log.warning("ignoring malformed WATCHDOG_USEC=%r", usec)
        return None
    return value / 1_000_000 if value > 0 else None
