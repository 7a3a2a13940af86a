"""bench/match_engine.py --skip-openings: the later part of a longer run."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
sys.path.insert(0, str(ROOT / "bench"))

import match_engine  # noqa: E402


def test_two_halves_play_the_openings_of_one_400_game_run(tmp_path: Path) -> None:
    tool = SHARED / "tools" / "match.py"
    if not tool.is_file():
        pytest.skip("../shared/tools/match.py is not here")
    # A book of 300 distinct openings (the real one parses for seconds).
    firsts = ["a3", "a4", "b3", "b4", "c3", "c4", "d3", "d4", "e3", "e4", "f3", "f4",
              "g3", "g4", "h3", "h4", "Na3", "Nc3", "Nf3", "Nh3"]
    replies = ["a6", "a5", "b6", "b5", "c6", "c5", "d6", "d5", "e6", "e5", "f6", "f5",
               "g6", "g5", "h6"]
    book = tmp_path / "book.pgn"
    book.write_text("".join(f'[Event "{n}"]\n\n1. {w} {b} *\n\n' for n, (w, b) in
                            enumerate((w, b) for w in firsts for b in replies)))
    spec = importlib.util.spec_from_file_location("shared_match", tool)
    assert spec is not None and spec.loader is not None
    match = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(match)
    # match.py loads games // 2 + 1 openings and gives opening i // 2 to game i.
    whole = match.load_openings(str(book), 400 // 2 + 1, 1)
    first = match.load_openings(str(book), 200 // 2 + 1, 1)
    second = match_engine.skipping(match.load_openings, 100)(str(book), 200 // 2 + 1, 1)
    assert first[:100] == whole[:100] and second[:100] == whole[100:200]
    assert first[:100] != second[:100]


def test_a_negative_skip_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        match_engine.main(["--skip-openings", "-1", "--match-tool", __file__])
    assert exit_.value.code == 2 and "--skip-openings: 0 or more" in capsys.readouterr().err
