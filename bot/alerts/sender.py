"""AlertSender: the owner's alerts, posted from a thread of their own.

`send` only puts the alert in a small bounded queue and returns: a URL that is
down, refuses, or never answers costs the sender thread its timeout, never
the caller anything.  When the queue is full the new alert is dropped with a
log line.  The same `kind` is sent at most once per `repeat_s` (a restart
loop or a flapping throttle must not flood the owner's phone).

Two formats:
- ntfy (https://ntfy.sh/TOPIC or a self-hosted server): the message as the
  plain-text body, with Title, Priority and Tags headers (ntfy's publish API);
- json: a generic webhook gets a JSON POST {"kind", "title", "message",
  "priority", "host", "time"}.
Credentials in the URL (https://user:pass@host/topic) become an HTTP Basic
header and are never logged.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import logging
import queue
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from bot.alerts.scrub import public_url, scrub

log = logging.getLogger(__name__)

QUEUE_SIZE = 16       # alerts are rare: more waiting means the URL is down
TIMEOUT_S = 10.0      # per POST, connect and read
Priority = Literal["low", "default", "high", "urgent"]
_NTFY_PRIORITY = {"low": "2", "default": "3", "high": "4", "urgent": "5"}


@dataclass(frozen=True)
class Alert:
    kind: str
    title: str
    message: str
    priority: Priority
    at: float


def wants_ntfy(url: str, fmt: str) -> bool:
    if fmt != "auto":
        return fmt == "ntfy"
    return "ntfy" in (urllib.parse.urlsplit(url).hostname or "")


def _latin1(text: str) -> str:
    # HTTP header values are latin-1; a name with other letters must not fail the POST.
    return text.encode("latin-1", "replace").decode("latin-1")


class AlertSender:
    def __init__(self, url: str, fmt: str = "auto", repeat_s: float = 3600.0,
                 secrets: Iterable[str] = (), queue_size: int = QUEUE_SIZE,
                 timeout_s: float = TIMEOUT_S, host: str | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        parts = urllib.parse.urlsplit(url)
        self._auth: str | None = None
        if parts.username is not None:
            raw = f"{urllib.parse.unquote(parts.username)}:" \
                  f"{urllib.parse.unquote(parts.password or '')}"
            self._auth = "Basic " + base64.b64encode(raw.encode()).decode()
            netloc = parts.hostname or ""
            if parts.port:
                netloc = f"{netloc}:{parts.port}"
            parts = parts._replace(netloc=netloc)
        self._url = urllib.parse.urlunsplit(parts)
        self.shown_url = public_url(url)
        self.ntfy = wants_ntfy(url, fmt)
        self.repeat_s = repeat_s
        self.timeout_s = timeout_s
        self.host = host or socket.gethostname()
        # The URL's own credentials count as secrets too: never in a message.
        self._secrets = [s for s in (*secrets, parts.password or "") if s]
        self._clock = clock
        self._queue: queue.Queue[Alert | None] = queue.Queue(queue_size)
        self._last: dict[str, float] = {}
        self._lock = threading.Lock()
        self.sent = self.dropped = self.failed = 0
        self.problem: str | None = None
        self._thread = threading.Thread(target=self._run, name="alerts", daemon=True)
        self._thread.start()

    def send(self, kind: str, title: str, message: str,
             priority: Priority = "default", repeat: bool = False) -> bool:
        """Queue an alert; never blocks.  False: suppressed (sent within repeat_s,
        unless `repeat`) or dropped (the queue is full)."""
        now = self._clock()
        with self._lock:
            last = self._last.get(kind)
            if not repeat and last is not None and now - last < self.repeat_s:
                return False
            self._last[kind] = now
        alert = Alert(kind, scrub(title, self._secrets), scrub(message, self._secrets),
                      priority, time.time())
        try:
            self._queue.put_nowait(alert)
        except queue.Full:
            with self._lock:
                self.dropped += 1
            log.warning("alert dropped, %d already wait for %s: %s", self._queue.maxsize,
                        self.shown_url, alert.title)
            return False
        return True

    def close(self, timeout: float = 2.0) -> None:
        """Send what is queued within `timeout`, then stop (a daemon thread: a URL
        that never answers does not hold up the exit)."""
        try:
            self._queue.put(None, timeout=timeout)
        except queue.Full:
            return
        self._thread.join(timeout)

    def status(self) -> dict[str, object]:
        with self._lock:
            return {"url": self.shown_url, "sent": self.sent, "dropped": self.dropped,
                    "failed": self.failed, "problem": self.problem}

    # -- the sender thread -----------------------------------------------------------

    def _run(self) -> None:
        while True:
            alert = self._queue.get()
            if alert is None:
                return
            try:
                self._post(alert)
            except (OSError, urllib.error.URLError, ValueError) as exc:
                self._failed(alert, exc)
                continue
            with self._lock:
                self.sent += 1
                recovered, self.problem = self.problem, None
            if recovered:
                log.info("alerts reach %s again", self.shown_url)

    def _request(self, alert: Alert) -> urllib.request.Request:
        headers = {"User-Agent": "pibot-alerts"}
        if self._auth:
            headers["Authorization"] = self._auth
        if self.ntfy:
            headers.update({"Title": _latin1(alert.title),
                            "Priority": _NTFY_PRIORITY[alert.priority],
                            "Tags": _latin1(f"pibot,{alert.kind}")})
            body = f"{alert.message}\n({self.host})".encode()
            headers["Content-Type"] = "text/plain; charset=utf-8"
        else:
            when = dt.datetime.fromtimestamp(alert.at, dt.UTC).isoformat(timespec="seconds")
            body = json.dumps({"kind": alert.kind, "title": alert.title,
                               "message": alert.message, "priority": alert.priority,
                               "host": self.host, "time": when}).encode()
            headers["Content-Type"] = "application/json"
        return urllib.request.Request(self._url, data=body, headers=headers, method="POST")

    def _post(self, alert: Alert) -> None:
        with urllib.request.urlopen(self._request(alert), timeout=self.timeout_s) as resp:
            resp.read(65536)

    def _failed(self, alert: Alert, exc: BaseException) -> None:
        if isinstance(exc, urllib.error.HTTPError):
            reason = f"HTTP {exc.code}"
        elif isinstance(exc, urllib.error.URLError):
            reason = str(exc.reason)
        else:
            reason = str(exc) or type(exc).__name__
        reason = scrub(reason, self._secrets)
        with self._lock:
            self.failed += 1
            known, self.problem = self.problem, reason
        if reason != known:  # one line per distinct problem, not one per alert
            log.warning("alert not delivered to %s (%s): %s", self.shown_url, reason,
                        alert.title)
