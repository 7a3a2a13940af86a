"""What a game is played with, fixed at its first gameFull: the engine's level
and the settings of the strength profile it matches (config `strength:`).

The first profile whose every condition holds applies (the order is the
owner's: put the narrow ones first); a setting it leaves null keeps the
general one.  The level is `strength.humans` or `strength.bots` unless the
profile names one; `match` takes the opponent's rating from the gameFull (its
rating in the game's perf when the game was created), so a runner restarted
mid-game finds the same level.  The game keeps its terms to the end (KeptTerms,
held by the game supervisor): a reload (SIGHUP) applies from the next game.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from bot.config import Config, StrengthProfile, match_elo
from bot.lichess import events


@dataclass(frozen=True)
class GameTerms:
    elo: int | None  # the engine's level; None: full strength
    rule: str  # what set it: "full", an Elo, "match+100", or "fallback" (no rating to match)
    human: bool  # the opponent is a person (not a BOT account, nor Lichess's AI)
    profile: str | None = None  # the profile that matched (its name, or "#N"); None: none
    settings: StrengthProfile | None = None  # that profile

    @property
    def label(self) -> str:
        """The level as `pibot status`, the PGN tag BotStrength and !level write it."""
        return "full" if self.elo is None else str(self.elo)

    @property
    def book(self) -> bool:
        """Play opening-book moves (engine.polyglot) in this game."""
        return self.settings is None or self.settings.book is not False

    def describe(self) -> str:
        """One line for the log."""
        level = "full strength" if self.elo is None else f"level {self.elo} (Elo)"
        why = {"full": "", "fallback": ", no established rating to match"}.get(
            self.rule, f", {self.rule}" if self.rule.startswith("match") else "")
        return level + why + (f", profile {self.profile}" if self.profile else "")

    def config(self, cfg: Config) -> Config:
        """`cfg` with the profile's settings in it (the rest as they are)."""
        p = self.settings
        if p is None:
            return cfg
        dr, game, greeting = cfg.draw_or_resign, cfg.game, cfg.greeting
        if p.resign is not None:
            dr = dataclasses.replace(dr, resign_enabled=p.resign)
        if p.draw is not None:
            dr = dataclasses.replace(dr, offer_draw_enabled=p.draw)
        if p.takebacks is not None and self.human:
            game = dataclasses.replace(game, accept_takebacks=p.takebacks > 0,
                                       max_takebacks_accepted=p.takebacks)
        if p.hello is not None:
            greeting = dataclasses.replace(greeting, hello=p.hello)
        if p.goodbye is not None:
            greeting = dataclasses.replace(greeting, goodbye=p.goodbye)
        return dataclasses.replace(cfg, draw_or_resign=dr, game=game, greeting=greeting)


@dataclass
class KeptTerms:
    """A game's terms once chosen, kept by the game supervisor across its runner's
    restarts and a correspondence game's parking (as its PGN comments are): a
    game resumed after a reload keeps its level and profile."""

    terms: GameTerms | None = None

    def keep(self, choose: Callable[[], GameTerms]) -> GameTerms:
        if self.terms is None:
            self.terms = choose()
        return self.terms


def matches(p: StrengthProfile, full: events.GameFull, human: bool) -> bool:
    speed = full.speed or ("correspondence" if full.correspondence else "")
    arena = full.tournament_id is not None
    return (p.opponent == "any" or (p.opponent == "human") == human) \
        and (not p.modes or ("rated" if full.rated else "casual") in p.modes) \
        and (p.pairing == "any" or (p.pairing == "arena") == arena) \
        and (not p.speeds or speed in p.speeds) \
        and (not p.variants or full.variant in p.variants)


def terms_for(cfg: Config, full: events.GameFull, color: str) -> GameTerms:
    """The terms of the game `full` describes, where we play `color`."""
    them = full.black if color == "white" else full.white
    human = not them.is_bot and them.ai_level is None
    strength = cfg.strength
    found = next(((i, p) for i, p in enumerate(strength.profiles)
                  if matches(p, full, human)), None)
    level = strength.humans if human else strength.bots
    if found is not None and found[1].level is not None:
        level = found[1].level
    elo, fell_back = match_elo(level, them.rating, them.provisional, strength.fallback)
    rule = "fallback" if fell_back else str(level)
    if found is None:
        return GameTerms(elo, rule, human)
    index, profile = found
    return GameTerms(elo, rule, human, profile.name or f"#{index + 1}", profile)
