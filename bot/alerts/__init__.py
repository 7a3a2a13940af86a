"""Alerts to the owner (issue 35): off unless `alerts.url` is set.

- `scrub`: no token, password or credential ever leaves in an alert or a log line;
- `sender`: AlertSender posts on its own thread from a bounded queue, so an
  unreachable or silent URL never delays a move or a challenge answer;
- `rules`: Alerts, what the service calls when something happens (a restart
  loop, a 401, the daily bot-game limit, a long throttle, the daily summary).

It may import only `bot.config` (its settings) and `bot.store` (the daily
summary's figures); the service and the commands import it.
"""
