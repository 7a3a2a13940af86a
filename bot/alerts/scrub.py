"""Secrets out of text that leaves the machine (alerts) or reaches a log."""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterable

REDACTED = "<redacted>"
_PATTERNS = (
    re.compile(r"li[po]_[A-Za-z0-9]{8,}"),                        # Lichess tokens
    re.compile(r"(?i)(bearer\s+)[^\s\"']+"),                     # Authorization values
    re.compile(r"(?i)(basic\s+)[A-Za-z0-9+/=]{8,}"),
    re.compile(r"(?i)(://)[^/@\s:]*:[^/@\s]*(?=@)"),             # user:password@ in URLs
    re.compile(r"(?i)\b((?:password|passwd|pwd|token|secret|auth|api_?key|access_token)"
               r"[\"']?\s*[=:]\s*[\"']?)[^\s&\"',;]+"),            # key=value, key: value
)
_MIN_SECRET = 6  # shorter "secrets" would redact ordinary words


def scrub(text: str, secrets: Iterable[str] = ()) -> str:
    for secret in secrets:
        if secret and len(secret) >= _MIN_SECRET:
            text = text.replace(secret, REDACTED)
    for pattern in _PATTERNS:
        text = pattern.sub(lambda m: (m.group(1) if m.groups() else "") + REDACTED, text)
    return text


def public_url(url: str) -> str:
    """The URL as a log line may show it: scheme, host, port and path only (no
    credentials, no query: an ntfy topic's URL may carry ?auth=...)."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urllib.parse.urlunsplit((parts.scheme, host, parts.path, "", ""))
