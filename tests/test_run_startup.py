"""`pibot run` start-up checks that fail fast with one clear line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from bot.errors import EXIT_CONFIG
from bot.host.platform_info import meminfo_kb


def _run(tmp_path: Path, config: str, **env: str) -> subprocess.CompletedProcess[str]:
    cfg = tmp_path / "config.yml"
    cfg.write_text(config)
    base = {k: v for k, v in os.environ.items() if k not in ("LICHESS_BOT_TOKEN",
                                                             "CREDENTIALS_DIRECTORY")}
    return subprocess.run([sys.executable, "-m", "bot.cli", "run", "--config", str(cfg)],
                          capture_output=True, text=True, timeout=60, env={**base, **env},
                          cwd=tmp_path)  # its records database (pibot.db) there


def test_hash_larger_than_memory_is_refused(tmp_path: Path) -> None:
    total_mb = meminfo_kb()["MemTotal"] // 1024
    proc = _run(tmp_path, f"url: http://127.0.0.1:9\nengine:\n  hash_mb: {total_mb}\n",
                LICHESS_BOT_TOKEN="lip_abcdefghijklmnop")
    assert proc.returncode == EXIT_CONFIG, proc.stderr
    assert "engine.hash_mb" in proc.stderr and "Traceback" not in proc.stderr


def test_unreadable_credentials_directory_is_one_line(tmp_path: Path) -> None:
    # A name too long for the filesystem makes the look-up itself fail (as an
    # unreadable directory does for a non-root user; root ignores permissions).
    proc = _run(tmp_path, "url: http://127.0.0.1:9\n",
                CREDENTIALS_DIRECTORY=str(tmp_path / ("x" * 300)))
    assert proc.returncode == EXIT_CONFIG, proc.stderr
    assert "credentials directory" in proc.stderr and "Traceback" not in proc.stderr


def test_missing_opening_book_stops_the_start(tmp_path: Path) -> None:
    # Before anything connects (url is a closed port): one line naming the file and the key.
    proc = _run(tmp_path, "url: http://127.0.0.1:9\nengine:\n  polyglot:\n    enabled: true\n"
                f"    book:\n      standard: [{tmp_path / 'nope.bin'}]\n",
                LICHESS_BOT_TOKEN="lip_abcdefghijklmnop")
    assert proc.returncode == EXIT_CONFIG, proc.stderr
    assert "nope.bin" in proc.stderr and "engine.polyglot" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
    assert sum("nope.bin" in line for line in proc.stderr.splitlines()) == 1
