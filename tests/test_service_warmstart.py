"""A game does not wait for the start-up warm-up of the engine tables (issue 23,
item 3): with a big table the warm-up takes seconds, and meanwhile challenges are
answered, book moves are played, and a search that cannot wait hurries the
warm-up instead of waiting for its end.

The warm-up is made slow and deterministic by holding it at a gate: it ends only
when the test opens the gate or a game hurries it (`acquire(hurry=True)`), as a
multi-GB table's zeroing on a busy machine would take as long as it likes."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from test_book import write_book
from test_service_helpers import bot_and_emulator, needs_engine, wait_until
from test_service_sources import play

from bot.emulator import OpponentSpec
from bot.engine.pool import EnginePool
from bot.service import root as service_module

pytestmark = needs_engine


class GatedPool(EnginePool):
    """An engine pool whose warm-up waits at a gate before it starts."""

    gate = threading.Event()

    def _prepare(self, slot: Any) -> None:
        while not self.gate.is_set() and not getattr(slot, "hurry", False):
            time.sleep(0.01)
        super()._prepare(slot)


def test_challenge_and_book_move_during_the_warm_up_then_a_search_hurries_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(service_module, "EnginePool", GatedPool)
    GatedPool.gate = threading.Event()
    book = write_book(tmp_path / "mini.bin", [(play(), "e2e4", 10)])
    poly = {"enabled": True, "book": {"standard": [str(book)]}, "selection": "best_move"}
    try:
        with bot_and_emulator(tmp_path, engine={"polyglot": poly, "hash_mb": 64}) as (emu, running):
            svc = running.service
            assert svc is not None and isinstance(svc.pool, GatedPool)
            opp = OpponentSpec(policy="scripted", moves=["e7e5"], resign_after=1,
                               think_time_s=0.05)
            cid = emu.challenge_bot(challenger="early", rated=False, clock_limit_s=180,
                                    increment_s=0, color="black", opponent=opp)
            assert emu.challenges.wait_answered(cid, 10) == "accepted"
            # The book move needs no engine: played while the warm-up still waits.
            assert wait_until(lambda: len(emu.game(cid).moves) >= 1, 15), \
                "the book move waited for the table warm-up"
            assert emu.game(cid).moves[0] == "e2e4"
            assert svc.pool.info()[0].hash_mb is None  # no engine created yet
            # Out of book: the search hurries the warm-up rather than waiting for it.
            assert wait_until(lambda: len(emu.game(cid).moves) >= 3, 30), \
                "the first search waited for the table warm-up"
            assert not GatedPool.gate.is_set()
            snap = emu.wait_game_over(cid, 30)
            assert snap.status == "resign" and snap.winner == "white"
    finally:
        GatedPool.gate.set()  # or the slot's thread would hold the exit for good
