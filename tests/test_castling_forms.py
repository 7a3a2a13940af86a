"""Castling as lichess.org sends it (issue 23, item 5).

Since scalachess 167b2c60 (Sep 2025) lila's game streams write castling
king-takes-rook (`e1h1`) in standard chess too; the engine plays `e1g1`.  The
real Service plays a game over loopback HTTP against the emulator with
`castling_king_takes_rook`, and MoveForms is checked on its own."""

from __future__ import annotations

import json
import logging
import struct
from pathlib import Path

import chess
import chess.polyglot
import pytest
import requests
from test_service_helpers import (
    bot_and_emulator,
    fast_emulator_config,
    needs_engine,
    wait_until,
)

from bot.emulator import Emulator, OpponentSpec
from bot.emulator.config import DEFAULT_TOKEN
from bot.play.move_forms import MoveForms

MOVE = "POST /api/bot/game/*/move/*"
OPENING = ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5"]


def _book(path: Path) -> Path:
    """A polyglot book that plays 1.e4 2.Nf3 3.Bc4 4.O-O as white (polyglot
    writes castling king-takes-rook; the book reader gives e1g1)."""
    board, rows = chess.Board(), []
    for i, uci in enumerate([*OPENING, "e1h1"]):
        if i % 2 == 0:
            m = chess.Move.from_uci(uci)
            raw = (chess.square_file(m.to_square) | chess.square_rank(m.to_square) << 3
                   | chess.square_file(m.from_square) << 6
                   | chess.square_rank(m.from_square) << 9)
            rows.append((chess.polyglot.zobrist_hash(board), raw, 10))
        if i < len(OPENING):
            board.push_uci(uci)
    path.write_bytes(b"".join(struct.pack(">QHHI", k, m, w, 0) for k, m, w in sorted(rows)))
    return path


@needs_engine
def test_castling_echoed_king_takes_rook_counts_as_our_move(tmp_path: Path) -> None:
    book = _book(tmp_path / "castle.bin")
    engine = {"polyglot": {"enabled": True, "book": {"standard": [str(book)]},
                           "selection": "best_move", "max_depth": 20}}
    emu_cfg = fast_emulator_config(castling_king_takes_rook=True)
    with bot_and_emulator(tmp_path, emu_cfg=emu_cfg, engine=engine) as (emu, _bot):
        # The opponent thinks longer than the stall: the old code, not seeing `e1g1`
        # in a stream that says `e1h1`, re-posted the castling move and got a 400.
        opp = OpponentSpec(policy="scripted", moves=["e7e5", "b8c6", "f8c5"], think_time_s=1.5,
                           resign_after=5, seed=3)
        cid = emu.challenge_bot(challenger="carla", rated=False, clock_limit_s=120,
                                increment_s=0, color="black", opponent=opp)  # bot is white
        emu.wait_game_started(cid, 10)
        assert wait_until(lambda: len(emu.game(cid).moves) >= 5, 30)
        # Our next move (castling, from the book) is applied but never answered.
        emu.faults.inject("stall", MOVE, duration_s=1.0, apply=True)
        snap = emu.wait_game_over(cid, 60)
        assert snap.moves[:7] == [*OPENING, "e1h1"], snap.moves  # as lila writes it
        assert snap.status == "resign" and snap.winner == snap.bot_color, snap
        stalled = [r for r in emu.traffic.requests(MOVE) if r.status == 0]
        assert len(stalled) == 1 and stalled[0].path.endswith("/e1g1"), stalled
        assert [r for r in emu.traffic.requests(MOVE) if r.status == 400] == []


# White mates in 2 only by castling (1.O-O Ke2 2.Re1#), and Black's reply is forced:
# the engine's ponder move is the move the opponent plays.
CASTLE_MATE = "8/8/8/8/4p3/4k3/7N/3RK2R w K - 0 1"


@needs_engine
def test_ponder_after_castling_hits_when_the_stream_says_e1h1(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="bot.play.thinker")
    emu_cfg = fast_emulator_config(castling_king_takes_rook=True)
    with bot_and_emulator(tmp_path, emu_cfg=emu_cfg, engine={"ponder": True},
                          challenge={"variants": ["standard", "fromPosition"]}) as (emu, _bot):
        opp = OpponentSpec(policy="random", think_time_s=1.0, seed=4)
        cid = emu.challenge_bot(challenger="pia", rated=False, clock_limit_s=60, increment_s=0,
                                color="black", initial_fen=CASTLE_MATE, opponent=opp)
        emu.wait_game_started(cid, 10)
        snap = emu.wait_game_over(cid, 30)
    assert snap.moves == ["e1h1", "e3e2", "f1e1"], snap.moves  # castling as lila writes it
    assert snap.status == "mate" and snap.winner == "white", snap
    hits = [r.getMessage() for r in caplog.records if "ponderhit" in r.getMessage()]
    # The old code compared the pondered line (e1g1 e3e2) with the stream's (e1h1 e3e2)
    # as strings: no ponderhit, a fresh search on our clock.
    assert len(hits) == 1 and hits[0].endswith("ponderhit after e3e2"), hits


@pytest.mark.parametrize("posted", ["e1g1", "e1h1"])
def test_emulator_writes_castling_king_takes_rook_and_takes_both(posted: str) -> None:
    with Emulator(fast_emulator_config(castling_king_takes_rook=True)) as emu:
        gid = emu.start_game_directly(bot_color="white", moves=OPENING,
                                      opponent=OpponentSpec(think_time_s=5))
        r = requests.post(f"{emu.url}/api/bot/game/{gid}/move/{posted}", timeout=5,
                          headers={"Authorization": f"Bearer {DEFAULT_TOKEN}"})
        assert r.status_code == 200, r.text
        with requests.get(f"{emu.url}/api/bot/game/stream/{gid}", stream=True, timeout=5,
                          headers={"Authorization": f"Bearer {DEFAULT_TOKEN}"}) as resp:
            full = json.loads(next(ln for ln in resp.iter_lines() if ln.strip()))
        assert full["state"]["moves"].split() == [*OPENING, "e1h1"]


def test_move_forms_spell_castling_as_the_engine_does() -> None:
    std = MoveForms(None, chess960=False)
    assert std.canonical([*OPENING, "e1h1"]) == [*OPENING, "e1g1"]
    assert std.canonical([*OPENING, "e1h1", "g8f6"]) == [*OPENING, "e1g1", "g8f6"]
    assert std.canonical(OPENING[:4]) == OPENING[:4]  # a takeback re-reads the list
    assert std.same(OPENING, "e1h1", "e1g1") and not std.same(OPENING, "e1g1", "e1f1")
    # Chess960 (position 518 is the standard set-up): king-takes-rook is the engine's form.
    c960 = MoveForms("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", chess960=True)
    assert c960.canonical([*OPENING, "e1g1"])[-1] == "e1h1"
    # A rook going e1-h1 is a rook move, not castling.
    rook = MoveForms("4k3/8/8/8/8/8/6K1/4R3 w - - 0 1", chess960=False)
    assert rook.canonical(["e1h1"]) == ["e1h1"]
    # A move that does not parse is kept as it came, and so is the rest.
    assert std.canonical([*OPENING, "zz", "e1h1"]) == [*OPENING, "zz", "e1h1"]
