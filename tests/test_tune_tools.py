"""tools/tune: the variant builder that A/B matches (docs/strength.md) rely on."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import ROOT


def test_build_variant_makes_a_working_uci_engine(tmp_path: Path) -> None:
    # The engine embeds the NNUE net (engine_c/nnue_embed.c), so a copy of
    # the sources without engine_c/nets/ cannot build: the script must copy it.
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    out = tmp_path / "variant"
    build = subprocess.run(["sh", str(ROOT / "tools/tune/build_variant.sh"), str(out),
                            str(ROOT / "engine_c/evalparams.h")],
                           env=env, timeout=900, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    proc = subprocess.run([str(out / "pibot-uci")], input="uci\nisready\nquit\n", env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "uciok" in proc.stdout and "readyok" in proc.stdout, proc.stdout


def _pgn(games: list[tuple[str, str, str, str]]) -> str:
    """games: (white, black, result, movetext) -> a PGN in fastchess's layout."""
    return "\n\n".join(
        f'[Event "t"]\n[White "{w}"]\n[Black "{b}"]\n[Result "{r}"]\n\n'
        f"1. e4 {{book}} e5 {{book}} {moves} {r}" for w, b, r, moves in games) + "\n"


def test_paired_score_pairs_games_by_opening_and_colour(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "tools" / "tune"))
    import paired_score

    # Same two openings, both colours. The candidate wins where the baseline
    # drew and draws where it lost: +0.5 a pair on each of the four pairs,
    # however the files order them. An extra game of the new file without a
    # twin in the old one, and an unfinished one, are left out.
    new = _pgn([("pibot", "eth", "1-0", "2. Nf3 {+0.3/9} Nc6"),
                ("eth", "pibot", "1/2-1/2", "2. Nf3 Nc6"),
                ("pibot", "eth", "1/2-1/2", "2. Bc4 Bc5"),
                ("eth", "pibot", "0-1", "2. Bc4 Bc5"),
                ("pibot", "eth", "1-0", "2. d4 exd4"),
                ("pibot", "eth", "*", "2. Nc3 Nf6")])
    old = _pgn([("eth", "pibot", "1-0", "2. Bc4 Bc5"),
                ("pibot", "eth", "1/2-1/2", "2. Nf3 Nc6"),
                ("eth", "pibot", "1-0", "2. Nf3 Nc6"),
                ("pibot", "eth", "0-1", "2. Bc4 Bc5")])
    (tmp_path / "new.pgn").write_text(new)
    (tmp_path / "old.pgn").write_text(old)
    c = paired_score.compare(paired_score.load(tmp_path / "new.pgn", "pibot"),
                             paired_score.load(tmp_path / "old.pgn", "pibot"))
    assert c.pairs == 4
    assert (c.score_new, c.score_old) == (0.75, 0.125)
    assert c.diff == 0.625 and c.half_width > 0
    d, h = c.elo_diff()
    assert d == paired_score.elo(0.75) - paired_score.elo(0.125) and h > 0

    # A PGN of other engines' games, or of no games, is one line naming it.
    (tmp_path / "other.pgn").write_text(_pgn([("a", "b", "1-0", "2. Nf3 Nc6")]))
    for bad, why in (("other.pgn", "pass --name"), ("missing.pgn", "cannot read")):
        proc = subprocess.run([sys.executable, str(ROOT / "tools/tune/paired_score.py"),
                               str(tmp_path / bad), str(tmp_path / "old.pgn")],
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2 and why in proc.stderr, proc.stderr
        assert "Traceback" not in proc.stderr and len(proc.stderr.splitlines()) == 1
