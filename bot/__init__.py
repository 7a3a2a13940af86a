"""pibot: a Lichess bot with its own C chess engine."""

__version__ = "0.1.0"
