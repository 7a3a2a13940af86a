"""One game's chat: its greeting, its goodbye and the answers to chat commands.

What is said is chat.py's (pure functions); this posts it through the game's
Outbox, so chat never delays a move.
"""

from __future__ import annotations

from bot.lichess.events import ChatLine
from bot.play import chat
from bot.play.context import GameContext
from bot.play.game_state import GameState
from bot.play.outbox import Outbox
from bot.play.thinker import Thinker
from bot.play.timers import GameTimers


def eval_text(thinker: Thinker | None) -> str:
    """!eval's answer: the engine's last search in this game."""
    res = thinker.last if thinker else None
    if res is None:
        return "No evaluation yet."
    return chat.format_eval(res.score_cp, res.mate, res.depth, list(res.pv))


class GameChat:
    def __init__(self, ctx: GameContext, st: GameState, outbox: Outbox,
                 timers: GameTimers) -> None:
        self.ctx, self.st, self.outbox, self.timers = ctx, st, outbox, timers

    def greet(self, goodbye: bool) -> None:
        """The greeting at the start (`goodbye` False) or the goodbye at the end."""
        for room, text in chat.greetings(self.ctx.cfg.greeting, self.st.opponent, self.ctx.me,
                                         goodbye):
            self.outbox.say(room, text)

    def heard(self, ev: ChatLine, thinker: Thinker | None) -> None:
        """A chat line: answered when it is a command to us."""
        cfg, me = self.ctx.cfg.game, self.ctx.me
        if ev.username.lower() in (me.lower(), "lichess") or not cfg.chat_commands:
            return
        reply = chat.answer(ev.text, me, cfg.bot_name, lambda: eval_text(thinker),
                            room=ev.room, playing=not self.st.over,
                            spectator_eval=cfg.spectator_eval,
                            wait=self.timers.wait_for_first_move)
        if reply:
            self.outbox.say(ev.room, reply)
