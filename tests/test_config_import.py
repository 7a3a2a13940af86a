"""`pibot config import` (issue 24): lichess-bot configs become pibot configs that
pass `pibot check` against the emulator; units converted, every dropped key
explained in one line, the token never written into the config or printed."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import chess
import pytest
import yaml

from bot.config import load_config, parse_config
from bot.config.lichess_bot_import import import_config
from bot.config.lichess_bot_keys import RULES
from bot.errors import UserError
from tests.test_book import write_book

FIXTURES = Path(__file__).parent / "data" / "lichess_bot"
DOCS = Path(__file__).parents[1] / "docs" / "bot.md"


def _pibot(*args: str, cwd: Path, token: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "LICHESS_BOT_TOKEN"}
    if token is not None:
        env["LICHESS_BOT_TOKEN"] = token
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], capture_output=True,
                          text=True, env=env, timeout=60, stdin=subprocess.DEVNULL, cwd=cwd)


def _source(tmp: Path, name: str, url: str, token: str | None = None) -> Path:
    """The fixture with its server pointed at the emulator (and the emulator's token)."""
    data = yaml.safe_load((FIXTURES / name).read_text())
    data["url"] = url + "/"  # lichess-bot's default has the trailing slash
    if token is not None:
        data["token"] = token
    path = tmp / f"lichess-bot-{name}"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def _dropped(stdout: str) -> dict[str, str]:
    return dict(line.removeprefix("dropped ").split(": ", 1)
                for line in stdout.splitlines() if line.startswith("dropped "))


def test_default_config_imports_and_passes_check(tmp_path: Path, emu_factory: Any) -> None:
    emu = emu_factory()
    src = _source(tmp_path, "default.yml", emu.url)
    r = _pibot("config", "import", str(src), "-o", "pibot.yml", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    dropped = _dropped(r.stdout)
    # Every key of config.yml.default is known: carried over or dropped with a reason.
    assert not [k for k, why in dropped.items() if "not a key of lichess-bot" in why]
    assert "external engine" in dropped["engine.dir"]
    assert "engine.polyglot.book.atomic" not in dropped  # a variant's own book list
    assert "engine.hash_mb" in dropped["engine.uci_options.Hash"]
    assert "upper bound" in dropped["engine.online_moves.online_egtb.max_time"]
    assert "Syzygy" in dropped["engine.lichess_bot_tbs.gaviota"]
    assert "token: not copied" in r.stdout and "LICHESS_BOT_TOKEN" in r.stdout
    text = (tmp_path / "pibot.yml").read_text()
    assert "xxxxxxxxxxxxxxxxxxxxxx" not in text + r.stdout and "token:" not in text
    cfg = load_config(tmp_path / "pibot.yml")
    assert cfg.url == emu.url
    assert cfg.engine.polyglot.max_depth == 40  # 20 moves
    assert cfg.engine.polyglot.book.atomic == ["engines/atomicbook1.bin", "engines/atomicbook2.bin"]
    assert cfg.engine.move_overhead_ms == 2000
    assert cfg.engine.online_moves.online_egtb.max_pieces == 7  # 8 is beyond Lichess's
    assert cfg.matchmaking.challenge_timeout_s == 1800  # 30 minutes
    assert cfg.game.abort_if_no_first_move_s == 30
    assert cfg.draw_or_resign.offer_draw_moves == 10
    # Issue 33: the tablebase verdicts and the queue's order carry over.
    dr = cfg.draw_or_resign
    assert dr.resign_for_tablebase_loss and dr.offer_draw_for_tablebase_draw
    assert cfg.challenge.queue_order == "rating"  # sort_by: best
    assert cfg.challenge.max_simultaneous_games_per_user == 5
    # Issue 24 item 3: these keys now carry over instead of being dropped.
    ch, mm = cfg.challenge, cfg.matchmaking
    assert ch.online_block_list == mm.online_block_list == ["https://example.com/blocklist"]
    assert (ch.recent_bot_challenge_age_s, ch.max_recent_bot_challenges) == (60, 2)
    assert mm.opponent_rating_difference == 300 and mm.challenge_filter == "none"
    assert cfg.game.max_takebacks_accepted == 0
    assert cfg.engine.syzygy.paths == ["engines/syzygy"] and not cfg.engine.syzygy.enabled
    check = _pibot("check", "--config", "pibot.yml", cwd=tmp_path, token=emu.token)
    assert check.returncode == 0, check.stdout
    assert "all checks passed" in check.stdout


def test_stockfish_bot_with_book_and_matchmaking(tmp_path: Path, emu_factory: Any,
                                                 data_dir: Path) -> None:
    emu = emu_factory()
    src = _source(tmp_path, "stockfish.yml", emu.url, token=emu.token)
    (tmp_path / "books").mkdir()
    for name in ("performance.bin", "chess960.bin", "atomic.bin"):
        write_book(tmp_path / "books" / name, [(chess.Board(), "e2e4", 10)])
    shutil.copytree(data_dir / "syzygy", tmp_path / "syzygy")
    r = _pibot("config", "import", str(src), "-o", "pibot.yml", "--token-file", "token",
               cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    dropped = _dropped(r.stdout)
    assert not [k for k in dropped if k.startswith("challenge.variants")]
    assert "UltraBullet" in dropped["challenge.time_controls[ultraBullet]"]
    assert "challenge API" in dropped["matchmaking.challenge_initial_time[100]"]
    assert "0..60" in dropped["matchmaking.challenge_increment[90]"]
    assert "standard chess" in dropped["matchmaking.challenge_variant"]
    token_file = tmp_path / "token"
    assert token_file.read_text().strip() == emu.token
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    text = (tmp_path / "pibot.yml").read_text()
    assert emu.token not in text + r.stdout + r.stderr
    cfg = load_config(tmp_path / "pibot.yml")
    assert cfg.token_file == str(token_file)
    assert cfg.engine.polyglot.enabled and cfg.engine.polyglot.max_depth == 24
    assert cfg.engine.polyglot.book.standard == ["books/performance.bin"]
    assert cfg.engine.polyglot.selection == "best_move" and cfg.engine.polyglot.min_weight == 10
    assert cfg.engine.syzygy.enabled and cfg.engine.syzygy.max_pieces == 5
    assert cfg.engine.online_moves.online_egtb.move_quality == "best"  # was suggest
    assert cfg.engine.online_moves.lichess_cloud_analysis.max_score_difference == 30
    assert cfg.engine.move_overhead_ms == 500
    assert cfg.engine.hash_mb != 256 or cfg.sizing.hash_auto  # Hash: 256 is not carried
    assert cfg.challenge.variants == ["standard", "chess960", "atomic"]
    assert cfg.challenge.time_controls == ["bullet", "blitz"]
    assert cfg.draw_or_resign.resign_enabled and cfg.draw_or_resign.resign_score == -800
    assert cfg.challenge.queue_order == "first"  # sort_by: first
    mm = cfg.matchmaking
    assert mm.allow_matchmaking and mm.challenge_timeout_s == 300  # 5 minutes
    assert mm.challenge_initial_time == [60, 180, 300] and mm.challenge_increment == [0, 1, 2]
    # include_challenge_block_list: the challenge block list is not challenged either.
    assert mm.block_list == ["StrongBot", "SpamBot", "RudeBot"]
    assert mm.challenge_filter == "coarse" and mm.opponent_rating_difference == 400
    assert cfg.challenge.bullet_requires_increment
    check = _pibot("check", "--config", "pibot.yml", cwd=tmp_path)  # token from token_file
    assert check.returncode == 0, check.stdout
    assert f"token found (token_file {token_file})" in check.stdout
    assert "syzygy:" in check.stdout and "all checks passed" in check.stdout
    assert emu.token not in check.stdout + check.stderr


def test_casual_bot_with_greetings_and_correspondence(tmp_path: Path, emu_factory: Any) -> None:
    emu = emu_factory()
    src = _source(tmp_path, "casual.yml", emu.url)
    r = _pibot("config", "import", str(src), "-o", "pibot.yml", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    dropped = _dropped(r.stdout)
    assert not [k for k in dropped if k.startswith("challenge.variants")]
    assert "homemade engine" in dropped["engine.homemade_options"]
    assert "shutdown_grace_s" in dropped["quit_after_all_games_finish"]
    assert "upper bound" in dropped["engine.online_moves.lichess_opening_explorer.max_time"]
    cfg = load_config(tmp_path / "pibot.yml")
    c = cfg.correspondence
    assert (c.move_time, c.checkin_period, c.disconnect_time, c.ponder) == (120, 900, 600, True)
    assert cfg.challenge.max_days == 14 and cfg.challenge.min_days == 2  # .inf = Lichess's max
    assert cfg.challenge.max_base == 10800 and cfg.challenge.concurrency == 3
    assert cfg.challenge.reserved_for_humans == 1  # games_reserved_for_humans
    assert "correspondence" in cfg.challenge.time_controls
    assert cfg.challenge.variants == ["standard", "fromPosition", "crazyhouse", "horde"]
    assert cfg.game.max_takebacks_accepted == 3 and cfg.game.abort_if_no_first_move_s == 120
    assert cfg.greeting.hello == "Hello {opponent}! I'm {me}, a friendly bot. Takebacks are fine!"
    assert cfg.greeting.goodbye == ""  # empty in lichess-bot: say nothing
    assert cfg.greeting.goodbye_spectators == "Bye !"  # lichess-bot drops unknown {words}
    assert cfg.pgn_directory is None  # empty in lichess-bot: no PGN files
    assert cfg.matchmaking.challenge_timeout_s == 60  # 0.5 min; lichess-bot's floor is 1
    assert cfg.engine.online_moves.lichess_opening_explorer.source == "lichess"
    check = _pibot("check", "--config", "pibot.yml", cwd=tmp_path, token=emu.token)
    assert check.returncode == 0, check.stdout


def test_import_refuses_to_overwrite_and_bad_input_is_one_line(tmp_path: Path) -> None:
    out = tmp_path / "config.yml"
    out.write_text("url: https://lichess.org\n")
    src = FIXTURES / "casual.yml"
    r = _pibot("config", "import", str(src), cwd=tmp_path)  # default -o config.yml
    assert r.returncode == 2 and "pass --force" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and r.stdout == ""
    assert out.read_text() == "url: https://lichess.org\n"
    r = _pibot("config", "import", str(src), "--force", cwd=tmp_path)
    assert r.returncode == 0 and "ok      config config.yml is valid" in r.stdout
    r = _pibot("config", "import", str(tmp_path / "missing.yml"), "-o", "x.yml", cwd=tmp_path)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert "Traceback" not in r.stderr
    # A real token is written only where asked, never over an existing file.
    (tmp_path / "tok").write_text("old\n")
    src2 = tmp_path / "lb.yml"
    src2.write_text(yaml.safe_dump({"token": "lip_SecretSecret123", "url": "https://lichess.org"}))
    r = _pibot("config", "import", str(src2), "-o", "y.yml", "--token-file", "tok", cwd=tmp_path)
    assert r.returncode == 2 and "--force" in r.stderr
    assert "lip_SecretSecret123" not in r.stdout + r.stderr
    assert (tmp_path / "tok").read_text() == "old\n" and not (tmp_path / "y.yml").exists()


def test_an_unloadable_result_is_reported(tmp_path: Path) -> None:
    # lichess-bot warns about min > max; pibot refuses it, and says so after importing.
    src = tmp_path / "lb.yml"
    src.write_text(yaml.safe_dump({"challenge": {"min_base": 600, "max_base": 60}}))
    r = _pibot("config", "import", str(src), "-o", "out.yml", cwd=tmp_path)
    assert r.returncode == 1
    assert "PROBLEM" in r.stdout and "'challenge.min_base' (600) is greater" in r.stdout


@pytest.mark.parametrize(("moves", "plies"), [(1, 2), (8, 16), (20, 40), (float("inf"), 1000)])
def test_book_depth_moves_become_plies(moves: float, plies: int) -> None:
    res = import_config({"engine": {"polyglot": {"max_depth": moves}}})
    assert res.config["engine"]["polyglot"]["max_depth"] == plies


def test_importer_units_and_edge_values() -> None:
    res = import_config({"move_overhead": 30000, "abort_time": 0, "max_takebacks_accepted": 1,
                         "challenge": {"concurrency": 0, "min_days": 0},
                         "engine": {"polyglot": {"normalization": "sum", "min_weight": 50},
                                    "online_moves": {"lichess_opening_explorer":
                                                     {"source": "player"}}},
                         "matchmaking": {"challenge_timeout": 2.5}})
    c = res.config
    assert c["engine"]["move_overhead_ms"] == 10000 and c["game"]["abort_if_no_first_move_s"] == 1
    assert c["game"]["max_takebacks_accepted"] == 1 and c["challenge"]["concurrency"] == 1
    assert c["challenge"]["min_days"] == 1 and c["matchmaking"]["challenge_timeout_s"] == 150
    assert "min_weight" not in c["engine"].get("polyglot", {})
    assert "online_moves" not in c["engine"]  # player source: pibot's default applies
    why = dict(line.split(": ", 1) for line in res.dropped)
    assert "raw weights" in why["engine.polyglot.min_weight"]
    assert "one player's games" in why["engine.online_moves.lichess_opening_explorer.source"]
    parse_config(c)  # loads


@pytest.mark.parametrize(("data", "wanted", "unwanted"), [
    ({"token": "lip_abcdefghij12"}, "token_file", "lip_abcdefghij12"),
    ({"matchmaking": {"challenge_timeout": 30}}, "'matchmaking.challenge_timeout_s': minutes",
     "did you mean"),
    ({"engine": {"online_moves": {"online_egtb": {"max_time": 10800}}}}, "upper bound",
     "did you mean"),
    ({"engine": {"online_moves": {"lichess_cloud_analysis": {"max_time": 10800}}}},
     "pibot config import", "min_time'"),
    ({"engine": {"draw_or_resign": {"resign_enabled": True}}}, "keys for it are in "
     "draw_or_resign", "did you mean"),
    ({"engine": {"dir": "./engines/"}}, "external engine", "did you mean"),
])
def test_lichess_bot_keys_get_their_own_hint(data: dict[str, Any], wanted: str,
                                            unwanted: str) -> None:
    # Before: 'did you mean challenge_timeout_s' (seconds for minutes), 'min_time' for
    # max_time, 'token_file' for a pasted token.
    with pytest.raises(UserError) as exc:
        parse_config(data)
    assert wanted in str(exc.value) and unwanted not in str(exc.value)


def test_docs_map_every_lichess_bot_key() -> None:
    docs = DOCS.read_text()
    missing = [key for key in RULES if f"| `{key}` |" not in docs]
    assert not missing, f"docs/bot.md lacks rows for {missing}"


def test_variant_and_days_become_matchmaking_types() -> None:
    """lichess-bot draws a variant, a clock and days, then tosses a coin between the
    clock and correspondence (lib/matchmaking.py): as weighted types (issue 48)."""
    res = import_config({"challenge": {"variants": ["standard", "atomic", "fromPosition"]},
                         "matchmaking": {"challenge_variant": "random",
                                         "challenge_initial_time": [60, 180],
                                         "challenge_increment": [1],
                                         "challenge_days": [2, 4, None],
                                         "challenge_mode": "rated"}})
    mm = res.config["matchmaking"]
    assert not {"challenge_initial_time", "challenge_increment", "challenge_mode"} & set(mm)
    types = parse_config(res.config).matchmaking.types
    clock = [t for t in types if t.days is None]
    corr = [t for t in types if t.days is not None]
    assert {(t.tc, t.variant) for t in clock} == {("1+1", "standard"), ("3+1", "standard"),
                                                  ("1+1", "atomic"), ("3+1", "atomic")}
    assert {(t.days, t.variant) for t in corr} == {(2, "standard"), (2, "atomic")}
    assert sum(t.weight for t in clock) == sum(t.weight for t in corr)  # the coin toss
    assert {t.mode for t in types} == {"rated"}
    why = dict(line.split(": ", 1) for line in res.dropped)
    assert "1, 2, 3, 5, 7, 10 or 14" in why["matchmaking.challenge_days[4]"]
    # A variant alone: its types with pibot's default clocks.
    one = parse_config(import_config({"matchmaking": {"challenge_variant": "chess960"}}).config)
    assert [(t.tc, t.variant) for t in one.matchmaking.types] == [
        ("1+1", "chess960"), ("1+2", "chess960"), ("3+1", "chess960"), ("3+2", "chess960")]
    # Standard chess without days is pibot's default: no types, the clock lists stay.
    plain = import_config({"matchmaking": {"challenge_variant": "standard",
                                           "challenge_initial_time": [60]}})
    assert "types" not in plain.config["matchmaking"]
    assert plain.config["matchmaking"]["challenge_initial_time"] == [60]
    assert "default" in dict(line.split(": ", 1) for line in plain.dropped)[
        "matchmaking.challenge_variant"]
    # lichess-bot's default config: random (of its standard) with days 1 and 2.
    default = import_config(yaml.safe_load((FIXTURES / "default.yml").read_text()))
    days = {t.days for t in parse_config(default.config).matchmaking.types}
    assert days == {None, 1, 2}
