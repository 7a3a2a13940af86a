"""Strength levels in the config (issue 47): `strength:` read and checked (each
mistake one line naming the key and what is allowed), the Lichess -> engine
scale, Stockfish's Skill Level, a game's profile and level (bot/play/terms.py),
and lichess-bot's uci_options through `pibot config import`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.config import Config, load_config, parse_config
from bot.config.lichess_bot_import import import_config
from bot.config.strength import (
    ELO_MAX,
    ELO_MIN,
    FULL,
    Level,
    lichess_to_engine,
    match_elo,
    parse_level,
    skill_level_elo,
)
from bot.errors import EXIT_CONFIG, UserError
from bot.lichess.events import GameFull
from bot.play.terms import terms_for

FIXTURES = Path(__file__).parent / "data" / "lichess_bot"


# -- the level grammar ---------------------------------------------------------------

@pytest.mark.parametrize("text, level", [
    ("full", FULL), ("FULL", FULL), (1500, Level("elo", 1500)), ("2850", Level("elo", 2850)),
    ("match", Level("match")), ("match+100", Level("match", offset=100)),
    ("match-200", Level("match", offset=-200)), ("match + 50", Level("match", offset=50)),
])
def test_levels_are_read(text: Any, level: Level) -> None:
    assert parse_level("strength.humans", text) == level
    assert str(level) == {"FULL": "full", "match + 50": "match+50"}.get(str(text), str(text))


@pytest.mark.parametrize("data, fragment", [
    ({"humans": 700}, "'strength.humans' is 700, outside the engine's range 800..2850"),
    ({"bots": 3000}, "'strength.bots' is 3000, outside the engine's range"),
    ({"humans": "mach+100"}, "'strength.humans' is 'mach+100'; use full or an Elo from 800 "
                             "to 2850, or match"),
    ({"humans": "match+2000"}, "offset of 'match+2000' is beyond ±1500"),
    ({"humans": True}, "'strength.humans' is True; use full"),
    ({"fallback": "match"}, "'strength.fallback' is 'match'; use full or an Elo from 800 to "
                            "2850"),
    ({"profiles": [{"levl": 1500}]}, "unknown config key 'strength.profiles[0].levl': did "
                                     "you mean 'strength.profiles[0].level'?"),
    ({"profiles": [{"level": "strong"}]}, "'strength.profiles[0].level' is 'strong'"),
    ({"profiles": [{"modes": ["ranked"]}]}, "'strength.profiles[0].modes': 'ranked' is not "
                                            "allowed"),
    ({"profiles": [{"pairing": "swiss"}]}, "use one of: any, arena, direct"),
    ({"profiles": [{"opponent": "bot", "takebacks": 2}]},
     "'strength.profiles[0].takebacks': takebacks are for games against humans"),
    ({"humanz": "match"}, "unknown config key 'strength.humanz': did you mean "
                          "'strength.humans'?"),
])
def test_each_mistake_is_one_line_naming_the_key(data: dict[str, Any], fragment: str) -> None:
    with pytest.raises(UserError) as exc:
        parse_config({"strength": data})
    assert fragment in str(exc.value) and "\n" not in str(exc.value), str(exc.value)


@pytest.mark.parametrize("data, fragment", [
    ({"challenge": {"rating_difference": -5}}, "'challenge.rating_difference' is -5, below"),
    ({"challenge": {"max_game_minutes": 0}},
     "'challenge.max_game_minutes' is 0.0, below the minimum 1"),
    ({"challenge": {"queue_humans_first": "yes"}}, "must be true or false"),
])
def test_the_new_challenge_keys_are_checked(data: dict[str, Any], fragment: str) -> None:
    with pytest.raises(UserError, match=fragment):
        parse_config(data)


def test_a_strength_mistake_is_one_line_from_the_cli(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yml"
    bad.write_text("strength:\n  humans: match+\n")
    env = {k: v for k, v in os.environ.items() if k != "LICHESS_BOT_TOKEN"}
    r = subprocess.run([sys.executable, "-m", "bot.cli", "run", "--config", str(bad)],
                       capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == EXIT_CONFIG and "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "strength.humans" in lines[0] and "800" in lines[0], r.stderr


def test_the_two_lines_of_the_docs_load() -> None:
    cfg = parse_config(yaml.safe_load("strength:\n  humans: match\n"))
    assert cfg.strength.humans == Level("match") and cfg.strength.bots == FULL
    assert Config().strength.humans == FULL  # the default plays at full strength


# -- the scale -----------------------------------------------------------------------

def test_a_lichess_rating_is_the_same_number_on_the_engine_scale() -> None:
    # The assumption (docs/strength.md): identity, as the one Lichess-anchored
    # calibration (maia1, blitz 1500 = UCI_Elo 1500) has it; the offset adjusts.
    assert [lichess_to_engine(r) for r in (1350, 1500, 2000, 2850)] == [1350, 1500, 2000, 2850]


def test_the_config_range_is_the_engines() -> None:
    # Levels below Stockfish's 1350 exist for beginners (docs/strength.md).
    from bot.engine.strength import MAX_ELO, MIN_ELO

    assert (ELO_MIN, ELO_MAX) == (MIN_ELO, MAX_ELO) == (800, 2850)


def test_match_adds_the_offset_and_clamps() -> None:
    fallback = Level("elo", 1600)
    assert match_elo(Level("match"), 1700, False, fallback) == (1700, False)
    assert match_elo(Level("match", offset=150), 1700, False, fallback) == (1850, False)
    assert match_elo(Level("match", offset=-200), 1300, False, fallback) == (1100, False)
    assert match_elo(Level("match", offset=-200), 900, False, fallback) == (ELO_MIN, False)
    assert match_elo(Level("match"), 3100, False, fallback) == (ELO_MAX, False)
    # Provisional or missing: the owner's fallback (without the offset), as it is.
    assert match_elo(Level("match", offset=100), 1700, True, fallback) == (1600, True)
    assert match_elo(Level("match"), None, False, fallback) == (1600, True)
    assert match_elo(Level("match"), None, False, FULL) == (None, True)
    # A fixed level ignores the rating.
    assert match_elo(Level("elo", 2000), 1300, False, fallback) == (2000, False)
    assert match_elo(FULL, 1300, False, fallback) == (None, False)


@pytest.mark.parametrize("skill, elo", [
    (0, 1350), (1, 1490), (2, 1597), (4, 1785), (10, 2264), (18, 2820), (19, 2850), (20, None),
])
def test_skill_level_through_stockfish_15_1s_relation(skill: int, elo: int | None) -> None:
    # sf_15.1 src/search.cpp: level = ((elo - 1346.6) / 143.4) ** (1 / 0.806)
    assert skill_level_elo(skill) == elo


# -- a game's terms ------------------------------------------------------------------

def _full(opponent: dict[str, Any], rated: bool = False, speed: str = "blitz",
          tournament: str | None = None, variant: str = "standard") -> GameFull:
    payload: dict[str, Any] = {
        "id": "g1", "white": {"id": "pibot", "name": "pibot", "title": "BOT", "rating": 2000},
        "black": opponent, "rated": rated, "speed": speed,
        "variant": {"key": variant}, "clock": {"initial": 180000, "increment": 2000},
        "state": {"moves": "", "wtime": 180000, "btime": 180000, "winc": 2000, "binc": 2000,
                  "status": "started"}}
    if tournament:
        payload["tournamentId"] = tournament
    return GameFull.parse(payload)


HUMAN = {"id": "alice", "name": "alice", "rating": 1300}
BOT = {"id": "rival", "name": "rival", "title": "BOT", "rating": 2400}


def test_humans_and_bots_get_their_own_levels() -> None:
    cfg = parse_config({"strength": {"humans": "match+100", "bots": "full"}})
    human = terms_for(cfg, _full(HUMAN), "white")
    assert (human.elo, human.rule, human.label, human.human) == (1400, "match+100", "1400", True)
    bot = terms_for(cfg, _full(BOT), "white")
    assert (bot.elo, bot.label, bot.human, bot.profile) == (None, "full", False, None)
    shaky = terms_for(cfg, _full({**HUMAN, "provisional": True}), "white")
    assert (shaky.elo, shaky.rule) == (1500, "fallback")  # the default fallback


def test_the_first_matching_profile_applies_with_its_settings() -> None:
    cfg = parse_config({
        "strength": {"humans": "match", "profiles": [
            {"name": "arena", "pairing": "arena", "level": "full"},
            {"name": "friendly", "opponent": "human", "modes": ["casual"], "level": "match-200",
             "resign": False, "draw": False, "takebacks": 2, "book": False,
             "hello": "Have fun, {opponent}!"},
            {"name": "never", "modes": ["casual"], "level": 2500}]},
        "draw_or_resign": {"resign_enabled": True}})
    casual = terms_for(cfg, _full({**HUMAN, "rating": 1800}), "white")
    assert (casual.profile, casual.elo, casual.rule) == ("friendly", 1600, "match-200")
    played = casual.config(cfg)
    assert not played.draw_or_resign.resign_enabled
    assert not played.draw_or_resign.offer_draw_enabled
    assert played.game.max_takebacks_accepted == 2 and played.game.accept_takebacks
    assert played.greeting.hello == "Have fun, {opponent}!" and not casual.book
    rated = terms_for(cfg, _full({**HUMAN, "rating": 1800}, rated=True), "white")
    assert (rated.profile, rated.elo) == (None, 1800) and rated.book
    assert rated.config(cfg).draw_or_resign.resign_enabled  # the general settings
    arena = terms_for(cfg, _full(HUMAN, tournament="abcd1234"), "white")
    assert (arena.profile, arena.elo) == ("arena", None)
    # A profile for any opponent: its takebacks are for humans only.
    bots = parse_config({"strength": {"profiles": [{"takebacks": 3, "level": 2000}]}})
    against_bot = terms_for(bots, _full(BOT), "white")
    assert (against_bot.profile, against_bot.elo) == ("#1", 2000)
    assert against_bot.config(bots).game.max_takebacks_accepted is None


def test_profiles_match_speed_and_variant() -> None:
    cfg = parse_config({"strength": {"profiles": [
        {"name": "fast", "speeds": ["bullet"], "level": 1500},
        {"name": "960", "variants": ["chess960"], "level": 1700}]}})
    assert terms_for(cfg, _full(HUMAN, speed="bullet"), "white").elo == 1500
    assert terms_for(cfg, _full(HUMAN, variant="chess960"), "white").elo == 1700
    assert terms_for(cfg, _full(HUMAN), "white").elo is None


# -- lichess-bot's uci_options -------------------------------------------------------

@pytest.mark.parametrize("options, level, why", [
    ({"UCI_LimitStrength": True, "UCI_Elo": 1600}, 1600, None),
    ({"UCI_LimitStrength": True, "UCI_Elo": 1600, "Skill Level": 3}, 1600,
     ("Skill Level", "UCI_LimitStrength: true sets the level")),
    ({"UCI_LimitStrength": True}, 1350, None),  # Stockfish's default UCI_Elo
    ({"UCI_LimitStrength": True, "UCI_Elo": 3000}, 2850, None),  # clamped, as Stockfish does
    ({"Skill Level": 5}, 1871, None),
    ({"Skill Level": 20}, "full", None),
    ({"UCI_LimitStrength": False, "UCI_Elo": 2000}, None,
     ("UCI_Elo", "Stockfish ignores UCI_Elo without UCI_LimitStrength")),
])
def test_uci_options_become_the_strength(options: dict[str, Any], level: Any,
                                         why: tuple[str, str] | None) -> None:
    res = import_config({"engine": {"uci_options": options}})
    if level is None:
        assert "strength" not in res.config
    else:
        assert res.config["strength"] == {"humans": level, "bots": level}
        cfg = parse_config(res.config)
        assert str(cfg.strength.humans) == str(cfg.strength.bots) == str(level)
    if why is not None:
        key, text = why
        assert any(d.startswith(f"engine.uci_options.{key}: {text}") for d in res.dropped), \
            res.dropped


def test_config_import_carries_the_level_and_rating_difference(tmp_path: Path) -> None:
    data = yaml.safe_load((FIXTURES / "default.yml").read_text())
    data["engine"]["uci_options"].update({"UCI_LimitStrength": True, "UCI_Elo": 1700})
    src = tmp_path / "lichess-bot.yml"
    src.write_text(yaml.safe_dump(data, sort_keys=False))
    env = {k: v for k, v in os.environ.items() if k != "LICHESS_BOT_TOKEN"}
    r = subprocess.run([sys.executable, "-m", "bot.cli", "config", "import", str(src), "-o",
                        "pibot.yml"], capture_output=True, text=True, env=env, timeout=60,
                       stdin=subprocess.DEVNULL, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "UCI_Elo 1700 -> strength.humans and strength.bots: Elo 1700" in r.stdout
    cfg = load_config(tmp_path / "pibot.yml")
    assert cfg.strength.humans == cfg.strength.bots == Level("elo", 1700)
    assert cfg.challenge.rating_difference == 300  # lichess-bot's, same meaning
