"""bench/sources_match.py reads match.py's summary and compares the two runs."""

from __future__ import annotations

import importlib.util
import sys

from conftest import ROOT

_spec = importlib.util.spec_from_file_location("sources_match", ROOT / "bench/sources_match.py")
assert _spec is not None and _spec.loader is not None
sm = importlib.util.module_from_spec(_spec)
sys.modules["sources_match"] = sm  # dataclasses look their module up by name
_spec.loader.exec_module(sm)

# match.py's real output (the 9adcb14 Phalanx run in docs/strength.md).
OUT = """phalanx    n= 200 +170 =23 -7 score=0.907 elo=+397 [+338,+478]
terminations: {'maxplies': 1, 'rules': 199}
"""


def test_summary_line_is_read_and_elo_agrees_with_match_py() -> None:
    res = sm.parse_summary(OUT)
    assert res is not None
    assert (res.wins, res.draws, res.losses, res.elo_lo, res.elo_hi) == (170, 23, 7, 338, 478)
    assert round(res.elo) == 397
    assert "score 90.8%" in res.line("with") and "[+338, +478]" in res.line("with")
    assert sm.parse_summary("terminations: {}\n") is None


def test_difference_sign_and_error_bar() -> None:
    strong = sm.Result(170, 23, 7, 338, 478)
    weak = sm.Result(150, 30, 20, 0, 0)
    diff, margin = sm.difference(strong, weak)
    assert diff > 0 and 20 < margin < 200
    back, margin2 = sm.difference(weak, strong)
    assert back == -diff and margin2 == margin
    assert sm.difference(strong, strong)[0] == 0


def test_openings_are_cut_deduplicated_and_counted_in_the_book(tmp_path) -> None:
    src = tmp_path / "long.pgn"
    # two openings share their first 4 plies; a third is shorter than the cut
    src.write_text('[Event "?"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *\n\n'
                   '[Event "?"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 *\n\n'
                   '[Event "?"]\n\n1. d4 *\n\n'
                   '[Event "?"]\n\n1. d4 d5 2. c4 e6 3. Nc3 Nf6 *\n\n')
    out = tmp_path / "short.pgn"
    assert sm.truncated_openings(src, 4, out) == 2
    text = out.read_text()
    assert "1. e4 e5 2. Nf3 Nc6" in text and "Bb5" not in text and "Nc3" not in text
    # a book with exactly one of the two end positions
    import chess
    board = chess.Board()
    for san in ("d4", "d5", "c4", "e6"):
        board.push_san(san)
    book = tmp_path / "one.bin"
    _one_entry_book(book, board, "b1c3")
    assert sm.book_hits(out, book, 10, seed=1) == (1, 2)


def _one_entry_book(path, board, uci: str) -> None:
    import chess
    import chess.polyglot

    move = chess.Move.from_uci(uci)
    path.write_bytes(chess.polyglot.zobrist_hash(board).to_bytes(8, "big")
                     + (move.to_square | move.from_square << 6).to_bytes(2, "big")
                     + (1).to_bytes(2, "big") + (0).to_bytes(4, "big"))


def test_pgn_is_scored_from_pibots_side(tmp_path) -> None:
    pgn = tmp_path / "run.pgn"
    games = [("engine", "phalanx", "1-0"), ("phalanx", "engine", "1-0"),
             ("phalanx", "engine", "0-1"), ("engine", "phalanx", "1/2-1/2"),
             ("engine", "phalanx", "*")]  # unfinished: not counted
    pgn.write_text("".join(f'[White "{w}"]\n[Black "{b}"]\n[Result "{r}"]\n\n1. e4 {r}\n\n'
                           for w, b, r in games))
    res = sm.pgn_result(pgn)
    assert (res.wins, res.draws, res.losses) == (2, 1, 1)
    assert res.elo_lo < round(res.elo) < res.elo_hi


def test_book_and_tablebase_positions_are_counted_for_pibot_only(tmp_path) -> None:
    import chess

    board = chess.Board()
    board.push_san("e4")
    book = tmp_path / "one.bin"
    _one_entry_book(book, board, "e7e5")  # Black's reply to 1. e4
    ending = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"  # KPvK: three pieces
    pgn = tmp_path / "run.pgn"
    pgn.write_text('[White "phalanx"]\n[Black "engine"]\n[Result "*"]\n\n1. e4 e5 *\n\n'
                   '[White "engine"]\n[Black "phalanx"]\n[Result "*"]\n\n1. e4 e5 *\n\n'
                   f'[White "engine"]\n[Black "phalanx"]\n[Result "*"]\n[SetUp "1"]\n'
                   f'[FEN "{ending}"]\n\n1. e4 Kd7 2. Kd2 *\n\n')
    # pibot (Black) meets the book position once; as White it never does; the
    # KPvK game gives pibot two moves in the tables
    assert sm.source_moves(pgn, book, book_depth=40, probe_limit=4, opening_plies=0) == (3, 1, 2)
    # inside the harness's opening (plies from the game's start), or past the
    # book depth or the probe limit, nothing counts
    assert sm.source_moves(pgn, book, book_depth=40, probe_limit=4, opening_plies=2) == (3, 0, 1)
    assert sm.source_moves(pgn, book, book_depth=1, probe_limit=2, opening_plies=0) == (3, 0, 0)
