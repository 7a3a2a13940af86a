"""deploy/install.sh for real, staged under a temporary --root.

One module-scoped install (a real venv with the engine compiled, ~15-60 s) is
shared by the tests below, which run in file order: fresh install (step 2 of the
README's four steps: `--no-start`, token on stdin), the four steps against the
emulator, upgrade, token and config handling, a second instance, uninstall, purge.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import socket
import stat
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
INSTALL = ROOT / "deploy" / "install.sh"
TOKEN = "lip_TestToken0123456789"
NEW_TOKEN = "lip_Replacement9876543210"


@dataclass
class Staged:
    root: Path
    first: subprocess.CompletedProcess[str]

    @property
    def etc(self) -> Path:
        return self.root / "etc/pibot"

    @property
    def venv(self) -> Path:
        return self.root / "opt/pibot/venv"

    @property
    def units(self) -> Path:
        return self.root / "etc/systemd/system"


def clean_env() -> dict[str, str]:
    """The environment minus what would make the installed program not itself."""
    drop = {"LICHESS_BOT_TOKEN", "PYTHONPATH", "PYTHONHOME", "NOTIFY_SOCKET", "WATCHDOG_PID",
            "WATCHDOG_USEC", "CREDENTIALS_DIRECTORY"}
    return {k: v for k, v in os.environ.items() if k not in drop}


def run(root: Path, *args: str, token: str | None = None, stdin: str | None = None,
        start: bool = False, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """install.sh --root ROOT ARGS, with --no-start unless `start` (a start asks
    the configured Lichess server about the account first)."""
    env = clean_env()
    if token is not None:
        env["LICHESS_BOT_TOKEN"] = token
    extra = [] if start else ["--no-start"]
    return subprocess.run(["bash", str(INSTALL), "--root", str(root), *extra, *args],
                          input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL,
                          capture_output=True, text=True, env=env, timeout=timeout)


def ok(res: subprocess.CompletedProcess[str]) -> str:
    assert res.returncode == 0, f"install.sh failed:\n{res.stdout}\n{res.stderr}"
    return res.stdout + res.stderr


def user_error(res: subprocess.CompletedProcess[str]) -> str:
    """A user mistake: non-zero exit, an error line and a fix line, no traceback."""
    assert res.returncode != 0, res.stdout + res.stderr
    assert "pibot-install: error:" in res.stderr
    assert "pibot-install: fix:" in res.stderr
    assert "Traceback" not in res.stdout + res.stderr
    return res.stderr


@pytest.fixture(scope="module")
def staged(tmp_path_factory: pytest.TempPathFactory) -> Staged:
    root = tmp_path_factory.mktemp("pi")
    # Step 2 of the four: install without starting, the token from stdin.
    return Staged(root, run(root, "--token-stdin", stdin=TOKEN + "\n"))


def test_shellcheck() -> None:
    if shutil.which("shellcheck") is None:
        pytest.skip("shellcheck not installed (apt-get install shellcheck)")
    scripts = sorted(str(p) for p in [*(ROOT / "deploy").glob("*.sh"),
                                      ROOT / "scripts/arm64-check.sh"])
    assert scripts
    res = subprocess.run(["shellcheck", "--severity=style", *scripts], capture_output=True,
                         text=True, timeout=60)
    assert res.returncode == 0, res.stdout + res.stderr


def test_fresh_install_layout(staged: Staged) -> None:
    out = ok(staged.first)
    # Every step is announced.
    for words in ("creating virtualenv", "building the engine", "installing config",
                  "storing the token", "installing systemd units"):
        assert words in out
    # config installed verbatim from the repository.
    assert (staged.etc / "config.yml").read_text() == (ROOT / "config.yml").read_text()
    # token: only the token, root-only.
    token = staged.etc / "lichess-token"
    assert token.read_text().strip() == TOKEN
    assert stat.S_IMODE(token.stat().st_mode) == 0o600
    # units where systemd looks, program where ExecStart points.
    unit = (staged.units / "pibot.service").read_text()
    assert (staged.units / "pibot@.service").exists()
    assert "ExecStart=/opt/pibot/venv/bin/pibot run --config /etc/pibot/config.yml" in unit
    # OnFailure= units (issue 35): installed beside the services they watch.
    assert "OnFailure=pibot-alert.service" in unit
    assert (staged.units / "pibot-alert@.service").exists()
    assert "ExecStart=/opt/pibot/venv/bin/pibot alert --config /etc/pibot/config.yml" in \
        (staged.units / "pibot-alert.service").read_text()
    assert "LoadCredential=lichess-token:/etc/pibot/lichess-token" in unit
    version = subprocess.run([str(staged.venv / "bin/pibot"), "version"], capture_output=True,
                             text=True, timeout=60, env=clean_env(), cwd=staged.root)
    assert version.returncode == 0, version.stderr
    assert version.stdout.startswith("pibot ")
    assert "engine slider index:" in version.stdout


def test_four_steps_with_the_emulator_as_lichess(staged: Staged) -> None:
    """README's four steps on the Pi: (1) account and token, (2) install.sh
    --no-start (done by the fixture, token on stdin), (3) pibot upgrade with the
    installed token file, (4) start -- which is refused before step 3."""
    from bot.emulator import AccountSpec, Emulator, EmulatorConfig

    assert "asking Lichess" not in ok(staged.first)  # --no-start: no account check
    config = staged.etc / "config.yml"
    shipped = config.read_text()
    # (1) A fresh, non-BOT account whose token is the one installed.
    account = AccountSpec(token=TOKEN, username="newbot", title=None)
    with Emulator(EmulatorConfig(accounts=[account])) as emu:
        config.write_text(shipped.replace("url: https://lichess.org", f"url: {emu.url}", 1))
        try:
            # Starting now is refused with one line naming the exact upgrade command.
            refused = run(staged.root, "--no-build", start=True)
            assert refused.returncode == 1, refused.stdout + refused.stderr
            assert "Traceback" not in refused.stdout + refused.stderr
            line, = refused.stderr.strip().splitlines()
            assert "not a BOT account" in line and "pibot upgrade" in line
            assert emu.traffic.count("POST /api/bot/account/upgrade") == 0
            # (3) The command it names reads the installed token file; the token
            # itself is not on the command line (--yes: no terminal to confirm on).
            command = shlex.split(line.split("run: ", 1)[1].split(", then: ", 1)[0])
            assert command[:2] == [str(staged.venv / "bin/pibot"), "upgrade"]
            assert "--token-file" in command and str(staged.etc / "lichess-token") in command
            assert not any(TOKEN in arg for arg in command)
            upgraded = subprocess.run([*command, "--yes"], capture_output=True, text=True,
                                      timeout=60, env=clean_env(), stdin=subprocess.DEVNULL,
                                      cwd=staged.root)
            assert upgraded.returncode == 0, upgraded.stdout + upgraded.stderr
            assert "newbot is now a BOT account" in upgraded.stdout
            assert account.title == "BOT"
            # (4) Now the start goes ahead.
            out = ok(run(staged.root, "--no-build", start=True))
            assert "newbot is a BOT account" in out
        finally:
            config.write_text(shipped)
    for res in (refused, upgraded):
        assert TOKEN not in res.stdout + res.stderr


def test_installed_unit_verifies_against_the_real_venv(staged: Staged, tmp_path: Path) -> None:
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze not installed (apt-get install systemd)")
    for name in ("pibot.service", "pibot-alert.service"):
        text = (staged.units / name).read_text()
        copy = tmp_path / name
        copy.write_text(text.replace("/opt/pibot/", f"{staged.root}/opt/pibot/"))
        res = subprocess.run(["systemd-analyze", "verify", str(copy)], capture_output=True,
                             text=True, timeout=60, cwd=tmp_path)
        assert res.returncode == 0 and not (res.stdout + res.stderr).strip(), res.stderr


def _owning_package(path: str) -> str | None:
    """The Debian package that ships `path`, under either name merged /usr gives it
    (bookworm's procps lists /bin/kill, trixie's /usr/bin/kill)."""
    names = [path, path.removeprefix("/usr")] if path.startswith("/usr/") else [path, "/usr" + path]
    for name in names:
        res = subprocess.run(["dpkg-query", "-S", name], capture_output=True, text=True, timeout=60)
        if res.returncode == 0:
            return res.stdout.split(": ", 1)[0].split(",")[0].split(":")[0].strip()
    return None


def test_units_run_only_what_the_installer_installs(staged: Staged) -> None:
    """Every program an installed unit runs outside the venv comes from a package
    deploy/install.sh installs (APT_PACKAGES) or an essential one: a minimal
    Debian root has no procps, hence no /bin/kill for ExecReload=."""
    if shutil.which("dpkg-query") is None:
        pytest.skip("not a Debian system (no dpkg-query)")
    m = re.search(r"^APT_PACKAGES=\((.*)\)$", INSTALL.read_text(), re.M)
    assert m, "no APT_PACKAGES=(...) line in deploy/install.sh"
    installed = set(m.group(1).split())
    programs = set()
    for unit in staged.units.glob("*.service"):
        for line in unit.read_text().splitlines():
            key, _, value = line.partition("=")
            if key.startswith("Exec") and value.strip():
                programs.add(value.strip().lstrip("-@:+!|").split()[0])
    outside = sorted(p for p in programs if not p.startswith("/opt/pibot/venv/"))
    assert "/bin/kill" in outside
    for program in outside:
        package = _owning_package(program)
        assert package is not None, f"{program}: no Debian package ships it here"
        essential = subprocess.run(["dpkg-query", "-W", "-f=${Essential}", package],
                                   capture_output=True, text=True, timeout=60).stdout.strip()
        assert package in installed or essential == "yes", \
            f"{program} is in {package}, which install.sh does not install"


def test_token_appears_nowhere_else(staged: Staged) -> None:
    assert TOKEN not in staged.first.stdout + staged.first.stderr
    for path in staged.root.rglob("*"):
        if path.is_file() and not path.is_symlink() and path.name != "lichess-token":
            assert TOKEN.encode() not in path.read_bytes(), path


def test_upgrade_keeps_edited_config_and_reports_new_keys(staged: Staged) -> None:
    config = staged.etc / "config.yml"
    edited = "\n".join(line for line in config.read_text().splitlines()
                       if not line.lstrip().startswith(("hash_mb:", "log_level:")))
    edited += "\n# my own note\n"
    config.write_text(edited)
    out = ok(run(staged.root))  # no token given: the installed one is kept
    assert "upgrading in place" in out and "building the engine" in out
    assert config.read_text() == edited
    assert "  - engine.hash_mb" in out and "  - log_level" in out
    assert (staged.etc / "lichess-token").read_text().strip() == TOKEN
    assert (staged.etc / "config.yml.shipped").read_text() == (ROOT / "config.yml").read_text()


def test_token_file_replaces_token(staged: Staged, tmp_path: Path) -> None:
    src = tmp_path / "token.txt"
    src.write_text(f"  {NEW_TOKEN}\r\n")  # pasted with stray whitespace
    out = ok(run(staged.root, "--no-build", "--token-file", str(src)))
    assert "keeping the installed program" in out
    token = staged.etc / "lichess-token"
    assert token.read_text() == NEW_TOKEN + "\n"
    assert stat.S_IMODE(token.stat().st_mode) == 0o600
    assert NEW_TOKEN not in out


def test_token_from_the_prompt_is_not_echoed(staged: Staged) -> None:
    """On a terminal the installer asks, with echo off (`read -s`): what the
    terminal shows never holds the token."""
    import pty
    import select

    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen(["bash", str(INSTALL), "--root", str(staged.root), "--no-start",
                                 "--no-build", "--instance", "prompted"],
                                stdin=slave, stdout=slave, stderr=slave, env=clean_env())
        os.close(slave)
        seen = b""
        deadline = time.monotonic() + 60
        while b"input hidden" not in seen and time.monotonic() < deadline:
            if select.select([master], [], [], 1)[0]:
                seen += os.read(master, 4096)
        assert b"input hidden" in seen, seen
        os.write(master, TOKEN.encode() + b"\n")
        assert proc.wait(timeout=120) == 0, seen
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO: the installer closed the terminal
                break
            if not chunk:
                break
            seen += chunk
    finally:
        os.close(master)
    assert b"storing the token from the prompt" in seen
    assert TOKEN.encode() not in seen
    assert (staged.etc / "prompted.token").read_text() == TOKEN + "\n"


def test_bad_token_is_refused_and_old_one_kept(staged: Staged, tmp_path: Path) -> None:
    src = tmp_path / "token.txt"
    for bad in ("Bearer lip_xy12345678\n", "lip_abcd efgh1234\n", "lip_x'y12345678"):
        src.write_text(bad)
        err = user_error(run(staged.root, "--no-build", "--token-file", str(src)))
        assert "token" in err and "not valid" in err
        assert bad.strip() not in err
    assert (staged.etc / "lichess-token").read_text() == NEW_TOKEN + "\n"
    assert not list(staged.etc.glob("*.new"))


def test_invalid_config_stops_with_a_fix(staged: Staged) -> None:
    config = staged.etc / "config.yml"
    good = config.read_text()
    # Edited in place: a second `engine:` section is a duplicate key (refused too), and
    # an earlier test removed hash_mb.
    assert "  threads: auto" in good
    config.write_text(good.replace("  threads: auto", "  threads: lots", 1))
    try:
        err = user_error(run(staged.root, "--no-build"))
        assert "engine.threads" in err and str(config) in err
    finally:
        config.write_text(good)


def test_invalid_first_config_is_refused(staged: Staged, tmp_path: Path) -> None:
    bad = tmp_path / "bob.yml"
    bad.write_text("challenge:\n  concurency: 2\n")  # typo
    err = user_error(run(staged.root, "--no-build", "--instance", "bob", "--config", str(bad),
                         token=TOKEN))
    assert "challenge.concurency" in err and "challenge.concurrency" in err
    assert not (staged.etc / "bob.token").exists()  # stopped before the token step


def test_user_mistakes_get_clear_errors(staged: Staged, tmp_path: Path) -> None:
    assert "unknown option '--colour'" in user_error(run(staged.root, "--colour"))
    assert "--instance" in user_error(run(staged.root, "--instance", "a b"))
    assert "--purge only goes with --uninstall" in user_error(run(staged.root, "--purge"))
    missing = tmp_path / "nope"
    assert str(missing) in user_error(run(staged.root, "--token-file", str(missing)))
    # A fresh machine without any token fails before the slow build.
    empty = tmp_path / "fresh"
    err = user_error(run(empty))
    assert "--token-stdin" in err and "--token-file" in err
    assert "is empty" in user_error(run(empty, "--token-stdin", stdin="\n"))
    assert "both given" in user_error(run(empty, "--token-stdin", "--token-file", "x"))
    assert not (empty / "opt").exists()


def test_cpu_mistakes_fail_before_the_venv_and_the_build(tmp_path: Path) -> None:
    assert "--cpu 'a b' is not a CPU name" in user_error(
        run(tmp_path / "a", "--cpu", "a b", token=TOKEN))
    assert "contradict" in user_error(
        run(tmp_path / "b", "--cpu", "x86-64-v2", "--portable", token=TOKEN))
    # A name the compiler does not know: gcc's own list of valid names, and a fix.
    fresh = tmp_path / "c"
    err = user_error(run(fresh, "--cpu", "no-such-cpu", token=TOKEN))
    assert "knows CPU 'no-such-cpu'" in err and "--cpu cortex-a76" in err
    assert not (fresh / "opt/pibot/venv").exists()


def test_too_old_python_names_both_releases(tmp_path: Path) -> None:
    """A Python below 3.11 (Raspberry Pi OS 11's 3.9) stops before the venv, and
    the fix names the releases that have a good one: 13 "trixie" and 12 "bookworm"."""
    old = tmp_path / "python3.9"
    old.write_text('#!/bin/sh\n[ "$1" = -V ] && { echo "Python 3.9.2"; exit 0; }\nexit 1\n')
    old.chmod(0o755)
    fresh = tmp_path / "root"
    err = user_error(run(fresh, "--python", str(old), token=TOKEN))
    assert "older than 3.11 (Python 3.9.2)" in err
    assert "13 (trixie, Python 3.13)" in err and "12 (bookworm, Python 3.11)" in err
    assert not (fresh / "opt/pibot/venv").exists()


def test_second_instance(staged: Staged) -> None:
    ok(run(staged.root, "--no-build", "--instance", "alice", token=TOKEN))
    assert (staged.etc / "alice.yml").read_text() == (ROOT / "config.yml").read_text()
    token = staged.etc / "alice.token"
    assert token.read_text().strip() == TOKEN
    assert stat.S_IMODE(token.stat().st_mode) == 0o600
    assert (staged.etc / "lichess-token").read_text() == NEW_TOKEN + "\n"  # untouched


MDWE_PROBE = r"""
import ctypes, mmap, sys
libc = ctypes.CDLL(None, use_errno=True)
PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN = 65, 1  # kernel 6.3+
if libc.prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, 0, 0, 0) != 0:
    sys.exit(77)
try:  # prove the policy bites: no writable+executable memory from here on
    mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    sys.exit("W+X mapping was allowed")
except OSError:
    pass
import chess, requests, yaml  # noqa: F401  (the bot's dependencies load)
import importlib.util  # berserk is for the tests only (the `test` extra)
assert importlib.util.find_spec("berserk") is None, "berserk installed in production"
from bot.host import platform_info
from bot.engine import Board
assert Board().perft(3) == 8902
platform_info.report()
print("ok")
"""


def test_engine_runs_without_write_execute_memory(staged: Staged) -> None:
    # pibot.service sets MemoryDenyWriteExecute=yes; the kernel's PR_SET_MDWE is the
    # same policy, so the installed program is run under it here.
    res = subprocess.run([str(staged.venv / "bin/python"), "-c", MDWE_PROBE],
                         capture_output=True, text=True, timeout=120, env=clean_env(),
                         cwd=staged.root)  # not the checkout: `-c` puts the cwd on sys.path
    if res.returncode == 77:
        pytest.skip("kernel without PR_SET_MDWE (needs Linux 6.3+)")
    assert res.returncode == 0 and res.stdout.strip() == "ok", res.stdout + res.stderr


def _datagrams(sock: socket.socket, until: str, timeout: float) -> list[str]:
    """Fields received on the notify socket up to and including `until`."""
    fields: list[str] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            fields += sock.recv(4096).decode().split("\n")
        except TimeoutError:
            break
        if until in fields:
            return fields
    raise AssertionError(f"no {until} within {timeout} s; got {fields}")


def test_installed_bot_speaks_the_units_protocol(staged: Staged, tmp_path: Path) -> None:
    """What systemd would do with pibot.service, minus systemd: credential dir,
    state dir as working directory, $NOTIFY_SOCKET and $WATCHDOG_USEC, then
    ExecReload's SIGHUP and the stop's SIGTERM -- against the Lichess emulator."""
    from bot.emulator import Emulator, EmulatorConfig

    creds, state = tmp_path / "credentials", tmp_path / "state"
    creds.mkdir()
    state.mkdir()
    config = tmp_path / "config.yml"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(tmp_path / "notify.sock"))
    with Emulator(EmulatorConfig(event_keepalive_s=0.5)) as emu, sock:
        (creds / "lichess-token").write_text(emu.token + "\n")
        # A small table: this is about the unit's protocol; auto-sizing takes half
        # the RAM (8 GiB on a CI box), whose clears can outlast the stop timeout
        # on a loaded machine.
        config.write_text(f"url: {emu.url}\nshutdown_grace_s: 5\nengine:\n  hash_mb: 64\n")
        env = clean_env() | {"CREDENTIALS_DIRECTORY": str(creds),
                             "NOTIFY_SOCKET": str(sock.getsockname()),
                             "WATCHDOG_USEC": "1000000"}
        bot = subprocess.Popen([str(staged.venv / "bin/pibot"), "run", "--config", str(config)],
                               cwd=state, env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            assert "READY=1" in _datagrams(sock, "READY=1", 60)
            assert "WATCHDOG=1" in _datagrams(sock, "WATCHDOG=1", 3)  # every 0.5 s
            bot.send_signal(signal.SIGHUP)                        # ExecReload=
            fields = _datagrams(sock, "READY=1", 10)
            assert "RELOADING=1" in fields
            assert fields.index("RELOADING=1") < fields.index("READY=1")
            bot.send_signal(signal.SIGTERM)                       # systemctl stop
            assert "STOPPING=1" in _datagrams(sock, "STOPPING=1", 10)
            assert bot.wait(timeout=30) == 0
        finally:
            if bot.poll() is None:
                bot.kill()
            output = bot.communicate(timeout=10)[0]
    assert emu.token not in output
    assert "Traceback" not in output, output


def test_uninstall_keeps_config_token_and_games(staged: Staged) -> None:
    games = staged.root / "var/lib/pibot/games"
    games.mkdir(parents=True)
    (games / "abcd1234.pgn").write_text('[Event "test"]\n\n1. e4 *\n')
    out = ok(run(staged.root, "--uninstall"))
    assert "kept" in out
    assert not (staged.root / "opt/pibot").exists()
    assert not (staged.units / "pibot.service").exists()
    assert not (staged.units / "pibot@.service").exists()
    assert not (staged.units / "pibot-alert.service").exists()
    assert not (staged.units / "pibot-alert@.service").exists()
    assert (staged.etc / "config.yml").exists() and (staged.etc / "lichess-token").exists()
    assert (games / "abcd1234.pgn").exists()


def test_purge_removes_everything(staged: Staged) -> None:
    ok(run(staged.root, "--uninstall", "--purge"))
    assert not staged.etc.exists()
    assert not (staged.root / "var/lib/pibot").exists()
    assert not (staged.root / "opt/pibot").exists()



def test_uninstall_with_shared_prefix_removes_only_its_own_files(tmp_path: Path) -> None:
    prefix = tmp_path / "usr/local"
    (prefix / "venv/bin").mkdir(parents=True)
    (prefix / "bin").mkdir()
    (prefix / "bin/other-tool").write_text("#!/bin/sh\n")
    ok(run(tmp_path, "--prefix", "/usr/local", "--uninstall"))
    assert not (prefix / "venv").exists()
    assert (prefix / "bin/other-tool").exists()
