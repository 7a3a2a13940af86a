"""`pibot uci` as a real subprocess: protocol, options, garbage input."""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
import time

import chess
import pytest


class Uci:
    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bot.cli", "uci"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put("<EOF>")

    def send(self, *cmds: str) -> None:
        assert self.proc.stdin is not None
        for c in cmds:
            self.proc.stdin.write(c + "\n")
        self.proc.stdin.flush()

    def expect(self, prefix: str, timeout: float = 30) -> list[str]:
        """Lines up to and including the first one starting with prefix."""
        seen: list[str] = []
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timeout waiting for {prefix!r}; got {seen[-20:]}")
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            seen.append(line)
            if line == "<EOF>":
                raise AssertionError(f"engine exited waiting for {prefix!r}; got {seen[-20:]}")
            if line.startswith(prefix):
                return seen

    def close(self) -> int:
        if self.proc.poll() is None:
            self.send("quit")
        try:
            return self.proc.wait(10)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


@pytest.fixture
def uci():
    u = Uci()
    # Interpreter start-up can be slow on a loaded machine (or right after a
    # rebuild): wait for it here so the per-command timeouts below only
    # measure the engine.
    u.send("isready")
    u.expect("readyok", timeout=120)
    yield u
    u.close()


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
