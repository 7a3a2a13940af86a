"""The bot's side of the Lichess variants (issue 34 item 6), without a game over
HTTP (tests/test_service_variants.py plays those): the variants' table, game
stream payloads with drops, the game's board and pockets rebuilt from the moves,
the stream's move spellings, PGN records, the challenge policy, per-variant
books, and which online services are asked in which variant (real HTTP to the
emulator's explorer, cloud-eval and tablebase routes)."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import chess
import chess.variant
import pytest
from test_book import write_book

from bot import variants
from bot.challenges.policy import decide
from bot.config import parse_config
from bot.emulator import (
    DEFAULT_TOKEN,
    CloudPv,
    Emulator,
    EmulatorConfig,
    ExplorerMove,
    OpponentSpec,
)
from bot.lichess.events import Challenge, GameFull, GameState, parse_game_event
from bot.lichess.token import Token
from bot.lichess_limits import VARIANTS
from bot.play.game_state import GameState as PlayState
from bot.play.move_forms import MoveForms
from bot.play.records import GameRecord, to_pgn
from bot.sources.book import OpeningBooks
from bot.sources.online import OnlineSources
from bot.store import pgn

HORDE_START = "rnbqkbnr/pppppppp/8/1PP2PP1/PPPPPPPP/PPPPPPPP/PPPPPPPP/PPPPPPPP w kq - 0 1"
RACING_START = "8/8/8/8/8/8/krbnNBRK/qrbnNBRQ w - - 0 1"
# A crazyhouse game with captures and a drop: after 3. exd5 Qxd5 both pockets hold a
# pawn, and 4. P@e4 drops White's on e4 (the moves as lila's UciDump writes them).
ZH_MOVES = ("e2e4", "d7d5", "e4d5", "d8d5", "P@e4")


# -- the table ------------------------------------------------------------------------
def test_every_lichess_variant_has_a_row_and_a_start() -> None:
    assert tuple(variants.BY_KEY) == VARIANTS
    assert variants.OWN_RULES == ("crazyhouse", "atomic", "antichess", "kingOfTheHill",
                                  "threeCheck", "horde", "racingKings")
    # Lichess's own start positions (lila chess.variant.Horde/RacingKings.initialFen).
    assert variants.get("horde").start_board().fen() == HORDE_START
    assert variants.get("racingKings").start_board("startpos").fen() == RACING_START
    assert variants.get("crazyhouse").start_board().fen().startswith("rnbqkbnr/")
    for row in variants.BY_KEY.values():
        board = row.start_board(chess960=row.key == "chess960")
        assert variants.of_board(board) is (row if row.key != "fromPosition"
                                            else variants.get("standard"))
    # The engine's names are UCI_Variant's (Fairy-Stockfish), python-chess's uci_variant.
    assert {v.key: v.engine for v in variants.BY_KEY.values() if not v.standard_rules} == {
        "crazyhouse": "crazyhouse", "atomic": "atomic", "antichess": "antichess",
        "kingOfTheHill": "kingofthehill", "threeCheck": "3check", "horde": "horde",
        "racingKings": "racingkings"}
    assert all(v.board.uci_variant == v.engine for v in variants.BY_KEY.values())


def test_the_engine_takes_every_variant_by_its_name() -> None:
    from bot.engine import Board

    for row in variants.BY_KEY.values():
        if row.standard_rules:
            continue
        ours = Board(variant=row.engine)
        assert ours.fen() == row.start_board().fen(), row.key
        assert sorted(ours.legal_moves()) == sorted(m.uci() for m in
                                                    row.start_board().legal_moves)


# -- the game stream at the edge ----------------------------------------------------------
def test_a_drop_in_the_moves_is_parsed_and_garbage_is_malformed(
        caplog: pytest.LogCaptureFixture) -> None:
    state = GameState.parse({"moves": " ".join(ZH_MOVES), "status": "started"})
    assert state.moves == ZH_MOVES
    # Antichess promotes to a king; every role but the king drops.
    assert GameState.parse({"moves": "a2a4 b7b5 a4b5 a7a6 b5a6 c8b7 a6b7 b8c6 b7a8k"}
                           ).moves[-1] == "b7a8k"
    for bad in ("e2e4 K@e4", "e2e4 P@e9", "e2e4 e7e5x", "e2-e4"):
        assert parse_game_event({"type": "gameState", "moves": bad}, where="game xyz") is None
    assert "neither a UCI move nor a drop" in caplog.text


def test_game_full_of_a_variant() -> None:
    base = {"id": "g1", "white": {"id": "pibot"}, "black": {"id": "alice"},
            "state": {"moves": "", "status": "started"}}
    horde = GameFull.parse({**base, "variant": {"key": "horde", "name": "Horde"},
                            "initialFen": "startpos"})
    assert horde.variant == "horde" and horde.start_fen is None
    zh = GameFull.parse({**base, "variant": {"key": "crazyhouse"},
                         "initialFen": "r3k2r/8/8/8/8/8/8/R2Q~K2R[Nn] b KQkq - 0 1"})
    assert zh.start_fen == "r3k2r/8/8/8/8/8/8/R2Q~K2R[Nn] b KQkq - 0 1"


def test_pockets_come_from_the_moves() -> None:
    st = PlayState(variant="crazyhouse", moves=list(ZH_MOVES))
    board = st.board()
    assert isinstance(board, chess.variant.CrazyhouseBoard)
    assert board.fen() == "rnb1kbnr/ppp1pppp/8/3q4/4P3/8/PPPP1PPP/RNBQKBNR[p] b KQkq - 1 3"
    assert st.fallback_move(list(ZH_MOVES)) in {m.uci() for m in board.legal_moves}
    # A game from a FEN with pockets and a promoted queen: a drop is legal at once.
    st = PlayState(variant="crazyhouse", initial_fen="r3k2r/8/8/8/8/8/8/R2Q~K2R[Nn] b KQkq - 0 1")
    assert "N@d4" in {m.uci() for m in st.board().legal_moves}
    # Horde and racing kings: the variant's start without a FEN.
    assert PlayState(variant="horde").board().fen() == HORDE_START
    assert PlayState(variant="racingKings").pieces() == 16


def test_move_forms_read_drops_and_a_variant_castling() -> None:
    forms = MoveForms(None, False, "crazyhouse")
    assert forms.canonical(list(ZH_MOVES)) == list(ZH_MOVES)
    # Atomic castles as chess does: lila's king-takes-rook spelling becomes e1g1.
    forms = MoveForms(None, False, "atomic")
    played = ["e2e4", "e7e5", "g1f3", "g8f6", "f1c4", "f8c5", "e1h1"]
    assert forms.canonical(played)[-1] == "e1g1"
    assert forms.same(played[:-1], "e1h1", "e1g1")


def test_pgn_records_of_a_variant_game() -> None:
    rec = GameRecord(game_id="zh1", url="https://lichess.org", white="pibot", black="alice",
                     white_rating=1500, black_rating=1500, variant="crazyhouse",
                     initial_fen=None, time_control="60+1", rated=False,
                     moves=list(ZH_MOVES), status="started", winner=None,
                     started=dt.datetime(2026, 1, 1, tzinfo=dt.UTC))
    text = to_pgn(rec)
    assert '[Variant "Crazyhouse"]' in text and "3. @e4" in text and "FEN" not in text
    # The records database's PGN reads Lichess's keys as python-chess does.
    board = pgn.start_board("horde", None)
    assert board.fen() == HORDE_START and pgn.start_board("threeCheck", None).uci_variant \
        == "3check"


# -- challenges ---------------------------------------------------------------------------
def _challenge(variant: str) -> Challenge:
    return Challenge.parse({"id": "c1", "challenger": {"id": "alice", "rating": 1500},
                            "variant": {"key": variant}, "speed": "blitz",
                            "timeControl": {"type": "clock", "limit": 180, "increment": 2}})


@pytest.mark.parametrize("variant", variants.OWN_RULES)
def test_a_configured_variant_is_accepted_and_another_declined(variant: str) -> None:
    cfg = parse_config({"challenge": {"variants": ["standard", variant]}}).challenge
    assert decide(_challenge(variant), cfg).accept
    other = next(v for v in variants.OWN_RULES if v != variant)
    declined = decide(_challenge(other), cfg)
    assert not declined.accept and declined.reason == "variant" \
        if "standard" not in cfg.variants else declined.reason == "standard"


def test_every_variant_in_one_config_and_one_line_for_a_wrong_name() -> None:
    cfg = parse_config({"challenge": {"variants": list(VARIANTS)}})
    assert cfg.challenge.variants == list(VARIANTS)
    with pytest.raises(Exception) as err:
        parse_config({"challenge": {"variants": ["standard", "racingkings"]}})
    assert str(err.value).count("\n") == 0 and "did you mean 'racingKings'" in str(err.value)


# -- books --------------------------------------------------------------------------------
def test_a_variant_plays_only_its_own_book(tmp_path: Path) -> None:
    start = chess.Board()
    std = write_book(tmp_path / "std.bin", [(start, "e2e4", 10)])
    atomic = write_book(tmp_path / "atomic.bin", [(chess.variant.AtomicBoard(), "g1f3", 10)])
    cfg = parse_config({"engine": {"polyglot": {"enabled": True, "book": {
        "standard": [str(std)], "atomic": [str(atomic)]}}}})
    books = OpeningBooks.open(cfg.engine.polyglot)
    assert books is not None
    try:
        hit = books.choose(chess.variant.AtomicBoard(), "atomic")
        assert hit is not None and hit.uci == "g1f3" and hit.book == "atomic.bin"
        # Same pieces, other rules: the standard book is never asked.
        assert books.choose(chess.variant.KingOfTheHillBoard(), "kingOfTheHill") is None
        assert books.choose(chess.variant.ThreeCheckBoard()) is None
        hit = books.choose(chess.Board(), "fromPosition")
        assert hit is not None and hit.uci == "e2e4"  # From Position: standard's book
        assert "(atomic)" in " ".join(books.describe())
    finally:
        books.close()


# -- online sources over HTTP ---------------------------------------------------------------
@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    with Emulator(EmulatorConfig()) as e:
        yield e


def _online(url: str) -> OnlineSources:
    on = {"enabled": True, "min_time": 0}
    cfg = parse_config({"engine": {"online_moves": {
        "explorer_url": url, "tablebase_url": url, "cloud_url": url,
        "online_egtb": on, "lichess_cloud_analysis": {**on, "min_depth": 0},
        "lichess_opening_explorer": {**on, "source": "lichess", "min_games": 1}}}})
    return OnlineSources(cfg.engine.online_moves, url, Token(DEFAULT_TOKEN, "test"))


def test_the_tablebase_is_asked_only_where_lichess_has_one(emu: Emulator) -> None:
    emu.traffic.reset()
    src = _online(emu.url)
    # Atomic: White's rook takes next to the black king, which explodes: a won ending.
    atomic = chess.variant.AtomicBoard("8/8/8/8/8/2k5/1r6/1R2K3 w - - 0 1")
    hit = asyncio.run(src.tablebase(atomic, 60, 2.0))
    assert hit is not None and hit.uci == "b1b2"
    anti = chess.variant.AntichessBoard("8/8/8/8/8/8/1p6/R7 w - - 0 1")
    asyncio.run(src.tablebase(anti, 60, 2.0))
    for no_table in (chess.variant.KingOfTheHillBoard("8/8/8/8/8/2k5/8/1R2K3 w - - 0 1"),
                     chess.variant.HordeBoard("4k3/8/8/8/8/8/P7/8 w - - 0 1"),
                     chess.variant.RacingKingsBoard("8/8/8/8/8/8/k6K/8 w - - 0 1")):
        assert asyncio.run(src.tablebase(no_table, 60, 2.0)) is None
    asked = [r.path.split("?")[0] for r in emu.traffic.requests("GET /*")
             if r.route.startswith("GET /") and "/api/" not in r.path]
    assert asked == ["/atomic", "/antichess"]
    src.close()


def test_explorer_and_cloud_eval_name_the_variant(emu: Emulator) -> None:
    emu.traffic.reset()
    zh = chess.variant.CrazyhouseBoard()
    for uci in ZH_MOVES[:4]:
        zh.push_uci(uci)
    emu.online.set_explorer(zh.fen(), [ExplorerMove("P@e4", 30, 5, 10)], db="lichess",
                            variant="crazyhouse")
    koth = chess.variant.KingOfTheHillBoard()
    emu.online.set_cloud_eval(koth.fen(), [CloudPv("e2e4 e7e5", cp=40)],
                              variant="kingOfTheHill")
    src = _online(emu.url)
    move, asked = asyncio.run(src.explorer(zh, 60, 2.0))
    assert asked and move is not None and move.uci == "P@e4"
    move, asked = asyncio.run(src.cloud_eval(koth, 60, 2.0))
    assert asked and move is not None and move.uci == "e2e4"
    # The same position under standard rules is another position for both.
    assert asyncio.run(src.cloud_eval(chess.Board(), 60, 2.0))[0] is None
    src.close()


# -- the emulator's referee: how a variant game ends (scalachess Situation.status) ----------
ENDS = [
    # (variant, start, our move, the opponent's scripted reply, status, winner)
    ("kingOfTheHill", "8/8/8/8/8/3K4/8/k7 w - - 0 1", "d3d4", None, "variantEnd", "white"),
    ("threeCheck", "7k/8/8/5Q2/8/8/8/K7 w - - 1+3 0 1", "f5f8", None, "variantEnd", "white"),
    # The third check is also a mate: "mate" comes first.
    ("threeCheck", "7k/8/6K1/5Q2/8/8/8/8 w - - 1+3 0 1", "f5f8", None, "mate", "white"),
    ("atomic", "8/8/8/8/8/2k5/1r6/1R2K3 w - - 0 1", "b1b2", None, "variantEnd", "white"),
    # White gives its last piece away: it has none left, and wins.
    ("antichess", "8/8/8/8/8/1p6/8/R7 w - - 0 1", "a1a2", "b3a2", None, None),
    ("horde", "4k3/8/8/8/8/8/3r4/3P4 b - - 0 1", "d2d1", None, "variantEnd", "black"),
    # White reaches the eighth rank first, Black draws level at once: a draw.
    ("racingKings", "8/k4K2/8/8/8/8/8/8 w - - 0 1", "f7f8", "a7a8", "draw", None),
]


@pytest.mark.parametrize(("variant", "fen", "ours", "reply", "status", "winner"), ENDS,
                         ids=[f"{e[0]}-{e[4]}" for e in ENDS])
def test_the_emulator_ends_a_variant_game_as_lila(emu: Emulator, variant: str, fen: str,
                                                   ours: str, reply: str | None,
                                                   status: str | None,
                                                   winner: str | None) -> None:
    import requests

    color = "white" if fen.split()[1] == "w" else "black"
    opp = OpponentSpec(policy="scripted", moves=[reply] if reply else [], think_time_s=0)
    gid = emu.start_game_directly(bot_color=color, variant=variant, initial_fen=fen,
                                  opponent=opp)
    r = requests.post(f"{emu.url}/api/bot/game/{gid}/move/{ours}", timeout=5,
                      headers={"Authorization": f"Bearer {emu.token}"})
    assert r.status_code == 200, r.text
    if status is None:  # antichess: the opponent's capture leaves White without pieces
        snap = emu.wait_game_over(gid, 5)
        assert (snap.status, snap.winner) == ("variantEnd", "white")
        return
    snap = emu.wait_game_over(gid, 5)
    assert (snap.status, snap.winner) == (status, winner), snap.moves


def test_the_status_page_draws_a_variant_board() -> None:
    from bot.host.status_page import board_svg

    zh = PlayState(variant="crazyhouse", moves=list(ZH_MOVES)).board().fen()
    assert board_svg(zh, "P@e4", "white").startswith("<svg")
    assert board_svg("7k/8/6K1/5Q2/8/8/8/8 w - - 1+3 0 1", None, "black").startswith("<svg")


def test_our_own_challenge_may_name_every_variant_but_from_position() -> None:
    from bot.challenges.outgoing import Order

    for variant in variants.BY_KEY:
        problem = Order("sparbot", 180, 2, variant=variant).problem()
        assert (problem is None) == (variant != "fromPosition"), (variant, problem)
    assert "use one of standard, chess960, crazyhouse" in str(
        Order("sparbot", 180, 2, variant="giveaway").problem())
