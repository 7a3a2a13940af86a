"""bench/soak.py stops at once on SIGINT or SIGTERM, with no report, and says so."""
from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

SOAK = Path(__file__).resolve().parent.parent / "bench" / "soak.py"


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_stopped_soak_exits_within_seconds_without_a_report(tmp_path: Path,
                                                               sig: signal.Signals) -> None:
    report = tmp_path / "r.json"
    proc = subprocess.Popen([sys.executable, str(SOAK), "--games", "6", "--seed", "1",
                             "--log-level", "info", "--report", str(report)],
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    stuck = threading.Timer(120.0, proc.kill)  # no login in 2 minutes: EOF below, a failure
    stuck.start()
    try:
        assert proc.stderr is not None
        for line in proc.stderr:  # the bot has logged in: games are being started
            if "logged in as" in line:
                break
        else:
            pytest.fail(f"the soak ended before the bot logged in (rc {proc.wait()})")
        stuck.cancel()
        time.sleep(3.0)
        proc.send_signal(sig)
        t0 = time.monotonic()
        try:
            rest = proc.communicate(timeout=30)[1]
        except subprocess.TimeoutExpired:
            pytest.fail(f"the soak was still running 30 s after {sig.name}")
        took = time.monotonic() - t0
    finally:
        stuck.cancel()
        proc.kill()
    # Before: the service's handler drained (finished its games) while the driver went on.
    assert proc.returncode == 130
    assert took < 20.0
    assert "soak stopped by a signal: no report written" in rest
    assert not report.exists()
