"""What lila takes from a bot: variants, speeds, modes and clock limits.

bot.config checks a config against these, and bot.config.lichess_bot_keys
converts lichess-bot's values into them.  It imports nothing.
"""

from __future__ import annotations

# Lichess's variant keys (lila chess.variant.Variant.key; lichess-org/api
# schemas/VariantKey.yaml), all of which pibot plays (bot/variants.py).
VARIANTS = ("standard", "chess960", "fromPosition", "crazyhouse", "atomic", "antichess",
            "kingOfTheHill", "threeCheck", "horde", "racingKings")
SPEEDS = ("ultraBullet", "bullet", "blitz", "rapid", "classical", "correspondence")
MODES = ("rated", "casual")

# Lichess refuses UltraBullet for BOT accounts, both ways (lila ChallengeGranter:
# BotUltraBullet; ApiConfig.validSpeed: a bot's challenge must be >= Bullet).
# Speed comes from the estimated duration base + 40 * increment; < 30 s is UltraBullet.
ULTRABULLET_BELOW_S = 30
# clock.limit values the challenge API takes (lila ApiConfig.clockLimitSeconds):
# 0, 15, 30, 45, 60, 90 s, then whole minutes up to 180 min.
API_CLOCK_LIMITS_S = (0, 15, 30, 45, 60, 90, *range(120, 10801, 60))
