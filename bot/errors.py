"""Exception roots shared by every layer of pibot.

PibotError messages are written for the user: they name the problem and the
fix, so the CLI prints them as one line instead of a traceback.
"""

from __future__ import annotations

from pathlib import Path


class PibotError(Exception):
    """Base of every error pibot raises on purpose."""


class UserError(PibotError):
    """Bad input the user can fix (config, arguments, token, FEN...)."""


def read_user_file(path: Path, what: str, missing_fix: str, unreadable_fix: str) -> str:
    """Read a file the user named; a missing or unreadable file is a UserError."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(f"{what} {path} does not exist; {missing_fix}") from None
    except OSError as exc:
        raise UserError(f"cannot read {what} {path}: {exc.strerror}; {unreadable_fix}") from None
    except UnicodeDecodeError as exc:
        # Name the place, never the bytes: the file may hold a secret.
        raise UserError(f"{what} {path} is not UTF-8 text (undecodable byte at offset "
                        f"{exc.start}); save it as UTF-8") from None
