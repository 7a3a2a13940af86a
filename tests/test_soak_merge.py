"""bench/soak_merge.py pools chunk reports and fails on what the issue-23 soak forbids."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

MERGE = Path(__file__).resolve().parent.parent / "bench" / "soak_merge.py"


def chunk(seed: int, **over: Any) -> dict[str, Any]:
    report: dict[str, Any] = {
        "commit": "abc1234", "seed": seed, "book": seed % 2 == 1, "syzygy": seed % 2 == 1,
        "minutes": 6.0, "faults_fired": 50, "overhead_ms": [100.0, 150.0, 200.0],
        "game_rows": [{"winner": "white", "bot_color": "white", "status": "mate",
                       "clock": "60+0", "plies": 80}],
        "time_losses": 0, "games_lost_through_faults": 0, "illegal_moves": 0,
        "move_400_after_stall": 0, "move_400_after_game_end": 0,
        "account_playing_max_per_60s": 1, "polled_more_than_once_a_minute": {},
        "challenges_declined": {"later": 1}, "sent_within_429_pause": {},
    }
    report.update(over)
    return report


def run_merge(tmp_path: Path, *reports: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    paths = []
    for r in reports:
        path = tmp_path / f"seed{r['seed']}.json"
        path.write_text(json.dumps(r))
        paths.append(str(path))
    out = subprocess.run([sys.executable, str(MERGE), *paths], capture_output=True,
                         text=True, timeout=60)
    body, verdict = out.stdout.rsplit("\n", 2)[0], out.stdout.split()[-1]
    assert verdict == ("PASS" if out.returncode == 0 else "FAIL")
    return out.returncode, json.loads(body)


def test_clean_chunks_pool_and_pass(tmp_path: Path) -> None:
    rc, pooled = run_merge(tmp_path, chunk(1), chunk(2))
    assert rc == 0
    assert pooled["games"] == 2 and pooled["challenges_declined"] == {"later": 2}
    assert pooled["games_with_book_and_tables"] == 1


@pytest.mark.parametrize("fault", [
    {"challenges_declined": {"created": 1}},           # an answer never came
    {"sent_within_429_pause": {"chat": 2}},            # a class was not left alone
    {"time_losses": 1},
    {"illegal_moves": 1},
])
def test_one_bad_chunk_fails_the_pool(tmp_path: Path, fault: dict[str, Any]) -> None:
    rc, pooled = run_merge(tmp_path, chunk(1), chunk(2, **fault))
    assert rc == 1
    key = next(iter(fault))
    assert pooled[key if key != "challenges_declined" else "challenges_unanswered"]
