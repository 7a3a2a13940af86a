"""Where the records database is, for the commands that read it.

The service opens `records.db` relative to its working directory, which under
systemd is its state directory (/var/lib/pibot, /var/lib/pibot/NAME for
pibot@NAME).  `pibot history` and `pibot export` run from the owner's shell,
so a relative name is looked for, in order: in $STATE_DIRECTORY (set when run
by systemd), in the current directory, then in /var/lib/pibot[/NAME].
"""

from __future__ import annotations

import os
from pathlib import Path

DEFAULT_NAME = "pibot.db"
STATE_ROOT = Path("/var/lib/pibot")


def candidates(configured: str, instance: str | None = None,
               env: dict[str, str] | None = None, cwd: Path | None = None) -> list[Path]:
    p = Path(configured).expanduser()
    if p.is_absolute():
        return [p]
    env = dict(os.environ) if env is None else env
    out: list[Path] = []
    state = env.get("STATE_DIRECTORY", "").split(":")[0]
    if state:
        out.append(Path(state) / p)
    out.append((cwd or Path.cwd()) / p)
    out.append((STATE_ROOT / instance if instance else STATE_ROOT) / p)
    return list(dict.fromkeys(out))


def find(configured: str, instance: str | None = None,
         env: dict[str, str] | None = None, cwd: Path | None = None) -> Path | None:
    """The first candidate that exists (None: no database anywhere)."""
    for p in candidates(configured, instance, env, cwd):
        try:
            if p.is_file():
                return p
        except OSError:
            continue  # a directory we may not enter (the state dir is the service's)
    return None
