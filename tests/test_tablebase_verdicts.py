"""The Syzygy verdict at the root in real games (draw_or_resign.*_tablebase_*):
the bot resigns a tablebase loss, offers a draw in a tablebase draw (with its
move, ?offeringDraw=true), and plays on when the keys are off."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_service_helpers import bot_and_emulator, needs_engine

from bot.emulator import OpponentSpec

pytestmark = needs_engine

TABLES = Path(__file__).parent / "data" / "syzygy"
# The bot has Black and only its king: a rook's pawn that White cannot promote (a
# tablebase draw), and a queen that mates (a tablebase loss).
DRAWN = "8/4k3/8/8/8/8/P7/K7 w - - 0 1"
LOST = "8/8/8/4k3/8/8/8/KQ6 w - - 0 1"
# White's first moves, scripted so that no random move hangs the pawn or the queen
# (the game would end drawn by insufficient material).
KING_WALK = ["a1b1", "b1c1", "c1d1", "d1e1"]
KING_SHUFFLE = ["a1a2", "a2a1", "a1a2", "a2a1"]  # guarding the queen on b1


def _sections(**draw_or_resign: Any) -> dict[str, Any]:
    return {"engine": {"syzygy": {"enabled": True, "paths": [str(TABLES)]}},
            "draw_or_resign": {"resign_enabled": True, **draw_or_resign}}


def _opponent(walk: list[str], **kw: Any) -> OpponentSpec:
    return OpponentSpec(policy="scripted", moves=walk, think_time_s=0.02, accept_draw=True,
                        **kw)


def test_tablebase_draw_is_offered_with_the_move_and_accepted(tmp_path: Path) -> None:
    with bot_and_emulator(tmp_path, **_sections()) as (emu, _bot):
        gid = emu.start_game_directly(bot_color="black", initial_fen=DRAWN, clock_limit_s=60,
                                      opponent=_opponent(KING_WALK))
        snap = emu.wait_game_over(gid, 60)
        # Not with the bot's first move (ply 1: lila drops an offer before ply 2), but
        # with its second, played, and the opponent accepts it.
        assert snap.status == "draw" and snap.winner is None, snap.status
        assert len(snap.moves) == 4, snap.moves


def test_tablebase_loss_is_resigned(tmp_path: Path) -> None:
    with bot_and_emulator(tmp_path, **_sections()) as (emu, _bot):
        gid = emu.start_game_directly(bot_color="black", initial_fen=LOST, clock_limit_s=60,
                                      opponent=_opponent(KING_SHUFFLE))
        snap = emu.wait_game_over(gid, 60)
        # A resignation before ply 2 would abort the game (lila BotPlayer.resign):
        # the bot plays once, then resigns at ply 3.
        assert snap.status == "resign" and snap.winner == "white", snap.status
        assert len(snap.moves) == 3, snap.moves


@pytest.mark.parametrize("fen", [DRAWN, LOST], ids=["draw", "loss"])
def test_with_the_keys_off_the_bot_plays_on(tmp_path: Path, fen: str) -> None:
    sections = _sections(resign_for_tablebase_loss=False, offer_draw_for_tablebase_draw=False)
    with bot_and_emulator(tmp_path, **sections) as (emu, _bot):
        # The opponent would accept a draw, and resigns instead of its 5th move.
        gid = emu.start_game_directly(bot_color="black", initial_fen=fen, clock_limit_s=60,
                                      opponent=_opponent(KING_WALK if fen == DRAWN
                                                         else KING_SHUFFLE, resign_after=4))
        snap = emu.wait_game_over(gid, 60)
        assert snap.status == "resign" and snap.winner == "black", snap.status
        assert len(snap.moves) == 8, snap.moves


@pytest.mark.parametrize("fen,walk", [(DRAWN, KING_WALK), (LOST, KING_SHUFFLE)],
                         ids=["draw", "loss"])
def test_an_offered_draw_is_accepted_when_the_tables_say_draw_or_loss(
        tmp_path: Path, fen: str, walk: list[str]) -> None:
    # Before any search: the evaluation rules alone (offer_draw_moves) would decline.
    with bot_and_emulator(tmp_path, **_sections(resign_enabled=False)) as (emu, _bot):
        gid = emu.start_game_directly(bot_color="black", initial_fen=fen, clock_limit_s=60,
                                      opponent=_opponent(walk, offer_draw_at=1))
        snap = emu.wait_game_over(gid, 60)
        # Accepted with the bot's first move, which lila then does not play.
        assert snap.status == "draw" and snap.moves == walk[:1], (snap.status, snap.moves)


def test_the_rules_keep_to_what_lila_allows() -> None:
    from bot.config import DrawOrResignConfig
    from bot.play.game_rules import DrawResign

    rules = DrawResign(DrawOrResignConfig(resign_enabled=True))
    # BotPlayer.resign aborts before ply 2; playerCanOfferDraw: ply >= 2 and no offer
    # of ours within 20 plies.
    assert not rules.tablebase_resign(-2, 1) and rules.tablebase_resign(-2, 2)
    assert not rules.tablebase_resign(0, 5) and not rules.tablebase_resign(2, 5)
    assert not rules.tablebase_offer(0, 1) and rules.tablebase_offer(0, 2)
    assert not rules.tablebase_offer(0, 20) and rules.tablebase_offer(0, 22)
    assert not rules.tablebase_offer(-2, 60) and not rules.tablebase_offer(2, 60)
    assert rules.draw_acceptable(3, 0) and rules.draw_acceptable(3, -2)
    assert not rules.draw_acceptable(3, 2)
    off = DrawResign(DrawOrResignConfig(resign_enabled=False, offer_draw_enabled=False))
    assert not off.tablebase_resign(-2, 9) and not off.tablebase_offer(0, 9)
    assert not off.draw_acceptable(3, 0)
