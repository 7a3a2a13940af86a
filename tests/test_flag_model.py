"""bench/flag_model.py: the model games use the engine's own time manager and
agree with the physics (fewer moves with slower round trips, never more than
a bot that does not think)."""

from __future__ import annotations

import importlib.util
import sys

from conftest import ROOT

_spec = importlib.util.spec_from_file_location("flag_model", ROOT / "bench/flag_model.py")
assert _spec is not None and _spec.loader is not None
fm = importlib.util.module_from_spec(_spec)
sys.modules["flag_model"] = fm
_spec.loader.exec_module(fm)


def table(capsys, *args: str) -> dict[str, list[float]]:
    assert fm.main(["--games", "40", *args]) == 0
    rows = capsys.readouterr().out.splitlines()[2:]
    return {r.split()[0]: [float(x) for x in r.split()[1:]] for r in rows}


def test_slower_round_trips_reach_fewer_moves_and_thinking_never_helps(capsys) -> None:
    slow = table(capsys, "--tc", "30+0,60+0")
    fast = table(capsys, "--tc", "30+0,60+0", "--rtt", "20-60", "--extra", "10",
                 "--stall-s", "0", "--drop-rate", "0", "--overhead", "150")
    for tc in ("30+0", "60+0"):
        lo, p5, median, think, bound = slow[tc]
        assert lo <= p5 <= median <= bound  # a thinking bot never outlasts a non-thinking one
        assert think > 0
        assert fast[tc][2] > median        # a shorter round trip carries a longer game
    assert slow["60+0"][2] > slow["30+0"][2]
    # 30+0 at 80-250 ms: the round trips alone end the game well before move 150
    assert slow["30+0"][4] < 150


def test_bad_arguments_are_one_error(capsys) -> None:
    import pytest

    with pytest.raises(SystemExit):
        fm.main(["--rtt", "fast"])
    assert "--rtt takes LO-HI" in capsys.readouterr().err
