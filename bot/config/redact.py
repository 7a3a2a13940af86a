"""Token-like text in a config: recognised, and never echoed back.

Every config value may reach a log line or `pibot check`'s output, so the
loader's error messages show values through `show`, which hides a pasted
Lichess token, and a YAML error's quoted text goes through `mask_tokens`.
"""

from __future__ import annotations

import re
from typing import Any

# Lichess personal tokens: lip_ (personal) / lio_ (OAuth) + alphanumerics.
_TOKEN_LIKE = re.compile(r"^li[po]_[A-Za-z0-9]{8,}$")
_TOKEN_INSIDE = re.compile(r"li[po]_[A-Za-z0-9]{8,}")


def looks_like_token(value: object) -> bool:
    return isinstance(value, str) and bool(_TOKEN_LIKE.match(value.strip()))


def has_token_text(value: object) -> bool:
    """A token anywhere in a string (a URL's query, a path): also never echoed."""
    return isinstance(value, str) and bool(_TOKEN_INSIDE.search(value))


def _holds_token(value: Any) -> bool:
    if isinstance(value, dict):
        return any(_holds_token(k) or _holds_token(v) for k, v in value.items())
    if isinstance(value, list):
        return any(map(_holds_token, value))
    return has_token_text(value)


def show(value: Any) -> str:
    """repr() for error messages, except that a pasted token is never echoed."""
    if _holds_token(value):
        return "a value that looks like a Lichess token (not shown)"
    return repr(value)



def mask_tokens(text: str) -> str:
    """`text` with every token-like run replaced (a YAML error quotes the line)."""
    return _TOKEN_INSIDE.sub("<token-like text>", text)
