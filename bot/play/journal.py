"""One game's records: handed to the records database and kept for its PGN.

The runner tells the journal what happened (the gameFull, each game state,
each move of ours with its search, the end); the journal builds the
bot.store records and hands them to the RecordWriter, whose `put` never
blocks.  At the end (`close`) it writes the game's PGN file, through the
service's Saver.  The same records, kept in `moves` (shared by the supervisor across a
runner's restarts), make the game's PGN through bot.store.pgn, so the PGN is
written the same way when the database cannot be.

A move's row is put twice or more: when the game stream shows it (SAN, the
mover's clock after it) and, for ours, when its POST returns (think time,
search, source, latency); the opponent's move again after our next search
with its eval.  The writer merges them column by column.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from typing import Any

import chess

from bot import variants
from bot.lichess import events
from bot.play.choice import Choice
from bot.play.context import GameContext
from bot.play.game_state import GameState
from bot.play.terms import GameTerms
from bot.store import pgn
from bot.store.model import GameEnd, GameStart, MoveRecord, RatingsAfter, Record, speed_of

log = logging.getLogger(__name__)

# How long a rated game's end waits for its gameFinish event, whose rating
# changes its PGN file's RatingDiff tags need (it comes with the final state).
RATINGS_WAIT_S = 2.0
RATINGS_POLL_S = 0.05

# SourceMove.source -> the records' SOURCES; the farming variation is the engine's
# opening memory, not a source of its own.
_SOURCES = {"book": "book", "syzygy": "tablebase", "online_egtb": "tablebase",
            "lichess_opening_explorer": "online", "lichess_cloud_analysis": "online",
            "variation": "engine"}


def _other(color: str) -> str:
    return "black" if color == "white" else "white"


class GameJournal:
    def __init__(self, ctx: GameContext) -> None:
        self.ctx = ctx
        self.game_id, self.me, self.site = ctx.game_id, ctx.me, ctx.api.url.rstrip("/")
        self.tournament_name = ctx.tournament_name  # an arena's id -> its name, or None
        self.writer = ctx.writer
        self.moves = ctx.moves  # ply -> what is known of it (the supervisor's, shared)
        self.start: GameStart | None = None
        self._board: chess.Board | None = None
        self._seen: list[str] = []  # the plies pushed on _board
        self._first = "white"

    def _put(self, record: Record) -> None:
        if self.writer is not None:
            self.writer.put(record)  # never blocks, never raises

    def _merge(self, rec: MoveRecord) -> MoveRecord:
        """What is known of this ply, `rec`'s fields over the kept ones (a different
        move at the ply, a takeback replayed, replaces the row)."""
        old = self.moves.get(rec.ply)
        if old is not None and old.uci == rec.uci:
            known = {f.name: getattr(rec, f.name) for f in dataclasses.fields(rec)
                     if getattr(rec, f.name) is not None}
            rec = dataclasses.replace(old, **known)
        self.moves[rec.ply] = rec
        return rec

    # -- what the runner tells it --------------------------------------------------
    def started(self, full: events.GameFull, color: str, initial_fen: str | None,
                chess960: bool, terms: GameTerms) -> None:
        """The gameFull: the game's start record, with the level it is played at;
        `initial_fen` None is its variant's start position."""
        me, them = (full.white, full.black) if color == "white" else (full.black, full.white)
        clock = full.clock
        speed = full.speed or (speed_of(clock.initial_ms / 1000, clock.increment_ms / 1000)
                               if clock else "correspondence")
        created = full.created_at_ms
        self.start = GameStart(
            game_id=self.game_id, account=self.me, color=color,
            opponent=them.display or them.login or "?", opponent_title=them.title,
            my_rating=me.rating, opponent_rating=them.rating, speed=speed,
            variant=full.variant, rated=full.rated, site=self.site,
            started_at=created / 1000 if created is not None else time.time(),
            initial_fen=initial_fen,
            clock_initial_ms=clock.initial_ms if clock else None,
            clock_increment_ms=clock.increment_ms if clock else None,
            days_per_turn=full.days_per_turn, tournament_id=full.tournament_id,
            # Lichess exports an arena game's Event as the arena's name (else pgn.event's
            # "Rated Blitz tournament <url>").
            tournament_name=self.tournament_name(full.tournament_id)
            if full.tournament_id and self.tournament_name else None,
            strength=terms.label, strength_rule=terms.rule)
        if self._board is None:
            try:
                self._board = variants.get(full.variant).start_board(initial_fen, chess960)
            except ValueError:
                log.warning("game %s: its start (%s, %s) is unreadable; moves not recorded",
                            self.game_id, full.variant, initial_fen)
                self._put(self.start)
                return
            self._first = "white" if self._board.turn else "black"
        self._put(self.start)

    def saw(self, played: list[str], state: events.GameState, has_clock: bool) -> None:
        """The game stream's moves: each new ply once, the last mover's clock after it."""
        board = self._board
        if board is None:
            return
        keep = 0
        while keep < min(len(played), len(self._seen)) and played[keep] == self._seen[keep]:
            keep += 1
        while len(self._seen) > keep:  # a takeback
            board.pop()
            self._seen.pop()
        for ply in range(keep, len(played)):
            uci = played[ply]
            color = self._first if ply % 2 == 0 else _other(self._first)
            try:
                move = board.parse_uci(uci)
                san: str | None = board.san(move)
            except (ValueError, AssertionError):
                log.warning("game %s: move %s at ply %d is not legal here; not recorded",
                            self.game_id, uci, ply)
                return
            board.push(move)
            self._seen.append(uci)
            clock_ms = None
            if has_clock and ply == len(played) - 1:
                clock_ms = state.wtime if color == "white" else state.btime
            self._put(self._merge(MoveRecord(self.game_id, ply, color, uci, san=san,
                                             clock_after_ms=clock_ms)))

    def ours(self, ply: int, color: str, choice: Choice, clock_before_ms: int | None,
             latency_ms: float | None) -> None:
        """Our move, after its POST returned: where it came from and its search."""
        source, res = choice.source, choice.result
        kind = _SOURCES.get(source, "engine") if source else ("engine" if res else None)
        self._put(self._merge(MoveRecord(
            self.game_id, ply, color, choice.move, clock_before_ms=clock_before_ms,
            think_ms=int(choice.think_ms), source=kind,
            score_cp=res.score_cp if res is not None else None,
            mate=res.mate if res is not None else None,
            depth=res.depth if res is not None else None,
            nodes=res.nodes if res is not None else None,
            latency_ms=latency_ms)))

    def opponent_eval(self, moves: list[str], color: str, result: Any) -> None:
        """Our search after the opponent's move evaluated exactly the position it
        left: its eval, from the opponent's side."""
        ply = len(moves) - 1
        if ply < 0 or result is None or (result.score_cp is None and result.mate is None):
            return
        self._put(self._merge(MoveRecord(
            self.game_id, ply, _other(color), moves[ply],
            score_cp=-result.score_cp if result.score_cp is not None else None,
            mate=-result.mate if result.mate is not None else None)))

    async def close(self, st: GameState) -> None:
        """The game's end in the records, with the ratings after once a rated game's
        gameFinish has come, and its PGN file (`pgn_directory`)."""
        ctx, directory = self.ctx, self.ctx.cfg.pgn_directory
        ratings = ctx.ratings_after()
        if ratings is None and self.rated and st.status != "aborted" and directory:
            deadline = time.monotonic() + RATINGS_WAIT_S
            while ratings is None and time.monotonic() < deadline:
                await asyncio.sleep(RATINGS_POLL_S)
                ratings = ctx.ratings_after()
        end = self.ended(st.status, st.winner, len(st.moves), ratings)
        rec = st.record(self.game_id, ctx.api.url)
        if rec is not None:
            # As Lichess exports it (%eval, %clk: bot.store.pgn), the move sources after.
            rec.text = self.pgn(end, st.moves, st.comments)
        if directory and rec is not None:
            # A failed write is kept and retried by the saver (logged there).
            await asyncio.to_thread(ctx.saver.save, rec, directory)

    @property
    def rated(self) -> bool:
        return self.start is not None and self.start.rated

    def ended(self, status: str, winner: str | None, plies: int,
              ratings: RatingsAfter | None = None) -> GameEnd:
        """The end, with the ratings after where `ratings` (gameFinish's) gives them:
        ours is the rating the game started with plus our change."""
        mine = theirs = None
        if ratings is not None:
            before = self.start.my_rating if self.start is not None else None
            if before is not None and ratings.my_rating_diff is not None:
                mine = before + ratings.my_rating_diff
            theirs = ratings.opponent_rating_after
        end = GameEnd(self.game_id, status, winner, plies=plies, my_rating_after=mine,
                      opponent_rating_after=theirs)
        self._put(end)
        return end

    def pgn(self, end: GameEnd | None, played: list[str],
            notes: dict[int, str] | None = None) -> str | None:
        """The game as Lichess exports it, `notes` (ply -> the move source) after each
        move's commands; None before its gameFull."""
        if self.start is None:
            return None
        color_of = {0: self._first, 1: _other(self._first)}
        rows = [self.moves.get(ply) or MoveRecord(self.game_id, ply, color_of[ply % 2], uci)
                for ply, uci in enumerate(played)]
        rows = [r if r.uci == uci else MoveRecord(self.game_id, ply, r.color, uci)
                for ply, (r, uci) in enumerate(zip(rows, played, strict=True))]
        return pgn.render(pgn.stored_game(self.start, end), rows, notes)
