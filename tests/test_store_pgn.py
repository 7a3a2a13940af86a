"""PGNs as Lichess exports them (issue 35): %eval and %clk on every move, lila's
headers; and records.keep_days gzipping old PGN files."""

from __future__ import annotations

import gzip
import io
import os
import random
from dataclasses import replace
from pathlib import Path

import chess
import chess.pgn
import pytest
from test_store import start

from bot.store import db, pgn, queries, retention
from bot.store.model import GameEnd, MoveRecord
from bot.store.queries import StoredGame
from bot.store.writer import RecordWriter

NOW = 1_790_000_000.0  # 2026-09-21 14:13:20 UTC


def stored(**kw: object) -> StoredGame:
    base = StoredGame(
        game_id="abcd1234", account="pibot", color="white", opponent="Rival",
        opponent_title="BOT", my_rating=1500, opponent_rating=1620, my_rating_after=1507,
        opponent_rating_after=1613, speed="blitz", variant="standard", initial_fen=None,
        clock_initial_ms=180_000, clock_increment_ms=2_000, days_per_turn=None, rated=True,
        tournament_id=None, tournament_name=None, site="https://lichess.org",
        started_at=NOW, ended_at=NOW + 300, status="mate", winner="white", result="win")
    return replace(base, **kw)  # type: ignore[arg-type]


def random_game(seed: int, plies: int = 60, color: str = "white",
                fen: str | None = None, chess960: bool = False) -> list[MoveRecord]:
    """A legal game where only our moves carry an engine eval (as in a real game)."""
    rng = random.Random(seed)
    board = chess.Board(fen, chess960=chess960) if fen else chess.Board(chess960=chess960)
    out = []
    clocks = {"white": 180_000, "black": 180_000}
    for ply in range(plies):
        legal = list(board.legal_moves)
        if not legal:
            break
        move = rng.choice(legal)
        mover = "white" if board.turn == chess.WHITE else "black"
        ours = mover == color
        clocks[mover] -= rng.randrange(100, 5000) - 2000
        out.append(MoveRecord(
            "abcd1234", ply, mover, move.uci(), san=board.san(move),
            clock_after_ms=clocks[mover], score_cp=rng.randrange(-300, 300) if ours else None,
            depth=10 if ours else None, source="engine" if ours else "opponent"))
        board.push(move)
    return out


def read(text: str) -> chess.pgn.Game:
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None and not game.errors, game.errors if game else text
    return game


@pytest.mark.parametrize("color", ["white", "black"])
def test_every_move_has_eval_and_clock_when_python_chess_reads_it(color: str) -> None:
    moves = random_game(7, color=color)
    text = pgn.render(stored(color=color), moves)
    game = read(text)
    nodes = list(game.mainline())
    assert [n.move.uci() for n in nodes] == [m.uci for m in moves]
    for node, m in zip(nodes, moves, strict=True):
        assert node.clock() == (m.clock_after_ms + 500) // 1000  # half up, as lila
        assert node.eval() is not None, node.comment
        if m.score_cp is not None:  # our own: the mover's side turned into White's
            white = m.score_cp if m.color == "white" else -m.score_cp
            assert node.eval().white().score() == white
    # The opponent's move carries the eval of our reply's search, which saw that position.
    opp = next(i for i, m in enumerate(moves[:-1]) if m.source == "opponent")
    assert nodes[opp].comment == nodes[opp + 1].comment.split(" [%clk")[0] + \
        " [%clk " + pgn.format_clock(moves[opp].clock_after_ms or 0) + "]"


def test_comment_format_is_lichess_s() -> None:
    moves = [MoveRecord("g", 0, "white", "e2e4", clock_after_ms=181_499, score_cp=17),
             MoveRecord("g", 1, "black", "e7e5", clock_after_ms=3_725_600, score_cp=150),
             MoveRecord("g", 2, "white", "d1h5", clock_after_ms=500, mate=3),
             MoveRecord("g", 3, "black", "b8c6", clock_after_ms=0, mate=-2)]
    text = pgn.render(stored(), moves)
    body = text.split("\n\n", 1)[1]
    assert body.startswith("1. e4 { [%eval 0.17] [%clk 0:03:01] } "
                           "1... e5 { [%eval -1.50] [%clk 1:02:06] } "
                           "2. Qh5 { [%eval #3] [%clk 0:00:01] } "
                           "2... Nc6 { [%eval #2] [%clk 0:00:00] } 1-0")
    assert pgn.format_eval(-5, None) == "-0.05" and pgn.format_eval(0, None) == "0.00"


def test_headers_as_lila_writes_them() -> None:
    game = read(pgn.render(stored(), random_game(1, plies=6)))
    h = game.headers
    assert list(h.keys()) == [
        "Event", "Site", "Date", "Round", "White", "Black", "Result", "UTCDate", "UTCTime",
        "WhiteElo", "BlackElo", "WhiteRatingDiff", "BlackRatingDiff", "BlackTitle",
        "Variant", "TimeControl", "Termination"]
    assert dict(h) == {
        "Event": "Rated Blitz game", "Site": "https://lichess.org/abcd1234",
        "Date": "2026.09.21", "Round": "-", "White": "pibot", "Black": "Rival",
        "Result": "1-0", "UTCDate": "2026.09.21", "UTCTime": "14:13:20", "WhiteElo": "1500",
        "BlackElo": "1620", "WhiteRatingDiff": "+7", "BlackRatingDiff": "-7",
        "BlackTitle": "BOT", "Variant": "Standard", "TimeControl": "180+2",
        "Termination": "Normal"}


@pytest.mark.parametrize(("kw", "header", "value"), [
    ({"tournament_id": "x1", "tournament_name": "Hourly Blitz Arena"}, "Event",
     "Hourly Blitz Arena"),
    ({"tournament_id": "x1"}, "Event",
     "Rated Blitz tournament https://lichess.org/tournament/x1"),
    ({"rated": False, "speed": "bullet"}, "Event", "Casual Bullet game"),
    ({"status": "outoftime", "winner": "black"}, "Termination", "Time forfeit"),
    ({"status": "outoftime", "winner": "black"}, "Result", "0-1"),
    ({"status": "stalemate", "winner": None}, "Result", "1/2-1/2"),
    ({"status": "aborted", "winner": None}, "Termination", "Abandoned"),
    ({"status": "insufficientMaterialClaim", "winner": None}, "Termination",
     "Insufficient material"),  # lila PgnDump.scala
    ({"status": "insufficientMaterialClaim", "winner": None}, "Result", "1/2-1/2"),
    ({"status": "aborted", "winner": None}, "Result", "*"),
    ({"clock_initial_ms": None, "speed": "correspondence", "days_per_turn": 3},
     "TimeControl", "-"),
    ({"color": "black"}, "White", "Rival"),
    ({"color": "black"}, "WhiteTitle", "BOT"),
])
def test_header_variants(kw: dict[str, object], header: str, value: str) -> None:
    game = read(pgn.render(stored(**kw), random_game(2, plies=4, color=str(kw.get(
        "color", "white")))))
    assert game.headers[header] == value


def test_casual_games_have_no_rating_diff_and_correspondence_no_clock() -> None:
    moves = [replace(m, clock_after_ms=None) for m in random_game(3, plies=8)]
    game = read(pgn.render(stored(rated=False, clock_initial_ms=None, my_rating_after=None),
                           moves))
    assert "WhiteRatingDiff" not in game.headers and "BlackRatingDiff" not in game.headers
    assert all(n.clock() is None and n.eval() is not None for n in game.mainline())


def test_chess960_and_from_position_carry_their_fen() -> None:
    fen960 = chess.Board.from_chess960_pos(518 - 100).fen()
    g = read(pgn.render(stored(variant="chess960", initial_fen=fen960),
                        random_game(4, plies=10, fen=fen960, chess960=True)))
    assert (g.headers["Variant"], g.headers["FEN"], g.headers["SetUp"]) == \
        ("Chess960", fen960, "1")
    assert g.headers["Event"] == "Rated Chess960 game" and len(list(g.mainline())) == 10
    fen = "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1"  # Black moves first
    moves = random_game(5, plies=6, color="black", fen=fen)
    g = read(pgn.render(stored(variant="fromPosition", initial_fen=fen, color="black"), moves))
    assert g.headers["Variant"] == "From Position" and g.headers["FEN"] == fen
    assert [n.move.uci() for n in g.mainline()] == [m.uci for m in moves]
    assert all(n.eval() is not None for n in g.mainline())


def test_an_illegal_stored_move_cuts_the_pgn_not_the_export() -> None:
    moves = random_game(6, plies=6)
    moves[3] = replace(moves[3], uci="a1a8")
    game = read(pgn.render(stored(), moves))
    assert len(list(game.mainline())) == 3


def test_old_pgns_are_gzipped_and_new_ones_kept(tmp_path: Path) -> None:
    old, new, other = tmp_path / "old1.pgn", tmp_path / "new1.pgn", tmp_path / "notes.txt"
    for p in (old, new, other):
        p.write_text(f"[Event \"{p.name}\"]\n\n1. e4 *\n")
    for p in (old, other):
        os.utime(p, (NOW - 10 * 86400, NOW - 10 * 86400))
    os.utime(new, (NOW - 86400, NOW - 86400))
    assert retention.compress_old(tmp_path, keep_days=7, now=NOW) == 1
    assert not old.exists() and new.exists() and other.exists()
    gz = tmp_path / "old1.pgn.gz"
    assert gzip.decompress(gz.read_bytes()).decode() == "[Event \"old1.pgn\"]\n\n1. e4 *\n"
    assert int(gz.stat().st_mtime) == int(NOW - 10 * 86400)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new1.pgn", "notes.txt", "old1.pgn.gz"]
    assert retention.compress_old(tmp_path, keep_days=7, now=NOW) == 0  # idempotent
    assert retention.compress_old(tmp_path / "missing", keep_days=7, now=NOW) == 0


def test_a_failed_compression_keeps_the_original(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    game = tmp_path / "g.pgn"
    game.write_text("1. e4 *\n")
    os.utime(game, (NOW - 30 * 86400,) * 2)

    def no_space(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(retention.os, "fsync", no_space)
    assert retention.compress_old(tmp_path, keep_days=1, now=NOW) == 0
    assert game.read_text() == "1. e4 *\n"
    assert [p.name for p in tmp_path.iterdir()] == ["g.pgn"]  # no temporary left behind


def test_the_runner_s_own_records_render_as_the_database_s(tmp_path: Path) -> None:
    """A PGN file written from the records in memory (the database may be down)
    is the one `pibot export` writes from the database."""
    g0, end = start("abcd1234"), GameEnd("abcd1234", "resign", "black", ended_at=NOW + 60,
                                         my_rating_after=1490, plies=9)
    moves = random_game(9, plies=9)
    w = RecordWriter(tmp_path / "r.db")
    w.start()
    for r in (g0, *moves, end):
        w.put(r)
    assert w.flush(10)
    w.close()
    conn = db.connect_readonly(tmp_path / "r.db")
    stored_game = queries.game(conn, "abcd1234")
    assert stored_game is not None
    from_db = pgn.render(stored_game, queries.moves_of(conn, "abcd1234"))
    conn.close()
    assert pgn.render(pgn.stored_game(g0, end), moves) == from_db
    assert '[Result "0-1"]' in from_db and '[WhiteRatingDiff "-10"]' in from_db
