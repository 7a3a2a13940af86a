"""`pibot alert`: send one alert now, through `alerts.url`.

`--test` checks the owner's setup (the phone should buzz); `--failing` is for a
systemd `OnFailure=` unit, run when the service has given up restarting.
Waits for the delivery (at most `--timeout` seconds) and says how it went."""

from __future__ import annotations

import argparse
import logging
import socket
import time

from bot.alerts.sender import AlertSender
from bot.commands.run import resolve_config_path
from bot.config import load_config
from bot.errors import UserError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="PATH", default=None, help="config file")
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--test", action="store_true", help="a test message")
    what.add_argument("--failing", metavar="UNIT", nargs="?", const="pibot",
                      help="the service UNIT has failed (for systemd OnFailure=)")
    parser.add_argument("--timeout", type=float, default=15.0, metavar="S",
                        help="wait this long for the delivery (default 15)")


def run(args: argparse.Namespace) -> int:
    cfg = load_config(resolve_config_path(args.config))
    if not cfg.alerts.url:
        raise UserError("alerts.url is not set in the config; set it to an ntfy topic URL "
                        "or a webhook first")
    # This command reports the outcome itself: no second line from the sender's log.
    logging.getLogger("bot.alerts").setLevel(logging.ERROR)
    sender = AlertSender(cfg.alerts.url, cfg.alerts.format, timeout_s=args.timeout)
    host = socket.gethostname()
    if args.test:
        sender.send("test", "pibot test alert", f"Alerts from pibot on {host} reach you.",
                    "low")
    else:
        sender.send("failing", f"{args.failing} has failed",
                    f"systemd gave up restarting {args.failing} on {host}. See "
                    f"`journalctl -u {args.failing}` and `pibot check`.", "urgent")
    deadline = time.monotonic() + args.timeout + 1
    while time.monotonic() < deadline:
        st = sender.status()
        if st["sent"] or st["failed"]:
            break
        time.sleep(0.05)
    sender.close(0.5)
    st = sender.status()
    if st["sent"]:
        print(f"alert delivered to {sender.shown_url}")
        return 0
    reason = st["problem"] or f"no answer within {args.timeout:g} s"
    print(f"pibot alert: not delivered to {sender.shown_url}: {reason}")
    return 1
