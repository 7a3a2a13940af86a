"""Settings that load but are probably mistakes: `pibot check` and `run` warn."""

from __future__ import annotations

import urllib.parse

from bot.config.schema import Config

_LOOPBACK = ("localhost", "127.0.0.1", "::1", "[::1]")


def advice(cfg: Config) -> list[str]:
    """Settings that load but are probably mistakes (`check` and `run` warn)."""
    out: list[str] = []
    c = cfg.challenge
    for key, value in (("challenge.variants", c.variants),
                       ("challenge.time_controls", c.time_controls),
                       ("challenge.modes", c.modes)):
        if not value:
            out.append(f"config key '{key}' is empty: every challenge will be declined; "
                       f"list what to accept or remove the key for the default")
    for key, url in (("url", cfg.url),
                     ("engine.online_moves.explorer_url", cfg.engine.online_moves.explorer_url)):
        parts = urllib.parse.urlsplit(url)
        if parts.scheme == "http" and (parts.hostname or "") not in _LOOPBACK:
            out.append(f"config key '{key}' is plain http:// to {parts.hostname}: the token "
                       f"would cross the network unencrypted; use https://")
    return out

