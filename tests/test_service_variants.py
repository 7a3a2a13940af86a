"""Issue 34's "done when" for the bot: over real HTTP against the emulator, the
bot accepts and plays a game of each of the seven variants to its end, legal
throughout, with its own engine (no fallback move), and records it.

The seven games run at once (challenge.concurrency 7): each is a 30+0 bullet
game, so the engine's time management bounds it, and the test costs about one
game's time.  The emulator referees with python-chess's chess.variant boards
(it answers an illegal move with HTTP 400), and every game is replayed here on
a fresh python-chess board as well."""

from __future__ import annotations

import logging
from pathlib import Path

import chess
import pytest
from test_service_helpers import bot_and_emulator, needs_engine, wait_until

from bot import variants
from bot.emulator import OpponentSpec

pytestmark = needs_engine

# A natural end, a resignation of the opponent (its guard below), or a flag fall.
ENDS = ("mate", "variantEnd", "stalemate", "draw", "resign", "outoftime")
# The opponent resigns at its 80th move: a horde game between a pawn storm and a
# greedy mover can run long, and the suite's time is bounded.
OPPONENT_MOVES = 80


def test_the_bot_plays_every_variant_to_its_end_over_http(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    seven = variants.OWN_RULES
    with bot_and_emulator(tmp_path, challenge={"variants": list(seven), "concurrency": 7,
                                               "time_controls": ["bullet"]}) as (emu, bot):
        games: dict[str, str] = {}
        for i, variant in enumerate(seven):
            opp = OpponentSpec(policy="greedy", think_time_s=0.05, seed=i,
                               resign_after=OPPONENT_MOVES)
            games[variant] = emu.challenge_bot(
                challenger=f"fan{i}", rated=False, variant=variant, clock_limit_s=30,
                increment_s=0, color="white" if i % 2 else "black", opponent=opp)
        for variant, gid in games.items():
            assert emu.challenges.wait_answered(gid, 15) == "accepted", variant
        snaps = {v: emu.wait_game_over(gid, 150) for v, gid in games.items()}
        for variant, snap in snaps.items():
            assert snap.status in ENDS, (variant, snap.status)
            if snap.status == "outoftime":
                assert snap.winner == snap.bot_color, f"{variant}: the bot lost on time"
            # Replayed on python-chess's board of the variant: every move legal.
            board = variants.get(variant).start_board()
            for ply, uci in enumerate(snap.moves):
                move = chess.Move.from_uci(uci)
                assert move in board.legal_moves, (variant, ply, uci, board.fen())
                board.push(move)
            if snap.status in ("mate", "variantEnd"):
                assert board.is_game_over(), (variant, board.fen())
            assert len(snap.moves) >= 2, variant  # the bot moved, not just the opponent
        # Every move the bot posted was taken (an illegal one is a 400).
        posts = emu.traffic.requests("POST /api/bot/game/*/move/*")
        assert posts and all(r.status == 200 for r in posts), \
            [(r.path, r.status) for r in posts if r.status != 200]
        # Its own engine chose them: no search failed over to a fallback move.
        assert "engine failed" not in caplog.text
        assert "not legal here" not in caplog.text  # the stream's moves all read
        for variant, gid in games.items():
            pgn = tmp_path / "games" / f"{gid}.pgn"
            assert wait_until(pgn.exists, 10), variant
            assert f'[Variant "{variants.get(variant).name}"]' in pgn.read_text()
        assert bot.thread.is_alive() and bot.error is None


def test_the_bot_mates_with_a_drop_from_a_pocket(tmp_path: Path) -> None:
    # The black king is boxed in by its own pawns; White holds a rook in its pocket:
    # a rook dropped on the back rank mates (R@a8 ... R@f8). The drop travels as
    # `R@a8`-style UCI in the move POST and back in the game stream.
    fen = "7k/6pp/8/8/8/8/8/K7[R] w - - 0 1"
    with bot_and_emulator(tmp_path, challenge={"variants": ["crazyhouse"]}) as (emu, _bot):
        gid = emu.challenge_bot(challenger="zhfan", rated=False, variant="crazyhouse",
                                clock_limit_s=60, increment_s=0, color="black",
                                initial_fen=fen, opponent=OpponentSpec(policy="random"))
        emu.wait_game_started(gid, 15)
        snap = emu.wait_game_over(gid, 60)
        assert (snap.status, snap.winner) == ("mate", "white"), snap.moves
        assert len(snap.moves) == 1 and snap.moves[0][:2] == "R@", snap.moves
