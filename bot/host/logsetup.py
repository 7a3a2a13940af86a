"""Logging setup: one line per event, journald-friendly.

When stderr is the journal's stream (systemd.exec(5): $JOURNAL_STREAM holds the
device:inode of that stream), journald adds its own timestamps, so ours are
dropped, and every line starts with the `<N>` syslog priority journald takes the
entry's level from (`journalctl -p warning` works).
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Mapping
from typing import TextIO

_SYSLOG_PRIO = {logging.DEBUG: 7, logging.INFO: 6, logging.WARNING: 4, logging.ERROR: 3,
                logging.CRITICAL: 2}


class _JournalFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        # journald makes each line an entry of its own, levelled by its own prefix:
        # a traceback's lines must carry the record's priority too.
        prefix = f"<{_SYSLOG_PRIO.get(record.levelno, 6)}>"
        first, *rest = super().format(record).split("\n")
        return "\n".join([prefix + first, *(f"{prefix}  {line}" for line in rest)])


class _OneLineFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return super().format(record).replace("\n", "\n  ")


def is_journal_stream(stream: TextIO, env: Mapping[str, str]) -> bool:
    """True when `stream` is the socket journald reads.  The variable alone says
    nothing: a child whose stderr goes to a file or a pipe inherits it too."""
    dev, sep, ino = env.get("JOURNAL_STREAM", "").partition(":")
    if not sep:
        return False
    try:
        st = os.fstat(stream.fileno())
        return (st.st_dev, st.st_ino) == (int(dev), int(ino))
    except (AttributeError, OSError, ValueError):  # no file behind it, or a bad value
        return False


def make_handler(stream: TextIO, env: Mapping[str, str]) -> logging.Handler:
    handler = logging.StreamHandler(stream)
    if is_journal_stream(stream, env):
        handler.setFormatter(_JournalFormatter("%(levelname)s %(name)s: %(message)s"))
    else:
        handler.setFormatter(_OneLineFormatter(
            "%(asctime)s %(levelname)-7s %(name)s: %(message)s", "%Y-%m-%d %H:%M:%S"))
    return handler


def setup_logging(level: str = "info", stream: TextIO | None = None) -> None:
    """Configure the root logger once (idempotent; later calls only change level)."""
    root = logging.getLogger()
    root.setLevel(getattr(logging, level.upper(), logging.INFO))
    if getattr(root, "_pibot_configured", False):
        return
    root.handlers[:] = [make_handler(stream or sys.stderr, os.environ)]
    root._pibot_configured = True  # type: ignore[attr-defined]
    # urllib3 logs every retry/connection at debug with URLs; keep it quiet.
    logging.getLogger("urllib3").setLevel(logging.WARNING)


def set_level(level: str) -> None:
    logging.getLogger().setLevel(getattr(logging, level.upper(), logging.INFO))
