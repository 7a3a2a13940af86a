"""Lichess's online move sources (engine.online_moves), all off by default.

The one module that knows these endpoints (the Bot API's are in bot/lichess/endpoints.py):

* opening explorer: ``{explorer_url}/masters`` and ``{explorer_url}/lichess``
  (authenticated: since March 2026 the explorer answers 401 to anonymous
  requests, so these carry the bot's token, and only these),
* cloud evaluation: ``{cloud_url or url}/api/cloud-eval``,
* tablebase: ``{tablebase_url}/standard``, ``/atomic`` and ``/antichess``: up to
  7 pieces (Syzygy), and in standard chess the 8-piece positions its partial
  "op1" tables cover (`op1_position`), whose answers carry DTC, not DTZ.

Each only for the variants it serves (bot/variants.py: the tablebase standard,
atomic and antichess; the Lichess-games explorer and cloud eval every variant,
named by its `variant` parameter; the masters explorer standard chess only).

Paths, parameters and answers follow lichess-org/api doc/specs (see
bot/emulator/online_api.py, which serves them in tests). Every call is a
best-effort hint: it gets at most `min(timeout_s, the caller's budget)`, and any
failure (timeout, 4xx/5xx, bad JSON, an illegal move) is a miss, so the engine
searches instead and no move time is lost waiting. A 429 pauses that source for
`pause_s` (Lichess asks for a minute). After `max_out_of_book_moves` misses in
a game the explorer and cloud eval are no longer asked in that game.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from dataclasses import dataclass
from typing import Any

import chess
import requests

from bot import variants
from bot.config import OnlineMovesConfig
from bot.lichess.token import Token
from bot.lichess.transport import USER_AGENT

log = logging.getLogger(__name__)

EXPLORER, CLOUD, EGTB = "lichess_opening_explorer", "lichess_cloud_analysis", "online_egtb"
# The lichess-games explorer filter: strong players at non-bullet speeds.
LICHESS_SPEEDS = "blitz,rapid,classical"
LICHESS_RATINGS = "2000,2200,2500"
MIN_REQUEST_S = 0.05  # below this a request cannot succeed; don't start it
MATE_CP = 100_000
SYZYGY_PIECES, OP1_PIECES = 7, 8
# The tablebase's categories (lila-tablebase src/response.rs Category), for the
# side to move after the best move, read from ours.
_OURS = {"loss": "win", "syzygy-loss": "win (50-move rule unsure)", "maybe-loss": "maybe win",
         "blessed-loss": "cursed win", "draw": "draw", "cursed-win": "blessed loss",
         "maybe-win": "maybe loss", "syzygy-win": "loss (50-move rule unsure)",
         "win": "loss"}


def op1_position(board: chess.Board) -> bool:
    """An 8-piece position the Lichess tablebase answers from its op1 tables
    (lichess-org/lila-tablebase src/op1.rs `use_op1`, a06a88b): standard chess,
    exactly 8 pieces, no castling rights, a white pawn with a black pawn 1-5 ranks
    ahead on its file, and each side more than a lone pawn. lichess-bot asks the
    same ones (lib/engine_wrapper.py `is_op1_position`, 3b1c84a)."""
    if type(board) is not chess.Board or board.castling_rights \
            or chess.popcount(board.occupied) != OP1_PIECES:
        return False
    white = board.pawns & board.occupied_co[chess.WHITE]
    ahead = 0
    for ranks in range(1, 6):
        ahead |= (white << (8 * ranks)) & chess.BB_ALL
    if not ahead & board.pawns & board.occupied_co[chess.BLACK]:
        return False
    for side in board.occupied_co:
        if chess.popcount(board.pawns & side) < 2 and not side & ~board.kings & ~board.pawns:
            return False
    return True


def tablebase_pieces(board: chess.Board, max_pieces: int, path: str) -> int:
    """How many pieces a position may have to be asked: `max_pieces` (the Syzygy
    tables' 7 at most), or 8 for a standard op1 position when the owner allows all 7."""
    if path == "standard" and max_pieces >= SYZYGY_PIECES and op1_position(board):
        return OP1_PIECES
    return max_pieces


@dataclass(frozen=True)
class OnlineMove:
    uci: str
    source: str  # config section name, e.g. "lichess_cloud_analysis"
    comment: str  # short, for the log / PGN comment


class OnlineSources:
    """Per-service client; per-game miss counts are keyed by game id."""

    def __init__(self, cfg: OnlineMovesConfig, lichess_url: str, token: Token | None = None,
                 pause_s: float = 60.0) -> None:
        self.cfg = cfg
        self.cloud_base = (cfg.cloud_url or lichess_url).rstrip("/")
        self.explorer_base = cfg.explorer_url.rstrip("/")
        self.tablebase_base = cfg.tablebase_url.rstrip("/")
        self.pause_s = pause_s
        self._paused_until: dict[str, float] = {}
        self._misses: dict[str, int] = {}
        self._session = requests.Session()
        self._session.headers["User-Agent"] = USER_AGENT
        self._session.headers["Accept"] = "application/json"
        self._explorer_auth = {"Authorization": f"Bearer {token.reveal()}"} if token else {}

    @property
    def enabled(self) -> bool:
        c = self.cfg
        return (c.lichess_opening_explorer.enabled or c.lichess_cloud_analysis.enabled
                or c.online_egtb.enabled)

    def describe(self) -> list[str]:
        c = self.cfg
        on = [f"{name} ({where})" for name, sec, where in (
            ("opening explorer", c.lichess_opening_explorer, self.explorer_base),
            ("cloud eval", c.lichess_cloud_analysis, self.cloud_base),
            ("online tablebase", c.online_egtb, self.tablebase_base)) if sec.enabled]
        return [f"online moves: {', '.join(on) if on else 'all sources off'}"]

    def close(self) -> None:
        self._session.close()

    def game_over(self, game_id: str) -> None:
        self._misses.pop(game_id, None)

    def misses(self, game_id: str) -> int:
        return self._misses.get(game_id, 0)

    # ------------------------------------------------------------------ sources
    async def pick(self, board: chess.Board, game_id: str, clock_s: float, budget_s: float,
                   rng: random.Random | None = None) -> OnlineMove | None:
        """Tablebase first (exact), then explorer, then cloud eval; None = search."""
        rng = rng or random.Random()
        deadline = time.monotonic() + budget_s
        move = await self.tablebase(board, clock_s, budget_s)
        if move is not None:
            return move
        if self._misses.get(game_id, 0) >= self.cfg.max_out_of_book_moves:
            return None
        asked = False
        for source in (self.explorer, self.cloud_eval):
            left = deadline - time.monotonic()
            move, tried = await source(board, clock_s, left, rng)
            asked = asked or tried
            if move is not None:
                return move
        if asked:
            self._misses[game_id] = self._misses.get(game_id, 0) + 1
        return None

    async def explorer(self, board: chess.Board, clock_s: float, budget_s: float,
                       rng: random.Random | None = None) -> tuple[OnlineMove | None, bool]:
        """(move or None, whether the source was asked)."""
        c = self.cfg.lichess_opening_explorer
        if not c.enabled or clock_s < c.min_time:
            return None, False
        variant = variants.of_board(board)
        if c.source == "masters" and variant.key != "standard":
            return None, False  # masters are standard chess only
        if variant.explorer is None:
            return None, False
        params: dict[str, str] = {"fen": board.fen(), "moves": "12", "topGames": "0"}
        if c.source == "lichess":
            params.update(variant=variant.explorer, speeds=LICHESS_SPEEDS,
                          ratings=LICHESS_RATINGS, recentGames="0")
        sent, data = await self._get(EXPLORER, f"{self.explorer_base}/{c.source}", params,
                                     min(c.timeout_s, budget_s), self._explorer_auth)
        if data is None:
            return None, sent
        best: tuple[float, chess.Move, int] | None = None
        for m in data.get("moves") or []:
            try:
                games = int(m["white"]) + int(m["draws"]) + int(m["black"])
                move = board.parse_uci(str(m["uci"]))
            except (KeyError, TypeError, ValueError):
                continue
            if games < c.min_games:
                continue
            ours = int(m["white"] if board.turn == chess.WHITE else m["black"])
            score = (ours + int(m["draws"]) / 2) / games if c.sort == "winrate" else games
            if best is None or score > best[0]:
                best = (score, move, games)
        if best is None:
            return None, True
        score, move, games = best
        what = f"{score:.0%}" if c.sort == "winrate" else f"{games}"
        return OnlineMove(board.uci(move, chess960=board.chess960), EXPLORER,
                          f"explorer {c.source}: {games} games, {what}"), True

    async def cloud_eval(self, board: chess.Board, clock_s: float, budget_s: float,
                         rng: random.Random | None = None) -> tuple[OnlineMove | None, bool]:
        c = self.cfg.lichess_cloud_analysis
        if not c.enabled or clock_s < c.min_time:
            return None, False
        variant = variants.of_board(board).explorer
        if variant is None:
            return None, False
        params = {"fen": board.fen(), "multiPv": "5" if c.move_quality == "good" else "1"}
        if variant != "standard":
            params["variant"] = variant
        sent, data = await self._get(CLOUD, f"{self.cloud_base}/api/cloud-eval", params,
                                     min(c.timeout_s, budget_s))
        if data is None:
            return None, sent
        try:
            depth, knodes = int(data["depth"]), int(data.get("knodes", 0))
            lines = []
            for pv in data["pvs"]:
                move = board.parse_uci(str(pv["moves"]).split()[0])
                if "mate" in pv:
                    mate = int(pv["mate"])
                    score = (MATE_CP - mate) if mate > 0 else (-MATE_CP - mate)
                else:
                    score = int(pv["cp"])
                # cloud scores are White's point of view
                lines.append((score if board.turn == chess.WHITE else -score, move))
        except (KeyError, TypeError, ValueError, IndexError):
            log.info("cloud eval: unexpected answer, ignored")
            return None, True
        if not lines or depth < c.min_depth or knodes < c.min_knodes:
            return None, True
        best = max(s for s, _ in lines)
        if c.move_quality == "best":
            score, move = lines[0]
        else:
            good = [(s, m) for s, m in lines if s >= best - c.max_score_difference]
            score, move = (rng or random.Random()).choice(good)
        shown = "mate" if abs(score) > MATE_CP // 2 else f"{score:+d} cp"
        return OnlineMove(board.uci(move, chess960=board.chess960), CLOUD,
                          f"cloud eval depth {depth}, {shown}"), True

    async def tablebase(self, board: chess.Board, clock_s: float,
                        budget_s: float) -> OnlineMove | None:
        c = self.cfg.online_egtb
        path = variants.of_board(board).tablebase
        if (not c.enabled or clock_s < c.min_time or path is None or board.castling_rights
                or chess.popcount(board.occupied) > tablebase_pieces(board, c.max_pieces,
                                                                     path)):
            return None
        _, data = await self._get(EGTB, f"{self.tablebase_base}/{path}",
                                  {"fen": board.fen()}, min(c.timeout_s, budget_s))
        if data is None or data.get("category") in (None, "unknown"):
            return None
        try:
            best = data["moves"][0]  # the server lists the best move first
            move = board.parse_uci(str(best["uci"]))
        except (KeyError, TypeError, ValueError, IndexError):
            return None
        mine = _OURS.get(str(best.get("category")), "unknown")
        # An op1 answer has DTC (moves to a conversion), no DTZ.
        depth = f"dtz {best.get('dtz')}" if best.get("dtz") is not None \
            else f"dtc {best.get('dtc')}"
        return OnlineMove(board.uci(move, chess960=False), EGTB,
                          f"online tablebase {mine}, {depth}")

    # ------------------------------------------------------------------ transport
    def _paused(self, source: str) -> bool:
        return self._paused_until.get(source, 0.0) > time.monotonic()

    async def _get(self, source: str, url: str, params: dict[str, str], timeout_s: float,
                   headers: dict[str, str] | None = None) -> tuple[bool, Any]:
        """(sent, JSON of a 200 answer or None): not sent when the source is paused
        or too little time is left; None on any failure."""
        if self._paused(source) or timeout_s < MIN_REQUEST_S:
            return False, None
        try:
            # The thread may outlive a wait_for timeout; requests' own timeout ends it.
            return True, await asyncio.wait_for(
                asyncio.to_thread(self._get_blocking, source, url, params, timeout_s,
                                  headers or {}),
                timeout_s + 0.05)
        except TimeoutError:
            log.info("%s: no answer within %.2f s, searching instead", source, timeout_s)
            return True, None

    def _get_blocking(self, source: str, url: str, params: dict[str, str], timeout_s: float,
                      headers: dict[str, str]) -> Any:
        try:
            resp = self._session.get(url, params=params, headers=headers,
                                     timeout=(timeout_s, timeout_s))
        except requests.RequestException as exc:
            log.info("%s: %s, searching instead", source, type(exc).__name__)
            return None
        if resp.status_code == 429:
            self._paused_until[source] = time.monotonic() + self.pause_s
            log.warning("%s: 429 Too Many Requests, not asked for %.0f s", source, self.pause_s)
            return None
        if resp.status_code != 200:
            if resp.status_code in (401, 403):
                log.warning("%s: HTTP %d, the server wants a valid token", source,
                            resp.status_code)
            elif resp.status_code != 404:  # 404 = position unknown (cloud eval): normal
                log.info("%s: HTTP %d, searching instead", source, resp.status_code)
            return None
        try:
            data = resp.json()
        except ValueError:
            log.info("%s: answer is not JSON, searching instead", source)
            return None
        return data if isinstance(data, dict) else None
