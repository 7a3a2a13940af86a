"""A rival event-stream client: a second program on the bot's account.

lila allows one event stream per token: opening one kills the previous one
opened with the same token (modules/api/src/main/EventStream.scala publishes a
PoisonPill to `eventStreamForBearer:<bearer>`; the old stream's actor stops and
completes its queue, so its client sees a clean end of the ndjson response).
Before lila 20cd2f84 (lichess-org/api#518, August 2025) the channel was
`eventStreamFor:<user>`: one stream per account. This thread keeps opening the
stream over real HTTP and re-opens it `reconnect_s` after it is closed, the way
a second bot process would: on the bot's own token the two take the stream
from each other; on another token of the account both stay open.
"""

from __future__ import annotations

import http.client
import logging
import socket
import threading

log = logging.getLogger(__name__)


class RivalEventStream:
    def __init__(self, host: str, port: int, token: str, reconnect_s: float) -> None:
        self._host = host
        self._port = port
        self._token = token
        self.reconnect_s = reconnect_s
        self.opens = 0  # event streams it opened (answered 200)
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._conn: http.client.HTTPConnection | None = None
        self._thread = threading.Thread(target=self._run, name="emu-rival", daemon=True)

    def start(self) -> RivalEventStream:
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            conn = http.client.HTTPConnection(self._host, self._port, timeout=None)
            with self._lock:
                self._conn = conn
            try:
                conn.request(
                    "GET", "/api/stream/event", headers={"Authorization": f"Bearer {self._token}"}
                )
                resp = conn.getresponse()
                if resp.status == 200:
                    with self._lock:
                        self.opens += 1
                while not self._stop.is_set() and resp.readline():
                    pass  # it only holds the stream; what it reads does not matter
            except (OSError, http.client.HTTPException) as exc:
                log.debug("rival event stream ended: %r", exc)
            finally:
                with self._lock:
                    self._conn = None
                conn.close()
            self._stop.wait(self.reconnect_s)

    def stop(self) -> None:
        self._stop.set()
        with self._lock:
            conn = self._conn
        if conn is not None and conn.sock is not None:
            try:
                conn.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout=2.0)

    def __enter__(self) -> RivalEventStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
