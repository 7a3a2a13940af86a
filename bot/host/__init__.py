"""The host: facts about the machine the bot runs on, and what it tells the machine.

`machine.py` (CPUs, memory, temperature, throttling, the engine's auto sizes),
`platform_info.py` (the platform report and the hash-size check), `heat.py` (the
thermal watch), `sdnotify.py` (systemd's notify socket), `status_file.py` (the
status file `pibot status` reads), `logsetup.py` (logging to the journal or a
terminal) and the read-only status page (`status_page.py`, with the history it
shows in `status_history.py`).  At the ground: every wing and the engine may
import it, and it imports only `bot.errors` (the engine's build, in the platform
report, comes from the caller).
"""
