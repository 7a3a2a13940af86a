"""`pibot uci` as a real subprocess, line by line (tests/conftest.py's `uci` fixture)."""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
import time


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
