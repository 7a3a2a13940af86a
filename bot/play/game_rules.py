"""Draw and resign decisions (lichess-bot's `draw_or_resign` semantics).

From the engine's evaluations, a rule fires only when the evaluation has held
for N consecutive own moves, so one noisy search never resigns a game.  From
the Syzygy tables at the root (an exact verdict) it fires at once, within what
lila allows: a resignation before the 2nd ply would abort the game instead
(BotPlayer.resign), and an offer before ply 2, or within 20 plies of our last
one, is silently dropped (Game.scala playerCanOfferDraw)."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.config import DrawOrResignConfig

MATE_CP = 100_000
FIRST_RESIGN_PLY = 2  # before it lila aborts instead of resigning (BotPlayer.resign)
FIRST_OFFER_PLY = 2  # playerCanOfferDraw: ply >= 2
OFFER_EVERY_PLIES = 20  # playerCanOfferDraw: no offer of ours in the last 20 plies


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
    tablebase_wdl: int | None = None  # our Syzygy result after our last move (2/0/-2)
    last_tablebase_offer_ply: int = -10**9

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

    def draw_acceptable(self, pieces: int, tablebase_wdl: int | None = None) -> bool:
        """Would we agree to a draw now? Also answers an opponent's offer.
        `tablebase_wdl`: our Syzygy result in the position now, when the tables know it."""
        if tablebase_wdl is not None and self._tablebase_draws():
            return tablebase_wdl <= 0  # exact; a draw is no worse than a lost ending
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

    # -- the Syzygy verdict at the root ------------------------------------------------
    def _tablebase_draws(self) -> bool:
        return self.cfg.offer_draw_enabled and self.cfg.offer_draw_for_tablebase_draw

    def tablebase_resign(self, wdl: int, ply: int) -> bool:
        """Resign instead of playing the tables' move: our best result is a loss."""
        self.tablebase_wdl = wdl
        return wdl == -2 and ply >= FIRST_RESIGN_PLY and self.cfg.resign_enabled and \
            self.cfg.resign_for_tablebase_loss

    def tablebase_offer(self, wdl: int, ply: int) -> bool:
        """Offer a draw with the tables' move (played at `ply`): its result is a draw."""
        if wdl != 0 or not self._tablebase_draws() or ply < FIRST_OFFER_PLY or \
                ply - self.last_tablebase_offer_ply < OFFER_EVERY_PLIES:
            return False
        self.last_tablebase_offer_ply = ply
        return True
