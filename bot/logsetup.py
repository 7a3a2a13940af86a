"""Logging setup: one line per event, journald-friendly.

Under systemd ($JOURNAL_STREAM set) journald adds its own timestamps, so ours
are dropped; the level is still printed so `journalctl -p` filtering works via
the `<N>` syslog prefix journald understands.
"""

from __future__ import annotations

import logging
import os
import sys

_SYSLOG_PRIO = {logging.DEBUG: 7, logging.INFO: 6, logging.WARNING: 4, logging.ERROR: 3,
                logging.CRITICAL: 2}


class _JournalFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        prio = _SYSLOG_PRIO.get(record.levelno, 6)
        return f"<{prio}>" + super().format(record).replace("\n", "\n  ")


class _OneLineFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return super().format(record).replace("\n", "\n  ")


def setup_logging(level: str = "info", stream: object = None) -> None:
    """Configure the root logger once (idempotent; later calls only change level)."""
    root = logging.getLogger()
    root.setLevel(getattr(logging, level.upper(), logging.INFO))
    if getattr(root, "_pibot_configured", False):
        return
    handler = logging.StreamHandler(stream or sys.stderr)  # type: ignore[arg-type]
    if os.environ.get("JOURNAL_STREAM"):
        handler.setFormatter(_JournalFormatter("%(levelname)s %(name)s: %(message)s"))
    else:
        handler.setFormatter(_OneLineFormatter(
            "%(asctime)s %(levelname)-7s %(name)s: %(message)s", "%Y-%m-%d %H:%M:%S"))
    root.handlers[:] = [handler]
    root._pibot_configured = True  # type: ignore[attr-defined]
    # urllib3 logs every retry/connection at debug with URLs; keep it quiet.
    logging.getLogger("urllib3").setLevel(logging.WARNING)
    logging.getLogger("berserk").setLevel(logging.WARNING)


def set_level(level: str) -> None:
    logging.getLogger().setLevel(getattr(logging, level.upper(), logging.INFO))
