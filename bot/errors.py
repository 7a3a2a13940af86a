"""Exception roots shared by every layer of pibot.

PibotError messages are written for the user: they name the problem and the
fix, so the CLI prints them as one line instead of a traceback.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class PibotError(Exception):
    """Base of every error pibot raises on purpose."""


# Exit statuses of `pibot` (docs/bot.md, "Exit status").  2 and 6 are the LSB codes
# systemd.exec(5) lists (EXIT_INVALIDARGUMENT, EXIT_NOTCONFIGURED): the units carry
# RestartPreventExitStatus=6, so a config that can never load is not restarted.
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_CONFIG = 6


class UserError(PibotError):
    """Bad input the user can fix (config, arguments, token, FEN...)."""


class ConfigError(UserError):
    """The installation's configuration is wrong (config file, token, account, files
    the config names): running again cannot help until the owner fixes it."""


@contextmanager
def config_errors() -> Iterator[None]:
    """Within this block a UserError is the configuration's fault: a ConfigError."""
    try:
        yield
    except ConfigError:
        raise
    except UserError as exc:
        raise ConfigError(str(exc)) from None


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
