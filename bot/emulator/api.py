"""The Lichess Bot API routes (paths as berserk 0.14 and lichess-org/api use them)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import chess
import chess.pgn

from bot.emulator.errors import ApiError
from bot.emulator.server import NdjsonReply, Reply, Request, Route, StreamReply

if TYPE_CHECKING:
    from bot.emulator.core import Core

BOT = ("bot:play",)
CHALLENGE_READ = ("challenge:read", "bot:play", "board:play")
CHALLENGE_WRITE = ("challenge:write", "bot:play", "board:play")
# app/controllers/Challenge.scala apiCreate: ScopedBody(Challenge.Write, Bot.Play,
# Board.Play, Web.Mobile), any one of them (OAuthScope.scala EndpointScopes.compatible):
# bot:play alone lets a BOT challenge (api-challenge-username.yaml lists the same).
CHALLENGE_CREATE = (*CHALLENGE_WRITE, "web:mobile")
# app/controllers/Tournament.scala apiJoin/apiWithdraw: ScopedBody(Tournament.Write,
# Bot.Play, Web.Mobile).
TOURNAMENT_WRITE = ("tournament:write", "bot:play", "web:mobile")


def build_routes(core: Core) -> list[Route]:
    def account(req: Request) -> Reply:
        assert req.account is not None
        return Reply(body=core.user_json(req.account.username, with_online=False))

    def token_test(req: Request) -> Reply:
        # berserk posts the tokens as a raw comma-separated body (no form keys).
        text = req.raw_body.decode("utf-8", errors="replace")
        out: dict[str, Any] = {}
        for tok in [t.strip() for t in text.split(",") if t.strip()]:
            acc = core.account_for_token(tok)
            out[tok] = (
                None
                if acc is None
                else {
                    "scopes": ",".join(acc.scopes),
                    "userId": acc.username.lower(),
                    "expires": None,
                }
            )
        return Reply(body=out)

    def upgrade(req: Request) -> Reply:
        assert req.account is not None
        core.upgrade(req.account)
        return Reply()

    def event_stream(req: Request) -> StreamReply:
        assert req.account is not None
        return StreamReply(core.open_event_stream(req.account, req.bearer),
                           core.config.event_keepalive_s)

    def game_stream(req: Request) -> StreamReply:
        assert req.account is not None
        sub = core.open_game_stream(req.account, req.params["id"])
        return StreamReply(sub, core.config.game_keepalive_s)

    def move(req: Request) -> Reply:
        assert req.account is not None
        offering = str(req.query.get("offeringDraw", "")).lower() == "true"
        core.bot_move(req.account, req.params["id"], req.params["move"], offering)
        return Reply()

    def chat_post(req: Request) -> Reply:
        assert req.account is not None
        room = str(req.body.get("room", "player"))
        text = str(req.body.get("text", ""))
        core.bot_chat(req.account, req.params["id"], room, text)
        return Reply()

    def chat_get(req: Request) -> Reply:
        assert req.account is not None
        return Reply(body=core.chat_history(req.account, req.params["id"]))

    def abort(req: Request) -> Reply:
        assert req.account is not None
        core.bot_abort(req.account, req.params["id"])
        return Reply()

    def resign(req: Request) -> Reply:
        assert req.account is not None
        core.bot_resign(req.account, req.params["id"])
        return Reply()

    def yes_no(value: str) -> bool:
        if value not in ("yes", "no", "true", "false"):
            raise ApiError(400, f"Invalid answer {value!r}: use yes or no")
        return value in ("yes", "true")

    def draw(req: Request) -> Reply:
        assert req.account is not None
        core.bot_draw(req.account, req.params["id"], yes_no(req.params["accept"]))
        return Reply()

    def takeback(req: Request) -> Reply:
        assert req.account is not None
        core.bot_takeback(req.account, req.params["id"], yes_no(req.params["accept"]))
        return Reply()

    def claim_victory(req: Request) -> Reply:
        assert req.account is not None
        core.bot_claim_victory(req.account, req.params["id"])
        return Reply()

    def claim_draw(req: Request) -> Reply:
        assert req.account is not None
        core.bot_claim_draw(req.account, req.params["id"])
        return Reply()

    def challenges(req: Request) -> Reply:
        assert req.account is not None
        return Reply(body=core.list_challenges(req.account))

    def accept(req: Request) -> Reply:
        assert req.account is not None
        core.accept_challenge(req.account, req.params["id"])
        return Reply()

    def decline(req: Request) -> Reply:
        assert req.account is not None
        reason = req.body.get("reason") or req.query.get("reason")
        core.decline_challenge(req.account, req.params["id"], str(reason) if reason else None)
        return Reply()

    def cancel(req: Request) -> Reply:
        assert req.account is not None
        core.cancel_challenge(req.account, req.params["id"])
        return Reply()

    def create(req: Request) -> Reply:
        assert req.account is not None
        params = {**req.query, **req.body}
        return Reply(body=core.create_outgoing(req.account, req.params["username"], params))

    def online(req: Request) -> NdjsonReply:
        me = req.account.username if req.account else ""
        nb = req.query.get("nb")
        return NdjsonReply(core.online_bots(me, int(nb) if nb and nb.isdigit() else None))

    def user(req: Request) -> Reply:
        return Reply(body=core.user_json(req.params["username"]))

    def playing(req: Request) -> Reply:
        assert req.account is not None
        nb = req.query.get("nb")
        limit = int(nb) if nb and nb.isdigit() else None
        return Reply(body={"nowPlaying": core.playing(req.account, limit)})

    def export(req: Request) -> Reply:
        gid = req.params["id"]
        pgn = core.export_pgn(gid)
        accept_hdr = req.headers.get("accept", "")
        if "json" in accept_hdr:
            return Reply(body=_pgn_to_json(gid, pgn, core.snapshot(gid).json()))
        return Reply(body=pgn, content_type="application/x-chess-pgn")

    def tournament(req: Request) -> Reply:
        return Reply(body=core.arena_show(req.params["id"], req.account))

    def tournament_join(req: Request) -> Reply:
        assert req.account is not None
        password, team = req.body.get("password"), req.body.get("team")
        core.arena_join(req.account, req.params["id"], str(password) if password else None,
                        str(team) if team else None)
        return Reply()

    def tournament_withdraw(req: Request) -> Reply:
        assert req.account is not None
        core.arena_withdraw(req.account, req.params["id"])
        return Reply()

    def berserk(req: Request) -> Reply:
        # PlayApi.impl.command "berserk": a BOT account always gets this (lila c5446f8b).
        raise ApiError(400, "Cannot berserk")

    return [
        Route("GET", "/api/tournament/{id}", tournament),
        Route("POST", "/api/tournament/{id}/join", tournament_join, auth=True,
              scopes=TOURNAMENT_WRITE),
        Route("POST", "/api/tournament/{id}/withdraw", tournament_withdraw, auth=True,
              scopes=TOURNAMENT_WRITE),
        Route("POST", "/api/bot/game/{id}/berserk", berserk, auth=True, scopes=BOT,
              bot_only=True),
        Route("GET", "/api/account", account, auth=True),
        Route("GET", "/api/account/playing", playing, auth=True),
        Route("POST", "/api/token/test", token_test),
        Route("POST", "/api/bot/account/upgrade", upgrade, auth=True, scopes=BOT),
        Route("GET", "/api/stream/event", event_stream, auth=True, scopes=CHALLENGE_READ),
        Route(
            "GET", "/api/bot/game/stream/{id}", game_stream, auth=True, scopes=BOT, bot_only=True
        ),
        Route("POST", "/api/bot/game/{id}/move/{move}", move, auth=True, scopes=BOT, bot_only=True),
        Route("POST", "/api/bot/game/{id}/chat", chat_post, auth=True, scopes=BOT, bot_only=True),
        Route("GET", "/api/bot/game/{id}/chat", chat_get, auth=True, scopes=BOT, bot_only=True),
        Route("POST", "/api/bot/game/{id}/abort", abort, auth=True, scopes=BOT, bot_only=True),
        Route("POST", "/api/bot/game/{id}/resign", resign, auth=True, scopes=BOT, bot_only=True),
        Route(
            "POST", "/api/bot/game/{id}/draw/{accept}", draw, auth=True, scopes=BOT, bot_only=True
        ),
        Route(
            "POST",
            "/api/bot/game/{id}/takeback/{accept}",
            takeback,
            auth=True,
            scopes=BOT,
            bot_only=True,
        ),
        Route(
            "POST",
            "/api/bot/game/{id}/claim-victory",
            claim_victory,
            auth=True,
            scopes=BOT,
            bot_only=True,
        ),
        # PlayApi.scala: `case Array("game", id, "claim-draw")`, scope bot:play (lila 39329bfd).
        Route("POST", "/api/bot/game/{id}/claim-draw", claim_draw, auth=True, scopes=BOT,
              bot_only=True),
        Route("GET", "/api/challenge", challenges, auth=True, scopes=CHALLENGE_READ),
        Route("POST", "/api/challenge/{id}/accept", accept, auth=True, scopes=CHALLENGE_WRITE),
        Route("POST", "/api/challenge/{id}/decline", decline, auth=True, scopes=CHALLENGE_WRITE),
        Route("POST", "/api/challenge/{id}/cancel", cancel, auth=True, scopes=CHALLENGE_WRITE),
        Route("POST", "/api/challenge/{username}", create, auth=True, scopes=CHALLENGE_CREATE),
        Route("GET", "/api/bot/online", online),
        Route("GET", "/api/user/{username}", user),
        Route("GET", "/game/export/{id}", export),
    ]


def _pgn_to_json(gid: str, pgn: str, snap: dict[str, Any]) -> dict[str, Any]:
    """A compact version of Lichess's JSON game export (moves in SAN)."""
    import io

    game = chess.pgn.read_game(io.StringIO(pgn))
    sans: list[str] = []
    if game is not None:
        board = game.board()
        for mv in game.mainline_moves():
            sans.append(board.san(mv))
            board.push(mv)
    data: dict[str, Any] = {
        "id": gid,
        "rated": snap["rated"],
        "variant": snap["variant"],
        "status": snap["status"],
        "players": {
            "white": {"user": {"name": snap["white"], "id": snap["white"].lower()}},
            "black": {"user": {"name": snap["black"], "id": snap["black"].lower()}},
        },
        "moves": " ".join(sans),
    }
    if snap["winner"]:
        data["winner"] = snap["winner"]
    if snap["initial_fen"]:
        data["initialFen"] = snap["initial_fen"]
    return data
