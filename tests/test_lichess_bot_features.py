"""lichess-bot features pibot now has (issue 24 item 3), over real HTTP against the
emulator: challenge rules (bullet_requires_increment, online_block_list with its
refresh, max_recent_bot_challenges), matchmaking (challenge_filter,
opponent_rating_difference, online_block_list, unknown ratings), per-game
takeback counting, the !wait / !howto chat commands and the opening variation
that keeps rated rematches out of lila's FarmBoostDetection."""

from __future__ import annotations

import logging
from pathlib import Path

import chess
import pytest
from blocklist_server import BlockListServer
from test_book import write_book
from test_service_helpers import (
    bot_and_emulator,
    fast_emulator_config,
    needs_engine,
    wait_until,
)

from bot.emulator import OpponentSpec, UserSpec
from bot.play.chat import HOWTO
from bot.play.farming import WHITE_FIRST

QUICK = OpponentSpec(think_time_s=0.05, resign_after=1, seed=2)  # ends after one move


@needs_engine
def test_challenge_rules_from_lichess_bot(tmp_path: Path) -> None:
    challenge = {"bullet_requires_increment": True, "max_recent_bot_challenges": 1,
                 "recent_bot_challenge_age_s": 60, "concurrency": 4,
                 "max_simultaneous_games_per_user": 4, "modes": ["casual"]}
    with BlockListServer("ListedBot\n\n  spambot \n") as lists, \
            bot_and_emulator(tmp_path, challenge={**challenge, "online_block_list": [lists.url]},
                             network={"block_list_refresh_s": 0.2}) as (emu, bot):
        svc = bot.service
        assert svc is not None and wait_until(lambda: svc.desk.blocked_online.loaded >= 1, 5)

        def challenge(name: str, base: int = 60, inc: int = 1, **kw: object) -> str:
            return emu.challenge_bot(challenger=name, challenger_title="BOT", rated=False,
                                     clock_limit_s=base, increment_s=inc, color="white",
                                     opponent=QUICK, **kw)

        # bullet_requires_increment: a BOT's bullet without increment is declined.
        cid = challenge("bulletbot", 60, 0)  # 60+1 (the default here) is accepted below
        assert emu.challenges.wait_answered(cid, 10) == "declined"
        assert emu.challenges.decline_reason(cid) == "timeControl"
        # online_block_list: names compare case-insensitively, blank lines are skipped.
        cid = challenge("listedbot")
        assert emu.challenges.wait_answered(cid, 10) == "declined"
        assert emu.challenges.decline_reason(cid) == "generic"
        # max_recent_bot_challenges: 1 accepted in the last 60 s; the next is `later`
        # even though the first game is over (not max_simultaneous_games_per_user).
        first = challenge("repeatbot")
        assert emu.challenges.wait_answered(first, 10) == "accepted"
        emu.wait_game_over(first, 30)
        again = challenge("repeatbot")
        assert emu.challenges.wait_answered(again, 10) == "declined"
        assert emu.challenges.decline_reason(again) == "later"
        # The list is re-read (If-None-Match; a change replaces the old names).
        lists.body = "otherbot\n"
        seen = svc.desk.blocked_online.loaded
        assert wait_until(lambda: svc.desk.blocked_online.loaded >= seen + 2, 5)
        cid = challenge("otherbot")
        assert emu.challenges.wait_answered(cid, 10) == "declined"
        assert emu.challenges.decline_reason(cid) == "generic"
        cid = challenge("listedbot")
        assert emu.challenges.wait_answered(cid, 10) == "accepted"
        assert any("If-None-Match" in h for h in lists.requests)
        # The bot's token never goes to a block-list host.
        assert not any("Authorization" in h for h in lists.requests)
        assert all(emu.token not in str(h) for h in lists.requests)


def test_matchmaking_skips_decliners_blocked_far_and_unknown(tmp_path: Path) -> None:
    users = [UserSpec("decliner", rating=1500, on_challenge="decline", response_delay_s=0.05),
             UserSpec("listedbot", rating=1500),
             UserSpec("farbot", rating=2300),  # our rating is 1500; difference 300
             UserSpec("newbot", games=0)]  # Lichess shows 1500 (prov): unknown, not 1500
    mm = {"allow_matchmaking": True, "challenge_timeout_s": 1, "challenge_expiry_s": 5,
          "challenge_initial_time": [60], "challenge_increment": [1],
          "challenge_filter": "coarse", "opponent_rating_difference": 300}
    with BlockListServer("ListedBot\n") as lists, \
            bot_and_emulator(tmp_path, fast_emulator_config(users=users),
                             matchmaking={**mm, "online_block_list": [lists.url]}) as (emu, _):
        assert wait_until(lambda: emu.traffic.count("POST /api/challenge/decliner") >= 1, 15)
        # Several more idle rounds: nobody else fits, and the decliner is not asked again.
        assert not wait_until(lambda: emu.traffic.count("POST /api/challenge/*") > 1, 6)
        # farbot is out of range only by our own rating (the login's copy of the account,
        # which the desk's reader shares with matchmaking): that rating was used
        assert emu.traffic.count("POST /api/challenge/farbot") == 0


def test_matchmaking_sees_a_decline_that_beats_its_challenges_answer(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The decliner answers at once and our POST's answer comes back a second later:
    the decline is seen when the POST returns (no wait to challenge_expiry_s, no
    cancel of a challenge already declined, the slot freed)."""
    caplog.set_level(logging.INFO)
    users = [UserSpec("decliner", rating=1500, on_challenge="decline", response_delay_s=0.05)]
    mm = {"allow_matchmaking": True, "challenge_timeout_s": 1, "challenge_expiry_s": 8,
          "challenge_initial_time": [60], "challenge_increment": [1],
          "challenge_filter": "coarse"}
    with bot_and_emulator(tmp_path, fast_emulator_config(users=users),
                          matchmaking=mm) as (emu, bot):
        emu.faults.inject("slow", "POST /api/challenge/decliner", count=None, duration_s=1.0,
                          after=True)
        assert emu.traffic.count("POST /api/challenge/decliner") == 0  # the fault is in time
        assert wait_until(lambda: emu.traffic.count("POST /api/challenge/decliner") >= 1, 15)
        assert wait_until(lambda: "matchmaking: decliner declined" in caplog.text, 5)
        assert bot.service is not None
        assert wait_until(lambda: bot.service.shared.slots.used() == 0, 3)
        assert not wait_until(lambda: emu.traffic.count("POST /api/challenge/*/cancel") > 0, 9)
        assert "did not answer" not in caplog.text
        assert emu.traffic.count("POST /api/challenge/decliner") == 1


@needs_engine
def test_takebacks_counted_per_game(tmp_path: Path) -> None:
    # The opponent asks 3 times: again after each accepted takeback (it replays its 2nd move).
    opp = OpponentSpec(think_time_s=0.05, takeback_at=2, takeback_times=3, resign_after=5,
                       seed=5)
    with bot_and_emulator(tmp_path, game={"max_takebacks_accepted": 2}) as (emu, _):
        cid = emu.challenge_bot(challenger="taker", rated=False, clock_limit_s=30,
                                increment_s=0, color="black", opponent=opp)
        emu.wait_game_over(emu.wait_game_started(cid, 10), 60)
        assert emu.traffic.count("POST /api/bot/game/*/takeback/yes") == 2
        assert emu.traffic.count("POST /api/bot/game/*/takeback/no") == 1


@needs_engine
def test_wait_and_howto_chat_commands(tmp_path: Path) -> None:
    # The opponent (White) takes 20 s for its first move and asks us to !wait: the
    # 3 s no-first-move abort is pushed back by a minute.
    opp = OpponentSpec(think_time_s=20, resign_after=1)
    with bot_and_emulator(tmp_path, game={"abort_if_no_first_move_s": 3}) as (emu, _):
        cid = emu.challenge_bot(challenger="slowpoke", rated=False, clock_limit_s=180,
                                increment_s=2, color="white", opponent=opp)
        gid = emu.wait_game_started(cid, 10)

        def said() -> list[str]:
            return [c.text for c in emu.game(gid).chat if c.username == "pibot"]

        assert wait_until(lambda: bool(said()), 5)  # greeted: the game stream is open
        emu.chat.say(gid, "!wait")
        emu.chat.say(gid, "!howto")
        # Chat lines go out 3 s apart (bot/play/outbox.py CHAT_GAP_S): by the second reply
        # the 3 s abort would long have fired.
        assert wait_until(lambda: "Waiting 60 seconds..." in said() and HOWTO in said(), 12)
        assert not emu.game(gid).over
        assert emu.traffic.count("POST /api/bot/game/*/abort") == 0


@needs_engine
def test_rated_rematch_varies_the_opening(tmp_path: Path) -> None:
    book = write_book(tmp_path / "book.bin", [(chess.Board(), "e2e4", 100)])
    engine = {"polyglot": {"enabled": True, "book": {"standard": [str(book)]},
                           "selection": "best_move"}}
    with bot_and_emulator(tmp_path, engine=engine) as (emu, bot):
        svc = bot.service
        assert svc is not None
        firsts = []
        for _ in range(2):
            opp = OpponentSpec(think_time_s=0.05, resign_after=3, seed=1)
            cid = emu.challenge_bot(challenger="sparbot", challenger_title="BOT", rated=True,
                                    clock_limit_s=30, increment_s=0, color="black",
                                    opponent=opp)
            game = emu.wait_game_over(emu.wait_game_started(cid, 10), 60)
            assert game.rated and game.bot_color == "white"
            firsts.append(game.moves[0])
            assert wait_until(lambda: "sparbot" in svc.shared.recent_games, 5)
        # The book alone would play 1.e4 twice: the same first plies, lila's farming pattern.
        assert firsts[0] == "e2e4"
        assert firsts[1] != "e2e4" and firsts[1] in WHITE_FIRST
