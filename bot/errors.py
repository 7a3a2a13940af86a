"""Exception roots shared by every layer of pibot.

PibotError messages are written for the user: they name the problem and the
fix, so the CLI prints them as one line instead of a traceback.
"""

from __future__ import annotations


class PibotError(Exception):
    """Base of every error pibot raises on purpose."""


class UserError(PibotError):
    """Bad input the user can fix (config, arguments, token, FEN...)."""
