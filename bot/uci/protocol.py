"""The protocol's plumbing, shared by every command: the output line and the
reading of a command's arguments.

Output goes through one lock (the search worker prints `info` lines while the
command loop answers `isready`), and survives a GUI that went away.  A bad
argument raises UciError, which the loop reports on an `info string` line and
otherwise ignores; user input is echoed only short and escaped (`quote`).
"""

from __future__ import annotations

import logging
import threading
from typing import TextIO

log = logging.getLogger(__name__)

_ECHO_CHARS = 40  # of a bad line: enough to recognise it, not a log flood


class UciError(ValueError):
    """A malformed command; reported as `info string` and ignored."""


class UciOutput:
    """stdout of a UCI session: one line at a time, from any thread."""

    def __init__(self, out: TextIO) -> None:
        self._out = out
        self._lock = threading.Lock()

    def send(self, line: str) -> None:
        with self._lock:
            try:
                self._out.write(line + "\n")
                self._out.flush()
            except (BrokenPipeError, ValueError):
                # The GUI went away (or closed our stdout): nothing to tell it;
                # the read loop ends at EOF and we exit cleanly.
                log.debug("stdout closed; dropped %r", line)

    def info_string(self, text: str) -> None:
        self.send(f"info string {text}")


def quote(text: str) -> str:
    """A short, escaped prefix of user input (no control characters reach the GUI)."""
    short = text[:_ECHO_CHARS]
    shown = short.encode("unicode_escape").decode("ascii")
    return f"'{shown}'" + ("..." if len(text) > _ECHO_CHARS else "")


def int_arg(name: str, text: str | None, lo: int, hi: int) -> int:
    """Parse an integer and clamp it into lo..hi (GUIs send odd clocks)."""
    if text is None:
        raise UciError(f"{name} needs a value")
    try:
        value = int(text)
    except ValueError:
        raise UciError(f"{name} value {quote(text)} is not an integer") from None
    return max(lo, min(hi, value))


def spin_arg(name: str, text: str, lo: int, hi: int, keeping: int) -> int:
    """A spin option's value, which must lie in lo..hi: a GUI that sends more
    is told the range in one line and the value in force (`keeping`) stays."""
    value = int_arg(name, text or None, -(1 << 62), 1 << 62)
    if not lo <= value <= hi:
        raise UciError(f"{name} {value} is out of range {lo}..{hi}; keeping {keeping}")
    return value


def bool_arg(name: str, value: str) -> bool:
    v = value.lower()
    if v in ("true", "1", "on", "yes"):
        return True
    if v in ("false", "0", "off", "no"):
        return False
    raise UciError(f"{name} must be true or false, got {quote(value)}")
