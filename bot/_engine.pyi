"""Types of the compiled C core, bot/_engine.*.so (build_engine.py, cffi API mode).

cffi's `ffi` and `lib` are untyped: they are Any here, at the raw layer only.
bot.engine.bindings and bot.engine.search_bindings turn every result into a
Python type, so nothing above them sees Any from the C core.
"""

from typing import Any

ffi: Any
lib: Any
