"""Draw and resign decisions from the engine's evaluations (lichess-bot's
`draw_or_resign` semantics): a rule fires only when the evaluation has held
for N consecutive own moves, so one noisy search never resigns a game."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.config import DrawOrResignConfig

MATE_CP = 100_000


def score_of(score_cp: int | None, mate: int | None) -> int | None:
    """One comparable number (our point of view); mates dominate any cp score."""
    if mate is not None:
        return MATE_CP - abs(mate) if mate > 0 else -MATE_CP + abs(mate)
    return score_cp


@dataclass
class DrawResign:
    cfg: DrawOrResignConfig
    scores: list[int] = field(default_factory=list)
    last_offer_index: int = -10**9

    def record(self, score_cp: int | None, mate: int | None) -> None:
        s = score_of(score_cp, mate)
        if s is not None:
            self.scores.append(s)

    def _last(self, n: int) -> list[int]:
        return self.scores[-n:] if len(self.scores) >= n else []

    def should_resign(self) -> bool:
        recent = self._last(self.cfg.resign_moves)
        return self.cfg.resign_enabled and bool(recent) and \
            all(s <= self.cfg.resign_score for s in recent)

    def draw_acceptable(self, pieces: int) -> bool:
        """Would we agree to a draw now? Also answers an opponent's offer."""
        recent = self._last(self.cfg.offer_draw_moves)
        return self.cfg.offer_draw_enabled and bool(recent) and \
            pieces <= self.cfg.offer_draw_pieces and \
            all(abs(s) <= self.cfg.offer_draw_score for s in recent)

    def should_offer(self, pieces: int) -> bool:
        # Offer at most once per offer_draw_moves moves, so we never spam offers.
        if len(self.scores) - self.last_offer_index < self.cfg.offer_draw_moves:
            return False
        if self.draw_acceptable(pieces):
            self.last_offer_index = len(self.scores)
            return True
        return False
