"""records.keep_days: PGN files older than that are gzipped in place.

An SD card holds years of gzipped PGNs (a bullet game is ~1 KiB gzipped), so
old files are compressed, never deleted: the owner deletes.  Each file is
written to a temporary name, synced, renamed over `NAME.pgn.gz` and only
then is `NAME.pgn` removed, so a crash or a full disk leaves either the old
file or both, never neither.
"""

from __future__ import annotations

import gzip
import logging
import os
import shutil
import tempfile
import time
from pathlib import Path

log = logging.getLogger(__name__)


def compress_old(directory: str | Path, keep_days: int, now: float | None = None) -> int:
    """Gzip the *.pgn files in `directory` last written more than `keep_days` days
    ago; returns how many.  Never raises: a problem is one log line and the rest
    of the files wait for the next run."""
    d = Path(directory).expanduser()
    cutoff = (time.time() if now is None else now) - keep_days * 86400
    done = 0
    try:
        candidates = sorted(p for p in d.glob("*.pgn") if p.is_file() and not p.is_symlink())
    except OSError as exc:
        log.warning("PGN retention: cannot list %s (%s)", d, exc.strerror or exc)
        return 0
    for path in candidates:
        try:
            if path.stat().st_mtime >= cutoff:
                continue
            _gzip(path)
            done += 1
        except OSError as exc:
            log.warning("PGN retention: cannot compress %s (%s); will try again later",
                        path, exc.strerror or exc)
            break  # a full disk fails every file alike
    if done:
        log.info("PGN retention: compressed %d game(s) older than %d day(s) in %s",
                 done, keep_days, d)
    return done


def _gzip(path: Path) -> None:
    target = path.with_name(path.name + ".gz")
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".pgn.gz")
    try:
        with os.fdopen(fd, "wb") as raw, gzip.GzipFile(filename=path.name, mode="wb",
                                                      fileobj=raw,
                                                      mtime=int(path.stat().st_mtime)) as gz:
            with path.open("rb") as src:
                shutil.copyfileobj(src, gz)
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        st = path.stat()
        os.utime(tmp, (st.st_atime, st.st_mtime))  # keeps its age for `ls -t`
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    path.unlink()
