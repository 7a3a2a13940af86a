"""Exception roots shared by every layer of pibot.

PibotError messages are written for the user: they name the problem and the
fix, so the CLI prints them as one line instead of a traceback.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

# A config or token file is a few KiB; reading more is a mistake (a log, a device).
MAX_TEXT_FILE_BYTES = 1 << 20


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


def read_regular_file(path: Path, what: str, missing_fix: str, unreadable_fix: str,
                      max_bytes: int) -> bytes:
    """Read a regular file of at most `max_bytes`; anything else is one UserError.

    Opened non-blocking and checked with fstat before reading: a FIFO would
    block forever and /dev/zero never ends."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise UserError(f"{what} {path} does not exist; {missing_fix}") from None
    except OSError as exc:
        raise UserError(f"cannot read {what} {path}: {exc.strerror}; {unreadable_fix}") from None
    # Checked on the bare descriptor: os.fdopen itself refuses a directory
    # (IsADirectoryError) on some Pythons, e.g. 3.11.7.
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise UserError(f"{what} {path} is a directory, not a file; {missing_fix}")
        if not stat.S_ISREG(st.st_mode):
            raise UserError(f"{what} {path} is not a regular file (a device, FIFO or "
                            f"socket); {missing_fix}")
        if st.st_size > max_bytes:
            raise UserError(f"{what} {path} is {st.st_size} bytes, more than the "
                            f"{max_bytes} a {what} can be; check the path")
        with os.fdopen(fd, "rb", closefd=False) as f:
            return f.read(max_bytes + 1)
    except OSError as exc:
        raise UserError(f"cannot read {what} {path}: {exc.strerror}; "
                        f"{unreadable_fix}") from None
    finally:
        os.close(fd)


def read_user_file(path: Path, what: str, missing_fix: str, unreadable_fix: str,
                   encoding: str = "utf-8") -> str:
    """Read a small text file the user named; any problem with it is a UserError."""
    data = read_regular_file(path, what, missing_fix, unreadable_fix, MAX_TEXT_FILE_BYTES)
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        # Name the place, never the bytes: the file may hold a secret.
        raise UserError(f"{what} {path} is not UTF-8 text (undecodable byte at offset "
                        f"{exc.start}); save it as UTF-8") from None
