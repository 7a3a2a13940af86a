"""The chat commands as a table (issue 48 item 4): each answered in the rooms its
row names, !help listing them per room, none giving the evaluation to the
opponent; and BotLi's useful ones (!ping, !cpu, !ram, !draw, !takeback,
!variants, !challenge, !pv) in a game over real HTTP against the emulator."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_service_helpers import bot_and_emulator, needs_engine, wait_until

from bot.config import ChallengeConfig, DrawOrResignConfig, GameConfig
from bot.emulator import Emulator, OpponentSpec
from bot.lichess.latency import LatencyEstimate
from bot.play import chat, chat_facts, outbox

GAME = chat.ChatGame(level="I play this game at full strength.", pv=lambda: "PV (depth 9): e2e4",
                     ping=lambda: "Latency to Lichess: 80 ms", draw="I never resign.",
                     takeback=lambda: "I don't accept takebacks.", variants="I accept: Standard.",
                     challenge="I accept blitz.")


def ask(text: str, room: str = "player", playing: bool = True, opt_in: bool = False,
        game: chat.ChatGame = GAME) -> str | None:
    return chat.answer(text, "pibot", "pibot", lambda: "Eval (my view): +0.30", room=room,
                       playing=playing, spectator_eval=opt_in, game=game)


def test_help_lists_the_commands_of_each_room() -> None:
    player = ask("!help")
    spectators = ask("!help", room="spectator")
    assert player is not None and player.startswith("Commands: ")
    assert spectators is not None and spectators.startswith("Commands: ")
    names = {f"!{c.name}" for c in chat.COMMANDS}
    assert set(spectators.removeprefix("Commands: ").split(", ")) == names
    assert set(player.removeprefix("Commands: ").split(", ")) == names - {"!pv"}
    assert {"!ping", "!cpu", "!ram", "!draw", "!takeback", "!variants", "!challenge",
            "!pv"} <= names
    assert ask("!help ping") == "!ping: my latency to Lichess in this game"
    assert ask("!help !takeback", room="spectator") is not None
    assert ask("!help pv") == "Unknown command !pv. Type !help for the list."  # player room
    assert ask("hello !help") is None and ask("!nosuch") is None


@pytest.mark.parametrize(("room", "playing", "opt_in", "reply"), [
    ("player", True, True, None),  # never in the player room, not even listed
    ("player", False, False, None),
    ("spectator", True, False, chat.NOT_DURING_GAME),
    ("spectator", True, True, "PV (depth 9): e2e4"),
    ("spectator", False, False, "PV (depth 9): e2e4"),
])
def test_pv_follows_the_eval_rules_in_the_spectator_room_only(
        room: str, playing: bool, opt_in: bool, reply: str | None) -> None:
    assert ask("!pv", room=room, playing=playing, opt_in=opt_in) == reply


def test_every_answer_fits_a_chat_line_and_a_game_less_answer_is_silent() -> None:
    for cmd in chat.COMMANDS:
        for room in cmd.rooms:
            got = ask(f"!{cmd.name}", room=room, playing=False)
            assert got is None or len(got) <= chat.MAX_CHAT, (cmd.name, got)
    bare = chat.ChatGame()
    for name in ("ping", "draw", "takeback", "variants", "challenge", "level", "wait"):
        assert ask(f"!{name}", game=bare) is None
    assert (ask("!cpu") or "").startswith("CPU: ") and (ask("!ram") or "").startswith("Memory")


def test_the_facts_in_words(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PIBOT_MACHINE_ROOT", str(Path(__file__).parent / "data" / "machine"
                                                 / "pi5-8gb-memorymax-1g"))
    assert "4 cores, Raspberry Pi 5 Model B" in chat_facts.cpu_text()
    assert "7.9 GB, 924 MB free, 1.0 GB allowed to me" in chat_facts.ram_text()
    lat = LatencyEstimate(150)
    assert chat_facts.ping_text(lat) == "No move of mine measured yet in this game."
    for ms in (80, 90, 100, 300):
        lat.add(ms)
    assert chat_facts.ping_text(lat) == ("Latency to Lichess: 90 ms median, 300 ms p95 over "
                                         "my last 4 moves.")
    dr = DrawOrResignConfig(resign_enabled=True, resign_score=-800, resign_moves=4,
                            offer_draw_score=20, offer_draw_moves=12, offer_draw_pieces=8)
    assert chat_facts.draw_text(dr, tablebases=False) == (
        "I offer and accept a draw after 12 moves within ±0.20 with at most 8 pieces; "
        "I resign after 4 moves at -8.00.")
    assert chat_facts.draw_text(DrawOrResignConfig(offer_draw_enabled=False), True) == \
        "I neither offer nor accept draws; I never resign."
    assert chat_facts.takeback_text(GameConfig(max_takebacks_accepted=2), 1) == \
        "I accept up to 2 takebacks a game; 1 used."
    assert chat_facts.takeback_text(GameConfig(accept_takebacks=True), 0) == \
        "I accept takebacks."
    assert chat_facts.takeback_text(GameConfig(), 0) == "I don't accept takebacks."
    ch = ChallengeConfig(variants=["standard", "kingOfTheHill"], modes=["casual"],
                         time_controls=["blitz", "correspondence"], min_base=180,
                         max_base=600, max_increment=5, only_bot=True, min_days=2)
    assert chat_facts.variants_text(ch) == "I accept: Standard, King of the Hill."
    assert chat_facts.challenge_text(ch) == ("I accept blitz from 3 to 10 min + 0-5 s; "
                                             "correspondence 2-14 days; casual; BOTs only.")


def _said(emu: Emulator, gid: str, room: str) -> list[str]:
    return [c.text for c in emu.game(gid).chat if c.room == room and c.username == "pibot"]


@needs_engine
def test_the_commands_in_a_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(outbox, "CHAT_GAP_S", 0.2)  # Lichess's 3 s would make this slow
    # The opponent plays a closed set-up (a random one was mated within its five moves)
    # and stops after its 5th move (still connected): the game cannot end under the
    # commands, whatever the machine's load; it resigns at the end.
    opp = OpponentSpec(policy="scripted", moves=["e7e6", "g8f6", "d7d5", "f8e7", "e8g8"],
                       think_time_s=0.5, takeback_at=2, stall_after=5, seed=6)
    with bot_and_emulator(tmp_path, game={"max_takebacks_accepted": 1},
                          challenge={"variants": ["standard", "atomic"]}) as (emu, _):
        gid = emu.challenge_bot(challenger="bob", rated=False, clock_limit_s=120,
                                increment_s=1, color="black", opponent=opp)
        emu.wait_game_started(gid, 10)
        assert wait_until(lambda: len(emu.game(gid).moves) >= 6, 40)

        def answered(room: str, text: str, wanted: str) -> bool:
            before = len(_said(emu, gid, room))
            (emu.chat.say(gid, text) if room == "player"
             else emu.chat.spectator_say(gid, text))
            return wait_until(lambda: any(wanted in t for t in _said(emu, gid, room)[before:]),
                              10)

        assert answered("player", "!ping", "Latency to Lichess: ")
        assert answered("player", "!draw", "I offer and accept a draw after 10 moves")
        assert answered("player", "!takeback", "I accept up to 1 takeback a game; 1 used.")
        assert answered("player", "!help", "!challenge")
        assert "!pv" not in _said(emu, gid, "player")[-1]
        n = len(_said(emu, gid, "player"))
        assert answered("player", "!pv", "") is False, (  # not a player-room command
            _said(emu, gid, "player")[n:], emu.game(gid).status)
        assert answered("spectator", "!pv", chat.NOT_DURING_GAME)
        assert answered("spectator", "!cpu", "CPU: ")
        assert answered("spectator", "!ram", "Memory: ")
        assert answered("spectator", "!variants", "I accept: Standard, Atomic.")
        assert answered("spectator", "!challenge", "bullet/blitz/rapid")
        assert not emu.game(gid).over
        assert not any(t.startswith(("Eval", "PV")) for t in _said(emu, gid, "player"))
        assert all(len(t) <= 140 for room in ("player", "spectator")
                   for t in _said(emu, gid, room))
        emu.opponent_action(gid, "resign")
        assert emu.wait_game_over(gid, 10).status == "resign"
