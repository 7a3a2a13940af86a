"""bench/sources_match.py reads match.py's summary and compares the two runs."""

from __future__ import annotations

import importlib.util
import sys

from conftest import ROOT

_spec = importlib.util.spec_from_file_location("sources_match", ROOT / "bench/sources_match.py")
assert _spec is not None and _spec.loader is not None
sm = importlib.util.module_from_spec(_spec)
sys.modules["sources_match"] = sm  # dataclasses look their module up by name
_spec.loader.exec_module(sm)

# match.py's real output (the 9adcb14 Phalanx run in docs/strength.md).
OUT = """phalanx    n= 200 +170 =23 -7 score=0.907 elo=+397 [+338,+478]
terminations: {'maxplies': 1, 'rules': 199}
"""


def test_summary_line_is_read_and_elo_agrees_with_match_py() -> None:
    res = sm.parse_summary(OUT)
    assert res is not None
    assert (res.wins, res.draws, res.losses, res.elo_lo, res.elo_hi) == (170, 23, 7, 338, 478)
    assert round(res.elo) == 397
    assert "score 90.8%" in res.line("with") and "[+338, +478]" in res.line("with")
    assert sm.parse_summary("terminations: {}\n") is None


def test_difference_sign_and_error_bar() -> None:
    strong = sm.Result(170, 23, 7, 338, 478)
    weak = sm.Result(150, 30, 20, 0, 0)
    diff, margin = sm.difference(strong, weak)
    assert diff > 0 and 20 < margin < 200
    back, margin2 = sm.difference(weak, strong)
    assert back == -diff and margin2 == margin
    assert sm.difference(strong, strong)[0] == 0
