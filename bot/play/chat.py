"""Game chat: greetings, goodbyes and a few commands, all <= 140 characters."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bot.config import GreetingConfig

MAX_CHAT = 140


def clip(text: str) -> str:
    """Lichess drops chat lines over 140 characters; cut with an ellipsis instead."""
    text = " ".join(text.split())
    return text if len(text) <= MAX_CHAT else text[: MAX_CHAT - 1] + "…"


def _fill(template: str, opponent: str, me: str) -> str:
    # str.format would raise on stray braces in a user's template; replace literally.
    return clip(template.replace("{opponent}", opponent).replace("{me}", me))


def greetings(cfg: GreetingConfig, opponent: str, me: str, goodbye: bool
              ) -> list[tuple[str, str]]:
    """(room, text) pairs to post at game start or end; empty templates are skipped."""
    player = cfg.goodbye if goodbye else cfg.hello
    spectators = cfg.goodbye_spectators if goodbye else cfg.hello_spectators
    out = []
    if player.strip():
        out.append(("player", _fill(player, opponent, me)))
    if spectators.strip():
        out.append(("spectator", _fill(spectators, opponent, me)))
    return out


NOT_TO_OPPONENT = "I don't tell that to my opponent, sorry."
NOT_DURING_GAME = "I give my evaluation once the game is over."
WAIT_S = 60.0  # !wait: how long we keep waiting for the first move (lichess-bot: 60 s)
HOWTO = "How to run a bot: lichess.org/api#tag/Bot (I run pibot)."


@dataclass(frozen=True)
class ChatGame:
    """What only a running game answers: !wait (extends the no-first-move abort and
    says whether it could) and !level (the game's level, said to everyone)."""

    wait: Callable[[], bool] | None = None
    level: str | None = None


def answer(text: str, me: str, bot_name: str, eval_text: Callable[[], str],
           room: str = "player", playing: bool = True,
           spectator_eval: bool = False, game: ChatGame = ChatGame()) -> str | None:
    """Reply to a chat command, or None if the line is not one of ours.

    The evaluation (score, PV, best move) is never given in the player room
    while the game runs: it would be advice to the opponent.  Nor, unless the
    owner opts in (`spectator_eval`), in the spectator room: lila shows that
    room to everyone but the players, logged out included
    (app/controllers/Round.scala getWatcherChat), so the opponent can read it
    from a second browser.
    `game.wait()` extends the no-first-move abort by WAIT_S and says whether it could
    (lichess-bot conversation.py: !wait works only while the game is abortable).
    !level is no advice: the strength the opponent plays against, in either room.
    """
    cmd = text.strip().split(" ", 1)[0].lower()
    if cmd == "!help":
        return "Commands: !help, !eval, !name, !level, !wait, !howto"
    if cmd == "!howto":
        return HOWTO
    if cmd == "!wait":
        if game.wait is not None and game.wait():
            return f"Waiting {WAIT_S:.0f} seconds..."
        return None
    if cmd == "!level":
        return clip(game.level) if game.level else None
    if cmd == "!name":
        return clip(f"I am {me}, running {bot_name} (C11 engine on a Raspberry Pi).")
    if cmd == "!eval":
        if playing and room != "spectator":
            return NOT_TO_OPPONENT
        if playing and not spectator_eval:
            return NOT_DURING_GAME
        return clip(eval_text())
    return None


def format_eval(score_cp: int | None, mate: int | None, depth: int, pv: list[str]) -> str:
    if mate is not None:
        score = f"mate in {mate}" if mate > 0 else f"mated in {-mate}"
    elif score_cp is not None:
        score = f"{score_cp / 100:+.2f}"
    else:
        return "No evaluation yet."
    line = " ".join(pv[:6])
    return clip(f"Eval (my view): {score}, depth {depth}" + (f", PV {line}" if line else ""))
