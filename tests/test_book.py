"""Polyglot opening books: validation at start, selection rules, Chess960 castling.

Books are built here: with Debian's `polyglot make-book` from a PGN, or written
entry by entry; the shared performance.bin checks a real, large book.
"""

from __future__ import annotations

import collections
import random
import shutil
import struct
import subprocess
from pathlib import Path

import chess
import chess.polyglot
import pytest

from bot.config import load_config, parse_config
from bot.errors import UserError
from bot.sources.book import OpeningBooks, validate_book

ROOT = Path(__file__).resolve().parent.parent
# CI checks the repository out next to shared/; a git worktree sits one level deeper.
SHARED = next((d / "shared" for d in (ROOT.parent, ROOT.parent.parent)
               if (d / "shared").is_dir()), ROOT.parent / "shared")
SHARED_BOOK = SHARED / "books" / "performance.bin"
POLYGLOT = shutil.which("polyglot") or "/usr/games/polyglot"

PGN = """[Event "a"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0

[Event "b"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O Nf6 1-0

[Event "c"]
[Result "0-1"]

1. d4 d5 2. c4 e6 0-1
"""


def books(tmp: Path, standard: list[Path] | None = None, chess960: list[Path] | None = None,
          **kw: object) -> OpeningBooks:
    cfg = parse_config({"engine": {"polyglot": {
        "enabled": True,
        "book": {"standard": [str(p) for p in standard or []],
                 "chess960": [str(p) for p in chess960 or []]},
        **kw}}})
    opened = OpeningBooks.open(cfg.engine.polyglot)
    assert opened is not None
    return opened


@pytest.fixture(scope="module")
def pgn_book(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not Path(POLYGLOT).exists():
        pytest.skip("polyglot (Debian package polyglot) is not installed")
    d = tmp_path_factory.mktemp("book")
    (d / "games.pgn").write_text(PGN)
    subprocess.run([POLYGLOT, "make-book", "-pgn", str(d / "games.pgn"), "-bin",
                    str(d / "games.bin"), "-min-game", "1"],
                   check=True, capture_output=True, cwd=d)
    return d / "games.bin"


def play(*sans: str, fen: str | None = None, chess960: bool = False) -> chess.Board:
    board = chess.Board(fen, chess960=chess960) if fen else chess.Board(chess960=chess960)
    for san in sans:
        board.push_san(san)
    return board


def raw_move(uci: str) -> int:
    m = chess.Move.from_uci(uci)
    return (chess.square_file(m.to_square) | chess.square_rank(m.to_square) << 3
            | chess.square_file(m.from_square) << 6 | chess.square_rank(m.from_square) << 9)


def write_book(path: Path, entries: list[tuple[chess.Board, str, int]]) -> Path:
    rows = sorted((chess.polyglot.zobrist_hash(b), raw_move(u), w) for b, u, w in entries)
    path.write_bytes(b"".join(struct.pack(">QHHI", k, m, w, 0) for k, m, w in rows))
    return path


def test_pgn_book_moves_follow_the_games(pgn_book: Path, tmp_path: Path) -> None:
    b = books(tmp_path, [pgn_book], selection="best_move")
    assert b.choose(chess.Board()).uci == "e2e4"  # 1.d4 lost: polyglot drops it
    assert b.choose(play("e4", "e5")).uci == "g1f3"
    assert b.choose(play("d4")).uci == "d7d5"
    seen = {b.choose(play("e4", "e5", "Nf3", "Nc6"), rng=random.Random(i)).uci
            for i in range(40)}
    assert seen == {"f1b5"}  # best_move: ties broken deterministically
    b2 = books(tmp_path, [pgn_book], selection="uniform_random")
    seen = {b2.choose(play("e4", "e5", "Nf3", "Nc6"), rng=random.Random(i)).uci
            for i in range(40)}
    assert seen == {"f1b5", "f1c4"}
    assert b.choose(play("e4", "c5")) is None  # not in the book


def test_standard_castling_is_e1g1(pgn_book: Path, tmp_path: Path) -> None:
    b = books(tmp_path, [pgn_book], max_depth=20)
    board = play("e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5")
    move = b.choose(board)
    assert move is not None and move.uci == "e1g1"
    assert board.is_castling(chess.Move.from_uci(move.uci))


def test_max_depth_and_min_weight(pgn_book: Path, tmp_path: Path) -> None:
    board = play("e4", "e5", "Nf3", "Nc6")  # ply 4
    assert books(tmp_path, [pgn_book], max_depth=5).choose(board) is not None
    assert books(tmp_path, [pgn_book], max_depth=4).choose(board) is None
    heavy = books(tmp_path, [pgn_book], min_weight=3)
    assert heavy.choose(chess.Board()).uci == "e2e4"  # weight 4
    assert heavy.choose(board) is None  # Bb5/Bc4 weigh 2


def test_first_book_with_moves_decides(pgn_book: Path, tmp_path: Path) -> None:
    other = write_book(tmp_path / "other.bin", [(chess.Board(), "g1f3", 9),
                                                (play("e4"), "c7c5", 5)])
    b = books(tmp_path, [pgn_book, other])
    assert b.choose(chess.Board()).uci == "e2e4"
    assert b.choose(play("e4")).uci == "c7c5"  # first book has no black moves after 1.e4
    assert b.choose(play("e4")).book == "other.bin"


def test_chess960_castling_king_takes_rook(tmp_path: Path) -> None:
    board = chess.Board("1k5r/pp6/8/8/8/8/PP6/RK5R w HAha - 0 1", chess960=True)
    path = write_book(tmp_path / "960.bin", [(board, "b1h1", 10), (board, "b1a1", 5),
                                             (board, "a2a3", 1)])
    b = books(tmp_path, chess960=[path], selection="best_move", max_depth=100)
    move = b.choose(board, "chess960")
    assert move is not None and move.uci == "b1h1"
    assert board.is_castling(chess.Move.from_uci(move.uci))
    board.push_uci(move.uci)
    assert board.piece_at(chess.G1) == chess.Piece(chess.KING, chess.WHITE)
    assert board.piece_at(chess.F1) == chess.Piece(chess.ROOK, chess.WHITE)
    board.pop()
    seen = {books(tmp_path, chess960=[path], selection="uniform_random")
            .choose(board, "chess960", random.Random(i)).uci for i in range(60)}
    assert seen == {"b1h1", "b1a1", "a2a3"}  # queenside castling is b1a1, not b1c1
    # A standard-only configuration has no chess960 book.
    assert books(tmp_path, [path], max_depth=100).choose(board, "chess960") is None


def test_weight_zero_only_with_min_weight_zero(tmp_path: Path) -> None:
    path = write_book(tmp_path / "z.bin", [(chess.Board(), "a2a3", 0)])
    assert books(tmp_path, [path]).choose(chess.Board()) is None
    assert books(tmp_path, [path], min_weight=0).choose(chess.Board()).uci == "a2a3"


@pytest.mark.skipif(not SHARED_BOOK.exists(), reason="shared books not present")
def test_weighted_random_follows_weights_in_a_real_book(tmp_path: Path) -> None:
    b = books(tmp_path, [SHARED_BOOK], max_depth=40)
    board = play("e4", "c5", "c3")  # 8 replies weighing 9..1443
    with chess.polyglot.open_reader(SHARED_BOOK) as reader:
        weights = {e.move.uci(): e.weight for e in reader.find_all(board)}
    assert len(weights) >= 5
    rng = random.Random(7)
    n = 3000
    counts = collections.Counter(b.choose(board, rng=rng).uci for _ in range(n))
    total = sum(weights.values())
    assert set(counts) <= set(weights)
    for uci, w in weights.items():
        assert abs(counts[uci] / n - w / total) < 0.04, (uci, counts, weights)
    best = books(tmp_path, [SHARED_BOOK], selection="best_move", max_depth=40).choose(board)
    assert best.weight == max(weights.values())
    assert validate_book(SHARED_BOOK) == SHARED_BOOK.stat().st_size // 16


def test_bad_books_are_one_clear_error(tmp_path: Path) -> None:
    # A book written here (not by polyglot): these checks run on every machine.
    pgn_book = write_book(tmp_path / "good.bin", [(play(), "e2e4", 5), (play("e4"), "e7e5", 3),
                                                  (play("d4"), "d7d5", 2)])
    missing = tmp_path / "nope.bin"
    with pytest.raises(UserError, match=r"nope\.bin does not exist.*engine\.polyglot"):
        books(tmp_path, [missing])
    odd = tmp_path / "odd.bin"
    odd.write_bytes(pgn_book.read_bytes()[:-3])
    with pytest.raises(UserError, match=r"odd\.bin is corrupt: .* multiple of 16"):
        books(tmp_path, [odd])
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    with pytest.raises(UserError, match=r"empty\.bin is corrupt"):
        books(tmp_path, [empty])
    data = pgn_book.read_bytes()
    swapped = tmp_path / "unsorted.bin"
    swapped.write_bytes(data[-16:] + data[:-16])
    with pytest.raises(UserError, match=r"unsorted\.bin is corrupt: keys are not sorted"):
        books(tmp_path, [swapped])
    with pytest.raises(UserError, match="is a directory"):
        books(tmp_path, [tmp_path])
    with pytest.raises(UserError, match="lists no files"):
        books(tmp_path, [])
    # Disabled: nothing is opened, a bad path is not an error.
    cfg = parse_config({"engine": {"polyglot": {"book": {"standard": [str(missing)]}}}})
    assert OpeningBooks.open(cfg.engine.polyglot) is None


def test_non_regular_and_huge_books_are_refused_at_once(tmp_path: Path) -> None:
    # Old code: read_bytes() on a FIFO blocked forever; /dev/zero and a huge file
    # were read whole into memory before any check.
    import os

    from bot.sources.book import MAX_BOOK_BYTES

    fifo = tmp_path / "fifo.bin"
    os.mkfifo(fifo)
    for special in (fifo, Path("/dev/zero")):
        with pytest.raises(UserError, match="not a regular file"):
            books(tmp_path, [special])
    huge = tmp_path / "huge.bin"
    with huge.open("wb") as f:
        f.truncate(MAX_BOOK_BYTES + 16)  # sparse: no disk used
    with pytest.raises(UserError, match=r"huge\.bin is \d+ bytes, more than"):
        books(tmp_path, [huge])


def test_config_relative_book_path(tmp_path: Path, pgn_book: Path) -> None:
    shutil.copy(pgn_book, tmp_path / "mine.bin")
    (tmp_path / "config.yml").write_text(
        "engine:\n  polyglot:\n    enabled: true\n    book:\n      standard: [mine.bin]\n")
    cfg = load_config(tmp_path / "config.yml")
    b = OpeningBooks.open(cfg.engine.polyglot, base=tmp_path)
    assert b is not None and b.infos[0].entries == 7
