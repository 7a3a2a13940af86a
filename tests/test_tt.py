"""Transposition table: mmap sizing, clearing, hashfull, failed resize."""

from __future__ import annotations

import os

import pytest

from bot.engine.engine import Engine, SearchLimits
from bot.engine.exceptions import EngineMemoryError


def _rss_kb() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def _ram_mb() -> int:
    return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // (1 << 20)


def test_hashfull_grows_and_clear_resets() -> None:
    with Engine(hash_mb=1) as eng:
        assert eng.hashfull() == 0
        eng.search(SearchLimits(depth=9))
        assert eng.hashfull() > 0
        eng.new_game()
        assert eng.hashfull() == 0
        # A cleared table still works.
        assert eng.search(SearchLimits(depth=5)).bestmove


def test_large_table_is_not_touched_up_front() -> None:
    # MAP_NORESERVE + lazy zero pages: an 8 GB table costs no resident
    # memory until it is used (a memset would make this test swap/OOM).
    mb = 8192 if _ram_mb() > 9000 else max(64, _ram_mb() // 4)
    before = _rss_kb()
    with Engine(hash_mb=mb) as eng:
        assert _rss_kb() - before < 200_000
        res = eng.search(SearchLimits(depth=6))
        assert res.bestmove
        eng.new_game()
        assert _rss_kb() - before < 200_000


def test_failed_resize_keeps_old_table() -> None:
    with Engine(hash_mb=2) as eng:
        eng.search(SearchLimits(depth=6))
        with pytest.raises(EngineMemoryError, match="smaller"):
            eng.set_option(hash_mb=_ram_mb() * 2)
        assert eng.search(SearchLimits(depth=6)).bestmove
        eng.set_option(hash_mb=3)
        assert eng.hashfull() == 0


def test_too_big_engine_is_memory_error() -> None:
    with pytest.raises(EngineMemoryError, match="smaller hash"):
        Engine(hash_mb=_ram_mb() * 2)
