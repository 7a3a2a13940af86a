"""An emulated challenge (incoming to the bot or sent by it), its JSON, and the
book of them all."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.emulator.config import OpponentSpec
from bot.emulator.game import Player
from bot.emulator.payloads import (
    DECLINE_REASONS,
    ChallengeJson,
    ChallengeUser,
    TimeControlJson,
    perf_key,
    perf_name,
    show_clock,
    speed_of,
    variant_json,
)

# Icons are the Lichess font glyphs; clients only display them.
PERF_ICONS = {"bullet": "\ue032", "blitz": "\ue01d", "rapid": "\ue002", "classical": "\ue00b"}


@dataclass
class Challenge:
    id: str
    challenger: Player
    dest: Player
    variant: str
    rated: bool
    limit_s: int | None
    increment_s: int | None
    days: int | None
    color: str  # the challenger's choice: white | black | random
    final_color: str  # the challenger's actual color
    initial_fen: str | None
    expires_at: float
    direction: str  # "in" = to the bot under test, "out" = sent by it
    site: str
    opponent: OpponentSpec = field(default_factory=OpponentSpec)
    status: str = "created"
    decline_key: str | None = None
    respond_at: float | None = None  # outgoing: when the target answers
    response: str = "accept"  # outgoing: accept | decline | ignore
    # incoming: the challenger keeps it seen (lila ChallengeApi.ping: the challenge
    # page's socket, or keepAliveStream=true), so it never goes offline
    kept_alive: bool = False

    @property
    def speed(self) -> str:
        return speed_of(self.limit_s, self.increment_s, self.days)

    def time_control(self) -> TimeControlJson:
        if self.limit_s is not None:
            inc = self.increment_s or 0
            return {
                "type": "clock",
                "limit": self.limit_s,
                "increment": inc,
                "show": show_clock(self.limit_s, inc),
            }
        if self.days is not None:
            return {"type": "correspondence", "daysPerTurn": self.days}
        return {"type": "unlimited"}

    def json(self, online: bool = True) -> ChallengeJson:
        def user(p: Player) -> ChallengeUser:
            return {
                "id": p.id,
                "name": p.name,
                "title": p.title,
                "rating": p.rating,
                "provisional": p.provisional,
                "online": online,
            }

        pk = perf_key(self.variant, self.speed)
        data: ChallengeJson = {
            "id": self.id,
            "url": f"{self.site}/{self.id}",
            "status": self.status,
            "challenger": user(self.challenger),
            "destUser": user(self.dest),
            "variant": variant_json(self.variant),
            "rated": self.rated,
            "speed": self.speed,
            "timeControl": self.time_control(),
            "color": self.color,
            "finalColor": self.final_color,
            "perf": {"icon": PERF_ICONS.get(pk, ""), "name": perf_name(pk)},
            "direction": self.direction,
            "compat": {"bot": True, "board": True},
        }
        if self.initial_fen is not None and self.variant == "fromPosition":
            data["initialFen"] = self.initial_fen
        if self.decline_key is not None:
            data["declineReason"] = DECLINE_REASONS.get(self.decline_key, self.decline_key)
            data["declineReasonKey"] = self.decline_key
        return data


@dataclass
class ChallengeBook:
    """Every challenge by where it stands; the core holds the lock."""

    open: dict[str, Challenge] = field(default_factory=dict)  # created or offline
    # Closed challenges, kept so late accepts get a clear 404 and tests can ask.
    declined: dict[str, Challenge] = field(default_factory=dict)
    expired: dict[str, Challenge] = field(default_factory=dict)
    # username -> wall times of its challenges to other bots (the daily limit)
    bot_vs_bot: dict[str, list[float]] = field(default_factory=dict)
