#!/usr/bin/env bash
# pibot installer for the Raspberry Pi (Raspberry Pi OS 64-bit: 13 "trixie" or 12
# "bookworm") and other Debian-like systemd machines.  Idempotent: re-run it to
# upgrade in place.
#
#   sudo deploy/install.sh --no-start [--token-file FILE]   install or upgrade, no start
#   sudo deploy/install.sh [--token-file FILE]          install or upgrade, (re)start
#                                                       (refused for a non-BOT account)
#   sudo deploy/install.sh --uninstall [--purge]        remove (keep config/games)
#   deploy/install.sh --root DIR ...                    stage under DIR (CI; no root)
#
# Run with --help for every option.  Layout (see docs/raspberry-pi.md):
#   /opt/pibot/venv                  program (virtualenv; engine built for this CPU)
#   /etc/pibot/config.yml            owner's config, never overwritten
#   /etc/pibot/lichess-token         API token, root-only (0600), via LoadCredential=
#   /var/lib/pibot/games             finished games (PGN)
#   /etc/systemd/system/pibot.service, pibot@.service, pibot-alert[@].service (OnFailure=)
set -euo pipefail

PROG=pibot-install
# The program and config must be readable by the service user whatever root's
# umask is; the token is written under umask 077 on its own.
umask 022
# The service runs without these; a caller's PYTHONPATH would make the checks
# below test some other checkout instead of the installed program.
unset PYTHONPATH PYTHONHOME PYTHONSTARTUP PYTHONUSERBASE
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# procps: /bin/kill, the units' ExecReload= (a minimal Debian has no procps).
APT_PACKAGES=(python3 python3-venv python3-dev build-essential libffi-dev procps)
SERVICE_USER=pibot
NAME_RE='^[A-Za-z0-9_-]+$'
CPU_RE='^[A-Za-z0-9][A-Za-z0-9._+-]*$'

# Options (defaults).
PREFIX=/opt/pibot
ROOT=""
TOKEN_FILE=""
TOKEN_STDIN=0
CONFIG_SRC="$REPO/config.yml"
INSTANCE=""
PYTHON=python3
DO_APT=1
DO_START=1
DO_BUILD=1
NATIVE=1
CPU=""
UNINSTALL=0
PURGE=0

STEP="starting"
HINT=""
WORK=""

usage() {
    cat <<EOF
Usage: sudo $0 [options]

Install or upgrade pibot as a systemd service (re-run to upgrade in place).

  --token-file FILE  read the Lichess API token from FILE
  --token-stdin      read the token from the first line of standard input
                     (else \$LICHESS_BOT_TOKEN, else a hidden prompt on a terminal;
                     an installed token is kept otherwise). Never give the token
                     itself as an argument: others see it in ps
  --config FILE      config installed when none is there yet (default: the
                     repository's config.yml); an existing one is never overwritten
  --instance NAME    install as pibot@NAME: /etc/pibot/NAME.yml, /etc/pibot/NAME.token,
                     games in /var/lib/pibot/NAME/games (one Lichess account each)
  --prefix DIR       program directory (default /opt/pibot; venv in DIR/venv)
  --python PY        Python 3.11+ used for the virtualenv (default python3)
  --portable         build the engine for any CPU of this architecture
                     (default: tuned for this machine, -mcpu=native on the Pi)
  --cpu CPU          build the engine for CPU (gcc -mcpu=CPU on arm64, -march=CPU
                     on x86-64), e.g. cortex-a76 for a Pi 5, cortex-a72 for a Pi 4:
                     for an arm64 root under emulation, where -mcpu=native
                     cannot see the board's CPU
  --no-apt           do not install Debian packages
  --no-build         keep the installed program, refresh config/token/units only
  --no-start         install and enable, but do not (re)start the service;
                     without it, the service is only started for a BOT account
                     (run 'pibot upgrade' first, as the installer says)
  --uninstall        stop and remove the service and the program; keep /etc/pibot
                     and /var/lib/pibot (config, token, games)
  --purge            with --uninstall: also delete /etc/pibot, /var/lib/pibot and
                     the '$SERVICE_USER' user
  --root DIR         install everything under DIR (no apt, no user, no systemctl,
                     no root needed) -- for CI and packaging
  -h, --help         this help
EOF
}

say() { printf '%s: %s\n' "$PROG" "$*"; }
step() { STEP=$1; HINT=${2:-}; say "$STEP"; }
die() {
    printf '%s: error: %s\n' "$PROG" "$1" >&2
    [ -n "${2:-}" ] && printf '%s: fix: %s\n' "$PROG" "$2" >&2
    exit 1
}
on_error() {
    local rc=$? line=$1 cmd=$2
    printf '%s: error: step "%s" failed (exit %s at line %s: %s)\n' \
        "$PROG" "$STEP" "$rc" "$line" "$cmd" >&2
    [ -n "$HINT" ] && printf '%s: fix: %s\n' "$PROG" "$HINT" >&2
    printf '%s: nothing after this step was changed; re-run the installer when fixed\n' \
        "$PROG" >&2
    exit "$rc"
}
cleanup() { if [ -n "$WORK" ]; then rm -rf -- "$WORK"; fi; }
trap 'on_error "$LINENO" "$BASH_COMMAND"' ERR
trap cleanup EXIT

native_cpu() {
    # What gcc makes of -mcpu=native here, e.g. ": cortex-a76". Under qemu-user it
    # reads the host's /proc/cpuinfo and silently builds for a generic CPU: say so.
    local flag cpu
    case $(uname -m) in aarch64|arm64) flag=-mcpu ;; *) flag=-march ;; esac
    cpu=$("$1" "$flag=native" -### -x c -c -o /dev/null /dev/null 2>&1 |
          grep -o -- "$flag=[^ \"']*" | grep -v "=native" | head -n 1 || true)
    if [ -n "$cpu" ]; then
        printf ': %s' "${cpu#*=}"
    else
        printf ': not detected, a generic build; under emulation pass --cpu, e.g. cortex-a76'
    fi
}

need_arg() {
    if [ $# -lt 2 ] || [ -z "$2" ]; then die "$1 needs a value" "see $0 --help"; fi
}

ARGS="$*"
while [ $# -gt 0 ]; do
    case $1 in
        --token-file) need_arg "$@"; TOKEN_FILE=$2; shift ;;
        --token-stdin) TOKEN_STDIN=1 ;;
        --config) need_arg "$@"; CONFIG_SRC=$2; shift ;;
        --instance) need_arg "$@"; INSTANCE=$2; shift ;;
        --prefix) need_arg "$@"; PREFIX=$2; shift ;;
        --python) need_arg "$@"; PYTHON=$2; shift ;;
        --root) need_arg "$@"; ROOT=$2; shift ;;
        --portable) NATIVE=0 ;;
        --cpu) need_arg "$@"; CPU=$2; shift ;;
        --no-apt) DO_APT=0 ;;
        --no-build) DO_BUILD=0 ;;
        --no-start) DO_START=0 ;;
        --uninstall) UNINSTALL=1 ;;
        --purge) PURGE=1 ;;
        -h|--help) usage; exit 0 ;;
        *) die "unknown option '$1'" "see $0 --help" ;;
    esac
    shift
done

# ---------------------------------------------------------------- derived paths
if [ -n "$ROOT" ]; then
    mkdir -p -- "$ROOT" || die "cannot create --root directory $ROOT" "choose a writable path"
    ROOT=$(cd "$ROOT" && pwd)
    DO_APT=0
fi
case $PREFIX in /*) ;; *) die "--prefix must be an absolute path, got '$PREFIX'" \
    "pass e.g. --prefix /opt/pibot" ;; esac
if [ -n "$INSTANCE" ] && ! [[ $INSTANCE =~ $NAME_RE ]]; then
    die "--instance name '$INSTANCE' may only contain letters, digits, '_' and '-'" \
        "pick a simple name such as your bot's account name"
fi
if [ -n "$CPU" ] && ! [[ $CPU =~ $CPU_RE ]]; then
    die "--cpu '$CPU' is not a CPU name" "pass a name gcc knows, e.g. --cpu cortex-a76 (Pi 5)"
fi
if [ -n "$CPU" ] && [ "$NATIVE" = 0 ]; then
    die "--cpu and --portable contradict each other" "pass one of them"
fi
[ "$PURGE" = 1 ] && [ "$UNINSTALL" = 0 ] && die "--purge only goes with --uninstall" \
    "run: $0 --uninstall --purge"
[ -n "$TOKEN_FILE" ] && [ "$TOKEN_STDIN" = 1 ] && die "--token-file and --token-stdin both given" \
    "pass only one of them"

P="$ROOT$PREFIX"                      # where the program goes on this filesystem
VENV="$P/venv"
ETC="$ROOT/etc/pibot"
UNIT_DIR="$ROOT/etc/systemd/system"
STATE="$ROOT/var/lib/pibot"
if [ -n "$INSTANCE" ]; then
    UNIT="pibot@$INSTANCE.service"
    CONFIG="$ETC/$INSTANCE.yml"
    TOKEN="$ETC/$INSTANCE.token"
else
    UNIT="pibot.service"
    CONFIG="$ETC/config.yml"
    TOKEN="$ETC/lichess-token"
fi

# systemctl only when systemd really runs this machine (not in --root, containers).
USE_SYSTEMD=0
if [ -z "$ROOT" ] && [ -d /run/systemd/system ] && command -v systemctl >/dev/null; then
    USE_SYSTEMD=1
fi

if [ -z "$ROOT" ] && [ "$(id -u)" != 0 ]; then
    die "installing a system service needs root" "run: sudo $0 $ARGS"
fi

# ---------------------------------------------------------------- uninstall
all_units() {
    # pibot.service plus every pibot@NAME instance systemd knows about.
    echo pibot.service
    systemctl list-units --all --plain --no-legend 'pibot@*.service' 2>/dev/null |
        awk '{print $1}'
    find /etc/systemd/system -name 'pibot@?*.service' -path '*.wants/*' \
        -printf '%f\n' 2>/dev/null || true
}

if [ "$UNINSTALL" = 1 ]; then
    if [ "$USE_SYSTEMD" = 1 ]; then
        step "stopping and disabling the service"
        for u in $(all_units | sort -u); do
            systemctl disable --now "$u" >/dev/null 2>&1 || true
        done
    fi
    step "removing unit files from $UNIT_DIR"
    rm -f -- "$UNIT_DIR/pibot.service" "$UNIT_DIR/pibot@.service" \
        "$UNIT_DIR/pibot-alert.service" "$UNIT_DIR/pibot-alert@.service"
    [ "$USE_SYSTEMD" = 1 ] && systemctl daemon-reload
    step "removing the program ($VENV)"
    # Only what the installer made: --prefix may well be a shared directory.
    rm -rf -- "$VENV" "$P/share/doc/raspberry-pi.md"
    rmdir -- "$P/share/doc" "$P/share" "$P" 2>/dev/null || true
    if [ "$PURGE" = 1 ]; then
        step "purging config, token and games ($ETC, $STATE)"
        rm -rf -- "$ETC" "$STATE"
        if [ -z "$ROOT" ] && getent passwd "$SERVICE_USER" >/dev/null; then
            step "removing the '$SERVICE_USER' user"
            userdel "$SERVICE_USER" || say "could not remove user '$SERVICE_USER' (still in use?)"
        fi
        say "done: pibot is gone"
    else
        say "done: kept $ETC (config, token) and $STATE (games); add --purge to delete them"
    fi
    exit 0
fi

# ---------------------------------------------------------------- checks
step "checking the source tree ($REPO)"
for f in pyproject.toml build_engine.py constraints.txt bot/__init__.py systemd/pibot.service \
         systemd/pibot@.service systemd/pibot-alert.service systemd/pibot-alert@.service \
         deploy/confcheck.py; do
    [ -e "$REPO/$f" ] || die "$REPO/$f is missing: this does not look like a pibot checkout" \
        "copy the whole pibot tree to this machine (README.md, 'On the Raspberry Pi') and run its deploy/install.sh"
done
[ -f "$CONFIG_SRC" ] || die "config to install ($CONFIG_SRC) not found" \
    "pass --config FILE, or restore config.yml in the checkout (git checkout config.yml)"

# The token is needed before the long build, so a missing one fails fast.
TOKEN_SRC=""
NEW_TOKEN=""
if [ -n "$TOKEN_FILE" ]; then
    [ -r "$TOKEN_FILE" ] || die "--token-file $TOKEN_FILE cannot be read" \
        "check the path, or pipe the token in with --token-stdin instead"
    NEW_TOKEN=$(<"$TOKEN_FILE")
    TOKEN_SRC="--token-file $TOKEN_FILE"
elif [ "$TOKEN_STDIN" = 1 ]; then
    # One line; a missing final newline is fine (printf lip_... | install.sh).
    IFS= read -r NEW_TOKEN || true
    TOKEN_SRC="--token-stdin"
elif [ -n "${LICHESS_BOT_TOKEN:-}" ]; then
    NEW_TOKEN=$LICHESS_BOT_TOKEN
    TOKEN_SRC="\$LICHESS_BOT_TOKEN"
elif [ -s "$TOKEN" ]; then
    TOKEN_SRC=""        # keep the installed token
elif [ -t 0 ]; then
    step "reading the token" "paste the token and press Enter, or use --token-file FILE"
    say "no token installed yet: create one at https://lichess.org/account/oauth/token/create?scopes[]=bot:play"
    read -rsp "Lichess API token (input hidden): " NEW_TOKEN
    echo >&2
    TOKEN_SRC="the prompt"
else
    die "no Lichess token given and none installed at $TOKEN" \
        "pass --token-file FILE or --token-stdin, or run on a terminal to be asked (token with the bot:play scope)"
fi
# Trim surrounding whitespace (a pasted newline); anything inside is left for the
# validation below to refuse.
NEW_TOKEN=${NEW_TOKEN#"${NEW_TOKEN%%[![:space:]]*}"}
NEW_TOKEN=${NEW_TOKEN%"${NEW_TOKEN##*[![:space:]]}"}
if [ -n "$TOKEN_SRC" ] && [ -z "$NEW_TOKEN" ]; then
    die "the token from $TOKEN_SRC is empty" "put the token itself (lip_...) there"
fi

# ---------------------------------------------------------------- the system
# Debian 12 and 13 take the same packages and unit (systemd 252 and 257); the
# release is named so that a report from an owner says which one it was.
if [ -z "$ROOT" ] && [ -r /etc/os-release ]; then
    os_name=$(sed -n 's/^PRETTY_NAME=//p' /etc/os-release | tr -d '"')
    os_code=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release | tr -d '"')
    [ -e /etc/rpi-issue ] && os_name="Raspberry Pi OS, $os_name"
    case $os_code in
        bookworm|trixie) say "system: ${os_name:-unknown}, $(uname -m)" ;;
        *) say "system: ${os_name:-unknown}, $(uname -m) (tested on Debian and Raspberry Pi OS 12 \"bookworm\" and 13 \"trixie\")" ;;
    esac
fi

# ---------------------------------------------------------------- packages
if [ "$DO_APT" = 1 ] && [ "$DO_BUILD" = 1 ]; then
    if command -v apt-get >/dev/null && command -v dpkg-query >/dev/null; then
        missing=()
        for pkg in "${APT_PACKAGES[@]}"; do
            dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" ||
                missing+=("$pkg")
        done
        if [ ${#missing[@]} -gt 0 ]; then
            step "installing Debian packages: ${missing[*]}" \
                "check the network, then run: sudo apt-get update && sudo apt-get install ${missing[*]}"
            DEBIAN_FRONTEND=noninteractive apt-get update -q
            DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
        else
            say "Debian packages already present: ${APT_PACKAGES[*]}"
        fi
    else
        say "not a Debian system: make sure Python 3.11+ with venv, headers, a C compiler" \
            "and libffi headers are installed (or pass --no-apt to silence this)"
    fi
fi

# ---------------------------------------------------------------- service user
if [ -z "$ROOT" ]; then
    if getent passwd "$SERVICE_USER" >/dev/null; then
        say "system user '$SERVICE_USER' exists"
    else
        step "creating system user '$SERVICE_USER' (no login, no home)" \
            "create it by hand: useradd --system --user-group --no-create-home --shell /usr/sbin/nologin $SERVICE_USER"
        useradd --system --user-group --no-create-home --home-dir /nonexistent \
            --shell /usr/sbin/nologin --comment "pibot Lichess bot" "$SERVICE_USER"
    fi
fi

# Programs are checked by running them as the service will (--root: as ourselves).
as_service=()
who=""
if [ -z "$ROOT" ]; then
    as_service=(runuser -u "$SERVICE_USER" --)
    who=" as user '$SERVICE_USER'"
fi

# ---------------------------------------------------------------- program
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pibot-install.XXXXXX")
if [ "$DO_BUILD" = 1 ]; then
    step "checking $PYTHON" "install Python 3.11+ (sudo apt-get install python3 python3-venv) or pass --python PY"
    "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' ||
        die "$PYTHON is older than 3.11 ($("$PYTHON" -V 2>&1))" \
            "use Raspberry Pi OS 13 (trixie, Python 3.13) or 12 (bookworm, Python 3.11), or pass --python /path/to/python3.11"
    # The venv links to this interpreter: one under /root (pyenv...) would build
    # fine and then fail in the service.
    py_exe=$("$PYTHON" -c 'import sys; print(sys.executable)')
    if ! "${as_service[@]}" "$py_exe" -c '' 2>/dev/null; then
        die "$py_exe cannot be run$who" \
            "use a system-wide Python: sudo $0 --python /usr/bin/python3"
    fi

    # The compiler the build will use (Debian: aarch64-linux-gnu-gcc on a Pi).
    # Checked before the venv and the long build, so a wrong --cpu fails fast.
    cc=$("$py_exe" -c 'import sysconfig; print(sysconfig.get_config_var("CC") or "cc")')
    cc=${CC:-$cc}
    cc=${cc%% *}
    command -v "$cc" >/dev/null || die "the C compiler $cc is not installed" \
        "sudo apt-get install ${APT_PACKAGES[*]}"
    if [ -n "$CPU" ]; then
        cpu_flag="-mcpu=$CPU"
        case $(uname -m) in x86_64|amd64|i?86) cpu_flag="-march=$CPU" ;; esac
        step "checking that $cc knows CPU '$CPU' ($cpu_flag)" \
            "pass a CPU named in gcc's 'valid arguments' above, e.g. --cpu cortex-a76 (Pi 5)"
        "$cc" "$cpu_flag" -x c -c -o /dev/null /dev/null
        build_env=(PIBOT_NATIVE=0 PIBOT_CPU="$CPU")
        build_desc="for CPU $CPU given by --cpu ($(uname -m), $cpu_flag)"
    elif [ "$NATIVE" = 1 ]; then
        build_env=(PIBOT_NATIVE=1)
        build_desc="tuned for this CPU ($(uname -m), native$(native_cpu "$cc"))"
    else
        build_env=(PIBOT_NATIVE=0)
        build_desc="portable ($(uname -m))"
    fi

    venv_py=$("${as_service[@]}" "$VENV/bin/python" -c 'import sys; print(sys._base_executable)' \
        2>/dev/null || true)
    if [ -n "$venv_py" ] && [ "$venv_py" -ef "$py_exe" ]; then
        say "virtualenv $VENV exists (upgrading in place)"
    else
        # Missing, broken (Python upgraded by the OS?) or made from another Python.
        step "creating virtualenv $VENV with $py_exe" \
            "install the venv module: sudo apt-get install python3-venv"
        rm -rf -- "$VENV"
        mkdir -p -- "$P"
        "$py_exe" -m venv "$VENV"
    fi

    # Build from a copy: pip/setuptools write build/ and *.egg-info next to the
    # sources, which must not end up root-owned in the owner's checkout. A bot run
    # from the checkout keeps its records there (pibot.db and its WAL, which change
    # under tar's feet): state, not source, so not copied.
    step "copying the source tree to a build directory"
    mkdir "$WORK/src"
    tar -C "$REPO" --exclude=.git --exclude=build --exclude=dist --exclude='*.egg-info' \
        --exclude=venv --exclude=.venv --exclude='.venv-*' --exclude=__pycache__ --exclude='*.so' \
        --exclude=engine_c/out --exclude=.pytest_cache --exclude=.ruff_cache \
        --exclude=.mypy_cache --exclude='*.db' --exclude='*.db-wal' --exclude='*.db-shm' \
        --exclude='*.db-journal' -cf - . |
        tar -C "$WORK/src" -xf -

    step "building the engine and installing pibot into $VENV, $build_desc (1-3 min)" \
        "read the build log above; a missing compiler or header means: sudo apt-get install ${APT_PACKAGES[*]}"
    # --use-pep517: dependencies published only as an sdist (chess has no wheel
    # on PyPI) are built into wheels, not put in with the 'setup.py install'
    # that bookworm's pip 23.0 falls back to and deprecates. It also builds in
    # an isolated environment with pyproject.toml's build requirements: a venv
    # of trixie's Python 3.13 has no setuptools, which cffi needs to compile.
    if ! env "${build_env[@]}" "$VENV/bin/python" -m pip install --disable-pip-version-check \
            --no-input --progress-bar off --use-pep517 --upgrade \
            -c "$WORK/src/constraints.txt" "$WORK/src" >"$WORK/pip.log" 2>&1; then
        tail -n 40 "$WORK/pip.log" >&2
        false
    fi
else
    [ -x "$VENV/bin/pibot" ] || die "--no-build, but no program is installed at $VENV" \
        "run once without --no-build"
    say "keeping the installed program (--no-build)"
fi

step "checking the installed program" \
    "the build finished but pibot does not run; re-run without --no-build, or report a bug"
if ! "${as_service[@]}" "$VENV/bin/pibot" version >"$WORK/version" 2>&1; then
    cat "$WORK/version" >&2
    die "$VENV/bin/pibot does not run$who" \
        "reinstall with a system Python: sudo $0 --uninstall && sudo $0 --python /usr/bin/python3"
fi
sed "s/^/$PROG:   /" "$WORK/version"

# ---------------------------------------------------------------- config
step "installing config to $CONFIG" "check that $ETC is writable"
mkdir -p -- "$ETC"
chmod 0755 "$ETC"
install -m 0644 "$CONFIG_SRC" "$ETC/config.yml.shipped"
if [ -e "$CONFIG" ]; then
    say "keeping your $CONFIG (shipped version for comparison: $ETC/config.yml.shipped)"
    fresh=0
else
    install -m 0644 "$CONFIG_SRC" "$CONFIG"
    say "installed $CONFIG from $CONFIG_SRC (edit it, then: systemctl reload ${UNIT%.service})"
    fresh=1
fi
# Validate with the new program's own loader: the service must not fail on start.
if ! new_keys=$("$VENV/bin/python" "$REPO/deploy/confcheck.py" config \
        "$CONFIG_SRC" "$CONFIG" 2>"$WORK/confcheck.err"); then
    die "$CONFIG is not valid for this version: $(cat "$WORK/confcheck.err")" \
        "edit $CONFIG (compare with $ETC/config.yml.shipped), then re-run the installer"
fi
if [ "$fresh" = 0 ] && [ -n "$new_keys" ]; then
    say "keys in the shipped config that yours does not set (their defaults apply):"
    while IFS= read -r key; do say "  - $key"; done <<<"$new_keys"
fi

# ---------------------------------------------------------------- token
if [ -n "$TOKEN_SRC" ]; then
    step "storing the token from $TOKEN_SRC in $TOKEN (root-only)"
    tmp_token="$TOKEN.new"
    (umask 077 && printf '%s\n' "$NEW_TOKEN" >"$tmp_token")
    NEW_TOKEN=""
    if ! "$VENV/bin/python" "$REPO/deploy/confcheck.py" token "$tmp_token" \
            2>"$WORK/token.err"; then
        rm -f -- "$tmp_token"
        die "the token from $TOKEN_SRC is not valid: $(cat "$WORK/token.err")" \
            "copy the token exactly as Lichess shows it (lip_...), nothing else"
    fi
    [ -z "$ROOT" ] && chown root:root "$tmp_token"
    chmod 0600 "$tmp_token"
    mv -f -- "$tmp_token" "$TOKEN"
else
    say "keeping the installed token $TOKEN"
    chmod 0600 "$TOKEN"
fi

# ---------------------------------------------------------------- units
step "installing systemd units to $UNIT_DIR" "check that $UNIT_DIR is writable"
mkdir -p -- "$UNIT_DIR" "$P/share/doc"
# pibot-alert[@].service: the services' OnFailure= (pibot alert --failing).
for u in pibot.service pibot@.service pibot-alert.service pibot-alert@.service; do
    # The units name /opt/pibot; --prefix moves the program elsewhere.
    sed "s#/opt/pibot/#$PREFIX/#g" "$REPO/systemd/$u" >"$UNIT_DIR/$u.new"
    chmod 0644 "$UNIT_DIR/$u.new"
    mv -f -- "$UNIT_DIR/$u.new" "$UNIT_DIR/$u"
done
if [ -f "$REPO/docs/raspberry-pi.md" ]; then
    install -m 0644 "$REPO/docs/raspberry-pi.md" "$P/share/doc/raspberry-pi.md"
fi

# ---------------------------------------------------------------- account
# A non-BOT account makes the service exit 6 at once (a start that can only fail),
# so ask Lichess first, with the installed config and token; the token file is
# named by path, never passed as an argument.
if [ -n "$ROOT" ]; then sudo_=""; else sudo_="sudo "; fi
if [ "$USE_SYSTEMD" = 1 ]; then
    then_start="sudo systemctl start ${UNIT%.service}"
else
    then_start="re-run this installer"
fi
if [ "$DO_START" = 1 ]; then
    step "asking Lichess (url in $CONFIG) whether the account is a BOT account"
    check_rc=0
    "$VENV/bin/pibot" upgrade --check --config "$CONFIG" --token-file "$TOKEN" \
        </dev/null >"$WORK/account" 2>&1 || check_rc=$?
    case $check_rc in
        0) sed "s/^/$PROG:   /" "$WORK/account" ;;
        3)
            printf '%s: not starting %s: the Lichess account is not a BOT account yet; run: %s, then: %s\n' \
                "$PROG" "$UNIT" \
                "${sudo_}$VENV/bin/pibot upgrade --config $CONFIG --token-file $TOKEN" \
                "$then_start" >&2
            exit 1 ;;
        6) die "not starting $UNIT: $(tail -n1 "$WORK/account")" "fix that, then: $then_start" ;;
        *) say "could not ask Lichess ($(tail -n1 "$WORK/account")); starting anyway: the service retries" ;;
    esac
fi

# ---------------------------------------------------------------- start
if [ "$USE_SYSTEMD" = 1 ]; then
    step "enabling $UNIT" "see: systemctl status $UNIT"
    systemctl daemon-reload
    systemctl enable "$UNIT" >/dev/null 2>&1
    if [ "$DO_START" = 1 ]; then
        step "(re)starting $UNIT (waits until the bot is connected)" \
            "see why with: journalctl -u $UNIT -n 50 --no-pager"
        systemctl restart "$UNIT"
        say "$UNIT is $(systemctl is-active "$UNIT" || true)"
    else
        say "not starting (--no-start): sudo systemctl start $UNIT"
    fi
    say "done. Logs: journalctl -u $UNIT -f   Config: $CONFIG   Games: /var/lib/pibot/"
    say "owner commands (pibot challenge, queue, arena) talk to the service: as root, or add your user to its group: sudo usermod -aG $SERVICE_USER \$USER"
elif [ -n "$ROOT" ]; then
    say "done: staged under $ROOT (no systemctl in --root mode)"
else
    say "done, but systemd is not running here (container?), so nothing was started;"
    say "run the bot by hand: LICHESS_BOT_TOKEN=... $VENV/bin/pibot run --config $CONFIG"
fi
