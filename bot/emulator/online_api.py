"""Lichess's online move sources, served on the emulator's port so the bot's
`engine.online_moves` URLs can point at it:

* opening explorer `GET /masters`, `GET /lichess` (explorer.lichess.org),
* cloud evaluation `GET /api/cloud-eval` (lichess.org),
* tablebase `GET /standard`, `/atomic` and `/antichess` (tablebase.lichess.org),

each in the variants Lichess serves there: the Lichess-games explorer and cloud
eval take a `variant` (schemas/VariantKey.yaml; positions read by python-chess's
variant boards), the masters explorer is standard chess only, the tablebase
has one path per variant it knows (tags/tablebase/atomic.yaml, antichess.yaml;
only game ends are known in those two here: no variant tables are bundled).

Shapes follow lichess-org/api doc/specs (tags/openingexplorer/masters.yaml and
lichess.yaml, schemas/OpeningExplorerMasters.yaml, tags/analysis/api-cloud-eval.yaml,
tags/tablebase/standard.yaml, schemas/TablebaseJson.yaml). Answers are canned per
position (`set_explorer`, `set_cloud_eval`, `set_op1` for the tablebase's partial
8-piece "op1" positions, op1.py), or derived: explorer statistics from a polyglot
book (`use_book`), tablebase answers from local Syzygy files (`use_syzygy`).
Errors, slowness and 429s come from the emulator's usual fault injection, e.g.
``emu.faults.inject("http_error", "GET /api/cloud-eval", status=429)``.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import chess
import chess.polyglot
import chess.syzygy

from bot.emulator import op1
from bot.emulator.errors import ApiError, EmulatorUsageError
from bot.emulator.game import make_board
from bot.emulator.payloads import VARIANTS
from bot.emulator.server import Reply, Request, Route

NO_CLOUD_EVAL = "No cloud evaluation available for that position"


@dataclass(frozen=True)
class ExplorerMove:
    uci: str
    white: int
    draws: int
    black: int
    average_rating: int = 2400


@dataclass(frozen=True)
class Op1Answer:
    """What lila-tablebase's op1 backend knows of a position (op1.rs Op1Response):
    its DTC and each move's (the position after it, from its mover's opponent's
    side), None where unknown."""

    root: int | None
    children: dict[str, int | None]


@dataclass(frozen=True)
class CloudPv:
    moves: str  # space-separated UCI
    cp: int | None = None
    mate: int | None = None


def position_key(board: chess.Board) -> str:
    """Position identity without move counters (as lila keys explorer/cloud data),
    per variant (a crazyhouse EPD carries its pockets)."""
    return f"{board.uci_variant} {board.epd()}"


def _board(fen: str | None, variant: str = "standard") -> chess.Board:
    if variant not in VARIANTS:
        raise ApiError(400, f"Invalid variant {variant[:20]!r}")
    try:
        return make_board(variant, fen.replace("_", " ") if fen else None)
    except ValueError:
        raise ApiError(400, "Invalid fen") from None


class OnlineData:
    """What the online routes answer; thread-safe (handlers run in threads)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._explorer: dict[tuple[str, str], list[ExplorerMove]] = {}
        self._cloud: dict[str, tuple[int, int, list[CloudPv]]] = {}
        self._book: chess.polyglot.MemoryMappedReader | None = None
        self._tb: chess.syzygy.Tablebase | None = None
        self._op1: dict[str, Op1Answer] = {}
        self.user_agents: list[str] = []  # of every online request, for tests

    # ------------------------------------------------------------------ setup
    def set_explorer(self, fen: str, moves: list[ExplorerMove],
                     db: str = "masters", variant: str = "standard") -> None:
        if db not in ("masters", "lichess"):
            raise EmulatorUsageError(f"explorer db {db!r}: use masters or lichess")
        if db == "masters" and variant != "standard":
            raise EmulatorUsageError("the masters explorer is standard chess only")
        board = _board(fen, variant)
        for m in moves:
            if chess.Move.from_uci(m.uci) not in board.legal_moves:
                raise EmulatorUsageError(f"explorer move {m.uci} is illegal in {fen}")
        with self._lock:
            self._explorer[(db, position_key(board))] = list(moves)

    def set_cloud_eval(self, fen: str, pvs: list[CloudPv], depth: int = 30,
                       knodes: int = 50_000, variant: str = "standard") -> None:
        board = _board(fen, variant)
        for pv in pvs:
            first = pv.moves.split()[0] if pv.moves.split() else ""
            if not first or board.parse_uci(first) not in board.legal_moves:
                raise EmulatorUsageError(f"cloud pv {pv.moves!r} does not start legally")
        with self._lock:
            self._cloud[position_key(board)] = (depth, knodes, list(pvs))

    def set_op1(self, fen: str, dtc: int | None, moves: dict[str, int | None]) -> None:
        """The op1 (partial 8-piece) tables' DTC for a position that lila-tablebase
        asks them about (op1.py `asked`: it or a position after one move is an op1
        position) and for its moves (`moves`: uci -> the DTC after it)."""
        board = _board(fen)
        if not op1.asked(board):
            raise EmulatorUsageError(f"{fen}: not an op1 position, nor one move from one "
                                     "(lila-tablebase src/op1.rs use_op1)")
        for uci in moves:
            if chess.Move.from_uci(uci) not in board.legal_moves:
                raise EmulatorUsageError(f"op1 move {uci} is illegal in {fen}")
        with self._lock:
            self._op1[position_key(board)] = Op1Answer(dtc, dict(moves))

    def use_book(self, path: str) -> None:
        """Derive explorer statistics (both databases) from a polyglot book's weights."""
        with self._lock:
            self._book = chess.polyglot.open_reader(path)

    def use_syzygy(self, path: str) -> None:
        """Answer /standard from these Syzygy tables (positions they don't cover: unknown)."""
        with self._lock:
            self._tb = chess.syzygy.open_tablebase(path)

    def close(self) -> None:
        with self._lock:
            if self._book is not None:
                self._book.close()
            if self._tb is not None:
                self._tb.close()
            self._book = self._tb = None

    # ------------------------------------------------------------------ answers
    def explorer(self, db: str, req: Request) -> dict[str, Any]:
        # The masters database has no variant parameter: standard chess.
        variant = req.query.get("variant", "standard") if db == "lichess" else "standard"
        board = _board(req.query.get("fen"), variant)
        for uci in filter(None, req.query.get("play", "").split(",")):
            try:
                board.push(board.parse_uci(uci))
            except ValueError:
                raise ApiError(400, f"Illegal move {uci}") from None
        with self._lock:
            moves = self._explorer.get((db, position_key(board)))
            if moves is None and self._book is not None and variant == "standard":
                # weight = games; the side to move scored weight/2 wins, the rest draws
                moves = []
                for e in self._book.find_all(board, minimum_weight=1):
                    wins, draws = e.weight // 2, e.weight - e.weight // 2
                    w, b = (wins, 0) if board.turn == chess.WHITE else (0, wins)
                    moves.append(ExplorerMove(e.move.uci(), w, draws, b))
        moves = sorted(moves or [], key=lambda m: -(m.white + m.draws + m.black))
        limit = int(req.query.get("moves", 12) or 12)
        out = []
        for m in moves[:limit]:
            move = board.parse_uci(m.uci)
            out.append({"uci": m.uci, "san": board.san(move), "averageRating": m.average_rating,
                        "white": m.white, "draws": m.draws, "black": m.black,
                        "game": None, "opening": None})
        body: dict[str, Any] = {
            "opening": None,
            "white": sum(m["white"] for m in out),
            "draws": sum(m["draws"] for m in out),
            "black": sum(m["black"] for m in out),
            "moves": out,
            "topGames": [],
        }
        if db == "lichess":
            body["recentGames"] = []
        return body

    def cloud_eval(self, req: Request) -> dict[str, Any]:
        fen = req.query.get("fen")
        if not fen:
            raise ApiError(400, "Missing fen")
        board = _board(fen, req.query.get("variant", "standard"))
        with self._lock:
            found = self._cloud.get(position_key(board))
        if found is None:
            raise ApiError(404, NO_CLOUD_EVAL)
        depth, knodes, pvs = found
        try:
            multi = max(1, int(float(req.query.get("multiPv", 1))))
        except ValueError:
            raise ApiError(400, "Invalid multiPv") from None
        lines = []
        for pv in pvs[:multi]:
            line: dict[str, Any] = {"moves": pv.moves}
            if pv.mate is not None:
                line["mate"] = pv.mate
            else:
                line["cp"] = pv.cp if pv.cp is not None else 0
            lines.append(line)
        return {"fen": fen, "knodes": knodes, "depth": depth, "pvs": lines}

    def tablebase(self, req: Request, variant: str = "standard") -> dict[str, Any]:
        fen = req.query.get("fen")
        if not fen:
            raise ApiError(400, "Missing fen")
        board = _board(fen, variant)
        with self._lock:
            tb = self._tb if variant == "standard" else None
            # lila-tablebase asks its op1 backend (dtc=auxiliary, the default) only
            # for chess positions of 8-9 pieces at or one move from op1 (op1.py).
            dtc_mode = req.query.get("dtc", "auxiliary")
            answer = self._op1.get(position_key(board)) \
                if variant == "standard" and dtc_mode != "never" and op1.asked(board) else None
            info = _tb_info(tb, board)
            moves = []
            for move in board.legal_moves:
                san, zeroing, before = board.san(move), board.is_zeroing(move), \
                    board.halfmove_clock
                board.push(move)
                child = _tb_info(tb, board)
                if answer is not None:
                    _with_dtc(child, answer.children.get(move.uci()), board, before)
                board.pop()
                child.update(uci=move.uci(), san=san, zeroing=zeroing)
                moves.append(child)
            if answer is not None:
                _with_dtc(info, answer.root, board, max(0, board.halfmove_clock - 1))
        # best first for the side to move: the opponent's worst category, then
        # fastest wins (zeroing first) / slowest losses (DTZ, or DTC for op1)
        order = {c: i for i, c in enumerate((
            "loss", "syzygy-loss", "maybe-loss", "blessed-loss", "draw", "cursed-win",
            "maybe-win", "syzygy-win", "win", "unknown"))}

        def key(m: dict[str, Any]) -> tuple[int, int]:
            cat = m["category"]
            metric = abs(m["dtz"] if m["dtz"] is not None else m["dtc"] or 0)
            if m["checkmate"] or m["variant_loss"]:
                return (-1, 0)
            if cat.endswith("loss"):
                return (order[cat], 0 if m["zeroing"] else 1 + metric)
            return (order[cat], -metric)

        info["moves"] = sorted(moves, key=key)
        if answer is not None and moves:
            # tablebases.rs `probe`: the position's category is its best move's, negated.
            info["category"] = op1.NEGATE[info["moves"][0]["category"]]
        if info["category"] == "unknown" and moves and info["moves"][0]["category"] == "loss":
            # A move that ends the game (an explosion, the last piece given away) wins
            # it; the server knows as much without a table.
            info.update(category="win", dtz=1, precise_dtz=1)
        return info


def _tb_info(tb: chess.syzygy.Tablebase | None, board: chess.Board) -> dict[str, Any]:
    info: dict[str, Any] = {
        "category": "unknown", "dtz": None, "precise_dtz": None, "dtc": None, "dtm": None,
        "dtw": None, "checkmate": board.is_checkmate(), "stalemate": board.is_stalemate(),
        "variant_win": board.is_variant_win(), "variant_loss": board.is_variant_loss(),
        "insufficient_material": board.is_insufficient_material(),
    }
    if info["checkmate"] or info["variant_loss"]:
        info.update(category="loss", dtz=0, precise_dtz=0)
        return info
    if info["variant_win"]:
        info.update(category="win", dtz=0, precise_dtz=0)
        return info
    if info["stalemate"] or info["insufficient_material"]:
        info.update(category="draw", dtz=0, precise_dtz=0)
        return info
    if tb is None or board.castling_rights:
        return info
    try:
        wdl = tb.probe_wdl(board)
        dtz = tb.probe_dtz(board)
    except (KeyError, chess.syzygy.MissingTableError):
        return info
    # the clock can turn a table win into a 50-move draw
    if wdl == 2 and board.halfmove_clock + abs(dtz) > 100:
        wdl = 1
    elif wdl == -2 and board.halfmove_clock + abs(dtz) > 100:
        wdl = -1
    info["category"] = {2: "win", 1: "cursed-win", 0: "draw", -1: "blessed-loss",
                        -2: "loss"}[wdl]
    info["dtz"] = info["precise_dtz"] = dtz
    return info


def _with_dtc(info: dict[str, Any], dtc: int | None, board: chess.Board,
              halfmoves_before: int) -> None:
    """An op1 DTC on a position the Syzygy answer left without a DTZ (response.rs
    `with_dtc`): its category from the DTC and the halfmove clocks."""
    if dtc is None or info["dtz"] is not None or info["category"] != "unknown":
        return
    info["dtc"] = dtc
    info["category"] = op1.dtc_category(dtc, board.halfmove_clock, halfmoves_before,
                                        op1.zeroing_is_conversion(board))


def _keys(body: Any, known: set[str], what: str) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise EmulatorUsageError(f"{what} needs a JSON object")
    unknown = sorted(set(body) - known)
    if unknown:
        raise EmulatorUsageError(f"{what}: unknown keys {unknown}; known keys: {sorted(known)}")
    return body


def _list(value: Any, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise EmulatorUsageError(f"{what} must be a list")
    return value


def _dc(cls: Any, value: Any, what: str) -> Any:
    if not isinstance(value, dict):
        raise EmulatorUsageError(f"{what} must be a JSON object")
    try:
        return cls(**value)
    except TypeError as exc:
        raise EmulatorUsageError(f"{what}: {exc}") from None


def build_online_routes(data: OnlineData) -> list[Route]:
    def seen(req: Request) -> None:
        with data._lock:
            data.user_agents.append(req.headers.get("user-agent", ""))

    def masters(req: Request) -> Reply:
        seen(req)
        return Reply(body=data.explorer("masters", req))

    def lichess(req: Request) -> Reply:
        seen(req)
        return Reply(body=data.explorer("lichess", req))

    def cloud(req: Request) -> Reply:
        seen(req)
        return Reply(body=data.cloud_eval(req))

    def standard(req: Request) -> Reply:
        seen(req)
        return Reply(body=data.tablebase(req))

    def atomic(req: Request) -> Reply:
        seen(req)
        return Reply(body=data.tablebase(req, "atomic"))

    def antichess(req: Request) -> Reply:
        seen(req)
        return Reply(body=data.tablebase(req, "antichess"))

    # Control over HTTP (no auth, no faults), for a bot or bench in another process.
    def ctl_explorer(req: Request) -> Reply:
        body = _keys(req.body, {"fen", "moves", "db", "variant"}, "/emu/online/explorer")
        moves = [_dc(ExplorerMove, m, "/emu/online/explorer moves[]") for m in
                 _list(body.get("moves"), "moves")]
        data.set_explorer(str(body.get("fen") or chess.STARTING_FEN), moves,
                          str(body.get("db", "masters")), str(body.get("variant", "standard")))
        return Reply()

    def ctl_cloud(req: Request) -> Reply:
        body = _keys(req.body, {"fen", "pvs", "depth", "knodes", "variant"},
                     "/emu/online/cloud-eval")
        pvs = [_dc(CloudPv, pv, "/emu/online/cloud-eval pvs[]") for pv in
               _list(body.get("pvs"), "pvs")]
        data.set_cloud_eval(str(body.get("fen") or ""), pvs, int(body.get("depth", 30)),
                            int(body.get("knodes", 50_000)), str(body.get("variant", "standard")))
        return Reply()

    def ctl_path(req: Request) -> Reply:
        body = _keys(req.body, {"path"}, req.path)
        path = body.get("path")
        if not isinstance(path, str) or not path:
            raise EmulatorUsageError(f"{req.path} needs {{\"path\": \"...\"}}")
        try:
            (data.use_book if req.path.endswith("/book") else data.use_syzygy)(path)
        except (OSError, ValueError) as exc:
            raise EmulatorUsageError(f"{req.path}: cannot open {path}: {exc}") from None
        return Reply()

    # The explorer has answered 401 to anonymous requests since March 2026.
    return [
        Route("POST", "/emu/online/explorer", ctl_explorer),
        Route("POST", "/emu/online/cloud-eval", ctl_cloud),
        Route("POST", "/emu/online/book", ctl_path),
        Route("POST", "/emu/online/syzygy", ctl_path),
        Route("GET", "/masters", masters, auth=True),
        Route("GET", "/lichess", lichess, auth=True),
        Route("GET", "/api/cloud-eval", cloud),
        Route("GET", "/standard", standard),
        Route("GET", "/atomic", atomic),
        Route("GET", "/antichess", antichess),
    ]
