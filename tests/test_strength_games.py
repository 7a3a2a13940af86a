"""Strength levels in games, over real HTTP against the emulator (issue 47): a human
challenger with `strength.humans: match` gets a level matched to its rating (in
`pibot status`, the PGN and the records database), a BOT full strength; a profile
by rated/casual; !level in both chat rooms; a reload applies from the next game;
and the challenge filters rating_difference, max_game_minutes and
queue_humans_first."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from test_service_helpers import (
    FAST_NETWORK,
    RunningBot,
    bot_and_emulator,
    needs_engine,
    wait_until,
)

from bot.emulator import Emulator, OpponentSpec
from bot.host import status_file
from bot.store import db, queries

pytestmark = needs_engine

SLOW = OpponentSpec(think_time_s=60)  # a game that stays on while the test looks at it


def _challenge(emu: Emulator, who: str, rating: int = 1500, title: str | None = None,
               rated: bool = False, **kw: Any) -> str:
    """A challenge to the bot; the challenger plays white unless `color` says otherwise."""
    return emu.challenge_bot(challenger=who, challenger_rating=rating, challenger_title=title,
                             rated=rated, clock_limit_s=kw.pop("limit", 300),
                             increment_s=kw.pop("inc", 3), color=kw.pop("color", "white"),
                             opponent=kw.pop("opponent", SLOW), **kw)


def _start(emu: Emulator, cid: str) -> str:
    assert emu.challenges.wait_answered(cid, 10) == "accepted"
    return emu.wait_game_started(cid, 10)


def _status_levels(bot: RunningBot) -> dict[str, str]:
    assert bot.service is not None
    writer = bot.service.watchdog.status_writer
    last = writer.last if writer is not None else None
    return {g["id"]: g.get("strength", "") for g in (last or {}).get("games", [])}


def _texts(emu: Emulator, gid: str) -> list[str]:
    return [c.text for c in emu.game(gid).chat]


def _stored(tmp: Path, gid: str) -> queries.StoredGame | None:
    conn = db.connect_readonly(tmp / "pibot.db")
    try:
        return queries.game(conn, gid)
    finally:
        conn.close()


def _pgn_level(tmp: Path, gid: str) -> str:
    pgn = tmp / "games" / f"{gid}.pgn"
    assert wait_until(pgn.exists, 10), "no PGN"
    return next(line for line in pgn.read_text().splitlines()
                if line.startswith("[BotStrength "))


def test_a_human_gets_a_matched_level_and_a_bot_full_strength(tmp_path: Path) -> None:
    with bot_and_emulator(tmp_path, strength={"humans": "match"},
                          challenge={"concurrency": 2}) as (emu, bot):
        human = _start(emu, _challenge(emu, "alice", rating=1300))
        robot = _start(emu, _challenge(emu, "rival", rating=2300, title="BOT"))
        # `pibot status`: the level of each game in progress.
        assert wait_until(lambda: _status_levels(bot) == {human: "1300", robot: "full"}, 10), \
            _status_levels(bot)
        assert bot.service is not None and bot.service.watchdog.status_writer is not None
        last = bot.service.watchdog.status_writer.last
        assert last is not None
        text = "\n".join(status_file.render(last))
        assert "vs alice (black, 300+3, ply 0, level 1300)" in text, text
        for gid in (human, robot):
            emu.opponent_action(gid, "resign")
            emu.wait_game_over(gid, 10)
        # 1300: below Stockfish's range, within the engine's (800 up)
        assert _pgn_level(tmp_path, human) == '[BotStrength "1300"]'
        assert _pgn_level(tmp_path, robot) == '[BotStrength "full"]'
        assert wait_until(lambda: (g := _stored(tmp_path, human)) is not None
                          and g.ended_at is not None, 10)
        stored = _stored(tmp_path, human), _stored(tmp_path, robot)
        assert [(g.strength, g.strength_rule) for g in stored if g] == \
            [("1300", "match"), ("full", "full")]


def test_a_profile_by_rated_or_casual_and_level_in_chat(tmp_path: Path) -> None:
    strength = {"humans": "match", "profiles": [
        {"name": "casual", "modes": ["casual"], "level": "match+300",
         "hello": "A casual game, {opponent}: I play a little stronger."}]}
    with bot_and_emulator(tmp_path, strength=strength,
                          challenge={"concurrency": 2}) as (emu, bot):
        casual = _start(emu, _challenge(emu, "carol", rating=1600))
        rated = _start(emu, _challenge(emu, "dave", rating=1600, rated=True))
        assert wait_until(lambda: _status_levels(bot) == {casual: "1900", rated: "1600"}, 10), \
            _status_levels(bot)
        assert wait_until(lambda: "A casual game, carol: I play a little stronger."
                          in _texts(emu, casual), 10), _texts(emu, casual)
        assert not any("casual game" in t for t in _texts(emu, rated))
        # !level: the player and the spectators are told; the eval stays private.
        emu.chat.say(casual, "!level")
        said = "I play this game at level 1900 (Stockfish's UCI_Elo scale), matched to my " \
               "opponent's rating."
        assert wait_until(lambda: said in _texts(emu, casual), 10), _texts(emu, casual)
        emu.chat.spectator_say(rated, "!level")
        assert wait_until(lambda: any(c.room == "spectator" and "level 1600" in c.text
                                      for c in emu.game(rated).chat), 10)
        emu.chat.say(rated, "!eval")
        assert wait_until(lambda: any("I don't tell that to my opponent" in t
                                      for t in _texts(emu, rated)), 10)
        for gid in (casual, rated):
            emu.opponent_action(gid, "resign")
        assert _pgn_level(tmp_path, casual) == '[BotStrength "1900"]'
        assert _pgn_level(tmp_path, rated) == '[BotStrength "1600"]'


def test_a_reload_applies_from_the_next_game(tmp_path: Path) -> None:
    with bot_and_emulator(tmp_path, strength={"humans": "match"},
                          challenge={"concurrency": 2}) as (emu, bot):
        first = _start(emu, _challenge(emu, "erin", rating=1700))
        assert wait_until(lambda: _status_levels(bot) == {first: "1700"}, 10)
        # The same config with another level, read again as SIGHUP does.
        data = {"url": emu.url, "network": FAST_NETWORK, "strength": {"humans": 2200},
                "engine": {"hash_mb": 8, "threads": 1, "move_overhead_ms": 50},
                "records": {"db": str(tmp_path / "pibot.db")},
                "pgn_directory": str(tmp_path / "games"),
                "challenge": {"concurrency": 2, "time_controls": ["bullet", "blitz", "rapid"]}}
        path = tmp_path / "reloaded.yml"
        path.write_text(yaml.safe_dump(data))
        assert bot.service is not None
        bot.service.config_path = str(path)
        bot.call(bot.service.reload)
        assert wait_until(lambda: str(bot.service.live.now.strength.humans) == "2200", 10)
        second = _start(emu, _challenge(emu, "frank", rating=1700))
        assert wait_until(lambda: _status_levels(bot) == {first: "1700", second: "2200"}, 10), \
            _status_levels(bot)
        for gid in (first, second):
            emu.opponent_action(gid, "resign")


def test_rating_difference_and_max_game_minutes(tmp_path: Path) -> None:
    # The emulator's bot account is rated 1500 in every speed.
    with bot_and_emulator(tmp_path, challenge={"concurrency": 3, "rating_difference": 300,
                                               "max_game_minutes": 15}) as (emu, bot):
        far = _challenge(emu, "gina", rating=1900)
        assert emu.challenges.wait_answered(far, 10) == "declined"
        assert emu.challenges.decline_reason(far) == "generic"
        near = _start(emu, _challenge(emu, "hank", rating=1750))
        # 600+5: 2 x (600 + 40 x 5) s = 26.7 min, over 15.
        long = _challenge(emu, "ivan", limit=600, inc=5)
        assert emu.challenges.wait_answered(long, 10) == "declined"
        assert emu.challenges.decline_reason(long) == "tooSlow"
        short = _start(emu, _challenge(emu, "judy", limit=180, inc=2))  # 8.7 min
        for gid in (near, short):
            emu.opponent_action(gid, "resign")


def test_queue_humans_first(tmp_path: Path) -> None:
    with bot_and_emulator(tmp_path, challenge={"concurrency": 1, "queue_max": 2,
                                               "queue_humans_first": True}) as (emu, bot):
        holder = _start(emu, _challenge(emu, "holder"))
        robot = _challenge(emu, "rival", title="BOT")
        human = _challenge(emu, "kate")
        assert bot.service is not None and bot.service.desk is not None
        desk = bot.service.desk
        assert wait_until(lambda: [q.id for q in desk.queued()] == [human, robot], 10), \
            [q.id for q in desk.queued()]
        emu.opponent_action(holder, "resign")
        assert _start(emu, human)
        assert emu.challenges.status(robot) == "created"  # still waiting


def test_a_parked_correspondence_game_keeps_its_level_over_a_reload(
        tmp_path: Path, monkeypatch: Any) -> None:
    from bot.lichess import api_account

    monkeypatch.setattr(api_account, "PLAYING_MIN_INTERVAL_S", 0.5)  # check-ins within seconds
    corr = {"move_time": 0.2, "disconnect_time": 1, "checkin_period": 1}
    tcs = ["bullet", "blitz", "rapid", "correspondence"]
    with bot_and_emulator(tmp_path, strength={"humans": "match"}, correspondence=corr,
                          challenge={"time_controls": tcs}) as (emu, bot):
        opp = OpponentSpec(policy="random", think_time_s=4, seed=3, resign_after=2)
        gid = emu.challenge_bot(challenger="lena", challenger_rating=1700, rated=False,
                                clock_limit_s=None, days=2, color="black", opponent=opp)
        emu.wait_game_started(gid, 10)
        svc = bot.service
        assert svc is not None and svc.supervisor is not None
        sup = svc.supervisor
        assert wait_until(lambda: gid in sup.parked and gid not in sup.games, 6), "not parked"
        data = {"url": emu.url, "network": FAST_NETWORK, "strength": {"humans": 2200},
                "engine": {"hash_mb": 8, "threads": 1, "move_overhead_ms": 50},
                "records": {"db": str(tmp_path / "pibot.db")},
                "pgn_directory": str(tmp_path / "games"), "correspondence": corr,
                "challenge": {"time_controls": tcs}}
        path = tmp_path / "reloaded.yml"
        path.write_text(yaml.safe_dump(data))
        svc.config_path = str(path)
        bot.call(svc.reload)
        assert wait_until(lambda: str(svc.live.now.strength.humans) == "2200", 10)
        # Checked back in after the reload, played on and ended: at the level it began with.
        assert emu.wait_game_over(gid, 30).status == "resign"
        assert len(emu.game(gid).moves) >= 3  # it moved again after the reload
        assert _pgn_level(tmp_path, gid) == '[BotStrength "1700"]'


def test_a_profile_without_the_book(tmp_path: Path) -> None:
    import chess
    from test_book import write_book

    book = write_book(tmp_path / "one.bin", [(chess.Board(), "d2d4", 1)])
    poly = {"enabled": True, "book": {"standard": [str(book)]}}
    strength = {"profiles": [{"name": "no book", "modes": ["casual"], "book": False}]}
    with bot_and_emulator(tmp_path, strength=strength, engine={"polyglot": poly},
                          challenge={"concurrency": 2}) as (emu, _bot):
        games = {}
        for rated in (False, True):
            # Bullet: two engine moves at 5+3 took ~20 s on a loaded CI worker.
            cid = _challenge(emu, "mia" if rated else "noah", rated=rated, color="black",
                             limit=60, inc=1,
                             opponent=OpponentSpec(think_time_s=0.2, resign_after=1))
            games[rated] = _start(emu, cid)
        for gid in games.values():
            emu.wait_game_over(gid, 20)

        def first_comment(gid: str) -> str:
            pgn = tmp_path / "games" / f"{gid}.pgn"
            assert wait_until(pgn.exists, 10)
            moves = pgn.read_text().strip().splitlines()[-1]
            return moves.split("}", 1)[0]

        assert first_comment(games[True]).endswith("book ")  # the rated game: book move
        assert "book" not in first_comment(games[False])  # the profile's: the engine's
