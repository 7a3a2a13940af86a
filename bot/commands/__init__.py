"""The `pibot` subcommands, one module each (bot.cli loads them by name).

At the top: a command may import any package of bot/ but the entry points
(`bot.cli`, `bot.__main__`), and nothing below imports a command.
"""
