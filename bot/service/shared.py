"""The state the service's rooms share, in one object built once by the composition root.

The concurrency slots (real-time and correspondence), today's tally, the PGN
saver, the recent games, the CPU's heat (how many search threads the games may
use now), the event stream's status (read-only; the event stream keeps it) and
whether the service is draining.  It lives here, in the service, because only
the service may import everything it holds (bot.challenges' slots, bot.play's
saver and recent games, bot.host's tally and heat, bot.lichess's stream view).
Its users below the service do not import it: the challenge rooms declare what
they use as a Protocol (bot/challenges/shared.py), and so does the game
supervisor (supervisor.py `GameShared`; it imports nothing else of the
service); mypy checks at the composition root that this one object fits each.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.challenges.slots import Slots
from bot.host.heat import HeatMonitor
from bot.host.status_file import DailyTally
from bot.lichess.errors import DAILY_BOT_GAMES
from bot.lichess.streams import StreamView
from bot.play.farming import RecentGames
from bot.play.records import Saver


@dataclass
class Shared:
    heat: HeatMonitor  # read each watchdog tick; games search with its threads_now
    stream: StreamView  # the event stream's status
    slots: Slots = field(default_factory=Slots)  # real-time games
    corr_slots: Slots = field(default_factory=Slots)  # correspondence games: their own
    tally: DailyTally = field(default_factory=lambda: DailyTally(bot_limit=DAILY_BOT_GAMES))
    saver: Saver = field(default_factory=Saver)  # PGNs the disk refused, retried each tick
    recent_games: RecentGames = field(default_factory=RecentGames)  # openings not to repeat
    draining: bool = False  # a stop was asked: finish the games, accept none
