"""The bot service: the composition root and the rooms it wires together.

`root.py` (`Service`: config reload, engine pool warm-up, watchdog and status,
the event stream and its dispatch, start and stop), `supervisor.py`
(`GameSupervisor`: slots, game runners and their restarts, parking and
resuming), `event_stream.py` (keeping the one event stream open), `login.py`
(the account check at start-up) and `status.py` (a game as the status file
shows it).  The top of the data flow: it may import every wing (`bot.challenges`,
`bot.play`, `bot.sources`, `bot.lichess`, `bot.host`) and the shared modules;
only `root.py` may import the other modules of the service, and the
supervisor knows nothing of challenges but their slots.
"""

from bot.service.root import Service

__all__ = ["Service"]
