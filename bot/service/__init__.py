"""The bot service: the composition root and the rooms it wires together.

`root.py` (`Service`: builds the rooms and wires them, config reload, engine
pool warm-up, start and stop), `shared.py` (`Shared`: the state the rooms
share), `supervisor.py` (`GameSupervisor`: slots, game runners and their
restarts, parking and resuming), `event_stream.py` (keeping the one event
stream open, its status, and its table of subscribers), `watchdog.py` (the
systemd watchdog, the heat and saver ticks, the published status),
`login.py` (the account check at start-up), `reload.py` (a SIGHUP's new
config), `tables.py` (the engine tables: reload rules, warm-up), `tasks.py`
(spawned and supervised tasks), `status.py` (what `pibot status` shows),
`memory.py` (the owner's records database and alerts) and the control socket
(`control.py` the server and its peer check, `control_registry.py` the
commands' registry, `control_commands.py` the documented commands).  The top
of the data flow: it may import every wing (`bot.challenges`, `bot.play`,
`bot.sources`, `bot.lichess`, `bot.host`) and the shared modules
(`bot.config`, `bot.engine`, `bot.errors`, `bot.store`, `bot.alerts`).  Only
`root.py` wires the service together: no other module imports it, the
supervisor imports no other module of the service (it declares what it uses
of the shared state as a Protocol), and it knows nothing of challenges but
their slots.
"""

from bot.service.root import Service

__all__ = ["Service"]
