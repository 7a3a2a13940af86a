"""`pibot uci` as a real subprocess: protocol, options, garbage input."""

from __future__ import annotations

import os
import struct
import time
from pathlib import Path

import chess
import chess.polyglot
import chess.syzygy
import chess.variant
import pytest

from tests.uci_process import Uci

TABLES = Path(__file__).parent / "data" / "syzygy"


def _bestmove(lines: list[str]) -> str:
    return lines[-1].split()[1]


def test_handshake_and_options(uci: Uci) -> None:
    uci.send("uci")
    lines = uci.expect("uciok")
    text = "\n".join(lines)
    for opt in ("Hash", "Threads", "Move Overhead", "Ponder", "Clear Hash", "UCI_Chess960"):
        assert f"option name {opt} type" in text
    uci.send("setoption name Hash value 8", "setoption name Threads value 2",
             "setoption name Move Overhead value 100", "setoption name Clear Hash",
             "isready")
    lines = uci.expect("readyok")
    assert not any("error" in ln for ln in lines), lines


def test_go_depth_prints_info_and_legal_bestmove(uci: Uci) -> None:
    uci.send("ucinewgame", "position startpos moves e2e4 c7c5", "go depth 7")
    lines = uci.expect("bestmove")
    assert any(ln.startswith("info depth") and " pv " in ln for ln in lines)
    b = chess.Board()
    b.push_uci("e2e4")
    b.push_uci("c7c5")
    assert chess.Move.from_uci(_bestmove(lines)) in b.legal_moves


def test_clock_search_and_ponder_flow(uci: Uci) -> None:
    uci.send("position startpos", "go wtime 2000 btime 2000 winc 20 binc 20")
    uci.expect("bestmove", timeout=30)
    uci.send("go ponder wtime 2000 btime 2000")
    time.sleep(0.2)
    uci.send("ponderhit")
    uci.expect("bestmove", timeout=30)
    uci.send("go infinite")
    time.sleep(0.2)
    uci.send("isready")
    uci.expect("readyok")
    uci.send("stop")
    uci.expect("bestmove")


def test_stop_right_after_go_is_not_lost(uci: Uci) -> None:
    uci.send("position startpos", "go infinite", "stop")
    uci.expect("bestmove", timeout=30)


def test_garbage_never_kills_the_process(uci: Uci) -> None:
    uci.send(
        "hello world", "position", "position fen", "position fen not/a/fen w - - 0 1",
        "position startpos moves e2e4 e7e4", "position banana",
        "setoption", "setoption name Hash value lots", "setoption name Nope value 1",
        "setoption name Ponder value maybe", "go depth", "go wtime abc", "go sideways 3",
        "go depth 99999999999999999999999999 movetime", "\x00\x01\x02", "go perft",
        "go searchmoves e2e4",
    )
    uci.send("isready")
    lines = uci.expect("readyok")
    errors = [ln for ln in lines if ln.startswith("info string")]
    assert len(errors) >= 15, lines
    assert not any("Traceback" in ln for ln in lines)
    # Still fully working, with the last good position (start position).
    uci.send("go wtime 99999999999999999999 btime -100 movestogo 0 depth 3")
    lines = uci.expect("bestmove")
    assert chess.Move.from_uci(_bestmove(lines)) in chess.Board().legal_moves


def test_illegal_position_keeps_previous(uci: Uci) -> None:
    uci.send("position startpos moves d2d4", "position startpos moves d2d4 d7d5 d4d5", "d")
    lines = uci.expect("Fen:")
    assert "3P4" in lines[-1] and "info string" in lines[-2]


def test_perft_bench_eval_and_mate_position(uci: Uci) -> None:
    uci.send("position startpos", "go perft 3")
    lines = uci.expect("Nodes searched")
    assert lines[-1] == "Nodes searched: 8902"
    uci.send("eval")
    assert "eval" in uci.expect("Static eval")[-1].lower()
    uci.send("position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", "go depth 3")
    assert uci.expect("bestmove")[-1] == "bestmove (none)"
    uci.send("bench 2")
    assert uci.expect("Nodes/second")[-2].startswith("Nodes searched:")


def test_chess960_option(uci: Uci) -> None:
    fen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"
    uci.send("setoption name UCI_Chess960 value true", f"position fen {fen}", "go depth 5")
    lines = uci.expect("bestmove")
    assert chess.Move.from_uci(_bestmove(lines)) in chess.Board(fen, chess960=True).legal_moves


def test_quit_while_searching_exits(uci: Uci) -> None:
    uci.send("go infinite")
    time.sleep(0.1)
    assert uci.close() == 0


def test_eof_exits_cleanly() -> None:
    u = Uci()
    assert u.proc.stdin is not None
    u.proc.stdin.close()
    assert u.proc.wait(10) == 0


def test_unallocatable_hash_is_refused_before_first_isready() -> None:
    # Old code: the clamped 1 TiB table failed at every later command, so
    # `isready` never got its readyok and `go` never its bestmove.
    u = Uci()
    try:
        u.send("setoption name Hash value 999999999", "isready")
        lines = u.expect("readyok", timeout=120)
        refusal = [ln for ln in lines if ln.startswith("info string")]
        assert len(refusal) == 1, lines
        assert "Hash 999999999 MB does not fit" in refusal[0]
        assert "keeping Hash 64 MB" in refusal[0] and "set Hash to " in refusal[0]
        u.send("go depth 2")
        assert chess.Move.from_uci(_bestmove(u.expect("bestmove"))) in chess.Board().legal_moves
        u.send("setoption name Hash value 16", "isready")  # a size that fits still works
        assert not any(ln.startswith("info string") for ln in u.expect("readyok"))
    finally:
        u.close()


def test_go_perft_0_counts_one_node(uci: Uci) -> None:
    uci.send("position startpos moves e2e4", "go perft 0")
    lines = uci.expect("Nodes searched")
    assert lines == ["", "Nodes searched: 1"]  # perft(0) = 1, no root moves to list


def test_go_perft_keeps_reading_and_stops(uci: Uci) -> None:
    uci.send("position startpos", "go perft 15")  # would run for days
    uci.send("isready")
    uci.expect("readyok", timeout=10)  # the loop still reads while perft counts
    uci.send("stop")
    assert uci.expect("info string perft 15 stopped", timeout=10)
    uci.send("go perft 1")  # right after stop: the old perft must be gone
    assert uci.expect("Nodes searched")[-1] == "Nodes searched: 20"
    uci.send("go perft 16", "go perft -1", "go perft x", "isready")
    errors = [ln for ln in uci.expect("readyok") if ln.startswith("info string")]
    assert len(errors) == 3, errors


@pytest.mark.parametrize("how", ["quit", "eof"])
def test_quit_or_eof_ends_a_running_perft(uci: Uci, how: str) -> None:
    uci.send("go perft 15")
    uci.send("isready")
    uci.expect("readyok", timeout=10)
    assert uci.proc.stdin is not None
    if how == "quit":
        uci.send("quit")
    else:
        uci.proc.stdin.close()
    assert uci.proc.wait(15) == 0


# ---- book and tablebase moves (OwnBook, BookFile, SyzygyPath, ...) ----

KRVK = "8/8/8/4k3/8/8/8/R3K3 w - - 0 1"  # won for white, dtz > 0: no mate in one
HUNT = ["g1h3", "b1a3"]  # book moves no search would choose, so a hit is unmistakable


def _raw_move(uci: str) -> int:
    m = chess.Move.from_uci(uci)
    return (chess.square_file(m.to_square) | chess.square_rank(m.to_square) << 3
            | chess.square_file(m.from_square) << 6 | chess.square_rank(m.from_square) << 9)


def _write_book(path: Path, entries: list[tuple[chess.Board, str, int]]) -> Path:
    rows = sorted((chess.polyglot.zobrist_hash(b), _raw_move(u), w) for b, u, w in entries)
    path.write_bytes(b"".join(struct.pack(">QHHI", k, m, w, 0) for k, m, w in rows))
    return path


@pytest.fixture
def book(tmp_path: Path) -> Path:
    after = chess.Board()
    after.push_uci("g1h3")
    return _write_book(tmp_path / "hunt.bin", [(chess.Board(), HUNT[0], 5),
                                               (chess.Board(), HUNT[1], 5),
                                               (after, "h7h6", 1)])


def _searched(lines: list[str]) -> bool:
    return any(ln.startswith("info depth") and not ln.startswith("info depth 0 ")
               for ln in lines)


def _errors(lines: list[str]) -> list[str]:
    return [ln for ln in lines if ln.startswith("info string error")]


def test_options_are_listed(uci: Uci) -> None:
    uci.send("uci")
    text = "\n".join(uci.expect("uciok"))
    for opt in ("OwnBook type check default false", "BookFile type string",
                "BookSelection type combo default weighted_random var weighted_random "
                "var uniform_random var best_move", "BookDepth type spin",
                "BookSeed type spin", "SyzygyPath type string", "SyzygyProbeLimit type spin"):
        assert f"option name {opt}" in text


def test_book_move_is_answered_without_search(uci: Uci, book: Path) -> None:
    uci.send("setoption name OwnBook value true", f"setoption name BookFile value {book}",
             "isready")
    lines = uci.expect("readyok")
    assert not _errors(lines), lines
    assert any("hunt.bin" in ln and "3 entries" in ln for ln in lines), lines
    uci.send("ucinewgame", "position startpos", "go wtime 60000 btime 60000 winc 1000 binc 1000")
    lines = uci.expect("bestmove")
    assert _bestmove(lines) in HUNT, lines
    assert any(ln.startswith("info string book hunt.bin: weight 5/10") for ln in lines), lines
    assert not _searched(lines), lines
    # The book's reply for black, then out of book: the engine searches.
    uci.send("position startpos moves g1h3", "go depth 3")
    assert _bestmove(uci.expect("bestmove")) == "h7h6"
    uci.send("position startpos moves g1h3 h7h6", "go depth 3")
    lines = uci.expect("bestmove")
    assert _searched(lines) and not any("info string book" in ln for ln in lines)
    # Infinite analysis is never cut short by a book move.
    uci.send("position startpos", "go infinite")
    time.sleep(0.3)
    uci.send("stop")
    assert _searched(uci.expect("bestmove"))


def test_book_off_depth_and_selection(uci: Uci, book: Path) -> None:
    uci.send(f"setoption name BookFile value {book}", "position startpos", "go depth 3")
    lines = uci.expect("bestmove")  # OwnBook is false by default
    assert _searched(lines) and _bestmove(lines) not in HUNT
    uci.send("setoption name OwnBook value true", "setoption name BookDepth value 1",
             "position startpos moves g1h3", "go depth 3")
    assert _bestmove(uci.expect("bestmove")) != "h7h6"  # ply 1 is past BookDepth 1
    uci.send("setoption name BookDepth value 2", "go depth 3")
    assert _bestmove(uci.expect("bestmove")) == "h7h6"
    # best_move: the heaviest entry, ties broken by the move text, every time.
    uci.send("setoption name BookSelection value best_move")
    for _ in range(4):
        uci.send("position startpos", "go depth 3")
        assert _bestmove(uci.expect("bestmove")) == "b1a3"


def test_book_seed_repeats_a_game(uci: Uci, book: Path) -> None:
    uci.send("setoption name OwnBook value true", f"setoption name BookFile value {book}",
             "setoption name BookSeed value 12345")

    def picks() -> list[str]:
        uci.send("ucinewgame")
        out = []
        for _ in range(12):
            uci.send("position startpos", "go depth 3")
            out.append(_bestmove(uci.expect("bestmove")))
        return out

    first = picks()
    assert set(first) == set(HUNT), first  # weighted_random draws both 5/10 moves
    assert picks() == first  # re-seeded at ucinewgame: the same choices again


def test_tablebase_move_is_answered_without_search(uci: Uci) -> None:
    uci.send(f"setoption name SyzygyPath value {TABLES}", "isready")
    lines = uci.expect("readyok")
    assert not _errors(lines), lines
    assert any(ln.startswith("info string syzygy:") for ln in lines), lines
    uci.send(f"position fen {KRVK}", "go wtime 60000 btime 60000")
    lines = uci.expect("bestmove")
    assert not _searched(lines), lines
    assert any(ln.startswith("info string tablebase syzygy win, dtz ") for ln in lines), lines
    assert any(ln.startswith("info depth 0 ") and " score cp 20000 " in ln for ln in lines)
    # The tables' move: still a win, and no farther from the next zeroing move.
    board = chess.Board(KRVK)
    move = chess.Move.from_uci(_bestmove(lines))
    assert move in board.legal_moves
    with chess.syzygy.open_tablebase(str(TABLES)) as tb:
        root = tb.probe_dtz(board)
        board.push(move)
        assert tb.probe_wdl(board) == -2 and -tb.probe_dtz(board) <= root  # still winning
    # Mate in one is a mate score.
    uci.send("position fen 7k/8/6K1/8/8/8/8/R7 w - - 0 1", "go depth 5")
    lines = uci.expect("bestmove")
    assert _bestmove(lines) == "a1a8" and any(" score mate 1 " in ln for ln in lines), lines
    # SyzygyProbeLimit 2: no table may be probed, so the engine searches.
    uci.send("setoption name SyzygyProbeLimit value 2", f"position fen {KRVK}", "go depth 3")
    lines = uci.expect("bestmove")
    assert _searched(lines) and not any("tablebase" in ln for ln in lines)
    # An empty value (python-chess sends "value " for "") turns the tables off.
    uci.send("setoption name SyzygyProbeLimit value 7", "setoption name SyzygyPath value ",
             "go depth 3")
    assert _searched(uci.expect("bestmove"))


def test_bad_book_and_table_paths_are_one_clear_line(uci: Uci, book: Path,
                                                     tmp_path: Path) -> None:
    (tmp_path / "odd.bin").write_bytes(b"x" * 17)
    (tmp_path / "empty").mkdir()
    bad = [("BookFile", str(tmp_path / "nope.bin"), "nope.bin does not exist"),
           ("BookFile", f"{book}{os.pathsep}{tmp_path / 'odd.bin'}", "odd.bin is corrupt"),
           ("SyzygyPath", str(tmp_path / "nowhere"), "nowhere does not exist"),
           ("SyzygyPath", str(tmp_path / "empty"), "holds no .rtbw tables")]
    uci.send("setoption name OwnBook value true", f"setoption name BookFile value {book}",
             "isready")
    uci.expect("readyok")
    for option, value, problem in bad:
        uci.send(f"setoption name {option} value {value}", "isready")
        lines = uci.expect("readyok")
        errors = _errors(lines)
        assert len(errors) == 1, lines
        assert f"{option} not changed" in errors[0] and problem in errors[0], errors
        assert f"set {option} to " in errors[0], errors  # the fix, naming the option
    # The good book stayed in force, and the engine still works.
    uci.send("position startpos", "go depth 3")
    assert _bestmove(uci.expect("bestmove")) in HUNT
    uci.send("setoption name BookFile value <empty>", "go depth 3")
    lines = uci.expect("bestmove")
    assert any("OwnBook is true but BookFile is empty" in ln for ln in lines), lines
    assert _searched(lines)
    assert uci.close() == 0
    assert uci.proc.stderr is not None
    assert "Traceback" not in uci.proc.stderr.read()


def test_bad_lines_are_echoed_short_and_escaped(uci: Uci) -> None:
    # Old code echoed 200 raw characters of an unknown command, control
    # characters included (a terminal escape reached the GUI's log).
    uci.send("\x1b[2J" + "x" * 5000, "setoption name " + "\x1bN" * 300 + " value 1",
             "go sideways" + "\x07" * 100)
    uci.send("isready")
    errors = [ln for ln in uci.expect("readyok") if ln.startswith("info string")]
    assert len(errors) == 3, errors
    for ln in errors:
        assert len(ln) < 200 and not any(ord(c) < 32 for c in ln), ln
    assert "\\x1b[2J" in errors[0] and errors[0].endswith("...")


def test_eval_file_must_be_a_regular_file(uci: Uci, tmp_path: Path) -> None:
    # Old code: the C reader blocked on a FIFO (isready never answered).
    fifo = tmp_path / "net.pbnn"
    os.mkfifo(fifo)
    for special in (str(fifo), "/dev/zero"):
        uci.send(f"setoption name EvalFile value {special}", "isready")
        lines = uci.expect("readyok", timeout=10)
        assert any("EvalFile not loaded" in ln and "not a regular file" in ln
                   for ln in lines), lines


def test_uci_variant_sets_the_rules_of_position_and_perft(uci: Uci) -> None:
    uci.send("uci")
    lines = uci.expect("uciok")
    assert any(line.startswith("option name UCI_Variant type combo default chess")
               and "var crazyhouse" in line and "var atomic" in line for line in lines)
    # Atomic: perft 3 from the start is 8902 as in chess; after 1. e4 d5 2. exd5 the
    # pawn explodes: python-chess's AtomicBoard agrees with the count below.
    uci.send("setoption name UCI_Variant value atomic", "position startpos moves e2e4 d7d5 e4d5",
             "go perft 2")
    ref = chess.variant.AtomicBoard()
    for mv in ("e2e4", "d7d5", "e4d5"):
        ref.push_uci(mv)
    expected = sum(len(list(_after(ref, m).legal_moves)) for m in list(ref.legal_moves))
    assert uci.expect("Nodes searched")[-1] == f"Nodes searched: {expected}"
    # Crazyhouse: a drop in `position`, the pocket in `d`.
    moves = ("e2e4", "d7d5", "e4d5", "d8d5", "b1c3", "d5a5", "P@d4")
    ref_zh = chess.variant.CrazyhouseBoard()
    for mv in moves:
        ref_zh.push_uci(mv)
    uci.send("setoption name UCI_Variant value crazyhouse",
             f"position startpos moves {' '.join(moves)}", "d")
    lines = uci.expect("Legal moves")
    assert f"Fen: {ref_zh.fen(en_passant='xfen')}" in lines, lines
    uci.send("go perft 1")
    assert uci.expect("Nodes searched")[-1] == f"Nodes searched: {ref_zh.legal_moves.count()}"
    # A search in a variant plays by its rules: a legal move (a drop is written "N@f3").
    uci.send("go depth 3")
    lines = uci.expect("bestmove")
    assert chess.Move.from_uci(lines[-1].split()[1]) in ref_zh.legal_moves, lines
    # Atomic from the start, as the issue asks: a legal bestmove.
    uci.send("setoption name UCI_Variant value atomic", "position startpos", "go depth 4")
    lines = uci.expect("bestmove")
    assert chess.Move.from_uci(lines[-1].split()[1]) in chess.variant.AtomicBoard().legal_moves
    assert not any(line.startswith("info string") for line in lines), lines
    uci.send("eval")
    assert uci.expect("Static eval")[-1].startswith("Static eval: ")
    uci.send("setoption name UCI_Variant value crazyhouse",
             f"position startpos moves {' '.join(moves)}")
    # The engine made after a variant's position is set (the first `isready`) is fine.
    fresh = Uci()
    try:
        fresh.send("setoption name UCI_Variant value crazyhouse",
                   f"position startpos moves {' '.join(moves)}", "isready", "go perft 1")
        lines = fresh.expect("Nodes searched", timeout=120)
        assert not any(line.startswith("info string") for line in lines), lines
    finally:
        fresh.close()
    # An unknown variant is an error line; the variant in force stays.
    uci.send("setoption name UCI_Variant value nosuchchess", "isready")
    lines = uci.expect("readyok")
    assert any("UCI_Variant 'nosuchchess' is not one of" in line for line in lines), lines
    # Back to chess: the search plays again.
    uci.send("setoption name UCI_Variant value chess", "position startpos", "go depth 1")
    assert uci.expect("bestmove")[-1].startswith("bestmove ")


def _after(board: chess.Board, move: chess.Move) -> chess.Board:
    child = board.copy()
    child.push(move)
    return child
