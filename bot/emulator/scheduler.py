"""The scheduler thread: everything that happens on its own at a deadline
(opponent moves, flag falls, challenge expiry and answers, opponentGone
countdowns, first-move timeouts, the arenas' organiser of arena.py).
It sleeps on a Condition until the next one.
"""

from __future__ import annotations

import logging
import math
import threading
import time

import chess

from bot.emulator.arena import ArenaOps
from bot.emulator.challenge import Challenge
from bot.emulator.game import Game
from bot.emulator.opponent import choose_move
from bot.emulator.uci_opponent import UciPlayer, resolve_engine

log = logging.getLogger(__name__)


class Scheduler(ArenaOps):
    def _scheduler(self) -> None:
        with self.lock:
            while not self.stopping:
                try:
                    next_at = self._tick(time.monotonic())
                except Exception:  # a bug here must not kill every game: log and go on
                    log.exception("emulator scheduler tick failed")
                    next_at = time.monotonic() + 0.5
                timeout = 1.0 if next_at is None else max(0.0, min(1.0, next_at - time.monotonic()))
                if timeout > 0:
                    self._wake.wait(timeout)

    def _tick(self, now: float) -> float | None:
        """Process everything due at `now`; return the next deadline."""
        deadlines: list[float] = self._arena_tick(now)
        for ch in list(self.challenges.open.values()):
            if ch.status == "offline":
                # Acceptable until lila deletes it, 3 h after it went offline
                # (ChallengeRepo.offline sets expiresAt; ChallengeApi.sweep removes it):
                # no event to anyone, and an accept then gets 404.
                if now >= ch.expires_at:
                    del self.challenges.open[ch.id]
                    log.info("challenge %s: offline too long, deleted", ch.id)
                    self._touch()
                else:
                    deadlines.append(ch.expires_at)
                continue
            if ch.kept_alive:
                continue  # its challenger keeps it seen: it stays `created`
            if ch.direction == "out" and ch.respond_at is not None:
                if now >= ch.respond_at:
                    self._outgoing_answer(ch)
                    continue
                deadlines.append(ch.respond_at)
            if now >= ch.expires_at:
                if (
                    self.config.challenge_expiry_mode == "offline"
                    and ch.direction == "in"
                    and ch.limit_s is not None
                ):
                    # lila ChallengeApi.offline: status only, no event to anyone.
                    ch.status = "offline"
                    ch.expires_at = now + self.config.challenge_offline_delete_s
                    log.info("challenge %s: challenger unseen, now offline", ch.id)
                    self._touch()
                    continue
                self.challenges.expired[ch.id] = ch
                self._cancel(ch)
            else:
                deadlines.append(ch.expires_at)
        for game in list(self.games.values()):
            if game.over:
                continue
            if self._check_flag(game, now):
                continue
            flag_at = game.clock.flag_deadline(game.white_to_move)
            if flag_at is not None:
                deadlines.append(flag_at)
            if game.first_move_deadline is not None:
                if now >= game.first_move_deadline:
                    self._no_start(game, now)
                    continue
                deadlines.append(game.first_move_deadline)
            if game.spectator_at is not None:
                if now >= game.spectator_at:
                    self._spectator_line(game, now)
                deadlines.append(game.spectator_at)
            if game.opp_gone and game.gone_claim_at is not None:
                secs = max(0, math.ceil(game.gone_claim_at - now))
                if secs != game.gone_last_sent:
                    game.gone_last_sent = secs
                    self.streams.publish_game(
                        game.id, {"type": "opponentGone", "gone": True, "claimWinInSeconds": secs}
                    )
                if secs > 0:
                    deadlines.append(game.gone_claim_at - (secs - 1))
            if game.opp_due is not None and not game.bot_to_move and not game.opp_gone:
                if now >= game.opp_due:
                    self._opponent_move(game, now)
                else:
                    deadlines.append(game.opp_due)
        return min(deadlines) if deadlines else None

    def _spectator_line(self, game: Game, now: float) -> None:
        lines = self.config.spectator_chat
        n = game.spectator_lines
        game.spectator_lines += 1
        game.spectator_at = now + self.config.spectator_chat_interval_s
        # A few different watchers, so a bot that rate-limits per user is exercised.
        self._add_chat(game, "spectator", f"spectator{n % 3 + 1}", lines[n % len(lines)])

    def _no_start(self, game: Game, now: float) -> None:
        # lila Finisher.noStart (modules/round/src/main/Finisher.scala): in a
        # tournament game the side that did not move loses by noStart; any other
        # expirable game (lobby, pool) is aborted by the server, nobody wins.
        loser = game.board.turn
        if game.tournament_id is not None:
            self._finish(game, "noStart", game.color_name(not loser), now)
        else:
            self._finish(game, "aborted", None, now)

    def _outgoing_answer(self, ch: Challenge) -> None:
        ch.respond_at = None
        if ch.response == "accept":
            ch.status = "accepted"
            del self.challenges.open[ch.id]
            self._start_game_from_challenge(ch, bot_is_challenger=True)
        elif ch.response == "decline":
            ch.status = "declined"
            ch.decline_key = ch.decline_key or "generic"
            del self.challenges.open[ch.id]
            self.challenges.declined[ch.id] = ch
            self.streams.publish_event(
                ch.challenger.name, {"type": "challengeDeclined", "challenge": ch.json()}
            )
            self._touch()

    def _opponent_move(self, game: Game, now: float) -> None:
        spec = game.opponent
        n = game.opp_moves_made
        game.opp_due = None
        if spec.resign_after is not None and n >= spec.resign_after:
            self._finish(game, "resign", game.color_name(game.bot_color), now)
            return
        if spec.stall_after is not None and n >= spec.stall_after:
            return  # connected but thinking forever: its clock (or noStart) decides
        if spec.leave_after is not None and n >= spec.leave_after:
            self._go_gone(game, now)
            return
        if spec.takeback_on_turn is not None and spec.takeback_on_turn == n \
                and game.takebacks_asked < spec.takeback_times:
            # Asked on its own turn; it moves only once the bot has answered.
            game.takebacks_asked += 1
            game.takeback_offer[not game.bot_color] = True
            game.opp_due = now + spec.think_time_s
            self._publish_state(game, now)
            return
        if game.takeback_offer[not game.bot_color]:
            game.opp_due = now + spec.think_time_s  # still waiting for the answer
            return
        if spec.policy == "uci":
            self._uci_think(game)
            return
        self._play_opponent_move(game, choose_move(game.board, spec, n, game.rng), now)

    def _uci_think(self, game: Game) -> None:
        """Search in a worker thread (outside the lock); the move lands when it is done."""
        if game.id in self.uci_thinking:
            return
        player = self.uci_players.get(game.id)
        if player is None:
            spec = game.opponent
            path = resolve_engine(spec.engine)
            assert path is not None  # OpponentSpec checked it exists
            player = UciPlayer(path, spec.skill_level, spec.movetime_ms)
            self.uci_players[game.id] = player
        self.uci_thinking.add(game.id)
        board = game.board.copy()
        moves_then = list(game.moves)

        def think() -> None:
            move = player.choose(board)
            with self.lock:
                self.uci_thinking.discard(game.id)
                if self.stopping or game.over or game.moves != moves_then:
                    return  # the position changed meanwhile (takeback, game over)
                if move is None or move not in game.board.legal_moves:
                    move = choose_move(game.board, game.opponent, game.opp_moves_made, game.rng)
                self._play_opponent_move(game, move, time.monotonic())

        threading.Thread(target=think, name=f"emu-uci-{game.id}", daemon=True).start()

    def _play_opponent_move(self, game: Game, move: chess.Move, now: float) -> None:
        spec = game.opponent
        n = game.opp_moves_made
        game.push(move, now)
        game.opp_moves_made += 1
        if self._after_move(game, now):
            return
        if spec.offer_draw_at is not None and spec.offer_draw_at == n + 1 \
                and self._offer_draw(game, not game.bot_color, now):
            return
        if spec.takeback_at is not None and spec.takeback_at == n + 1 \
                and game.takebacks_asked < spec.takeback_times:
            game.takebacks_asked += 1
            game.takeback_offer[not game.bot_color] = True
        self._publish_state(game, now)
