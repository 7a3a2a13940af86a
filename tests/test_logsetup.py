"""bot/host/logsetup.py: the journald format only on the journal's own stream, and a
priority on every line of it (journald levels each line by its own prefix)."""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
from pathlib import Path

from bot.host.logsetup import is_journal_stream, make_handler


def journal_id(path: Path) -> str:
    """$JOURNAL_STREAM as systemd sets it for a stream: device:inode in decimal."""
    st = os.stat(path)
    return f"{st.st_dev}:{st.st_ino}"


def log_through(path: Path, env: dict[str, str]) -> list[str]:
    with path.open("w") as stream:
        log = logging.Logger("bot.test")  # not registered: the root logger stays as it is
        log.addHandler(make_handler(stream, env))
        log.warning("first line\nsecond line")
        try:
            raise ValueError("boom")
        except ValueError:
            log.exception("it failed")
    return path.read_text().splitlines()


def test_journal_stream_is_the_device_and_inode_of_stderr(tmp_path: Path) -> None:
    mine, other = tmp_path / "stderr", tmp_path / "other"
    mine.touch()
    other.touch()
    with mine.open("w") as stream:
        assert is_journal_stream(stream, {"JOURNAL_STREAM": journal_id(mine)})
        # Inherited by a process whose stderr is somewhere else: not the journal.
        assert not is_journal_stream(stream, {"JOURNAL_STREAM": journal_id(other)})
        assert not is_journal_stream(stream, {})
        assert not is_journal_stream(stream, {"JOURNAL_STREAM": "garbage"})


def test_every_journal_line_carries_the_records_priority(tmp_path: Path) -> None:
    out = tmp_path / "stderr"
    out.touch()
    lines = log_through(out, {"JOURNAL_STREAM": journal_id(out)})
    assert lines[:2] == ["<4>WARNING bot.test: first line", "<4>  second line"]
    error = lines[2:]
    assert error[0] == "<3>ERROR bot.test: it failed"
    assert len(error) > 3 and all(line.startswith("<3>  ") for line in error[1:]), error
    assert "<3>  ValueError: boom" in error


def test_not_the_journal_keeps_timestamps_and_no_prefix(tmp_path: Path) -> None:
    out, other = tmp_path / "stderr", tmp_path / "other"
    out.touch()
    other.touch()
    lines = log_through(out, {"JOURNAL_STREAM": journal_id(other)})
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d WARNING bot.test: first line", lines[0])
    assert lines[1] == "  second line"
    assert not any(line.startswith("<") for line in lines)


def test_setup_logging_looks_at_the_real_stderr(tmp_path: Path) -> None:
    # The process's own fd 2, as under systemd: a file standing in for the socket.
    err = tmp_path / "stderr"
    err.touch()
    code = ("import logging; from bot.host.logsetup import setup_logging; setup_logging();"
            "logging.getLogger('bot.x').error('a\\nb')")
    for journal, expected in ((journal_id(err), ["<3>ERROR bot.x: a", "<3>  b"]),
                              ("1:1", None)):
        with err.open("w") as fd2:
            subprocess.run([sys.executable, "-c", code], stderr=fd2, check=True, timeout=60,
                           env=dict(os.environ, JOURNAL_STREAM=journal))
        lines = err.read_text().splitlines()
        if expected is not None:
            assert lines == expected
        else:
            assert lines[0].endswith("ERROR   bot.x: a") and lines[1] == "  b"
