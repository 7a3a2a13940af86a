"""A game's measured latency -> the engine's move overhead (pure functions).

Lichess gives BOT moves no lag compensation (lila modules/round MovePlayer.scala:
`botLag = MoveMetrics(clientLag = Centis(0))`), so every millisecond between the
server sending a position and receiving our move comes off our clock.  We
measure, per move, "state received -> move POST acknowledged, minus think
time": local overhead plus one full round trip, a slight over-estimate of what
the server charges (downlink + uplink) and therefore safe.  The engine keeps
`max(floor, recent p95 + margin)` back per move.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

WINDOW = 16  # recent moves the estimate follows (a network change shows within a few moves)
MARGIN_MS = 50  # on top of the p95: scheduling jitter on a loaded Pi
CAP_MS = 2000  # one pathological sample (a retried POST) must not cripple the whole game


def percentile(samples: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty sample."""
    if not samples:
        raise ValueError("percentile of no samples")
    ordered = sorted(samples)
    rank = max(1, math.ceil(q / 100.0 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def overhead_sample_ms(received_at: float, acked_at: float, think_ms: float) -> float:
    """One move's latency: monotonic seconds received/acknowledged, think time in ms."""
    return max(0.0, (acked_at - received_at) * 1000.0 - think_ms)


def move_overhead_ms(floor_ms: int, samples: Sequence[float], margin_ms: int = MARGIN_MS,
                     cap_ms: int = CAP_MS) -> int:
    """The overhead to give the engine: never below the configured floor."""
    if not samples:
        return floor_ms
    return int(max(floor_ms, min(cap_ms, percentile(samples, 95) + margin_ms)))


@dataclass
class LatencyEstimate:
    floor_ms: int
    recent: deque[float] = field(default_factory=lambda: deque(maxlen=WINDOW))
    every: list[float] = field(default_factory=list)  # the whole game, for the summary

    def add(self, sample_ms: float) -> None:
        self.recent.append(sample_ms)
        self.every.append(sample_ms)

    def overhead_ms(self) -> int:
        return move_overhead_ms(self.floor_ms, list(self.recent))

    def summary(self) -> str:
        if not self.every:
            return "no moves measured"
        return (f"latency over {len(self.every)} moves: median {percentile(self.every, 50):.0f} ms,"
                f" p95 {percentile(self.every, 95):.0f} ms, max {max(self.every):.0f} ms;"
                f" overhead now {self.overhead_ms()} ms (floor {self.floor_ms} ms)")
