"""The move-source chain: book -> syzygy -> online, over real files and HTTP."""

from __future__ import annotations

import asyncio
import struct
from collections.abc import Iterator
from pathlib import Path

import chess
import chess.polyglot
import pytest

from bot.config import parse_config
from bot.emulator import CloudPv, Emulator, EmulatorConfig
from bot.sources.chain import MoveContext, MoveSources, check_lines

TABLES = Path(__file__).parent / "data" / "syzygy"
KRVK = "8/8/8/4k3/8/8/1R6/K7 w - - 0 1"


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    with Emulator(EmulatorConfig()) as e:
        yield e


@pytest.fixture
def book(tmp_path: Path) -> Path:
    board = chess.Board()
    key = chess.polyglot.zobrist_hash(board)
    e4 = (chess.E4 % 8) | (chess.E4 // 8) << 3 | (chess.E2 % 8) << 6 | (chess.E2 // 8) << 9
    path = tmp_path / "one.bin"
    path.write_bytes(struct.pack(">QHHI", key, e4, 7, 0))
    return path


def config(url: str, book: Path, **syzygy: object) -> dict[str, object]:
    return {"url": url, "engine": {
        "polyglot": {"enabled": True, "book": {"standard": [str(book)]}},
        "syzygy": {"enabled": True, "paths": [str(TABLES)], **syzygy},
        "online_moves": {"explorer_url": url, "tablebase_url": url,
                         "lichess_cloud_analysis": {"enabled": True, "min_depth": 0}}}}


def ctx(budget_s: float = 1.0) -> MoveContext:
    return MoveContext("g1", "standard", clock_s=300, budget_s=budget_s)


def test_chain_order(emu: Emulator, book: Path) -> None:
    sources = MoveSources.open(parse_config(config(emu.url, book)))
    try:
        hit = asyncio.run(sources.pick(chess.Board(), ctx()))
        assert hit is not None and (hit.uci, hit.source) == ("e2e4", "book")
        assert hit.comment == "book one.bin: weight 7/7"
        hit = asyncio.run(sources.pick(chess.Board(KRVK), ctx()))
        assert hit is not None and hit.source == "syzygy" and hit.restrict_to == ()
        assert "syzygy win" in hit.comment
        mid = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
        emu.online.set_cloud_eval(mid.fen(), [CloudPv("f1b5 a7a6", cp=30)])
        hit = asyncio.run(sources.pick(mid, ctx()))
        assert hit is not None and (hit.uci, hit.source) == ("f1b5", "lichess_cloud_analysis")
        mid.push_uci("f1c4")
        before = emu.traffic.count("GET /api/cloud-eval")
        assert asyncio.run(sources.pick(mid, ctx())) is None  # 404: the engine searches
        assert emu.traffic.count("GET /api/cloud-eval") == before + 1
        assert asyncio.run(sources.pick(mid, ctx(budget_s=0.0))) is None
        assert emu.traffic.count("GET /api/cloud-eval") == before + 1  # no budget: not asked
    finally:
        sources.close()


def test_book_and_tablebase_take_no_time(emu: Emulator, book: Path) -> None:
    sources = MoveSources.open(parse_config(config(emu.url, book)))
    try:
        for board in (chess.Board(), chess.Board(KRVK)):
            asyncio.run(sources.pick(board, ctx()))  # warm the page cache
            hit = asyncio.run(sources.pick(board, ctx()))
            assert hit is not None and hit.source in ("book", "syzygy")
            # typically ~0.1 ms (book) and a few ms (tables): docs/strength.md; loose
            # here because the test machine is shared
            assert hit.elapsed_ms < 250
    finally:
        sources.close()


def test_syzygy_suggest_restricts_the_search(emu: Emulator, book: Path) -> None:
    sources = MoveSources.open(parse_config(config(emu.url, book, move_quality="suggest")))
    try:
        board = chess.Board("7K/4r3/4k3/Q7/8/8/8/8 w - - 0 1")
        hit = asyncio.run(sources.pick(board, ctx()))
        assert hit is not None and hit.restrict_to and hit.uci in hit.restrict_to
        assert len(hit.restrict_to) < board.legal_moves.count()
    finally:
        sources.close()


def test_check_lines(emu: Emulator, book: Path, tmp_path: Path) -> None:
    lines = check_lines(parse_config(config(emu.url, book)))
    assert all(ok for ok, _ in lines)
    text = "\n".join(t for _, t in lines)
    assert "one.bin (standard): 1 entries" in text
    assert "7 WDL and 7 DTZ tables up to 4 pieces" in text
    assert "online moves: cloud eval" in text
    assert check_lines(parse_config({})) == [(True, "polyglot books: off"), (True, "syzygy: off"),
                                             (True, "online moves: all sources off")]
    bad = config(emu.url, book)
    bad["engine"]["syzygy"]["paths"] = [str(tmp_path / "missing")]  # type: ignore[index]
    [(ok, msg)] = check_lines(parse_config(bad))
    assert not ok and "missing does not exist" in msg


def test_pibot_check_reports_sources(emu: Emulator, book: Path, tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    import yaml

    def check(data: dict[str, object]) -> subprocess.CompletedProcess[str]:
        cfg = tmp_path / "c.yml"
        cfg.write_text(yaml.safe_dump(data))
        env = dict(os.environ, LICHESS_BOT_TOKEN=emu.token)
        return subprocess.run([sys.executable, "-m", "bot.cli", "check", "--config", str(cfg)],
                              env=env, capture_output=True, text=True, timeout=60,
                              stdin=subprocess.DEVNULL)

    data = config(emu.url, book)
    r = check(data)
    assert r.returncode == 0, r.stdout
    assert "ok      polyglot book" in r.stdout and "1 entries" in r.stdout
    assert "ok      syzygy: 7 WDL and 7 DTZ tables up to 4 pieces" in r.stdout
    assert "ok      online moves: cloud eval" in r.stdout
    data["engine"]["polyglot"]["book"]["standard"] = [str(tmp_path / "gone.bin")]  # type: ignore[index]
    r = check(data)
    assert r.returncode == 1
    assert "PROBLEM polyglot book" in r.stdout and "gone.bin does not exist" in r.stdout
    assert "Traceback" not in r.stdout + r.stderr


def test_a_failing_source_means_search(emu: Emulator, book: Path, tmp_path: Path,
                                       caplog: pytest.LogCaptureFixture) -> None:
    # A table that passed the start checks but breaks when probed (truncated
    # after its header once the bot runs): the chain logs it once, without a
    # traceback per probe, and lets the engine search.
    tables = tmp_path / "tb"
    tables.mkdir()
    for name in ("KRvK.rtbw", "KRvK.rtbz"):
        (tables / name).write_bytes((TABLES / name).read_bytes())
    data = config(emu.url, book)
    data["engine"]["syzygy"]["paths"] = [str(tables)]  # type: ignore[index]
    data["engine"]["online_moves"]["lichess_cloud_analysis"]["enabled"] = False  # type: ignore[index]
    sources = MoveSources.open(parse_config(data))
    for name in ("KRvK.rtbw", "KRvK.rtbz"):
        (tables / name).write_bytes((TABLES / name).read_bytes()[:64])
    try:
        for _ in range(3):
            assert asyncio.run(sources.pick(chess.Board(KRVK), ctx())) is None
        assert caplog.text.count("syzygy probe failed") == 1, caplog.text
        assert "Traceback" not in caplog.text
    finally:
        sources.close()
