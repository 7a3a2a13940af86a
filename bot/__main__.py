"""`python -m bot`: the `pibot` command line."""

import sys

from bot.cli import main

sys.exit(main())
