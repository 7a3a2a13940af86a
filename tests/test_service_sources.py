"""Move sources in real games: the service asks book -> Syzygy -> online before
searching, plays their moves at once and marks them in the saved PGN; a slow
online source falls back to the engine without costing the game."""

from __future__ import annotations

import io
import logging
import re
from pathlib import Path

import chess
import chess.pgn
import pytest
from test_book import write_book
from test_service_helpers import (
    RunningBot,
    bot_and_emulator,
    bot_config,
    fast_emulator_config,
    needs_engine,
    wait_until,
)

from bot.emulator import CloudPv, Emulator, OpponentSpec

pytestmark = needs_engine

TABLES = Path(__file__).parent / "data" / "syzygy"


def pgn_of(tmp: Path, gid: str) -> chess.pgn.Game:
    path = tmp / "games" / f"{gid}.pgn"
    assert wait_until(path.exists, 10), "no PGN saved"
    game = chess.pgn.read_game(io.StringIO(path.read_text()))
    assert game is not None
    return game


def comments(game: chess.pgn.Game) -> list[str]:
    """Each move's note (the move source), without the [%eval] and [%clk] commands
    every move carries (issue 35: PGNs as Lichess exports them)."""
    return [re.sub(r"\[%\w+ [^\]]*\]", "", node.comment).strip() for node in game.mainline()]


def play(*ucis: str) -> chess.Board:
    board = chess.Board()
    for u in ucis:
        board.push_uci(u)
    return board


def test_book_moves_are_instant_and_marked_in_the_pgn(tmp_path: Path,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="bot.play.game_sources")
    book = write_book(tmp_path / "mini.bin", [
        (play(), "e2e4", 10),
        (play("e2e4", "e7e5"), "g1f3", 10),
        (play("e2e4", "e7e5", "g1f3", "b8c6"), "f1b5", 10)])
    poly = {"enabled": True, "book": {"standard": [str(book)]}, "selection": "best_move"}
    with bot_and_emulator(tmp_path, engine={"polyglot": poly}) as (emu, _bot):
        opp = OpponentSpec(policy="scripted", moves=["e7e5", "b8c6"], resign_after=2,
                           think_time_s=0.05)
        cid = emu.challenge_bot(challenger="alice", rated=False, clock_limit_s=180,
                                increment_s=0, color="black", opponent=opp)
        emu.wait_game_started(cid, 10)
        snap = emu.wait_game_over(cid, 60)
        assert snap.moves[:5] == ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"]
        assert snap.status == "resign" and snap.winner == "white"
        # Two clocked book moves (Nf3, Bb5): no search, only the round trip. A search
        # at 3+0 would take seconds each.
        assert snap.wtime_ms >= 178_000, snap.wtime_ms
        assert comments(pgn_of(tmp_path, cid)) == ["book", "", "book", "", "book"]
        # ... and the game log says so, move by move.
        said = [r.getMessage() for r in caplog.records if "book move" in r.getMessage()]
        assert [m.split("book move ")[1].split()[0] for m in said] == ["e2e4", "g1f3", "f1b5"], said


@pytest.mark.parametrize("fen", ["8/8/8/4k3/8/8/8/KQ6 w - - 0 1",
                                 "8/8/3k4/8/8/8/8/K6R w - - 0 1"], ids=["KQvK", "KRvK"])
def test_syzygy_moves_win_the_ending(tmp_path: Path, fen: str) -> None:
    tb = {"enabled": True, "paths": [str(TABLES)]}
    with bot_and_emulator(tmp_path, engine={"syzygy": tb}) as (emu, _bot):
        gid = emu.start_game_directly(bot_color="white", initial_fen=fen, clock_limit_s=60,
                                      opponent=OpponentSpec(policy="random", seed=2,
                                                            think_time_s=0.02))
        snap = emu.wait_game_over(gid, 90)
        assert snap.status == "mate" and snap.winner == "white", snap.status
        marks = comments(pgn_of(tmp_path, gid))
        assert marks[0::2] == ["syzygy"] * len(marks[0::2])  # every move of ours
        assert not any(marks[1::2])


def _online(emu: Emulator) -> dict[str, object]:
    return {"explorer_url": emu.url, "tablebase_url": emu.url, "cloud_url": emu.url,
            "lichess_cloud_analysis": {"enabled": True, "min_depth": 0, "timeout_s": 0.3,
                                       "min_time": 10}}


@pytest.mark.parametrize("fault", ["slow", "http_error"])
def test_slow_or_failing_online_source_falls_back_to_the_engine(tmp_path: Path,
                                                                 fault: str) -> None:
    # The online URLs are the emulator's own, so the emulator starts first.
    emu = Emulator(fast_emulator_config()).start()
    try:
        bot = RunningBot(bot_config(emu.url, tmp_path, engine={"online_moves": _online(emu)}),
                         emu.token).start()
        try:
            # The cloud would say a2a3 (an engine never plays it here), but answers
            # slowly (3 s > timeout_s) or with HTTP 503.
            emu.online.set_cloud_eval(chess.STARTING_FEN, [CloudPv("a2a3", cp=30)])
            if fault == "slow":
                emu.faults.inject("slow", "GET /api/cloud-eval", duration_s=3, count=None)
            else:
                emu.faults.inject("http_error", "GET /api/cloud-eval", status=503, count=None)
            opp = OpponentSpec(policy="random", seed=4, think_time_s=0.05, resign_after=6)
            cid = emu.challenge_bot(challenger="alice", rated=False, clock_limit_s=60,
                                    increment_s=0, color="black", opponent=opp)
            emu.wait_game_started(cid, 10)
            snap = emu.wait_game_over(cid, 90)
            assert snap.status == "resign" and snap.winner == "white", snap.status
            assert snap.moves[0] != "a2a3"
            assert emu.traffic.count("GET /api/cloud-eval") >= 1
            assert comments(pgn_of(tmp_path, cid))[0] == ""  # searched
            # Answering quickly again, the same source supplies the move, marked as such.
            emu.faults.clear()
            assert wait_until(lambda: bot.service is not None
                              and not bot.service.supervisor.games, 15)
            cid = emu.challenge_bot(challenger="bob", rated=False, clock_limit_s=60,
                                    increment_s=0, color="black", opponent=opp)
            emu.wait_game_started(cid, 10)
            snap = emu.wait_game_over(cid, 90)
            assert snap.moves[0] == "a2a3"
            assert comments(pgn_of(tmp_path, cid))[0] == "lichess_cloud_analysis"
            assert wait_until(lambda: bot.service is not None
                              and not bot.service.supervisor.games, 15)
        finally:
            bot.stop()
    finally:
        emu.stop()
