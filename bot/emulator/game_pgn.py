"""A game's PGN as lila's export writes it (GET /game/export/{id})."""

from __future__ import annotations

import time

import chess.pgn

from bot.emulator.game import Game, make_board
from bot.emulator.payloads import VARIANTS, perf_key, perf_name


def game_pgn(game: Game, site: str) -> str:
    result = "*"
    if game.over:
        result = {"white": "1-0", "black": "0-1"}.get(game.winner or "", "1/2-1/2")
        if game.status in ("aborted", "noStart") and not game.winner:
            result = "*"
    board = make_board(game.variant, game.initial_fen)
    for uci in game.moves:
        board.push(board.parse_uci(uci))
    pgame = chess.pgn.Game.from_board(board)
    for key, value in _headers(game, site, result).items():
        pgame.headers[key] = value
    if game.initial_fen is not None:
        pgame.headers["FEN"] = game.initial_fen
        pgame.headers["SetUp"] = "1"
    exporter = chess.pgn.StringExporter(headers=True, variations=False, comments=False)
    return pgame.accept(exporter) + "\n"


def _headers(game: Game, site: str, result: str) -> dict[str, str]:
    kind = "Rated" if game.rated else "Casual"
    created = time.gmtime(game.created_at_ms / 1000)
    # lila modules/game/src/main/PgnDump.scala `tags` (lila 002fba69): a claimed
    # win or draw (rageQuit: status timeout) is a "Time forfeit" too.
    termination = {
        "outoftime": "Time forfeit",
        "timeout": "Time forfeit",
        "noStart": "Abandoned",
        "aborted": "Abandoned",
        "insufficientMaterialClaim": "Insufficient material",
        "cheat": "Rules infraction",
        "unknownFinish": "Unknown",
    }.get(game.status, "Normal" if game.over else "Unterminated")
    headers = {
        "Event": f"{kind} {perf_name(perf_key(game.variant, game.speed))} game",
        "Site": f"{site}/{game.id}",
        "Date": time.strftime("%Y.%m.%d", created),
        "Round": "-",
        "White": game.white.name,
        "Black": game.black.name,
        "Result": result,
        "GameId": game.id,
        "UTCDate": time.strftime("%Y.%m.%d", created),
        "UTCTime": time.strftime("%H:%M:%S", created),
        "WhiteElo": str(game.white.rating),
        "BlackElo": str(game.black.rating),
        "Variant": VARIANTS[game.variant][0],
        "TimeControl": (
            f"{(game.clock.initial_ms or 0) // 1000}+{game.clock.increment_ms // 1000}"
            if game.clock.limited
            else "-"
        ),
        "Termination": termination,
    }
    if game.white.title:
        headers["WhiteTitle"] = game.white.title
    if game.black.title:
        headers["BlackTitle"] = game.black.title
    return headers
