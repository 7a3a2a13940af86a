"""A faithful Lichess Bot API emulator on loopback (stdlib HTTP + python-chess).

    from bot.emulator import Emulator, EmulatorConfig, OpponentSpec
    with Emulator(EmulatorConfig(event_keepalive_s=0.5)) as emu:
        cid = emu.challenge_bot(challenger="alice", opponent=OpponentSpec(policy="greedy"))
        ... point berserk at emu.url with emu.token ...
        emu.wait_game_over(cid, timeout=60)

See docs/emulator.md for the endpoints, the /emu control API and fault knobs.

Independent of the bot it tests: it may import `bot.errors` (its usage errors
derive from it) and nothing else of bot/.
"""

from bot.emulator.config import (
    DEFAULT_TOKEN,
    AccountSpec,
    EmulatorConfig,
    OpponentSpec,
    RateLimit,
    UserSpec,
)
from bot.emulator.core import GameSnapshot, RequestRecord
from bot.emulator.emulator import Emulator
from bot.emulator.errors import EmulatorUsageError
from bot.emulator.faults import Fault
from bot.emulator.game import ChatLine
from bot.emulator.online_api import CloudPv, ExplorerMove, OnlineData
from bot.emulator.rival import RivalEventStream

__all__ = [
    "DEFAULT_TOKEN",
    "AccountSpec",
    "ChatLine",
    "CloudPv",
    "Emulator",
    "EmulatorConfig",
    "EmulatorUsageError",
    "ExplorerMove",
    "Fault",
    "GameSnapshot",
    "OnlineData",
    "OpponentSpec",
    "RateLimit",
    "RequestRecord",
    "RivalEventStream",
    "UserSpec",
]
