"""A config reload (SIGHUP): the file read and checked again, then switched to.

A file that cannot be used keeps the old config (one log line).  The new config
applies to new challenges and games; a running game keeps the one it started
with, and keys that only a restart can change are named in the log.
"""

from __future__ import annotations

import logging

from bot.config import Config, load_config, restart_keys_changed
from bot.engine.pool import EnginePool
from bot.errors import PibotError
from bot.host.heat import HeatMonitor
from bot.host.logsetup import set_level
from bot.service.tables import apply_engine_config, check_tables_fit

log = logging.getLogger(__name__)


def read(path: str, pool: EnginePool | None) -> Config | None:
    """The config file, checked; None when the old config must stay."""
    try:
        new = load_config(path)
        check_tables_fit(new, pool)
    except PibotError as exc:
        log.error("config reload failed, keeping the old config: %s", exc)
    except Exception as exc:  # noqa: BLE001 - whatever it was, the service keeps running
        log.error("config reload failed, keeping the old config: %s: %s",
                  type(exc).__name__, exc)
    else:
        return new
    return None


def switch(old: Config, new: Config, path: str, pool: EnginePool | None,
           heat: HeatMonitor) -> None:
    """What follows the new config at once: the log level, engine threads and tables."""
    stale = restart_keys_changed(old, new)
    set_level(new.log_level)
    apply_engine_config(new, pool, heat)
    log.info("config reloaded from %s (applies to new challenges and games)", path)
    if stale:
        log.warning("config reload: %s changed but take effect only after a "
                    "restart (systemctl restart pibot)", ", ".join(stale))
