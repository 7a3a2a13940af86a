"""The systemd units: systemd-analyze verify/security, and their contract with the bot."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from bot.config import load_config
from bot.errors import EXIT_CONFIG
from bot.lichess.token import CREDENTIAL_NAME

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "systemd" / "pibot.service"
TEMPLATE = ROOT / "systemd" / "pibot@.service"
ALERT = ROOT / "systemd" / "pibot-alert.service"  # the services' OnFailure= (issue 35)
ALERT_TEMPLATE = ROOT / "systemd" / "pibot-alert@.service"
EXEC = "/opt/pibot/venv/bin/pibot"
MAX_EXPOSURE = 2.0

needs_analyze = pytest.mark.skipif(
    shutil.which("systemd-analyze") is None,
    reason="systemd-analyze not installed (apt-get install systemd)")


def settings(path: Path) -> dict[str, list[str]]:
    """Key -> values (a key may repeat, e.g. SystemCallFilter=) over all sections."""
    out: dict[str, list[str]] = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith(("#", ";", "[")):
            key, _, value = line.partition("=")
            out.setdefault(key, []).append(value)
    return out


def one(path: Path, key: str) -> str:
    values = settings(path)[key]
    assert len(values) == 1, f"{key}= set {len(values)} times in {path.name}"
    return values[0]


def verify(unit_text: str, name: str, tmp_path: Path) -> None:
    # verify checks that ExecStart exists; no venv here, so point it at a real binary
    # (test_deploy verifies the installed copy against the real venv).
    copy = tmp_path / name
    copy.write_text(unit_text.replace(EXEC, shutil.which("true") or "/bin/true"))
    res = subprocess.run(["systemd-analyze", "verify", str(copy)], capture_output=True,
                         text=True, timeout=60, cwd=tmp_path)
    # Unknown keys and bad values are only warnings (exit 0): any output is a failure.
    assert res.returncode == 0 and not res.stderr.strip() and not res.stdout.strip(), \
        res.stderr + res.stdout


def exposure(path: Path) -> float:
    res = subprocess.run(["systemd-analyze", "security", "--offline=true", str(path)],
                         capture_output=True, text=True, timeout=60, cwd=path.parent)
    m = re.search(r"Overall exposure level for \S+: (\d+(?:\.\d+)?)", res.stdout)
    assert m, f"no exposure line in systemd-analyze output:\n{res.stdout}{res.stderr}"
    return float(m.group(1))


@needs_analyze
def test_verify_service(tmp_path: Path) -> None:
    verify(UNIT.read_text(), "pibot.service", tmp_path)


@needs_analyze
def test_verify_template_instance(tmp_path: Path) -> None:
    verify(TEMPLATE.read_text(), "pibot@ci.service", tmp_path)


@needs_analyze
def test_exposure_is_ok(tmp_path: Path) -> None:
    assert exposure(UNIT) <= MAX_EXPOSURE
    instance = tmp_path / "pibot@ci.service"
    shutil.copy(TEMPLATE, instance)
    assert exposure(instance) <= MAX_EXPOSURE


def test_contract_with_the_bot() -> None:
    assert one(UNIT, "Type") == "notify"
    assert one(UNIT, "NotifyAccess") == "main"
    assert one(UNIT, "WatchdogSec") == "60"
    assert one(UNIT, "Restart") == "on-failure"
    # A config or token the bot refuses exits EXIT_CONFIG: restarting cannot help.
    assert one(UNIT, "RestartPreventExitStatus") == str(EXIT_CONFIG)
    assert one(UNIT, "KillMode") == "mixed"
    assert one(UNIT, "ExecReload") == "/bin/kill -HUP $MAINPID"
    assert one(UNIT, "ExecStart") == f"{EXEC} run --config /etc/pibot/config.yml"
    # bot/lichess/token.py reads $CREDENTIALS_DIRECTORY/<CREDENTIAL_NAME>.
    assert one(UNIT, "LoadCredential") == f"{CREDENTIAL_NAME}:/etc/pibot/lichess-token"
    assert one(UNIT, "StateDirectory") == "pibot"
    assert one(UNIT, "WorkingDirectory") == "%S/pibot"
    # bot/host/status_file.py: the service writes $RUNTIME_DIRECTORY/status.json and
    # `pibot status` looks in /run/pibot (/run/pibot-NAME with --instance NAME).
    from bot.host.status_file import candidate_paths
    assert Path("/run") / one(UNIT, "RuntimeDirectory") / "status.json" in candidate_paths()
    assert candidate_paths("ci", env={})[0] == \
        Path("/run") / one(TEMPLATE, "RuntimeDirectory").replace("%i", "ci") / "status.json"
    # bot/service/control.py: control.sock (0660, group pibot) in the runtime directory,
    # which group members must be able to enter.
    from bot.host.control_socket import candidate_paths as control_paths
    assert Path("/run") / one(UNIT, "RuntimeDirectory") / "control.sock" in control_paths()
    assert one(UNIT, "RuntimeDirectoryMode") == "0755"
    assert one(UNIT, "Group") == "pibot"
    assert one(UNIT, "User") == "pibot"
    assert "network-online.target" in one(UNIT, "After")
    assert "network-online.target" in one(UNIT, "Wants")


def test_stop_timeout_covers_shutdown_grace() -> None:
    # systemd must not SIGKILL before the bot's own deadline (shutdown_grace_s in the
    # config the installer ships) plus 30 s to save games.
    grace = load_config(ROOT / "config.yml").shutdown_grace_s
    assert int(one(UNIT, "TimeoutStopSec")) >= grace + 30, \
        f"TimeoutStopSec= must be at least shutdown_grace_s ({grace}) + 30"


def test_proc_meminfo_stays_readable() -> None:
    # platform_info.check_hash_fits reads /proc/meminfo: ProcSubset=pid would hide it.
    s = settings(UNIT)
    assert "ProcSubset" not in s
    assert one(UNIT, "ProtectProc") == "invisible"


def test_template_differs_only_in_instance_paths() -> None:
    unit = settings(UNIT)
    tmpl = settings(TEMPLATE)
    expected = dict(unit)
    expected.update({
        "Description": ["pibot Lichess bot (%i)"],
        "ExecStart": [f"{EXEC} run --config /etc/pibot/%i.yml"],
        "LoadCredential": [f"{CREDENTIAL_NAME}:/etc/pibot/%i.token"],
        "StateDirectory": ["pibot/%i"],
        "RuntimeDirectory": ["pibot-%i"],
        "WorkingDirectory": ["%S/pibot/%i"],
        "OnFailure": ["pibot-alert@%i.service"],
    })
    assert tmpl == expected


@needs_analyze
def test_verify_alert_units(tmp_path: Path) -> None:
    verify(ALERT.read_text(), "pibot-alert.service", tmp_path)
    verify(ALERT_TEMPLATE.read_text(), "pibot-alert@ci.service", tmp_path)
    assert exposure(ALERT) <= MAX_EXPOSURE


def test_on_failure_alert_units_match_their_services() -> None:
    # Each service names its alert unit, which reads the service's own config.
    assert one(UNIT, "OnFailure") == "pibot-alert.service"
    assert one(ALERT, "ExecStart") == f"{EXEC} alert --config /etc/pibot/config.yml " \
                                      "--failing pibot"
    assert one(UNIT, "ExecStart").split("--config ")[1] == "/etc/pibot/config.yml"
    assert one(TEMPLATE, "OnFailure") == "pibot-alert@%i.service"
    assert one(ALERT_TEMPLATE, "ExecStart") == f"{EXEC} alert --config /etc/pibot/%i.yml " \
                                               "--failing pibot@%i"
    assert one(ALERT, "Type") == one(ALERT_TEMPLATE, "Type") == "oneshot"
    assert "LoadCredential" not in settings(ALERT)  # an alert never needs the token
    alert, tmpl = settings(ALERT), settings(ALERT_TEMPLATE)
    for key in ("Description", "ExecStart"):
        alert.pop(key), tmpl.pop(key)
    assert alert == tmpl


def test_the_alert_units_command_delivers(tmp_path: Path) -> None:
    # What the OnFailure= unit runs, with a test config: the alert reaches a receiver.
    import http.server
    import json
    import sys
    import threading

    got: list[dict[str, str]] = []

    class Receiver(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            got.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        cfg = tmp_path / "config.yml"
        cfg.write_text(f"alerts:\n  url: http://127.0.0.1:{srv.server_address[1]}/x\n"
                       "  format: json\n")
        args = one(ALERT, "ExecStart").split()[1:]
        args[args.index("--config") + 1] = str(cfg)
        res = subprocess.run([sys.executable, "-m", "bot.cli", *args], capture_output=True,
                             text=True, timeout=60)
        assert res.returncode == 0, res.stdout + res.stderr
        assert "delivered" in res.stdout
        assert len(got) == 1 and got[0]["kind"] == "failing" and "pibot" in got[0]["title"]
    finally:
        srv.shutdown()
        srv.server_close()
