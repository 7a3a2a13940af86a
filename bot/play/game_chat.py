"""One game's chat: its greeting, its goodbye and the answers to chat commands
(the greeting, !level, !draw and !takeback as the game's terms say:
bot/play/terms.py).

What is said is chat.py's (the commands' table) and chat_facts.py's words; this
gives them the game's facts and posts the answers through the game's Outbox, so
chat never delays a move.
"""

from __future__ import annotations

from bot.lichess.events import ChatLine
from bot.lichess.latency import LatencyEstimate
from bot.play import chat, chat_facts
from bot.play.context import GameContext
from bot.play.game_state import GameState
from bot.play.offers import Offers
from bot.play.outbox import Outbox
from bot.play.terms import GameTerms
from bot.play.thinker import Thinker
from bot.play.timers import GameTimers


def eval_text(thinker: Thinker | None) -> str:
    """!eval's answer: the engine's last search in this game."""
    res = thinker.last if thinker else None
    if res is None:
        return "No evaluation yet."
    return chat.format_eval(res.score_cp, res.mate, res.depth, list(res.pv))


def pv_text(thinker: Thinker | None) -> str:
    """!pv's answer: the line the engine's last search expects."""
    res = thinker.last if thinker else None
    if res is None or not res.pv:
        return "No PV available."
    return f"PV (depth {res.depth}): {' '.join(res.pv)}"


def level_text(terms: GameTerms) -> str:
    """!level's answer: the level this game is played at, and what chose it."""
    if terms.elo is None:
        return "I play this game at full strength."
    why = {"fallback": ", the default for a provisional or unknown rating"}.get(
        terms.rule, ", matched to my opponent's rating" if terms.rule.startswith("match")
        else "")
    return f"I play this game at level {terms.elo} (Stockfish's UCI_Elo scale){why}."


class GameChat:
    def __init__(self, ctx: GameContext, st: GameState, outbox: Outbox,
                 timers: GameTimers, terms: GameTerms, latency: LatencyEstimate,
                 offers: Offers) -> None:
        """`ctx.cfg` holds the game's profile's settings (terms.config)."""
        self.ctx, self.st, self.outbox, self.timers = ctx, st, outbox, timers
        self.latency, self.offers = latency, offers
        self.level = level_text(terms)
        cfg = ctx.cfg
        tables = ctx.sources is not None and ctx.sources.tablebases is not None
        self._draw = chat_facts.draw_text(cfg.draw_or_resign, tables)
        self._variants = chat_facts.variants_text(cfg.challenge)
        self._challenge = chat_facts.challenge_text(cfg.challenge)

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
        game = chat.ChatGame(
            wait=self.timers.wait_for_first_move, level=self.level,
            pv=lambda: pv_text(thinker), ping=lambda: chat_facts.ping_text(self.latency),
            draw=self._draw,
            takeback=lambda: chat_facts.takeback_text(cfg, self.offers.takebacks_accepted),
            variants=self._variants, challenge=self._challenge)
        reply = chat.answer(ev.text, me, cfg.bot_name, lambda: eval_text(thinker),
                            room=ev.room, playing=not self.st.over,
                            spectator_eval=cfg.spectator_eval, game=game)
        if reply:
            self.outbox.say(ev.room, reply)
