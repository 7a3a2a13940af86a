"""Full games through the real service, engine and emulator: mate/resign/draw,
offers, opponentGone, chat, PGN records, resumption."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_service_helpers import (
    RunningBot,
    bot_and_emulator,
    bot_config,
    fast_emulator_config,
    needs_engine,
    wait_until,
)

from bot.emulator import Emulator, OpponentSpec

pytestmark = needs_engine


def finish(emu: Emulator, cid: str, timeout: float):  # noqa: ANN201 - GameSnapshot
    emu.wait_game_started(cid, 10)
    return emu.wait_game_over(cid, timeout)

def test_full_game_to_the_end_with_pgn_and_greetings(tmp_path: Path) -> None:
    with bot_and_emulator(tmp_path) as (emu, _bot):
        cid = emu.challenge_bot(challenger="alice", rated=False, clock_limit_s=30, increment_s=0,
                                color="white", opponent=OpponentSpec(policy="greedy",
                                                                     think_time_s=0.01, seed=3))
        snap = finish(emu, cid, 90)
        assert snap.status in ("mate", "resign", "stalemate", "draw", "outoftime"), snap.status
        if snap.status == "outoftime":
            assert snap.winner == snap.bot_color, "the bot lost on time"
        pgn = tmp_path / "games" / f"{cid}.pgn"
        assert wait_until(pgn.exists, 5)
        text = pgn.read_text()
        assert '[White "alice"]' in text and '[Site "' in text
        said = [c.text if hasattr(c, "text") else c["text"] for c in snap.chat]
        assert any("alice" in s for s in said), said  # the {opponent} greeting
        assert wait_until(lambda: any("Good game" in (c.text if hasattr(c, "text") else c["text"])
                                      for c in emu.game(cid).chat), 5)


def _texts(emu: Emulator, gid: str) -> list[str]:
    return [c.text if hasattr(c, "text") else c["text"] for c in emu.game(gid).chat]


def test_chat_commands(tmp_path: Path) -> None:
    with bot_and_emulator(tmp_path) as (emu, _bot):
        # The opponent stops moving (still connected) so the game cannot end before the
        # last command is answered, whatever the load; it resigns when the test says so.
        opp = OpponentSpec(policy="random", think_time_s=0.05, stall_after=2, seed=1)
        cid = emu.challenge_bot(challenger="bob", rated=False, clock_limit_s=120, increment_s=0,
                                color="white", opponent=opp)
        emu.wait_game_started(cid, 10)
        # The greeting proves the bot's game stream is connected (chat is not replayed).
        assert wait_until(lambda: any("Hi bob" in t for t in _texts(emu, cid)), 10)
        emu.chat.say(cid, "!help")
        assert wait_until(lambda: any("Commands:" in t for t in _texts(emu, cid)), 10)
        emu.chat.say(cid, "!name")
        assert wait_until(lambda: any("I am pibot" in t for t in _texts(emu, cid)), 10)
        emu.chat.say(cid, "!eval")  # the opponent asking: never told during the game
        assert wait_until(lambda: any("I don't tell that to my opponent" in t
                                      for t in _texts(emu, cid)), 10)
        assert not emu.game(cid).over
        emu.opponent_action(cid, "resign")
        snap = emu.wait_game_over(cid, 10)
        assert snap.status == "resign" and snap.winner == snap.bot_color
        assert all(len(t) <= 140 for t in _texts(emu, cid))


def test_opponent_resigns_and_draw_offer_declined(tmp_path: Path) -> None:
    with bot_and_emulator(tmp_path) as (emu, _bot):
        opp = OpponentSpec(policy="random", think_time_s=0.05, offer_draw_at=2, resign_after=4,
                           seed=5)
        cid = emu.challenge_bot(challenger="carol", rated=False, clock_limit_s=60,
                                increment_s=0, color="white", opponent=opp)
        snap = finish(emu, cid, 60)
        assert snap.status in ("resign", "mate") and snap.winner == snap.bot_color


@pytest.mark.parametrize("accept", [False, True], ids=["declined", "accepted"])
def test_takeback(tmp_path: Path, accept: bool) -> None:
    with bot_and_emulator(tmp_path, game={"accept_takebacks": accept}) as (emu, _bot):
        opp = OpponentSpec(policy="random", think_time_s=0.05, takeback_at=2, resign_after=5,
                           seed=7)
        cid = emu.challenge_bot(challenger="dave", rated=False, clock_limit_s=30,
                                increment_s=0, color="white", opponent=opp)
        emu.wait_game_started(cid, 10)
        assert wait_until(lambda: len(emu.game(cid).moves) >= 4 or emu.game(cid).over, 20)
        snap = emu.wait_game_over(cid, 60)
        assert snap.status in ("resign", "mate") and snap.winner == snap.bot_color, snap.status
        assert not any(snap.takeback_offers.values())
        takebacks = emu.traffic.count("POST /api/bot/game/*/takeback/*")
        assert takebacks >= 1
        answer = "yes" if accept else "no"
        assert any(r.path.endswith("/" + answer)
                   for r in emu.traffic.requests("POST /api/bot/game/*/takeback/*"))


def test_a_takeback_that_undoes_our_move_is_played_again(tmp_path: Path) -> None:
    """The opponent asks on its own turn, after our reply: lila takes back both moves,
    and when the opponent has moved again we must move again at the same ply (the
    bot used to remember that ply as played and wait for its clock to run out)."""
    with bot_and_emulator(tmp_path, game={"accept_takebacks": True}) as (emu, _bot):
        opp = OpponentSpec(policy="random", think_time_s=0.05, takeback_on_turn=2,
                           resign_after=5, seed=7)
        cid = emu.challenge_bot(challenger="erin", rated=False, clock_limit_s=60,
                                increment_s=0, color="white", opponent=opp)
        emu.wait_game_started(cid, 10)
        snap = emu.wait_game_over(cid, 90)
        assert any(r.path.endswith("/yes")
                   for r in emu.traffic.requests("POST /api/bot/game/*/takeback/*"))
        assert snap.status == "resign" and snap.winner == snap.bot_color, snap.status


def test_draw_accepted_by_rules(tmp_path: Path) -> None:
    # Lenient draw rule: any eval, any material, after one move: the offer is accepted.
    rules = {"offer_draw_enabled": True, "offer_draw_score": 10000, "offer_draw_moves": 1,
             "offer_draw_pieces": 32}
    with bot_and_emulator(tmp_path, draw_or_resign=rules) as (emu, _bot):
        opp = OpponentSpec(policy="random", think_time_s=0.3, offer_draw_at=3, seed=9,
                           accept_draw=False)
        cid = emu.challenge_bot(challenger="erin", rated=False, clock_limit_s=60,
                                increment_s=0, color="white", opponent=opp)
        snap = finish(emu, cid, 60)
        assert snap.status == "draw", snap.status


def test_opponent_gone_claims_victory(tmp_path: Path) -> None:
    with bot_and_emulator(tmp_path) as (emu, _bot):
        opp = OpponentSpec(policy="random", think_time_s=0.05, leave_after=3, seed=11)
        cid = emu.challenge_bot(challenger="frank", rated=False, clock_limit_s=120,
                                increment_s=0, color="white", opponent=opp)
        snap = finish(emu, cid, 60)
        assert snap.winner == snap.bot_color and snap.status in ("timeout", "resign"), snap


def test_abort_when_opponent_never_moves(tmp_path: Path) -> None:
    with bot_and_emulator(tmp_path, game={"abort_if_no_first_move_s": 1.0}) as (emu, _bot):
        opp = OpponentSpec(policy="random", think_time_s=60)
        cid = emu.challenge_bot(challenger="gina", rated=False, clock_limit_s=60,
                                increment_s=0, color="black", opponent=opp)  # bot is white
        snap = finish(emu, cid, 20)
        assert snap.status == "aborted", snap.status


def test_resume_after_restart(tmp_path: Path) -> None:
    emu = Emulator(fast_emulator_config()).start()
    try:
        gid = emu.start_game_directly(bot_color="white", moves=["e2e4", "e7e5"],
                                      clock_limit_s=60, increment_s=0,
                                      opponent=OpponentSpec(think_time_s=0.05, resign_after=6,
                                                            seed=2))
        bot = RunningBot(bot_config(emu.url, tmp_path), emu.token).start()
        try:
            snap = emu.wait_game_over(gid, 60)
        finally:
            bot.stop()
        assert snap.status in ("resign", "mate") and snap.winner == "white"
    finally:
        emu.stop()


def test_ponder_game(tmp_path: Path) -> None:
    moves: list[float] = []
    from bot.play.game import GameHooks

    hooks = GameHooks(on_move=lambda gid, overhead, think: moves.append(overhead))
    with bot_and_emulator(tmp_path, hooks=hooks, engine={"ponder": True}) as (emu, _bot):
        opp = OpponentSpec(policy="greedy", think_time_s=0.3, seed=12)
        cid = emu.challenge_bot(challenger="pete", rated=False, clock_limit_s=30,
                                increment_s=0, color="black", opponent=opp)
        snap = finish(emu, cid, 60)
        assert snap.over and not (snap.status == "outoftime" and snap.winner != snap.bot_color)
        assert moves, "no moves recorded"


@pytest.mark.parametrize("variant, fen", [
    ("chess960", None),
    ("fromPosition", "4k3/8/8/8/8/8/4P3/R3K2R b KQ - 0 1"),  # black (the opponent) moves first
])
def test_variants(tmp_path: Path, variant: str, fen: str | None) -> None:
    challenge = {"variants": ["standard", "chess960", "fromPosition"]}
    with bot_and_emulator(tmp_path, challenge=challenge) as (emu, _bot):
        opp = OpponentSpec(policy="random", think_time_s=0.05, resign_after=8, seed=13)
        cid = emu.challenge_bot(challenger="vera", rated=False, clock_limit_s=30,
                                increment_s=0, color="black", variant=variant,
                                initial_fen=fen, opponent=opp)
        snap = finish(emu, cid, 60)
        assert snap.winner == snap.bot_color or snap.status in ("draw", "stalemate"), snap
        pgn = (tmp_path / "games" / f"{cid}.pgn")
        assert wait_until(pgn.exists, 5)
        assert '[Variant "' in pgn.read_text()
