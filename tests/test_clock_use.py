"""bench/clock_use.py plays real engines under a real clock and reports their time use."""

from __future__ import annotations

import re
import subprocess
import sys

from conftest import ROOT

UCI = f"{sys.executable} -m bot.cli uci"


def test_two_pibots_at_bullet_report_time_per_move_and_clock_left(tmp_path) -> None:
    book = tmp_path / "one.pgn"
    book.write_text('[Event "?"]\n\n1. e4 e5 2. Nf3 Nc6 *\n')
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench/clock_use.py"), "--a", UCI, "--b", UCI,
         "--tc", "2+0.05", "--games", "2", "--book", str(book), "--option", "Hash=8"],
        capture_output=True, text=True, timeout=240, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert [ln.split(":")[0] for ln in lines[:2]] == ["game 1", "game 2"]
    assert "A white" in lines[0] and "A black" in lines[1]
    for name in ("A", "B"):
        row = next(ln for ln in lines if ln.startswith(f"{name} "))
        m = re.search(r": (\d+) moves, (\d+) ms a move; clock left (.*)$", row)
        assert m, row
        moves, ms = int(m[1]), int(m[2])
        # two games from move 3 on: each side moved; at 2+0.05 a move costs well under 2 s
        assert moves >= 2 and 0 < ms < 2000, row
        for left in re.findall(r"after move \d+: +([\d.]+) s", m[3]):
            assert 0 < float(left) < 2 + 0.05 * 60, row
