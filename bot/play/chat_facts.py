"""The words of the chat commands that tell facts (chat.py's COMMANDS): the
machine (!cpu, !ram), and a game's latency (!ping), draw and resign rules
(!draw), takebacks (!takeback) and what the bot accepts (!variants,
!challenge).  Plain functions of what they are given; chat.py clips them to 140
characters."""

from __future__ import annotations

from pathlib import Path

from bot import variants
from bot.config import ChallengeConfig, DrawOrResignConfig, GameConfig
from bot.host import platform_info
from bot.host.machine import Machine
from bot.lichess.latency import LatencyEstimate, percentile


def _gb(mb: int) -> str:
    return f"{mb / 1024:.1f} GB" if mb >= 1024 else f"{mb} MB"


def cpu_text() -> str:
    """!cpu: the CPU model, its cores (and those the service may use), the board and
    the temperature, as `pibot check` reads them (bot/host)."""
    mach = Machine()
    facts = mach.facts()
    temp, _ = mach.temperature_c()
    usable = facts.usable_cpus
    cores = f"{facts.cpus_online} cores" + (f" ({usable:g} mine)" if usable < facts.cpus_online
                                            else "")
    parts = [platform_info.cpu_model() or "an unknown CPU", cores]
    if facts.board:
        parts.append(facts.board)
    if temp is not None:
        parts.append(f"{temp:.0f} °C")
    return "CPU: " + ", ".join(parts) + "."


def _rss_mb() -> int | None:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def ram_text() -> str:
    """!ram: the machine's memory, what is free of it, and what this bot uses."""
    facts = Machine().facts()
    if facts.mem_total_mb is None:
        return "Memory: unknown on this machine."
    out = f"Memory: {_gb(facts.mem_total_mb)}"
    if facts.mem_available_mb is not None:
        out += f", {_gb(facts.mem_available_mb)} free"
    if facts.memory_max_mb is not None:
        out += f", {_gb(facts.memory_max_mb)} allowed to me"
    rss = _rss_mb()
    return out + (f"; I use {_gb(rss)}." if rss is not None else ".")


def ping_text(latency: LatencyEstimate) -> str:
    """!ping: the latency this game measured (move sent -> acknowledged, less the
    think time: bot/lichess/latency.py), not a new request."""
    recent = list(latency.recent)
    if not recent:
        return "No move of mine measured yet in this game."
    return (f"Latency to Lichess: {percentile(recent, 50):.0f} ms median, "
            f"{percentile(recent, 95):.0f} ms p95 over my last {len(recent)} moves.")


def draw_text(cfg: DrawOrResignConfig, tablebases: bool) -> str:
    """!draw: this game's draw and resign rules (draw_or_resign, with its profile's)."""
    if cfg.offer_draw_enabled:
        draw = (f"I offer and accept a draw after {cfg.offer_draw_moves} moves within "
                f"±{cfg.offer_draw_score / 100:.2f} with at most {cfg.offer_draw_pieces} "
                f"pieces")
        if tablebases and cfg.offer_draw_for_tablebase_draw:
            draw += " or in a tablebase draw"
    else:
        draw = "I neither offer nor accept draws"
    if cfg.resign_enabled:
        resign = f"I resign after {cfg.resign_moves} moves at {cfg.resign_score / 100:.2f}"
        if tablebases and cfg.resign_for_tablebase_loss:
            resign += " or in a tablebase loss"
    else:
        resign = "I never resign"
    return f"{draw}; {resign}."


def takeback_text(cfg: GameConfig, used: int) -> str:
    """!takeback: what this game accepts (game.*, with its profile's) and has used."""
    limit = cfg.max_takebacks_accepted
    done = f" {used} used." if used else ""
    if limit is None:
        return ("I accept takebacks." if cfg.accept_takebacks
                else "I don't accept takebacks.") + done
    if limit == 0:
        return "I don't accept takebacks."
    return f"I accept up to {limit} takeback{'s' if limit > 1 else ''} a game;" \
           f"{done or ' none used.'}"


def variants_text(cfg: ChallengeConfig) -> str:
    """!variants: the variants challenge.variants accepts, by Lichess's names."""
    return "I accept: " + ", ".join(variants.get(v).name for v in cfg.variants) + "."


def challenge_text(cfg: ChallengeConfig) -> str:
    """!challenge: the speeds, clocks, days and modes challenge.* accepts."""
    speeds = [s for s in cfg.time_controls if s != "correspondence"]
    parts = []
    if speeds:
        parts.append(f"{'/'.join(speeds)} from {cfg.min_base / 60:g} to {cfg.max_base / 60:g} "
                     f"min + {cfg.min_increment}-{cfg.max_increment} s")
    if "correspondence" in cfg.time_controls:
        parts.append(f"correspondence {cfg.min_days}-{cfg.max_days} days")
    who = "BOTs only" if cfg.only_bot else "humans and BOTs" if cfg.accept_bot else "humans only"
    modes = " and ".join(cfg.modes)
    return f"I accept {'; '.join(parts) or 'no time control'}; {modes}; {who}."
