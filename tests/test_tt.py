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
    # memory when it is created (a memset would make this test swap/OOM).
    mb = 8192 if _ram_mb() > 9000 else max(64, _ram_mb() // 4)
    before = _rss_kb()
    with Engine(hash_mb=mb) as eng:
        assert _rss_kb() - before < 200_000
        res = eng.search(SearchLimits(depth=6))
        assert res.bestmove


def test_clear_forgets_everything_and_faults_the_table_in() -> None:
    fen = "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10"
    with Engine(hash_mb=256) as fresh:
        fresh.set_position(fen, [])
        expected = fresh.search(SearchLimits(depth=9)).nodes
    before = _rss_kb()
    with Engine(hash_mb=256) as eng:
        eng.new_game()
        # The clear is where pages are faulted in: a game's timed searches
        # must not stall on page faults.
        assert _rss_kb() - before > 200_000
        assert eng.hashfull() == 0
        eng.set_position(fen, [])
        assert eng.search(SearchLimits(depth=9)).nodes == expected
        # The table and the histories carry over to the next search (fewer nodes or,
        # with history pruning and the correction tables, sometimes more)...
        assert eng.search(SearchLimits(depth=9)).nodes != expected
        eng.new_game()
        # ...until a clear: nothing survives it (table and move-ordering
        # history), the same search as on a brand-new engine.
        assert eng.search(SearchLimits(depth=9)).nodes == expected


def test_clear_split_over_threads_zeroes_the_whole_table() -> None:
    # 3 threads over 256 MB: three chunks, the last one shorter.
    fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
    with Engine(hash_mb=256) as fresh:
        fresh.set_position(fen, [])
        expected = fresh.search(SearchLimits(depth=8)).nodes
    with Engine(hash_mb=256) as eng:
        eng.set_position(fen, [])
        eng.search(SearchLimits(depth=8))
        eng.set_option(threads=3)
        eng.new_game()
        eng.set_option(threads=1)
        eng.set_position(fen, [])
        assert eng.search(SearchLimits(depth=8)).nodes == expected


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


def test_hurried_clear_hands_the_table_back_empty_and_the_next_clear_is_full() -> None:
    # The engine pool hurries a clear when a game must search before it ends (the
    # start-up warm-up of a big table): the part not yet zeroed goes back to the
    # kernel, whose zero-fill on first touch leaves the table just as empty.
    fen = "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10"
    with Engine(hash_mb=128) as eng:
        eng.set_position(fen, [])
        expected = eng.search(SearchLimits(depth=9)).nodes  # from an empty table
        eng.new_game()  # every page resident
        eng.search(SearchLimits(depth=9))
        full = _rss_kb()
        eng.hurry_clear(True)
        eng.new_game()
        assert full - _rss_kb() > 100_000, "the hurried clear zeroed the table in place"
        eng.hurry_clear(False)
        eng.new_game()  # not hurried any more: faulted in again, before the next game
        assert full - _rss_kb() < 30_000
        eng.set_position(fen, [])
        assert eng.search(SearchLimits(depth=9)).nodes == expected  # nothing remembered
        eng.hurry_clear(True)
        eng.new_game()
        eng.set_position(fen, [])
        assert eng.search(SearchLimits(depth=9)).nodes == expected  # hurried: just as empty
