"""The emulator against lila's 2025-26 behaviours (issue 48; docs/lichess.md rows
32-38): claim-draw and claim-victory, insufficientMaterialClaim, gameState
expiration, /api/bot/online's cap, the challenge scopes and the tablebase's op1
positions. Raw HTTP against Emulator(...) over loopback; no mocks."""

from __future__ import annotations

from typing import Any

import chess
import pytest
import requests

from bot.emulator import AccountSpec, Emulator, EmulatorUsageError, OpponentSpec, UserSpec
from bot.emulator.claim_ops import CANNOT_CLAIM_DRAW, CANNOT_CLAIM_WIN
from bot.lichess.events import GameState, parse_game_event
from tests.test_emulator import Reader, auth, client, open_game, post

# White (the bot) has a bare king; Black a rook: only Black can win.
BARE_KING = "7k/8/8/8/8/8/6r1/K7 w - - 0 1"


def _left(emu: Emulator, fen: str | None = None, moves: tuple[str, ...] = ("e2e4", "e7e5"),
          bot_move: str = "g1f3") -> str:
    """A game (the bot White) whose opponent left after the bot's move; the
    `opponentGone` countdown (1 s) has run out."""
    gid = emu.start_game_directly(bot_color="white", initial_fen=fen, moves=moves,
                                  clock_limit_s=60, opponent=OpponentSpec(think_time_s=30))
    stream = open_game(emu, gid)
    assert post(emu, f"/api/bot/game/{gid}/move/{bot_move}").status_code == 200
    emu.opponent_action(gid, "leave")
    stream.next_of("opponentGone", timeout=3, claimWinInSeconds=0)
    return gid


def test_claim_draw_needs_the_opponent_long_gone_and_their_turn(emu_factory: Any) -> None:
    emu = emu_factory(opponent_gone_claim_s=1)
    # Not drawable yet (abortable: under two plies): 200 and nothing (`drawable.so`).
    young = emu.start_game_directly(bot_color="white", clock_limit_s=60,
                                    opponent=OpponentSpec(think_time_s=30))
    assert post(emu, f"/api/bot/game/{young}/claim-draw").status_code == 200
    assert not emu.game(young).over
    # Drawable, the opponent here: DrawForce does nothing, the answer is lila's 400.
    here = emu.start_game_directly(bot_color="white", moves=["e2e4", "e7e5"],
                                   clock_limit_s=60, opponent=OpponentSpec(think_time_s=30))
    assert post(emu, f"/api/bot/game/{here}/move/g1f3").status_code == 200
    answer = post(emu, f"/api/bot/game/{here}/claim-draw")
    assert answer.status_code == 400 and answer.json()["error"] == CANNOT_CLAIM_DRAW
    assert not emu.game(here).over
    # Gone for good: rageQuit(None), status timeout and no winner.
    gid = _left(emu)
    assert post(emu, f"/api/bot/game/{gid}/claim-draw").status_code == 200
    snap = emu.game(gid)
    assert (snap.status, snap.winner) == ("timeout", None), snap
    pgn = emu.pgn(gid)
    assert '[Result "1/2-1/2"]' in pgn and '[Termination "Time forfeit"]' in pgn, pgn


def test_claim_victory_without_mating_material_ends_drawn_and_answers_400(
        emu_factory: Any) -> None:
    emu = emu_factory(opponent_gone_claim_s=1)
    gid = _left(emu, BARE_KING, moves=("a1b1", "g2g3"), bot_move="b1c2")
    answer = post(emu, f"/api/bot/game/{gid}/claim-victory")
    # RoundAsyncActor ResignForce: rageQuit without a winner; BotPlayer then finds
    # the game not won by us.
    assert answer.status_code == 400 and answer.json()["error"] == CANNOT_CLAIM_WIN
    snap = emu.game(gid)
    assert (snap.status, snap.winner) == ("timeout", None), snap
    # With material the claim wins (tests/test_emulator.py has the countdown).
    won = _left(emu)
    assert post(emu, f"/api/bot/game/{won}/claim-victory").status_code == 200
    assert (emu.game(won).status, emu.game(won).winner) == ("timeout", "white")


def test_a_draw_offer_against_no_mating_material_is_insufficient_material_claim(
        emu_factory: Any) -> None:
    """lila Drawer.yes: an offer when the other side cannot win ends the game at
    once, status insufficientMaterialClaim (39), no winner."""
    emu = emu_factory()
    # The opponent (Black, with a rook) offers; the bot (bare king) cannot win.
    gid = emu.start_game_directly(bot_color="white", initial_fen=BARE_KING,
                                  moves=["a1b1", "g2g3"], clock_limit_s=60,
                                  opponent=OpponentSpec(think_time_s=30))
    stream = open_game(emu, gid)
    emu.opponent_action(gid, "offer_draw")
    state = stream.next_of("gameState", timeout=3, status="insufficientMaterialClaim")
    assert "winner" not in state
    assert '[Termination "Insufficient material"]' in emu.pgn(gid)
    assert '[Result "1/2-1/2"]' in emu.pgn(gid)
    info = requests.get(f"{emu.url}/api/account/playing", headers=auth(), timeout=5).json()
    assert gid not in [g["gameId"] for g in info["nowPlaying"]]
    # The bot offering with material against a bare king: the same, with its move.
    rook = emu.start_game_directly(bot_color="black", initial_fen=BARE_KING,
                                   moves=["a1b1", "g2g3", "b1a1"], clock_limit_s=60,
                                   opponent=OpponentSpec(think_time_s=30))
    answer = post(emu, f"/api/bot/game/{rook}/move/g3g4", params={"offeringDraw": "true"})
    assert answer.status_code == 200
    snap = emu.game(rook)
    assert (snap.status, snap.winner) == ("insufficientMaterialClaim", None), snap
    # Where both can still win, an offer is only an offer.
    plain = emu.start_game_directly(bot_color="white", moves=["e2e4", "e7e5"],
                                    clock_limit_s=60, opponent=OpponentSpec(think_time_s=30))
    emu.opponent_action(plain, "offer_draw")
    assert not emu.game(plain).over and emu.game(plain).draw_offers["black"]


def test_expiration_only_before_both_first_moves_of_an_expirable_game(
        emu_factory: Any) -> None:
    """lila JsonView.expiration (api GameStateEvent.yaml): `{idleMillis, millisToMove}`
    while RoundGame.expirable (a lobby, arena, pool or Swiss game before both first
    moves); a challenge's game (source friend) never has it."""
    emu = emu_factory(arena_pairing_interval_s=0.2, arena_first_move_s=None,
                      first_move_timeout_s=None)
    aid = emu.arenas.create(minutes=5, clock_limit_s=60, opponents=["ann"])
    joined = requests.post(f"{emu.url}/api/tournament/{aid}/join", headers=auth(), timeout=5)
    assert joined.status_code == 200
    assert emu.wait_until(lambda: any(g.bot_color for g in emu.games()), 10)
    arena = emu.games()[0]
    full = open_game_full(emu, arena.id)
    exp = full["state"]["expiration"]
    assert exp["millisToMove"] == 16_000  # a bullet arena game (RoundGame timeForFirstMove)
    assert 0 <= exp["idleMillis"] < 3_000, exp
    parsed = parse_game_event(full["state"])
    assert isinstance(parsed, GameState) and parsed.expiration is not None
    assert parsed.expiration.left_ms == 16_000 - exp["idleMillis"]
    # Both first moves made (ours and the arena opponent's): no more expiration.
    if arena.bot_color == "black":
        assert emu.wait_until(lambda: len(emu.game(arena.id).moves) == 1, 10)
    board = chess.Board(emu.game(arena.id).fen)
    ours = next(iter(board.legal_moves)).uci()
    assert post(emu, f"/api/bot/game/{arena.id}/move/{ours}").status_code == 200
    assert emu.wait_until(lambda: len(emu.game(arena.id).moves) >= 2, 10)
    assert "expiration" not in open_game_full(emu, arena.id)["state"]
    # A lobby game has one; a challenge's game never.
    lobby = emu.start_game_directly(bot_color="white", clock_limit_s=180, increment_s=2,
                                    source="lobby")
    assert open_game_full(emu, lobby)["state"]["expiration"]["millisToMove"] == 25_000
    friend = emu.start_game_directly(bot_color="white", clock_limit_s=180, increment_s=2)
    assert "expiration" not in open_game_full(emu, friend)["state"]


def open_game_full(emu: Emulator, game_id: str) -> dict[str, Any]:
    full: dict[str, Any] = Reader(client(emu).bots.stream_game_state(game_id)).get()
    assert full["type"] == "gameFull"
    return full


def test_online_bots_are_capped_at_200_whatever_nb(emu_factory: Any) -> None:
    """lila onlineBotVisible = Max(200) (modules/user/src/main/package.scala) bounds
    the list; `nb` takes from it (api-bot-online.yaml: 1..512, default 100)."""
    emu = emu_factory(users=[UserSpec(f"bot{i:03}") for i in range(250)])

    def count(**params: Any) -> int:
        r = requests.get(f"{emu.url}/api/bot/online", params=params, timeout=5)
        assert r.status_code == 200
        return len(r.text.splitlines())

    assert count() == 100
    assert count(nb=150) == 150
    assert count(nb=200) == count(nb=512) == count(nb=600) == 200
    assert count(nb=1) == 1


# lila-tablebase src/op1.rs tests: an 8-piece op1 position (h2 against h3).
OP1 = "R7/8/8/8/7q/2K1B2p/7P/2Bk4 w - - 0 1"


def test_op1_positions_answer_dtc_on_the_standard_route(emu_factory: Any) -> None:
    emu = emu_factory()
    emu.online.set_op1(OP1, 16, {"e3f2": -15, "a8d8": 0})

    def probe(fen: str, **params: str) -> dict[str, Any]:
        r = requests.get(f"{emu.url}/standard", params={"fen": fen, **params}, timeout=5)
        assert r.status_code == 200
        body: dict[str, Any] = r.json()
        return body

    body = probe(OP1)
    best = body["moves"][0]
    # response.rs with_dtc: DTC -15 after one ply is no certain loss (the 50-move
    # rule): maybe-loss for the side left; the position, its negation.
    assert (best["uci"], best["dtc"], best["dtz"], best["category"]) == \
        ("e3f2", -15, None, "maybe-loss")
    assert body["category"] == "maybe-win" and body["dtc"] == 16 and body["dtz"] is None
    drawn = next(m for m in body["moves"] if m["uci"] == "a8d8")
    assert drawn["category"] == "draw" and drawn["dtc"] == 0
    assert all(m["category"] == "unknown" for m in body["moves"][2:])
    # dtc=never (request.rs Op1Mode): no op1 answer.
    assert probe(OP1, dtc="never")["category"] == "unknown"
    # 8 pieces without opposed pawns: not op1, unknown (no 8-piece Syzygy tables).
    plain = "R7/8/8/8/7q/2K1B3/7P/2Bk1p2 w - - 0 1"
    assert probe(plain)["category"] == "unknown"
    with pytest.raises(EmulatorUsageError, match="not an op1 position"):
        emu.online.set_op1(plain, 3, {})


def test_a_challenge_takes_any_one_of_its_scopes(emu_factory: Any) -> None:
    """lila Challenge.scala apiCreate: ScopedBody(challenge:write, bot:play,
    board:play, web:mobile), any one suffices (OAuthScope EndpointScopes.compatible)."""
    only_bot = AccountSpec(token="lip_bot_play_only", scopes=("bot:play",))
    reader = AccountSpec(token="lip_read_only", username="reader",
                         scopes=("challenge:read",))
    emu = emu_factory(accounts=[only_bot, reader])
    made = post(emu, "/api/challenge/sparbot-weak", token=only_bot.token,
                data={"clock.limit": 60, "clock.increment": 0})
    assert made.status_code == 200, made.text
    refused = post(emu, "/api/challenge/sparbot-weak", token=reader.token,
                   data={"clock.limit": 60, "clock.increment": 0})
    assert refused.status_code == 403 and "bot:play" in refused.json()["error"]
