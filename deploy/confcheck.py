"""Installer helper, run with the freshly installed venv's Python.

  confcheck.py config SHIPPED INSTALLED   list keys SHIPPED has and INSTALLED lacks
                                          (dotted, one per line), then validate
                                          INSTALLED with the bot's own loader
  confcheck.py token FILE                 validate a token file with the bot's rules

Exit 0 when fine, 1 with a one-line reason (naming the fix) otherwise.  The
bot's own modules do the validation, so the installer can never accept a config
or token that the service would then refuse.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import yaml

from bot.config import load_config
from bot.errors import UserError
from bot.lichess.token import ENV_VAR, load_token


def missing_keys(shipped: Any, installed: Any, prefix: str = "") -> list[str]:
    """Dotted keys present in `shipped` but not in `installed` (recursing into mappings)."""
    if not isinstance(shipped, dict):
        return []
    if not isinstance(installed, dict):
        installed = {}
    out: list[str] = []
    for key, value in shipped.items():
        name = f"{prefix}{key}"
        if key not in installed:
            out.append(name)
        else:
            out += missing_keys(value, installed[key], name + ".")
    return out


def _yaml(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise UserError(f"cannot read {path}: {exc}") from None


def config(shipped: Path, installed: Path) -> None:
    for key in missing_keys(_yaml(shipped), _yaml(installed)):
        sys.stdout.write(key + "\n")  # CLI output for install.sh
    load_config(installed)


def token(path: Path) -> None:
    os.environ.pop(ENV_VAR, None)  # validate the file, not the installer's environment
    load_token(str(path))


def main(argv: list[str]) -> int:
    try:
        if len(argv) == 3 and argv[0] == "config":
            config(Path(argv[1]), Path(argv[2]))
        elif len(argv) == 2 and argv[0] == "token":
            token(Path(argv[1]))
        else:
            sys.stderr.write(__doc__ or "")
            return 2
    except UserError as exc:
        sys.stderr.write(f"{exc}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
