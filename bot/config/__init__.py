"""config.yml -> validated, frozen dataclasses; and lichess-bot's config -> pibot's.

One module a job, bottom up:
  `redact.py`            token-like text: recognised, never echoed in a message
  `strength.py`          strength levels: how one is written, the Elo scale, conversions
  `lichess_bot_keys.py`  lichess-bot's keys, what each becomes here (RULES)
  `schema.py`            the dataclasses: every key, its default, bounds and doc
  `build.py`             a parsed document -> the dataclasses, every value checked
  `checks.py`            the checks that span keys (min <= max, clocks, URLs)
  `yaml_loader.py`       PyYAML's safe loader, refusing duplicate keys and alias bombs
  `load.py`              parse_config and load_config: the loader's entry points
  `live.py`              LiveConfig (the config in force) and the keys a reload cannot apply
  `advice.py`            settings that load but are probably mistakes
  `lichess_bot_import.py` `pibot config import`: a lichess-bot config through RULES

The rest of bot/ imports the public names below from `bot.config`; `pibot config
import` imports bot.config.lichess_bot_import itself.  Config is shared by every
wing, so it sits below them: it may import only `bot.errors`, `bot.host` (the
machine's size, for engine.hash_mb/threads `auto`; the status page's address
check) and `bot.lichess_limits` (what Lichess accepts).
"""

from bot.config.advice import advice
from bot.config.live import RESTART_KEYS, LiveConfig, restart_keys_changed
from bot.config.load import load_config, parse_config
from bot.config.schema import (
    AlertsConfig,
    ChallengeConfig,
    CloudEvalConfig,
    Config,
    CorrespondenceConfig,
    DrawOrResignConfig,
    EngineConfig,
    ExplorerConfig,
    GameConfig,
    GreetingConfig,
    MatchmakingConfig,
    MatchmakingType,
    NetworkConfig,
    OnlineEgtbConfig,
    OnlineMovesConfig,
    PolyglotBooks,
    PolyglotConfig,
    RecordsConfig,
    StatusPageConfig,
    StrengthConfig,
    StrengthProfile,
    SyzygyConfig,
    TournamentEntry,
)
from bot.config.strength import FULL, Level, match_elo

__all__ = [
    "RESTART_KEYS",
    "AlertsConfig",
    "ChallengeConfig",
    "CloudEvalConfig",
    "Config",
    "CorrespondenceConfig",
    "DrawOrResignConfig",
    "EngineConfig",
    "FULL",
    "ExplorerConfig",
    "GameConfig",
    "GreetingConfig",
    "Level",
    "LiveConfig",
    "MatchmakingConfig",
    "MatchmakingType",
    "NetworkConfig",
    "OnlineEgtbConfig",
    "OnlineMovesConfig",
    "PolyglotBooks",
    "PolyglotConfig",
    "RecordsConfig",
    "StatusPageConfig",
    "StrengthConfig",
    "StrengthProfile",
    "SyzygyConfig",
    "TournamentEntry",
    "advice",
    "load_config",
    "match_elo",
    "parse_config",
    "restart_keys_changed",
]
