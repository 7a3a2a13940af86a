"""bot.engine.pool through the real engine: warm tables per slot, background clears."""

from __future__ import annotations

import threading
import time

import pytest

from bot.engine import Engine, SearchLimits
from bot.engine.pool import EnginePool, PoolError

HASH_MB = 256  # big enough that a clear takes measurable time, small for a shared machine


def fill(eng: Engine, nodes: int = 150_000) -> int:
    """Search from a middlegame position so the table fills; returns hashfull."""
    eng.set_position("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4", [])
    eng.search(SearchLimits(nodes=nodes))
    return eng.hashfull()


def timed(fn, *args):  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - t0


def test_reacquire_after_release_gets_a_cleared_table_without_waiting() -> None:
    with EnginePool(1, HASH_MB, 1) as pool:
        eng = pool.acquire(0)
        assert eng.hashfull() == 0
        # The time a clear of this (used) table takes, here and now: the machine is shared.
        clear_s = []
        for _ in range(2):
            assert fill(eng) > 0
            clear_s.append(timed(eng.new_game)[1])
        release_s, acquire_s = [], []
        for _ in range(6):  # min over a few rounds: a preempted round proves nothing
            assert fill(eng) > 0
            fut, took = timed(pool.release, eng)
            release_s.append(took)
            fut.result(60)  # the background clear: between games, off any clock
            again, took = timed(pool.acquire, 0)
            acquire_s.append(took)
            assert again is eng  # the same warm engine, not a new one
            assert again.hashfull() == 0
        # Neither handing the engine back nor getting it again paid for the clear.
        assert min(acquire_s) < min(clear_s) / 4, (acquire_s, clear_s)
        assert min(release_s) < min(clear_s) / 4, (release_s, clear_s)
        assert pool.info()[0].last_clear_s is not None


def test_acquire_right_after_release_waits_for_the_clear_and_is_clean() -> None:
    with EnginePool(1, 64, 1) as pool:
        eng = pool.acquire()
        assert fill(eng) > 0
        pool.release(eng)
        assert pool.acquire().hashfull() == 0  # no wait on the future: acquire does it


def test_a_game_level_does_not_outlive_its_game() -> None:
    """The level and MultiPV a game set stay for its searches; the next game on
    the same engine starts at full strength with one line."""
    with EnginePool(1, HASH_MB, 1) as pool:
        eng = pool.acquire(0)
        eng.strength.set(1500)
        eng.set_option(multipv=3)
        eng.set_position(None, ["e2e4"])
        for _ in range(2):
            res = eng.search(SearchLimits(depth=20))
            assert res.strength == 1500 and len(res.lines) >= 3
        pool.release(eng)
        again = pool.acquire(0)
        assert again is eng and again.strength.elo is None
        again.set_position(None, ["e2e4"])
        res = again.search(SearchLimits(depth=6))
        assert res.strength is None and len(res.lines) == 1 and res.depth == 6


def test_two_slots_never_share_a_table() -> None:
    with EnginePool(2, 64, 1) as pool:
        a = pool.acquire(0)
        b = pool.acquire(1)
        assert a is not b
        assert pool.slot_of(a) == 0 and pool.slot_of(b) == 1
        assert fill(a) > 0
        assert b.hashfull() == 0  # slot 1's table did not see slot 0's search
        assert fill(b) > 0
        pool.release(a).result(60)
        assert b.hashfull() > 0  # clearing slot 0 leaves slot 1's running game alone
        assert pool.acquire(0) is a and a.hashfull() == 0
        with pytest.raises(PoolError, match="all 2 engine slots are in use"):
            pool.acquire()
        pool.release(b).result(60)
        assert pool.acquire() is b  # the only free slot


def test_any_free_slot_prefers_a_ready_table() -> None:
    with EnginePool(2, 64, 1) as pool:
        for fut in pool.warm():
            fut.result(60)
        assert all(s.hashfull == 0 and not s.busy for s in pool.info())
        assert pool.slot_status() == [
            {"slot": i, "busy": False, "clearing": False, "hash_mb": 64, "hashfull": 0}
            for i in (0, 1)]
        first = pool.acquire()
        second = pool.acquire()
        assert {pool.slot_of(first), pool.slot_of(second)} == {0, 1}


def test_misuse_is_a_clear_error() -> None:
    with EnginePool(1, 16, 1) as pool:
        eng = pool.acquire(0)
        with pytest.raises(PoolError, match="already lent"):
            pool.acquire(0)
        with pytest.raises(PoolError, match="no engine slot 3"):
            pool.acquire(3)
        with Engine(hash_mb=1) as stranger, pytest.raises(PoolError, match="does not belong"):
            pool.release(stranger)
        pool.release(eng)
        with pytest.raises(PoolError, match="released twice"):
            pool.release(eng)
    with pytest.raises(PoolError, match="closed"):
        pool.acquire(0)
    with pytest.raises(PoolError, match="at least one slot"):
        EnginePool(0, 16, 1)


def test_release_stops_a_running_search_before_clearing() -> None:
    with EnginePool(1, 64, 1) as pool:
        eng = pool.acquire(0)
        eng.set_position(None, [])
        started = threading.Event()
        result: list[object] = []

        def think() -> None:
            started.set()
            result.append(eng.search(SearchLimits(infinite=True)))

        t = threading.Thread(target=think)
        t.start()
        started.wait(5)
        time.sleep(0.2)
        pool.release(eng).result(60)  # a game that ended mid-search
        t.join(10)
        assert not t.is_alive() and result
        assert pool.acquire(0).hashfull() == 0


def test_threads_from_several_games_at_once() -> None:
    errors: list[BaseException] = []
    with EnginePool(2, 16, 1) as pool:
        def game(slot: int) -> None:
            try:
                for _ in range(5):
                    eng = pool.acquire(slot, timeout=60)
                    assert eng.hashfull() == 0
                    fill(eng, 20_000)
                    pool.release(eng)
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        threads = [threading.Thread(target=game, args=(i,)) for i in (0, 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
    assert not errors


def test_resize_grows_shrinks_and_resizes_tables_between_games() -> None:
    with EnginePool(1, 16, 1) as pool:
        busy = pool.acquire(0)
        pool.resize(3, 32)  # SIGHUP: concurrency 1 -> 3, tables 16 -> 32 MiB
        for f in pool.warm():
            f.result(30)
        info = {s.slot: s for s in pool.info()}
        assert sorted(info) == [0, 1, 2]
        assert info[0].busy and info[0].hash_mb == 16  # the running game's table: untouched
        assert info[1].hash_mb == 32 and info[2].hash_mb == 32
        pool.release(busy).result(30)  # resized with its background clear, after its game
        assert pool.info()[0].hash_mb == 32
        a, b = pool.acquire(), pool.acquire()
        pool.resize(1)  # back to one slot while two games hold engines
        assert pool.size == 1
        kept = [e for e in (a, b) if pool.info()[0].slot == pool.slot_of(e)]
        gone = [e for e in (a, b) if e not in kept]
        assert len(kept) == 1 and len(gone) == 1
        gone_slot = pool.slot_of(gone[0])
        pool.release(gone[0]).result(30)  # a retired slot frees its table on release
        assert [s.slot for s in pool.info()] != [gone_slot] and pool.size == 1
        with pytest.raises(PoolError):
            pool.slot_of(gone[0])
        pool.release(kept[0]).result(30)
        assert pool.acquire() is kept[0]


def _rss_kb() -> int:
    with open("/proc/self/status") as f:
        return next(int(ln.split()[1]) for ln in f if ln.startswith("VmRSS:"))


class _HeldWarmUp(EnginePool):
    """The warm-up waits at a gate (a slow multi-GB warm-up, made deterministic);
    only a hurrying acquire lets it through."""

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.gate = threading.Event()

    def _prepare(self, slot):  # type: ignore[no-untyped-def]
        while not self.gate.is_set() and not slot.hurry:
            time.sleep(0.01)
        super()._prepare(slot)


def test_hurried_acquire_cuts_the_warm_up_short_and_the_next_clear_is_full() -> None:
    with _HeldWarmUp(1, HASH_MB, 1) as pool:
        try:
            pool.warm()
            eng = pool.acquire(hurry=True, timeout=30)  # would wait for the gate otherwise
            assert pool.info()[0].hash_mb == HASH_MB
            eng.search(SearchLimits(depth=1))  # a few stores: most pages still untouched
            before = _rss_kb()
            # The hurry was for that warm-up only: after the game, the clear zeroes and
            # faults in the whole table again, ready for the next game.
            pool.release(eng).result(30)
            assert _rss_kb() - before > 60_000
            again = pool.acquire(hurry=True, timeout=30)
            assert again is eng and again.hashfull() == 0
            pool.release(again)
        finally:
            pool.gate.set()


def test_close_during_the_warm_up_does_not_wait_for_it() -> None:
    pool = _HeldWarmUp(1, HASH_MB, 1)
    pool.warm()
    closing = threading.Thread(target=pool.close, daemon=True)
    closing.start()
    closing.join(30)
    try:
        assert not closing.is_alive(), "close() waited for the warm-up to end"
    finally:
        pool.gate.set()
