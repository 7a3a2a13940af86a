"""`python -m bot.emulator --port N`: run the emulator standalone until Ctrl-C."""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
import typing

from bot.emulator.config import AccountSpec, EmulatorConfig
from bot.emulator.emulator import Emulator
from bot.emulator.errors import EmulatorUsageError

log = logging.getLogger("bot.emulator")


PROG = "python -m bot.emulator"


class _Parser(argparse.ArgumentParser):
    """argparse, but a bad argument is one line (and exit status 2), not usage + error."""

    def error(self, message: str) -> typing.NoReturn:
        self.exit(2, f"{PROG}: error: {message} (see --help)\n")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = _Parser(
        prog=PROG,
        description="Lichess Bot API emulator on loopback (control API under /emu/).",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=0, help="port (default 0 = any free port)")
    p.add_argument("--username", default="pibot", help="bot account name (default pibot)")
    p.add_argument(
        "--token-file",
        help="file holding the token the emulator accepts (default: the demo token)",
    )
    p.add_argument("--event-keepalive", type=float, default=7.0, metavar="S",
                   help="keep-alive gap on the event stream (default 7, as lila)")
    p.add_argument("--game-keepalive", type=float, default=7.0, metavar="S",
                   help="keep-alive gap on game streams (default 7, as lila)")
    p.add_argument("--challenge-expiry", type=float, default=20.0, metavar="S")
    p.add_argument("--first-move-timeout", type=float, default=None, metavar="S",
                   help="first-move wait of a lobby game (default: lila's by speed; "
                   "a challenge's game never expires, as on lila)")
    p.add_argument("--bot-daily-limit", type=int, default=None, metavar="N")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    account = AccountSpec(username=args.username)
    if args.token_file:
        try:
            with open(args.token_file, encoding="utf-8") as fh:
                account.token = fh.read().strip()
        except OSError as exc:
            log.error("cannot read --token-file %s: %s", args.token_file, exc.strerror)
            return 2
        if not account.token:
            log.error("--token-file %s is empty; put the token on its first line", args.token_file)
            return 2
    try:
        config = EmulatorConfig(
            host=args.host,
            port=args.port,
            accounts=[account],
            event_keepalive_s=args.event_keepalive,
            game_keepalive_s=args.game_keepalive,
            challenge_expiry_s=args.challenge_expiry,
            first_move_timeout_s=args.first_move_timeout,
            bot_vs_bot_daily_limit=args.bot_daily_limit,
            seed=args.seed,
        )
    except EmulatorUsageError as exc:
        sys.stderr.write(f"{PROG}: error: {exc}\n")
        return 2
    emu = Emulator(config)
    try:
        emu.start()
    except EmulatorUsageError as exc:
        log.error("%s", exc)
        return 2
    # The URL goes to stdout so a parent process can read where to connect.
    sys.stdout.write(f"{emu.url}\n")
    sys.stdout.flush()
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    try:
        done.wait()
    except KeyboardInterrupt:
        pass
    finally:
        emu.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
