"""Loading a config: config.yml (or an already-parsed document) -> a checked Config.

parse_config builds the dataclasses (bot/config/build.py) and runs the checks
across keys (bot/config/checks.py); load_config reads the file first, through
the strict YAML loader (bot/config/yaml_loader.py).  Every problem is one
UserError line naming the file, the key and the fix; a token is never echoed.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import yaml

from bot.config.build import build
from bot.config.checks import cross_checks
from bot.config.redact import mask_tokens
from bot.config.schema import Config
from bot.config.yaml_loader import ConfigLoader, YamlShapeError
from bot.errors import UserError, read_user_file


def parse_config(data: Any, source: str = "<memory>") -> Config:
    """Validate an already-parsed YAML document."""
    cfg: Config = build(Config, data)
    cross_checks(cfg)
    return dataclasses.replace(cfg, source=source)


def load_config(path: str | Path | None) -> Config:
    """Read and validate config.yml; None means built-in defaults."""
    if path is None:
        return Config()
    p = Path(path)
    text = read_user_file(p, "config file",
                          "pass --config PATH or copy config.yml from the repository",
                          "check the path and permissions")
    try:
        data = yaml.load(text, Loader=ConfigLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = str(getattr(exc, "problem", None) or exc)
        raise UserError(f"config file {p} is not valid YAML{where}: "
                        f"{mask_tokens(problem)}"
                        f"{'' if isinstance(exc, YamlShapeError) else '; fix the syntax'}"
                        ) from None
    try:
        return parse_config(data, source=str(p))
    except UserError as exc:
        raise UserError(f"{p}: {exc}") from None

