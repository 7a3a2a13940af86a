"""Opening, feeding and closing the ndjson streams (event stream, game streams)."""

from __future__ import annotations

import logging
import math
import time
from typing import Any

from bot.emulator.config import AccountSpec
from bot.emulator.errors import not_found
from bot.emulator.state import (
    COMPAT,
    CoreState,
)
from bot.emulator.streams import Subscriber

log = logging.getLogger(__name__)


class StreamOps(CoreState):
    def open_event_stream(self, account: AccountSpec, bearer: str) -> Subscriber:
        """lila modules/api/src/main/EventStream.scala: a new stream publishes a
        PoisonPill to `eventStreamForBearer:<bearer>`, so the one this token had
        open ends cleanly; another token's stream of the same account stays open,
        and both hear every event (they subscribe by user id)."""
        with self.lock:
            key = account.username.lower()
            old = self.streams.event.get(bearer)
            if old is not None:
                old.close()
            sub = Subscriber(self.lock, "event", key)
            sub.bearer = bearer
            self.streams.live.add(sub)
            self.streams.event[bearer] = sub
            now = time.monotonic()
            for game in self.games.values():
                if not game.over and game.bot_player.id == key:
                    sub.push({"type": "gameStart", "game": game.event_info(now)})
            for ch in self.challenges.open.values():
                if ch.status == "created" and key in (ch.dest.id, ch.challenger.id):
                    sub.push({"type": "challenge", "challenge": ch.json(), "compat": COMPAT})
            return sub

    def open_game_stream(self, account: AccountSpec, game_id: str) -> Subscriber:
        with self.lock:
            game = self.games.get(game_id)
            if game is None or game.bot_player.id != account.username.lower():
                raise not_found("No such game")
            sub = Subscriber(self.lock, f"game:{game_id}", account.username.lower())
            self.streams.live.add(sub)
            sub.push(dict(game.full_json()))
            if game.over:
                sub.close()
            else:
                if game.opp_gone and game.gone_last_sent is not None:
                    # A reconnecting bot must still learn the opponent is gone.
                    sub.push(
                        {
                            "type": "opponentGone",
                            "gone": True,
                            "claimWinInSeconds": game.gone_last_sent,
                        }
                    )
                self.streams.game.setdefault(game_id, []).append(sub)
            return sub

    def close_stream(self, sub: Subscriber) -> None:
        with self.lock:
            if sub.key == "event":
                if self.streams.event.get(sub.bearer) is sub:
                    del self.streams.event[sub.bearer]
            else:
                lst = self.streams.game.get(sub.key[5:], [])
                if sub in lst:
                    lst.remove(sub)
            self.streams.live.discard(sub)
            sub.closed = True

    def next_chunk(self, sub: Subscriber, keepalive_s: float) -> tuple[list[dict[str, Any]], str]:
        """Block until there is something to write on `sub`.

        Returns (payloads, action): action "send" (payloads; empty list means a
        keep-alive newline), "end" (send payloads then finish the response
        cleanly) or "drop" (cut the connection without a proper end).
        """
        with self.lock:
            deadline = time.monotonic() + keepalive_s
            while True:
                if self.stopping or sub.dropped:
                    return [], "drop"
                # A stream already being replaced/closed must not use up a fault.
                fault = None if sub.closed else self.faults.for_stream(sub.key)
                now = time.monotonic()
                if fault is not None:
                    if fault.kind == "drop_stream":
                        log.info("fault: dropping %s stream", sub.key)
                        return [], "drop"
                    duration = fault.duration_s
                    sub.silent_until = math.inf if duration is None else now + duration
                    log.info("fault: %s stream silent for %s s", sub.key, duration or "ever")
                if sub.silent_until is not None:
                    if sub.closed and math.isinf(sub.silent_until):
                        # Nobody can tell a dead-forever stream ended: cut it so
                        # its thread does not linger for the rest of the run.
                        return [], "drop"
                    if now < sub.silent_until:
                        left = sub.silent_until - now
                        sub.cond.wait(None if math.isinf(left) else left)
                        continue
                    sub.silent_until = None
                    deadline = now  # silence over: resume with a keep-alive at once
                ready_at = math.inf
                if sub.queue:
                    ready_at = sub.queue[0][0] + sub.delay_s
                    if ready_at <= now:
                        items = []
                        while sub.queue and sub.queue[0][0] + sub.delay_s <= now:
                            items.append(sub.queue.popleft()[1])
                        return items, ("end" if sub.closed and not sub.queue else "send")
                elif sub.closed:
                    return [], "end"
                if now >= deadline:
                    return [], "send"
                sub.cond.wait(min(deadline, ready_at) - now)
