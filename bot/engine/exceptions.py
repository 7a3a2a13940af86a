"""Engine exceptions: C error codes (PB_ERR_* in engine_c/types.h) mapped to Python."""

from __future__ import annotations

from bot.errors import PibotError


class EngineError(PibotError):
    """Base of every error raised by the engine binding."""


class FenError(EngineError, ValueError):
    """A FEN string was rejected; the message says which field and why."""


class IllegalMoveError(EngineError, ValueError):
    """A move string is malformed or not legal in the position."""


class EngineMemoryError(EngineError, MemoryError):
    """An allocation failed (e.g. a hash table larger than the memory available)."""


class EngineBusyError(EngineError):
    """The engine is searching; stop it first."""


class EngineArgumentError(EngineError, ValueError):
    """An argument was out of range."""


class NetFileError(EngineError, ValueError):
    """An NNUE net file was rejected (unreadable, bad magic/version/shape/size/checksum)."""


class VariantError(EngineError, ValueError):
    """A variant name is unknown, or the engine does not play that variant."""


class PerftInterrupted(EngineError):
    """A perft was stopped (PerftStop.set) before it finished; there is no count."""


# C error code -> exception class (see engine_c/types.h)
ERRORS: dict[int, type[EngineError]] = {
    -1: FenError,
    -2: IllegalMoveError,
    -3: EngineMemoryError,
    -4: EngineArgumentError,
    -5: EngineBusyError,
    -6: EngineArgumentError,
    -7: EngineError,
    -8: NetFileError,
    -9: NetFileError,
    -10: NetFileError,
    -11: NetFileError,
    -12: NetFileError,
    -13: NetFileError,
    -14: VariantError,
}
