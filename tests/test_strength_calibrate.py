"""bench/strength_calibrate.py: resumable per-level games with real engines, its
table's statistics, and the ACPL judge (Stockfish 15.1 where installed)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import chess.pgn
import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("PIBOT_SHARED", ROOT.parent / "shared"))
sys.path.insert(0, str(ROOT / "bench"))

import strength_calibrate as sc  # noqa: E402

STOCKFISH = "/usr/games/stockfish"
# Black mates at once (Qh4#): each game is one move, whoever plays it.
FOOLS_MATE = '[Event "fool"]\n\n1. f3 e5 2. g4 *\n\n'


def test_the_score_and_its_error_as_the_match_harness_gives_them() -> None:
    even = sc.Score(wins=10, draws=20, losses=10)
    elo, lo, hi = even.elo()
    assert even.games == 40 and even.score == 0.5 and elo == 0
    assert -90 < lo < -60 and lo == -hi  # 40 games: about +-75 Elo
    ahead = sc.Score(wins=30, draws=10, losses=10)
    assert ahead.score == 0.7 and round(ahead.elo()[0]) == 147
    assert sc.Score(1, 0, 0).elo()[1:] == (float("-inf"), float("inf"))


def _book(tmp_path: Path) -> Path:
    book = tmp_path / "book.pgn"
    book.write_text(FOOLS_MATE * 3)
    return book


def _match_tool() -> Path:
    tool = SHARED / "tools" / "match.py"
    if not tool.is_file():
        pytest.skip("../shared/tools/match.py is not here")
    return tool


def test_games_resume_where_the_file_ends(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    tool = _match_tool()
    out = tmp_path / "out"
    args = ["--step", "200", "--levels", "1350", "--tc", "3+0.03", "--book", str(_book(tmp_path)),
            "--match-tool", str(tool), "--out", str(out), "--concurrency", "2"]
    assert sc.main([*args, "--games", "2"]) == 0
    pgn = out / "step-1350.pgn"
    assert len(list(sc.read_games(pgn))) == 2
    assert sc.main([*args, "--games", "4"]) == 0
    assert sc.main([*args, "--games", "4"]) == 0       # all there: nothing more
    games = list(sc.read_games(pgn))
    assert sorted(sc.played(pgn)) == [(0, False), (0, True), (1, False), (1, True)]
    assert len(games) == 4
    # Black mates: we win exactly the games we have Black in.
    assert sc.tally(pgn) == sc.Score(wins=2, draws=0, losses=2)
    for game in games:
        assert game.headers["OpeningPlies"] == "3" and game.headers["Result"] == "0-1"
    text = capsys.readouterr().out
    assert " 1350  vs-pibot1550     4  +2 =0 -2  0.500     +0 [" in text
    assert sc.main(["--report", "--step", "200", "--levels", "1350", "--out", str(out)]) == 0
    assert "1350  vs-pibot1550     4  +2 =0 -2" in capsys.readouterr().out


@pytest.mark.skipif(shutil.which(STOCKFISH) is None, reason="Debian's stockfish is not installed")
def test_full_strength_plays_stockfish_at_the_level(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    tool = _match_tool()
    out = tmp_path / "out"
    assert sc.main(["--full", "--levels", "1200", "--games", "2", "--tc", "3+0.03",
                    "--book", str(_book(tmp_path)), "--match-tool", str(tool),
                    "--out", str(out)]) == 0
    games = list(sc.read_games(out / "full-1200.pgn"))
    # Stockfish's range starts at 1350; each side mates once (Black mates at once).
    assert sorted((g.headers["White"], g.headers["Black"]) for g in games) == [
        ("pibot-full", "sf1350"), ("sf1350", "pibot-full")]
    assert sc.tally(out / "full-1200.pgn") == sc.Score(wins=1, draws=0, losses=1)
    assert " 1200  sf1350         2  +1 =0 -1" in capsys.readouterr().out


def test_full_is_not_a_ladder(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        sc.main(["--full", "--step", "200", "--report"])
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.endswith("--full plays against Stockfish: not with --step or --acpl")


@pytest.mark.skipif(shutil.which(STOCKFISH) is None, reason="Debian's stockfish is not installed")
def test_acpl_judges_each_side_once_and_resumes(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    game = chess.pgn.Game()
    game.headers.update({"White": "sf1500", "Black": "pibot1500", "OpeningIndex": "0",
                         "OpeningPlies": "2", "Result": "0-1"})
    node = game
    for san in ("e4", "e5", "Nf3", "Nc6", "Bc4", "Nd4", "Nxe5", "Qg5", "Nxf7", "Qxg2",
                "Rf1", "Qxe4+", "Be2", "Nf3#"):
        node = node.add_main_variation(node.board().parse_san(san))
    out = tmp_path / "out"
    out.mkdir()
    (out / "level-1500.pgn").write_text(str(game) + "\n\n")
    argv = ["--acpl", "--levels", "1500", "--out", str(out), "--depth", "12"]
    assert sc.main(argv) == 0
    text = capsys.readouterr().out
    assert "pibot     moves      6" in text and "stockfish moves      6" in text
    cache = (out / "acpl-1500.jsonl").read_text().splitlines()
    assert len(cache) == 1
    assert sc.main(argv) == 0  # judged already: read back, not again
    assert (out / "acpl-1500.jsonl").read_text().splitlines() == cache
    assert capsys.readouterr().out.splitlines()[1:] == text.splitlines()[1:]
