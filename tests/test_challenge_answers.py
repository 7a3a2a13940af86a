"""The desk's record of answers to our own challenges (bot/challenges/answers.py)."""

from __future__ import annotations

from bot.challenges.answers import RecentAnswers


def test_recent_answers_keep_the_latest_and_forget_the_oldest() -> None:
    answers = RecentAnswers(kept=3)
    for n, how in enumerate(("declined", "started", "canceled", "started")):
        answers.record(f"c{n}", how)  # type: ignore[arg-type]
    assert answers.get("c0") is None and len(answers) == 3
    assert [answers.get(f"c{n}") for n in (1, 2, 3)] == ["started", "canceled", "started"]
    answers.record("c1", "declined")  # a later answer to the same id is the newest
    answers.record("c4", "declined")
    assert answers.get("c2") is None and answers.get("c1") == "declined"
