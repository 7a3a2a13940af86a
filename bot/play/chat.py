"""Game chat: greetings, goodbyes and the commands (COMMANDS, a table: name, help,
rooms, answer), all <= 140 characters.  The commands follow BotLi's (chatter.py)
where they tell no evaluation to the opponent."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bot.config import GreetingConfig
from bot.play import chat_facts

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
PLAYER, SPECTATOR = "player", "spectator"
BOTH = (PLAYER, SPECTATOR)


@dataclass(frozen=True)
class ChatGame:
    """What only a running game answers (game_chat.py words each; chat_facts.py):
    !wait (extends the no-first-move abort and says whether it could), !level, !pv,
    !ping (its measured latency), !draw, !takeback, and the config's !variants and
    !challenge.  None: the command is not answered."""

    wait: Callable[[], bool] | None = None
    level: str | None = None
    pv: Callable[[], str] | None = None
    ping: Callable[[], str] | None = None
    draw: str | None = None
    takeback: Callable[[], str] | None = None
    variants: str | None = None
    challenge: str | None = None


@dataclass(frozen=True)
class Asked:
    """One command as typed: its argument, the room, and what may answer it."""

    arg: str
    room: str
    playing: bool
    spectator_eval: bool
    me: str
    bot_name: str
    eval_text: Callable[[], str]
    game: ChatGame


@dataclass(frozen=True)
class Command:
    """A row of COMMANDS: `!name`, its help line, the rooms it is answered (and listed)
    in, and its answer (None: say nothing)."""

    name: str
    help: str
    rooms: tuple[str, ...]
    reply: Callable[[Asked], str | None]


def _withheld(a: Asked) -> str | None:
    """Why the evaluation is not given here now, or None when it may be: never in the
    player room while the game runs (advice to the opponent), nor in the spectator
    room unless the owner opted in (the opponent can read that room too)."""
    if a.playing and a.room != SPECTATOR:
        return NOT_TO_OPPONENT
    if a.playing and not a.spectator_eval:
        return NOT_DURING_GAME
    return None


def _eval(a: Asked) -> str:
    return _withheld(a) or clip(a.eval_text())


def _pv(a: Asked) -> str | None:
    if a.game.pv is None:
        return None
    return _withheld(a) or clip(a.game.pv())


def _wait(a: Asked) -> str | None:
    if a.game.wait is not None and a.game.wait():
        return f"Waiting {WAIT_S:.0f} seconds..."
    return None


def _call(get: Callable[[ChatGame], Callable[[], str] | None]) -> Callable[[Asked], str | None]:
    def reply(a: Asked) -> str | None:
        fn = get(a.game)
        return clip(fn()) if fn is not None else None
    return reply


def _text(get: Callable[[ChatGame], str | None]) -> Callable[[Asked], str | None]:
    def reply(a: Asked) -> str | None:
        text = get(a.game)
        return clip(text) if text else None
    return reply


def _help(a: Asked) -> str:
    shown = [c for c in COMMANDS if a.room in c.rooms]
    wanted = a.arg.strip().lstrip("!").lower()
    if not wanted:
        return clip("Commands: " + ", ".join(f"!{c.name}" for c in shown))
    found = next((c for c in shown if c.name == wanted), None)
    if found is None:
        return clip(f"Unknown command !{wanted}. Type !help for the list.")
    return clip(f"!{found.name}: {found.help}")


# Each answer is <= 140 characters (clip) and none gives the evaluation to the
# opponent (!eval, !pv: _withheld).  The machine's facts (!cpu, !ram) and the game's
# are chat_facts.py's words.
COMMANDS: tuple[Command, ...] = (
    Command("help", "the commands; !help CMD: what one does", BOTH, _help),
    Command("name", "who I am", BOTH,
            lambda a: clip(f"I am {a.me}, running {a.bot_name} (C11 engine on a Raspberry "
                           f"Pi).")),
    Command("howto", "how to run a bot like me", BOTH, lambda a: HOWTO),
    Command("level", "the strength I play this game at", BOTH, _text(lambda g: g.level)),
    Command("wait", "before the first move: I wait a minute longer for it", BOTH, _wait),
    Command("eval", "my evaluation (after the game; spectators during it if my owner "
                    "allows)", BOTH, _eval),
    Command("pv", "the line I expect (spectators, as !eval)", (SPECTATOR,), _pv),
    Command("ping", "my latency to Lichess in this game", BOTH, _call(lambda g: g.ping)),
    Command("cpu", "the machine I run on", BOTH, lambda a: clip(chat_facts.cpu_text())),
    Command("ram", "its memory", BOTH, lambda a: clip(chat_facts.ram_text())),
    Command("draw", "when I offer, accept or resign in this game", BOTH,
            _text(lambda g: g.draw)),
    Command("takeback", "whether I accept takebacks, and how many are used", BOTH,
            _call(lambda g: g.takeback)),
    Command("variants", "the variants I accept", BOTH, _text(lambda g: g.variants)),
    Command("challenge", "the time controls and modes I accept", BOTH,
            _text(lambda g: g.challenge)),
)
_BY_NAME = {c.name: c for c in COMMANDS}


def answer(text: str, me: str, bot_name: str, eval_text: Callable[[], str],
           room: str = PLAYER, playing: bool = True,
           spectator_eval: bool = False, game: ChatGame = ChatGame()) -> str | None:
    """Reply to a chat command (a row of COMMANDS answered in `room`), or None if the
    line is not one of ours.

    The evaluation (score, PV, best move) is never given in the player room
    while the game runs: it would be advice to the opponent.  Nor, unless the
    owner opts in (`spectator_eval`), in the spectator room: lila shows that
    room to everyone but the players, logged out included
    (app/controllers/Round.scala getWatcherChat), so the opponent can read it
    from a second browser.
    `game.wait()` extends the no-first-move abort by WAIT_S and says whether it could
    (lichess-bot conversation.py: !wait works only while the game is abortable).
    !level, !draw and !takeback are no advice: the terms the opponent plays under.
    """
    word, _, arg = text.strip().partition(" ")
    if not word.startswith("!"):
        return None
    cmd = _BY_NAME.get(word[1:].lower())
    if cmd is None or room not in cmd.rooms:
        return None
    return cmd.reply(Asked(arg, room, playing, spectator_eval, me, bot_name, eval_text, game))


def format_eval(score_cp: int | None, mate: int | None, depth: int, pv: list[str]) -> str:
    if mate is not None:
        score = f"mate in {mate}" if mate > 0 else f"mated in {-mate}"
    elif score_cp is not None:
        score = f"{score_cp / 100:+.2f}"
    else:
        return "No evaluation yet."
    line = " ".join(pv[:6])
    return clip(f"Eval (my view): {score}, depth {depth}" + (f", PV {line}" if line else ""))
