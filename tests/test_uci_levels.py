"""`pibot uci` as a real subprocess: MultiPV, UCI_LimitStrength and UCI_Elo."""

from __future__ import annotations

import re

import chess
import pytest

from bot.engine.strength import MAX_ELO, MIN_ELO, level_params
from tests.uci_process import Uci

INFO = re.compile(r"info depth (\d+) seldepth \d+ multipv (\d+) score (cp|mate) (-?\d+) "
                  r".* pv (.+)$")


def _infos(lines: list[str]) -> list[tuple[int, int, str, int, list[str]]]:
    found = []
    for line in lines:
        m = INFO.match(line)
        if m:
            found.append((int(m[1]), int(m[2]), m[3], int(m[4]), m[5].split()))
    return found


def test_the_options_are_announced(uci: Uci) -> None:
    uci.send("uci")
    text = "\n".join(uci.expect("uciok"))
    assert "option name MultiPV type spin default 1 min 1 max 256" in text
    assert "option name UCI_LimitStrength type check default false" in text
    assert f"option name UCI_Elo type spin default 1350 min {MIN_ELO} max {MAX_ELO}" in text


def test_multipv_lines_as_analysis_guis_read_them(uci: Uci) -> None:
    uci.send("setoption name MultiPV value 3", "position startpos moves e2e4 e7e5", "go depth 7")
    lines = uci.expect("bestmove")
    last = [i for i in _infos(lines) if i[0] == 7]
    assert [i[1] for i in last] == [1, 2, 3], lines[-6:]
    firsts = [i[4][0] for i in last]
    assert len(set(firsts)) == 3
    assert [i[3] for i in last] == sorted((i[3] for i in last), reverse=True)
    board = chess.Board()
    board.push_uci("e2e4")
    board.push_uci("e7e5")
    assert {chess.Move.from_uci(m) for m in firsts} <= set(board.legal_moves)
    assert lines[-1].split()[1] == firsts[0]
    uci.send("setoption name MultiPV value 1", "go depth 5")
    lines = uci.expect("bestmove")
    assert {i[1] for i in _infos(lines)} == {1}


@pytest.mark.parametrize("command,shown", [
    ("setoption name MultiPV value 0", "MultiPV 0 is out of range 1..256; keeping 1"),
    ("setoption name MultiPV value 300", "MultiPV 300 is out of range 1..256; keeping 1"),
    ("setoption name UCI_Elo value 5000",
     f"UCI_Elo 5000 is out of range {MIN_ELO}..{MAX_ELO}; keeping 1350"),
    ("setoption name UCI_Elo value 100",
     f"UCI_Elo 100 is out of range {MIN_ELO}..{MAX_ELO}; keeping 1350"),
    ("setoption name UCI_Elo value strong", "UCI_Elo value 'strong' is not an integer"),
    ("setoption name UCI_LimitStrength value maybe",
     "UCI_LimitStrength must be true or false, got 'maybe'"),
])
def test_a_value_out_of_range_is_one_clear_line(uci: Uci, command: str, shown: str) -> None:
    uci.send(command, "isready")
    lines = uci.expect("readyok")
    errors = [ln for ln in lines if ln.startswith("info string")]
    assert len(errors) == 1 and errors[0].endswith(shown), lines


def test_limit_strength_plays_the_level_and_back(uci: Uci) -> None:
    """With UCI_LimitStrength the search stops at the level's depth whatever
    `go` asks; without it, full strength again."""
    cap = level_params(1500).depth
    uci.send("setoption name UCI_Elo value 1500", "setoption name UCI_LimitStrength value true",
             "position startpos moves d2d4", "go depth 12")
    lines = uci.expect("bestmove")
    infos = _infos(lines)
    assert infos and max(i[0] for i in infos) <= cap
    assert len({i[1] for i in infos}) >= level_params(1500).multipv  # its candidates, shown
    board = chess.Board()
    board.push_uci("d2d4")
    assert chess.Move.from_uci(lines[-1].split()[1]) in board.legal_moves
    uci.send("setoption name UCI_LimitStrength value false", "go depth 8")
    lines = uci.expect("bestmove")
    assert max(i[0] for i in _infos(lines)) == 8


def test_a_level_on_the_clock_answers_and_stops(uci: Uci) -> None:
    uci.send("setoption name UCI_LimitStrength value true", "setoption name UCI_Elo value 1200",
             "position startpos", "go wtime 3000 btime 3000 winc 30 binc 30")
    lines = uci.expect("bestmove", timeout=30)
    assert chess.Move.from_uci(lines[-1].split()[1]) in chess.Board().legal_moves
    # A long clock: the level would think for seconds; stop answers at once.
    uci.send("go wtime 600000 btime 600000", "stop")
    uci.expect("bestmove", timeout=5)
