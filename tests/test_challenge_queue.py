"""The challenge queue over real HTTP (challenge.queue_max, queue_order,
reserved_for_humans): a challenge that arrives while every slot is busy waits
and is accepted when a slot frees, unless its challenger withdrew it or Lichess
deleted it meanwhile."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from test_service_helpers import bot_and_emulator, fast_emulator_config, needs_engine, wait_until

from bot.challenges.queue import ChallengeQueue
from bot.cli import main
from bot.emulator import Emulator, OpponentSpec
from bot.host import status_file
from bot.lichess.events import Challenge, User

pytestmark = needs_engine

SLOW = OpponentSpec(think_time_s=30)  # a game that keeps its slot while the test runs


def _challenge(emu: Emulator, who: str, **kw: Any) -> str:
    return emu.challenge_bot(challenger=who, rated=False, clock_limit_s=600, increment_s=5,
                             color="white", opponent=SLOW, **kw)


@contextmanager
def _bot(tmp: Path, emu_cfg: Any = None, **challenge: Any) -> Iterator[tuple[Emulator, Any]]:
    with bot_and_emulator(tmp, emu_cfg, challenge={"concurrency": 1, "queue_max": 2,
                                                   **challenge},
                          game={"abort_if_no_first_move_s": 60}) as (emu, bot):
        yield emu, bot


def _queued(bot: Any) -> list[str]:
    return [q.id for q in bot.service.desk.queued()] if bot.service and bot.service.desk \
        else []


def _playing(emu: Emulator, cid: str) -> str:
    assert emu.challenges.wait_answered(cid, 10) == "accepted"
    return emu.wait_game_started(cid, 10)


def test_a_queued_challenge_is_accepted_when_the_slot_frees(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with _bot(tmp_path) as (emu, bot):
        holder = _playing(emu, _challenge(emu, "holder"))
        first, second = _challenge(emu, "alice"), _challenge(emu, "bob")
        assert wait_until(lambda: _queued(bot) == [first, second], 10), _queued(bot)
        # Over queue_max: declined `later`, as without a queue.
        third = _challenge(emu, "carol")
        assert emu.challenges.wait_answered(third, 10) == "declined"
        assert emu.challenges.decline_reason(third) == "later"
        # `pibot status` lists the waiting ones.
        watchdog = bot.service.watchdog
        assert wait_until(lambda: watchdog.status_writer is not None
                          and watchdog.status_writer.last is not None
                          and len(watchdog.status_writer.last.get("queue", [])) == 2, 10)
        text = "\n".join(status_file.render(watchdog.status_writer.last))
        assert "queue: 2 challenge(s) waiting" in text and "alice" in text, text
        # `pibot queue` asks the running service over its control socket.
        assert main(["queue"]) == 0
        lines = capsys.readouterr().out.splitlines()
        assert [line.split()[:2] for line in lines] == [[first, "alice"], [second, "bob"]], lines
        assert emu.challenges.status(first) == "created"  # not answered while it waits
        emu.opponent_action(holder, "resign")
        assert _playing(emu, first)
        assert _queued(bot) == [second] and emu.challenges.status(second) == "created"


def test_a_challenge_withdrawn_while_queued_is_not_accepted(tmp_path: Path) -> None:
    with _bot(tmp_path) as (emu, bot):
        holder = _playing(emu, _challenge(emu, "holder"))
        gone, kept = _challenge(emu, "alice"), _challenge(emu, "bob")
        assert wait_until(lambda: _queued(bot) == [gone, kept], 10), _queued(bot)
        emu.challenges.cancel(gone)  # challengeCanceled on the bot's event stream
        assert wait_until(lambda: _queued(bot) == [kept], 10), _queued(bot)
        emu.opponent_action(holder, "resign")
        assert _playing(emu, kept)
        # No accept (nor any answer) ever went out for the withdrawn one.
        assert not [r for r in emu.traffic.requests() if gone in r.path], emu.traffic.requests()


def test_queue_order_rating_takes_the_best_rated_first(tmp_path: Path) -> None:
    with _bot(tmp_path, queue_order="rating") as (emu, bot):
        holder = _playing(emu, _challenge(emu, "holder"))
        low = _challenge(emu, "alice", challenger_rating=1400)
        high = _challenge(emu, "bob", challenger_rating=2200)
        assert wait_until(lambda: _queued(bot) == [high, low], 10), _queued(bot)
        emu.opponent_action(holder, "resign")
        assert _playing(emu, high)
        assert emu.challenges.status(low) == "created"


def test_reserved_for_humans_lets_a_human_pass_a_waiting_bot(tmp_path: Path) -> None:
    with _bot(tmp_path, concurrency=2, reserved_for_humans=1) as (emu, bot):
        human = _playing(emu, _challenge(emu, "holder"))
        robot = _playing(emu, _challenge(emu, "bot1", challenger_title="BOT"))
        # Both slots busy: a BOT first, then a human, wait.
        waiting_bot = _challenge(emu, "bot2", challenger_title="BOT")
        waiting_human = _challenge(emu, "alice")
        assert wait_until(lambda: _queued(bot) == [waiting_bot, waiting_human], 10)
        # The human game ends: the free slot is for humans only (one BOT game runs),
        # so the human behind the waiting BOT takes it.
        emu.opponent_action(human, "resign")
        assert _playing(emu, waiting_human)
        assert emu.challenges.status(waiting_bot) == "created"
        # The BOT game ends: the BOT's slot goes to the waiting BOT.
        emu.opponent_action(robot, "resign")
        assert _playing(emu, waiting_bot)


def test_a_bot_is_queued_when_only_reserved_slots_are_free(tmp_path: Path) -> None:
    with _bot(tmp_path, concurrency=2, reserved_for_humans=1, queue_max=0) as (emu, _bot_):
        _playing(emu, _challenge(emu, "bot1", challenger_title="BOT"))
        # One slot free, but reserved for humans: a BOT is declined `later` (no queue).
        late = _challenge(emu, "bot2", challenger_title="BOT")
        assert emu.challenges.wait_answered(late, 10) == "declined"
        assert emu.challenges.decline_reason(late) == "later"
        assert _playing(emu, _challenge(emu, "alice"))


def test_a_challenge_lichess_deleted_while_queued_is_skipped(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="bot.challenges.incoming")
    # lila's sweep, shortened: offline 1 s after the challenger was last seen,
    # deleted 1 s later (20 s and 3 h on lichess.org).
    cfg = fast_emulator_config(challenge_expiry_mode="offline", challenge_expiry_s=1.0,
                               challenge_offline_delete_s=1.0)
    with _bot(tmp_path, cfg) as (emu, bot):
        holder = _playing(emu, _challenge(emu, "holder", keep_alive=True))
        deleted = _challenge(emu, "alice")
        kept = _challenge(emu, "bob", keep_alive=True)  # its challenger keeps it seen
        assert wait_until(lambda: _queued(bot) == [deleted, kept], 10), _queued(bot)
        assert wait_until(lambda: emu.challenges.status(deleted) is None, 10)
        emu.opponent_action(holder, "resign")
        assert _playing(emu, kept)
        said = [r.getMessage() for r in caplog.records]
        assert any(f"challenge {deleted} no longer exists on Lichess (404)" in m
                   for m in said), said


def test_the_queue_orders_and_passes_over_what_does_not_fit() -> None:
    q = ChallengeQueue()
    for cid, rating, title in [("a", 1500, None), ("b", 2000, "BOT"), ("c", None, None),
                               ("d", 1800, None)]:
        q.add(Challenge(cid, User(cid, cid, title, rating)))
    assert [e.id for e in q.listing("first")] == ["a", "b", "c", "d"]
    assert [e.id for e in q.listing("rating")] == ["b", "d", "a", "c"]
    taken = q.take("rating", lambda ch: not ch.challenger.is_bot)
    assert taken is not None and taken.id == "d" and "d" not in q
    assert q.with_user("A") == 1 and q.remove("a") and not q.remove("a")
    assert [ch.id for ch in q.drain()] == ["b", "c"] and len(q) == 0


def test_a_queued_challenge_whose_challenger_left_is_aborted_not_lost(tmp_path: Path) -> None:
    # lila's sweep, shortened: a challenge its challenger stopped keeping seen goes
    # offline after 1 s (20 s on lichess.org) and stays acceptable; the game it gives
    # (source friend) is one lila never ends for want of a first move
    # (RoundGame.expirable), and its challenger, gone, never moves. The bot aborts it
    # (game.abort_if_no_first_move_s) and the slot goes to the next waiting challenge.
    cfg = fast_emulator_config(challenge_expiry_mode="offline", challenge_expiry_s=1.0)
    holder_opp = OpponentSpec(think_time_s=0.1, stall_after=1)  # moves once, then sits
    with bot_and_emulator(tmp_path, cfg, challenge={"concurrency": 1, "queue_max": 2},
                          game={"abort_if_no_first_move_s": 3}) as (emu, bot):
        holder = _playing(emu, emu.challenge_bot(
            challenger="holder", rated=False, clock_limit_s=600, increment_s=5,
            color="white", opponent=holder_opp, keep_alive=True))
        assert wait_until(lambda: len(emu.game(holder).moves) >= 2, 10)
        left = _challenge(emu, "alice")  # the bot is Black: the challenger moves first
        kept = _challenge(emu, "bob", keep_alive=True)
        assert wait_until(lambda: _queued(bot) == [left, kept], 10), _queued(bot)
        assert wait_until(lambda: emu.challenges.status(left) == "offline", 10)
        emu.opponent_action(holder, "resign")
        assert wait_until(lambda: emu.challenges.status(left) == "accepted", 10)
        snap = emu.wait_game_over(left, 20)
        assert (snap.status, snap.winner, snap.moves) == ("aborted", None, [])
        assert _playing(emu, kept)


def test_a_freed_slot_goes_to_the_queue_before_a_newcomer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The queue is served every QUEUE_POLL_S; here never within the test, so only the
    # newcomer's arrival can hand the freed slot over. It must go to the one that
    # waited, not to the challenge that arrived after the game ended (the issue-33
    # smoke: waits of 90-145 s while direct challenges took each freed slot).
    monkeypatch.setattr("bot.challenges.incoming.QUEUE_POLL_S", 3600.0)
    with _bot(tmp_path) as (emu, bot):
        holder = _playing(emu, _challenge(emu, "holder"))
        waiting = _challenge(emu, "alice")
        assert wait_until(lambda: _queued(bot) == [waiting], 10), _queued(bot)
        emu.opponent_action(holder, "resign")
        assert wait_until(lambda: bot.service.shared.slots.used() == 0, 10)
        assert emu.challenges.status(waiting) == "created"  # the poll did not run
        newcomer = _challenge(emu, "zed")
        assert _playing(emu, waiting)
        assert wait_until(lambda: _queued(bot) == [newcomer], 10), _queued(bot)
        assert emu.challenges.status(newcomer) == "created"
