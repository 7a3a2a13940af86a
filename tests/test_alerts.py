"""Alerts (issue 35): delivered to a real local HTTP receiver as ntfy or JSON; a
dead URL (refused) and a blackhole (accepts, never answers) delay no caller;
the token and passwords never appear; each rule fires when it should."""

from __future__ import annotations

import json
import logging
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from conftest import closed_port

from bot.alerts.rules import Alerts, SummaryClock, ThrottleWatch
from bot.alerts.scrub import public_url, scrub
from bot.alerts.sender import AlertSender
from bot.config import parse_config

TOKEN = "lip_" + "Ab3" * 8
NOW = 1_790_000_000.0  # 2026-09-21 14:13:20 UTC


class Receiver:
    """A real HTTP server that keeps what it is sent."""

    def __init__(self, status: int = 200) -> None:
        self.got: list[dict[str, Any]] = []
        self.arrived = threading.Condition()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                # Kept before the answer: the sender posts the next alert once this one
                # is answered, and its handler thread could otherwise keep it first.
                with outer.arrived:
                    outer.got.append({"path": self.path, "headers": dict(self.headers),
                                      "body": body.decode()})
                    outer.arrived.notify_all()
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait(self, n: int, timeout: float = 10) -> list[dict[str, Any]]:
        with self.arrived:
            assert self.arrived.wait_for(lambda: len(self.got) >= n, timeout), self.got
        return self.got


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.server.shutdown()


def test_a_json_alert_reaches_the_receiver_without_secrets(receiver: Receiver) -> None:
    url = receiver.url.replace("http://", "http://owner:hunter2pass@") + "/hook?x=1"
    sender = AlertSender(url, "auto", secrets=[TOKEN], host="pi5")
    assert not sender.ntfy and "hunter2pass" not in sender.shown_url
    assert sender.send("token", f"token {TOKEN} rejected",
                       f"Authorization: Bearer {TOKEN}; url {url}", "urgent")
    (got,) = receiver.wait(1)
    sender.close()
    doc = json.loads(got["body"])
    assert got["path"] == "/hook?x=1" and got["headers"]["Content-Type"] == "application/json"
    assert doc["kind"] == "token" and doc["priority"] == "urgent" and doc["host"] == "pi5"
    assert doc["time"].endswith("+00:00")
    assert TOKEN not in got["body"] and "hunter2pass" not in got["body"]
    assert "<redacted>" in doc["title"]
    # The URL's credentials went as HTTP Basic, not in the URL or the body.
    assert got["headers"]["Authorization"] == "Basic b3duZXI6aHVudGVyMnBhc3M="
    assert sender.status() == {"url": receiver.url + "/hook", "sent": 1, "dropped": 0,
                               "failed": 0, "problem": None}


def test_an_ntfy_alert_uses_ntfy_s_headers(receiver: Receiver) -> None:
    sender = AlertSender(receiver.url + "/pibot-topic", "ntfy", host="pi5")
    assert sender.send("throttled", "pibot's Pi is throttling", "hot: 85 C", "high")
    (got,) = receiver.wait(1)
    sender.close()
    h = got["headers"]
    assert got["path"] == "/pibot-topic" and got["body"] == "hot: 85 C\n(pi5)"
    assert (h["Title"], h["Priority"], h["Tags"]) == \
        ("pibot's Pi is throttling", "4", "pibot,throttled")
    assert AlertSender("https://ntfy.sh/topic").ntfy  # auto: by the host's name
    assert not AlertSender("https://hooks.example.org/x").ntfy


def test_the_same_kind_is_sent_once_per_repeat_window(receiver: Receiver) -> None:
    clock = [0.0]
    sender = AlertSender(receiver.url, repeat_s=3600, clock=lambda: clock[0])
    assert sender.send("daily_limit", "a", "1")
    assert not sender.send("daily_limit", "b", "2")   # within the hour
    assert sender.send("token", "c", "3")             # another kind
    assert sender.send("summary", "d", "4") and sender.send("summary", "e", "5", repeat=True)
    clock[0] = 3601
    assert sender.send("daily_limit", "f", "6")
    got = receiver.wait(5)
    sender.close()
    assert [json.loads(g["body"])["title"] for g in got] == ["a", "c", "d", "e", "f"]


def test_a_dead_url_delays_nothing_and_is_logged_once(caplog: pytest.LogCaptureFixture) -> None:
    sender = AlertSender(f"http://127.0.0.1:{closed_port()}/x", timeout_s=5)
    with caplog.at_level(logging.WARNING, logger="bot.alerts.sender"):
        t0 = time.monotonic()
        for i in range(5):
            sender.send(f"kind{i}", f"title {i}", "message")
        took = time.monotonic() - t0
        deadline = time.monotonic() + 10
        while sender.status()["failed"] != 5 and time.monotonic() < deadline:
            time.sleep(0.02)
    sender.close()
    assert took < 0.05
    assert sender.status()["failed"] == 5 and "refused" in str(sender.status()["problem"])
    assert len(caplog.records) == 1  # one line per distinct problem


def test_a_blackhole_url_delays_nothing_and_the_queue_stays_bounded(
        caplog: pytest.LogCaptureFixture) -> None:
    hole = socket.socket()
    hole.bind(("127.0.0.1", 0))
    hole.listen(64)  # connections complete in the kernel; nothing ever answers
    url = f"http://127.0.0.1:{hole.getsockname()[1]}/x"
    sender = AlertSender(url, queue_size=4, timeout_s=30)
    with caplog.at_level(logging.WARNING, logger="bot.alerts.sender"):
        t0 = time.monotonic()
        sent = [sender.send(f"k{i}", f"t{i}", "m") for i in range(40)]
        took = time.monotonic() - t0
    # One in the thread's hands (waiting on the socket), four queued, the rest dropped.
    assert took < 0.1, took
    assert 4 <= sent.count(True) <= 5 and sender.status()["dropped"] == 40 - sent.count(True)
    assert len([r for r in caplog.records if "alert dropped" in r.message]) == \
        40 - sent.count(True)
    t0 = time.monotonic()
    sender.close(timeout=0.5)  # the service's exit is not held up by the silent URL
    assert time.monotonic() - t0 < 1.5
    hole.close()


def test_an_http_error_is_a_failure_not_an_exception(caplog: pytest.LogCaptureFixture) -> None:
    r = Receiver(status=403)
    sender = AlertSender(r.url)
    with caplog.at_level(logging.WARNING, logger="bot.alerts.sender"):
        sender.send("x", "t", "m")
        r.wait(1)
        deadline = time.monotonic() + 5
        while sender.status()["failed"] != 1 and time.monotonic() < deadline:
            time.sleep(0.02)
    sender.close()
    r.server.shutdown()
    assert sender.status()["problem"] == "HTTP 403" and "HTTP 403" in caplog.text


def test_scrub() -> None:
    text = (f"token {TOKEN} Bearer abc.def-123 Basic dXNlcjpwYXNzd29yZA== "
            f"https://bob:s3cret@ntfy.example/t?auth=XYZ password=letmein "
            f"api_key: 12345678 'secret': 'xyzzy'")
    out = scrub(text, secrets=["my-own-secret"])
    for secret in (TOKEN, "abc.def-123", "dXNlcjpwYXNzd29yZA==", "s3cret", "XYZ", "letmein",
                   "12345678", "xyzzy"):
        assert secret not in out, (secret, out)
    assert "https://<redacted>@ntfy.example/t" in out
    assert scrub("a game against bob, +3 =1 -0") == "a game against bob, +3 =1 -0"
    assert scrub("ours: my-own-secret!", ["my-own-secret"]) == "ours: <redacted>!"
    assert public_url("https://u:p@ntfy.sh:8443/topic?auth=tok") == "https://ntfy.sh:8443/topic"


def test_throttle_watch_fires_once_per_long_stretch() -> None:
    w = ThrottleWatch(600)
    assert [w.sample(True, t) for t in (0, 300, 599)] == [None, None, None]
    assert w.sample(True, 600) == 600
    assert w.sample(True, 1200) is None          # the same stretch
    assert w.sample(False, 1300) is None         # it ended
    assert w.sample(True, 1400) is None and w.sample(True, 2100) == 700


def test_summary_clock_is_due_once_a_day_after_its_hour() -> None:
    morning = NOW - 14 * 3600  # 00:13 UTC the same day
    c = SummaryClock(20, morning)
    assert not c.due(NOW)                        # 14:13: not yet
    assert c.due(NOW + 6 * 3600) and not c.due(NOW + 7 * 3600)   # 20:13, once
    assert c.due(NOW + 30 * 3600)                # the next day, 20:13
    late = SummaryClock(10, NOW)                 # started after today's hour:
    assert not late.due(NOW + 60) and late.due(NOW + 86400)   # not at every restart
    assert not SummaryClock(None, NOW).due(NOW + 86400)


def test_rules_say_what_happened(receiver: Receiver) -> None:
    cfg = parse_config({"alerts": {"url": receiver.url, "failing_restarts": 3,
                                   "throttle_minutes": 10, "daily_summary_hour": 20}})
    alerts = Alerts.from_config(cfg.alerts, secrets=[TOKEN], now=NOW)
    assert alerts.enabled
    assert not alerts.started(2) and alerts.started(3)
    assert alerts.token_rejected()
    assert alerts.daily_limit(NOW + 3600)
    assert not alerts.heat(True, 80.0, now=0) and alerts.heat(True, 81.5, now=600)
    assert not alerts.summary_due(NOW) and alerts.summary_due(NOW + 6 * 3600)
    assert alerts.daily_summary({"date": "2026-09-21", "wins": 5, "draws": 2, "losses": 1,
                                 "bot_games": 7}, notes=["rating blitz 1650 (+12)"])
    assert alerts.failure(f"crashed with {TOKEN}")
    got = [json.loads(g["body"]) for g in receiver.wait(6)]
    alerts.close()
    # One sender thread: in the order they happened.
    assert [g["kind"] for g in got] == ["failing", "token", "daily_limit", "throttled",
                                       "summary", "failure"]
    by_kind = {g["kind"]: g for g in got}
    assert "3 times within an hour" in by_kind["failing"]["message"]
    assert "2026-09-21 15:13 UTC" in by_kind["daily_limit"]["message"]
    assert "10 minutes at 81.5 C" in by_kind["throttled"]["message"]
    assert by_kind["summary"]["title"] == "pibot today: +5 =2 -1"
    assert "8 game(s)" in by_kind["summary"]["message"] and "1650" in by_kind["summary"]["message"]
    assert TOKEN not in json.dumps(got)


def test_alerts_off_by_default_do_nothing() -> None:
    alerts = Alerts.from_config(parse_config({}).alerts)
    assert not alerts.enabled and not alerts.started(100) and not alerts.token_rejected()
    assert not alerts.summary_due(NOW + 86400)
    alerts.close()


@pytest.mark.parametrize(("data", "wanted"), [
    ({"alerts": {"url": "ntfy.sh/topic"}}, "'alerts.url'"),
    ({"alerts": {"url": "https://ntfy.sh/" + TOKEN}}, "looks like a Lichess token"),
    ({"alerts": {"throttle_minutes": 0}}, "'alerts.throttle_minutes' is 0.0, below the minimum"),
    ({"alerts": {"daily_summary_hour": 24}}, "'alerts.daily_summary_hour' is 24, above"),
    ({"alerts": {"format": "slack"}}, "'alerts.format'"),
    ({"alerts": {"urll": "x"}}, "did you mean 'alerts.url'"),
    ({"records": {"keep_days": -1}}, "'records.keep_days' is -1"),
    ({"records": {"max_mb": "big"}}, "'records.max_mb' must be an integer"),
])
def test_bad_values_are_one_clear_line(data: dict[str, Any], wanted: str) -> None:
    from bot.errors import UserError

    with pytest.raises(UserError) as exc:
        parse_config(data)
    assert wanted in str(exc.value) and "\n" not in str(exc.value)
    assert TOKEN not in str(exc.value)


def test_pibot_alert_sends_and_reports(receiver: Receiver, tmp_path: Any) -> None:
    from test_robustness_cli import _pibot

    cfg = tmp_path / "c.yml"
    cfg.write_text(f"alerts:\n  url: {receiver.url}/topic\n  format: ntfy\n")
    r = _pibot("alert", "--config", str(cfg), "--test")
    assert r.returncode == 0 and "alert delivered" in r.stdout, r.stderr
    r = _pibot("alert", "--config", str(cfg), "--failing", "pibot@alice")
    assert r.returncode == 0, r.stderr
    got = receiver.wait(2)
    assert got[0]["headers"]["Title"] == "pibot test alert"
    assert got[1]["headers"]["Title"] == "pibot@alice has failed"
    assert got[1]["headers"]["Priority"] == "5"
    cfg.write_text(f"alerts:\n  url: http://127.0.0.1:{closed_port()}/x\n")
    r = _pibot("alert", "--config", str(cfg), "--test", "--timeout", "3")
    assert r.returncode == 1 and "not delivered" in r.stdout and "refused" in r.stdout
    assert r.stderr == ""
    cfg.write_text("log_level: info\n")
    r = _pibot("alert", "--config", str(cfg), "--test")
    assert r.returncode == 2 and "alerts.url is not set" in r.stderr
