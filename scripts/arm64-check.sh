#!/usr/bin/env bash
# shellcheck disable=SC2317  # the step functions are called through run_step
# The Raspberry Pi owner's path on arm64, run here under qemu-user: an arm64
# Debian root -- 13 "trixie" (the userland of today's Raspberry Pi OS, 64-bit)
# or 12 "bookworm" (Raspberry Pi OS 12) -- in which this checkout is installed
# with deploy/install.sh and then checked:
#
#   install   deploy/install.sh as on a Pi (root, service user, venv, pip builds
#             the cffi engine), --cpu cortex-a76 (-mcpu=native cannot see the
#             Pi 5's CPU under emulation), --no-start (no systemd in a chroot);
#             qemu emulates that CPU too (QEMU_CPU)
#   version   pibot version: aarch64, the release's Python, magic slider index
#   units     the installed units under the release's systemd: systemd-analyze
#             verify (no output) and security --offline (exposure at most 2.0)
#   perft     pibot perft on tests/data/standard.epd (each position to the
#             deepest depth of at most PERFT_MAX_NODES nodes)
#   bench     pibot bench prints bench/signature.txt's node count (as on x86)
#   pytest    the tests marked arm64 (engine binding, config, machine sizing with
#             the Pi fixtures and the root's own /proc, status file, emulator),
#             run against the installed program
#   pages16k  16 KiB pages as on the Pi 5 kernel (QEMU_PAGESIZE): the page size
#             pibot sees, the bench signature, page-size/engine/machine tests
#   demo      pibot demo plays a full game against the emulator (as user pibot)
#
# Usage: sudo scripts/arm64-check.sh [--release trixie|bookworm]  (default trixie:
#        what Raspberry Pi OS is today; bookworm for the Pis already on 12)
#        (root: chroot, mounts, debootstrap)
# Each release's root is built once (debootstrap, ~6-15 min) and cached outside
# the tree in ${XDG_CACHE_HOME:-~/.cache}/pibot-arm64/RELEASE; every run works on
# a throw-away overlay of it, so each one installs into a fresh system.
# Environment: PIBOT_ARM64_CACHE (cache directory), PIBOT_ARM64_MIRROR (Debian
# mirror; default: the one apt uses here), PIBOT_ARM64_CPU (the CPU the engine
# is built for and qemu emulates, default cortex-a76),
# PIBOT_ARM64_TC (demo time control, default 180+2), PIBOT_ARM64_KEEP=1 (keep
# the overlay and its mounts' directory for inspection).
# Prints one line per step with its time, then one summary line; exits non-zero
# when any step fails (2 and one line for bad input). See docs/raspberry-pi.md
# ("Checked on arm64").
set -euo pipefail

PROG=arm64-check
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${PIBOT_ARM64_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pibot-arm64}
STAMP=.pibot-arm64-root
CPU=${PIBOT_ARM64_CPU:-cortex-a76}
DEMO_TC=${PIBOT_ARM64_TC:-180+2}
PERFT_MAX_NODES=5000000
MAX_EXPOSURE=2.0   # systemd-analyze security, as tests/test_systemd.py
# The installer's Debian packages (deploy/install.sh APT_PACKAGES, so that
# debootstrap proves each name exists in the release), what an owner's Pi has
# (git, certificates, systemd) and the check uses (systemd-analyze); a root
# built with another list is rebuilt.
APT_LINE=$(sed -n 's/^APT_PACKAGES=(\(.*\))$/\1/p' "$REPO/deploy/install.sh")
[ -n "$APT_LINE" ] || { echo "$PROG: error: no APT_PACKAGES=(...) line in deploy/install.sh" >&2; exit 2; }
PACKAGES="${APT_LINE// /,},git,ca-certificates,systemd"
TOKEN=lip_Arm64CheckNotARealToken0123   # the installer wants one; never sent anywhere
SRC_IN_ROOT=/home/pi/pibot
TESTS_IN_ROOT=/home/pi/pibot-tests

say() { printf '%s: %s\n' "$PROG" "$*"; }
die() { printf '%s: error: %s\n' "$PROG" "$1" >&2; [ -n "${2:-}" ] && printf '%s: fix: %s\n' "$PROG" "$2" >&2; exit 2; }

usage() {
    cat <<EOF
Usage: sudo $0 [--release trixie|bookworm]

Installs this checkout with deploy/install.sh in an arm64 Debian root under
qemu-user and checks it: version, units, perft, bench, pytest -m arm64, 16 KiB
pages, a demo game.

  --release R   trixie (Debian 13, Raspberry Pi OS 13, today's download; the
                default) or bookworm (Debian 12, Raspberry Pi OS 12)
  -h, --help    this help
EOF
}

RELEASE=trixie
while [ $# -gt 0 ]; do
    case $1 in
        --release) [ $# -ge 2 ] || die "--release needs a value: trixie or bookworm"
                   RELEASE=$2; shift ;;
        --release=*) RELEASE=${1#--release=} ;;
        -h|--help) usage; exit 0 ;;
        *) die "unknown argument '$1' (usage: $0 [--release trixie|bookworm])" ;;
    esac
    shift
done
# The release: its Debian version and the Python it ships (pibot version says it).
case $RELEASE in
    bookworm) DEBIAN=12 PYTHON_MM=3.11 ;;
    trixie) DEBIAN=13 PYTHON_MM=3.13 ;;
    *) die "unknown release '$RELEASE': pass --release trixie (Debian 13) or --release bookworm (Debian 12)" ;;
esac
BASE=$CACHE/$RELEASE
DISTRO="arm64 Debian $DEBIAN ($RELEASE)"

[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot, mounts)" "run: sudo $0 $*"
[ "$(uname -m)" = x86_64 ] || [ "$(uname -m)" = aarch64 ] ||
    die "runs on x86-64 (under qemu) or aarch64 hosts, not $(uname -m)"

# ------------------------------------------------------------------ timing
RESULTS=()
FAILED=0
T0=$SECONDS
now() { date -u +%H:%M:%S; }
# run_step NAME CMD...: runs CMD, prints its time and records ok/FAIL. Under
# `||` errexit is off inside CMD, so the step functions return their failures.
run_step() {
    local name=$1 start=$SECONDS rc=0
    shift
    say "[$(now)] step $name: start"
    "$@" || rc=$?
    local took=$((SECONDS - start))
    if [ "$rc" = 0 ]; then
        say "[$(now)] step $name: ok (${took} s)"
        RESULTS+=("$name ok ${took}s")
    else
        say "[$(now)] step $name: FAILED (exit $rc, ${took} s)"
        RESULTS+=("$name FAIL ${took}s")
        FAILED=1
    fi
    return "$rc"
}
skip_step() { say "step $1: skipped ($2)"; RESULTS+=("$1 skipped"); FAILED=1; }
summary() {
    local verdict=PASS
    [ "$FAILED" = 1 ] && verdict=FAIL
    local line
    line=$(printf '%s, ' "${RESULTS[@]}")
    say "$verdict in $((SECONDS - T0)) s on $(git -C "$REPO" describe --always --dirty 2>/dev/null ||
        echo '?'), $RELEASE${VERSIONS:+ ($VERSIONS)}: ${line%, }"
}

# ------------------------------------------------------------------ host tools
host_tools() {
    local missing=()
    command -v debootstrap >/dev/null || missing+=(debootstrap)
    [ -x /usr/bin/qemu-aarch64-static ] || [ "$(uname -m)" = aarch64 ] ||
        missing+=(qemu-user-static)
    if [ ${#missing[@]} -gt 0 ]; then
        say "apt-get install ${missing[*]}"
        DEBIAN_FRONTEND=noninteractive apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
            "${missing[@]}" >/dev/null
    fi
    [ "$(uname -m)" = aarch64 ] && return 0
    # aarch64 ELF files run through qemu only with a binfmt_misc handler; in a
    # container no service registers it. The F flag (in Debian's line) opens the
    # interpreter now, so it also works inside the chroot.
    local bm=/proc/sys/fs/binfmt_misc
    if [ ! -e "$bm/qemu-aarch64" ]; then
        [ -e "$bm/register" ] || mount -t binfmt_misc binfmt_misc "$bm"
        grep -v '^#' /usr/lib/binfmt.d/qemu-aarch64.conf | head -n 1 >"$bm/register"
        say "registered the qemu-aarch64 binfmt handler"
    fi
    grep -qx enabled "$bm/qemu-aarch64" ||
        die "the qemu-aarch64 binfmt handler is disabled" "echo 1 > $bm/qemu-aarch64"
    # qemu emulates the board's core, not its default 'max' CPU: trixie builds
    # every program with pointer authentication (-mbranch-protection), which
    # 'max' emulates at great cost (Python starts 3-5x slower) and the Pi 5's
    # Cortex-A76 does not have (the instructions are no-ops there, as here).
    local cpus   # '-cpu help' exits 1
    cpus=$(qemu-aarch64-static -cpu help 2>&1 || true)
    if tr -s ' ' '\n' <<<"$cpus" | grep -qx -- "$CPU"; then
        export QEMU_CPU=$CPU
    else
        say "qemu does not know CPU $CPU: emulating its 'max' CPU (slower on trixie)"
    fi
}

# The Debian mirror apt uses on this machine (deb822 .sources or sources.list).
debian_mirror() {
    local uri
    uri=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
          awk '/^URIs:/ {for (i = 2; i <= NF; i++) print $i}' | grep -v -- '-security' |
          grep -m 1 '/debian/\?$' || true)
    [ -n "$uri" ] || uri=$(grep -hs '^deb ' /etc/apt/sources.list |
          awk '{print $2}' | grep -v -- '-security' | grep -m 1 '/debian/\?$' || true)
    echo "${uri:-http://deb.debian.org/debian}"
}

# ------------------------------------------------------------------ the root
root_ready() { [ -f "$BASE/$STAMP" ] && grep -qx "packages=$PACKAGES" "$BASE/$STAMP"; }

build_root() {
    if root_ready; then
        say "reusing the arm64 root $BASE (built $(sed -n 's/^built=//p' "$BASE/$STAMP"))"
        return 0
    fi
    local mirror=${PIBOT_ARM64_MIRROR:-$(debian_mirror)}
    local log=$CACHE/debootstrap-$RELEASE.log
    say "building an $DISTRO root in $BASE from $mirror (once; ~6-15 min; log: $log)"
    rm -rf -- "$BASE.tmp" "$BASE"
    mkdir -p -- "$CACHE"
    debootstrap --arch=arm64 --variant=minbase --include="$PACKAGES" "$RELEASE" \
        "$BASE.tmp" "$mirror" >"$log" 2>&1 ||
        { tail -n 20 "$log" >&2; return 1; }
    printf 'packages=%s\nmirror=%s\nbuilt=%s\n' "$PACKAGES" "$mirror" \
        "$(date -u +%Y-%m-%dT%H:%MZ)" >"$BASE.tmp/$STAMP"
    mv -- "$BASE.tmp" "$BASE"
}

# ------------------------------------------------------------------ the overlay
RUN=""
W=""
MOUNTS=()
cleanup() {
    local i
    for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
        umount -R -l -- "${MOUNTS[i]}" 2>/dev/null || true
    done
    if [ -n "$RUN" ] && [ "${PIBOT_ARM64_KEEP:-0}" != 1 ]; then rm -rf -- "$RUN"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mount_at() { mount "$@"; MOUNTS+=("${!#}"); }

open_overlay() {
    RUN=$(mktemp -d "$CACHE/run.XXXXXX")
    W=$RUN/root
    mkdir -p -- "$RUN/upper" "$RUN/work" "$W"
    mount_at -t overlay overlay \
        -o "lowerdir=$BASE,upperdir=$RUN/upper,workdir=$RUN/work" "$W"
    mount_at -t proc proc "$W/proc"
    mount_at -t sysfs -o ro sysfs "$W/sys"
    mount_at --rbind /dev "$W/dev"
    mount --make-rslave "$W/dev"
    mount_at -t tmpfs tmpfs "$W/tmp"
    # A fresh /run as at boot; no /run/systemd/system, so the installer sees
    # that systemd does not run here.
    mount_at -t tmpfs tmpfs "$W/run"
    cp -L /etc/resolv.conf "$W/etc/resolv.conf"
    # pip reaches the registry only with this machine's pip configuration: its
    # config files, the certificate PIP_CERT names and the PIP_* variables.
    local f
    for f in /etc/pip.conf /etc/xdg/pip "$HOME/.config/pip" "$HOME/.pip" \
             "${PIP_CERT:-}" "${PIP_CONFIG_FILE:-}"; do
        if [ -z "$f" ] || [ ! -e "$f" ]; then continue; fi
        case $f in "$HOME"/*) dest=/root/${f#"$HOME"/} ;; *) dest=$f ;; esac
        mkdir -p -- "$W$(dirname "$dest")"
        cp -a -L -- "$f" "$W$(dirname "$dest")/"
    done
    # The checkout, as an owner's clone (no build products of this host).
    mkdir -p -- "$W$SRC_IN_ROOT"
    tar -C "$REPO" --exclude=.git --exclude=build --exclude=dist --exclude='*.egg-info' \
        --exclude=venv --exclude=.venv --exclude='.venv-*' --exclude=__pycache__ --exclude='*.so' \
        --exclude=engine_c/out --exclude=.pytest_cache --exclude=.ruff_cache \
        --exclude=.mypy_cache -cf - . |
        tar -C "$W$SRC_IN_ROOT" -xf -
}

# in_root CMD: bash -c CMD in the root, with a clean environment plus PIP_*
# and EXTRA_ENV.
EXTRA_ENV=()
in_root() {
    local env=(HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
               LANG=C.UTF-8 TERM=dumb ${QEMU_CPU:+"QEMU_CPU=$QEMU_CPU"} "${EXTRA_ENV[@]}")
    local v
    while IFS= read -r v; do env+=("$v=${!v}"); done < <(compgen -e | grep '^PIP_' || true)
    chroot "$W" /usr/bin/env -i "${env[@]}" /bin/bash -euo pipefail -c "$1"
}

# ------------------------------------------------------------------ the checks
PIBOT=/opt/pibot/venv/bin/pibot
VERSIONS=""

# What the root ships that matters here (in the summary line too).
root_versions() {
    VERSIONS=$(in_root "printf 'Python %s, gcc %s, systemd %s' \
        \"\$(python3 -c 'import platform; print(platform.python_version())')\" \
        \"\$(gcc -dumpfullversion)\" \
        \"\$(dpkg-query -W -f='\${Version}' systemd)\"" 2>/dev/null || echo "versions unknown")
    say "$DISTRO: $VERSIONS; qemu CPU ${QEMU_CPU:-max}"
}

step_install() {
    in_root "uname -m; python3 -V; cd $SRC_IN_ROOT &&
        LICHESS_BOT_TOKEN=$TOKEN deploy/install.sh --cpu $CPU --no-start" 2>&1 |
        tee "$RUN/install.log" || return 1
    grep -q -- "-mcpu=$CPU" "$RUN/install.log" ||
        { say "the installer did not say it builds with -mcpu=$CPU"; return 1; }
    # What pip installed for aarch64: each wheel's tags (linux_aarch64: built
    # here); an .egg-info is a legacy 'setup.py install' (deploy/install.sh).
    in_root "cd /opt/pibot/venv/lib/python3*/site-packages &&
        for w in *.dist-info/WHEEL; do
            printf '  %s: %s\n' \"\${w%%.dist-info/WHEEL}\" \"\$(sed -n 's/^Tag: //p' \"\$w\" | paste -s -d ' ')\"
        done
        for e in *.egg-info; do [ -e \"\$e\" ] && echo \"  \${e%.egg-info}: setup.py install\"; done; true"
}

step_version() {
    in_root "$PIBOT version" | tee "$RUN/version.log" || return 1
    grep -q '^engine slider index: magic$' "$RUN/version.log" &&
        grep -qF "platform: aarch64 Linux, Python $PYTHON_MM." "$RUN/version.log"
}

step_units() {
    # The units as installed, under this release's systemd (bookworm 252, trixie
    # 257): verify prints nothing for a unit it fully accepts (an unknown or
    # deprecated directive is a warning line), and security --offline rates the
    # sandbox. The template is checked as an instance, as systemd loads it.
    local rc=0
    in_root "mkdir -p /tmp/units && cd /etc/systemd/system &&
        cp pibot@.service /tmp/units/pibot@check.service
        rc=0
        out=\$(systemd-analyze verify pibot.service pibot-alert.service \
              /tmp/units/pibot@check.service 2>&1) || rc=1
        if [ \$rc = 0 ] && [ -z \"\$out\" ]; then
            echo 'systemd-analyze verify: no output'
        else
            echo \"systemd-analyze verify (exit \$rc): \$out\"; rc=1
        fi
        for u in pibot.service /tmp/units/pibot@check.service; do
            systemd-analyze security --offline=true \"\$u\" 2>&1 | grep 'Overall exposure'
        done
        exit \$rc" | tee "$RUN/units.log" || rc=1
    local level
    while read -r level; do
        awk -v l="$level" -v m="$MAX_EXPOSURE" 'BEGIN { exit !(l <= m) }' ||
            { say "exposure $level is above $MAX_EXPOSURE"; rc=1; }
    done < <(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' "$RUN/units.log")
    [ "$(grep -c 'Overall exposure' "$RUN/units.log")" = 2 ] || rc=1
    return "$rc"
}

step_perft() {
    local fen counts d n want depth got bad=0
    while IFS=';' read -r fen counts; do
        case $fen in ''|'#'*) continue ;; esac
        fen=${fen% }
        depth=0 want=0
        # shellcheck disable=SC2086  # " ;D1 20 ;D2 400" -> D1 20 D2 400
        set -- ${counts//;/ }
        while [ $# -ge 2 ]; do
            d=${1#D} n=$2
            shift 2
            if [ "$n" -le "$PERFT_MAX_NODES" ] && [ "$d" -gt "$depth" ]; then depth=$d want=$n; fi
        done
        got=$(in_root "$PIBOT perft $depth --fen '$fen'" | sed -n 's/^Nodes searched: //p')
        if [ "$got" = "$want" ]; then
            say "  perft $depth = $got ok: $fen"
        else
            say "  perft $depth = ${got:-nothing}, expected $want: $fen"
            bad=1
        fi
    done <"$REPO/tests/data/standard.epd"
    return "$bad"
}

step_bench() {
    local want got
    want=$(grep -v '^#' "$REPO/bench/signature.txt" | grep -m 1 '[0-9]')
    in_root "$PIBOT bench" | tee "$RUN/bench.log" || return 1
    got=$(sed -n 's/^Nodes searched: //p' "$RUN/bench.log")
    [ "$got" = "$want" ] || { say "bench signature $got, bench/signature.txt says $want"; return 1; }
    say "  bench signature $got = bench/signature.txt"
}

step_pytest() {
    # The tests run against the installed program: a copy of the checkout
    # without bot/ (which would shadow it), pytest in a venv of its own that
    # sees the installed venv's packages (a .pth line), so /opt/pibot/venv
    # stays as the installer left it; berserk (the emulator tests' reference
    # client) is a test-only package. Only the marked modules are collected
    # (others import numpy, not installed here).
    in_root "rm -rf $TESTS_IN_ROOT && cp -a $SRC_IN_ROOT $TESTS_IN_ROOT &&
        rm -rf $TESTS_IN_ROOT/bot &&
        python3 -m venv /opt/pibot-test &&
        site=\$(/opt/pibot/venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()[\"purelib\"])') &&
        echo \"\$site\" >\"\$(/opt/pibot-test/bin/python -c 'import sysconfig; print(sysconfig.get_paths()[\"purelib\"])')/pibot-installed.pth\" &&
        { /opt/pibot-test/bin/python -m pip install --progress-bar off \
              -c $TESTS_IN_ROOT/constraints.txt pytest berserk >/tmp/pip.log 2>&1 ||
          { tail -n 30 /tmp/pip.log; false; }; } &&
        cd $TESTS_IN_ROOT &&
        /opt/pibot-test/bin/python -c 'import bot, bot._engine; print(\"testing\", bot.__file__)' &&
        /opt/pibot-test/bin/python -m pytest -q -p no:cacheprovider -m arm64 --durations=5 \
            \$(grep -l '^pytestmark = pytest.mark.arm64' tests/test_*.py)"
}

step_pages16k() {
    # The Pi 5 kernel uses 16 KiB pages. qemu-user hands them to the guest with
    # QEMU_PAGESIZE (the page size sysconf reports, mmap granularity); the
    # transparent huge page size in /sys stays the host's. The engine's tables
    # are mapped and aligned by page size (engine_c/tt.c), so: the bench
    # signature, and the page-size, engine and machine tests once more.
    local want got rc=0
    want=$(grep -v '^#' "$REPO/bench/signature.txt" | grep -m 1 '[0-9]')
    EXTRA_ENV=(QEMU_PAGESIZE=16384)
    in_root "cd $TESTS_IN_ROOT &&
        /opt/pibot-test/bin/python -c 'from bot.host import platform_info as pi
ps = pi.report()[\"page_size\"]
print(\"page size seen by pibot:\", ps)
assert ps == 16384' &&
        $PIBOT bench >$TESTS_IN_ROOT/bench16k.log &&
        /opt/pibot-test/bin/python -m pytest -q -p no:cacheprovider -m arm64 \
            tests/test_platform.py tests/test_engine_api.py tests/test_machine.py" || rc=1
    EXTRA_ENV=()
    got=$(sed -n 's/^Nodes searched: //p' "$W$TESTS_IN_ROOT/bench16k.log" 2>/dev/null || true)
    if [ "$got" != "$want" ]; then
        say "bench signature with 16 KiB pages: ${got:-none}, bench/signature.txt says $want"
        return 1
    fi
    say "  bench signature with 16 KiB pages $got = bench/signature.txt"
    return "$rc"
}

step_demo() {
    # As the service user, as the service would run it.
    # The service's log goes to a file; shown: who plays which colour, the moves
    # and the result (the whole log when the game does not end).
    if ! in_root "cd / && runuser -u pibot -- $PIBOT demo --tc $DEMO_TC" >"$RUN/demo.log" 2>&1
    then
        tail -n 40 "$RUN/demo.log"
        return 1
    fi
    grep -E '^[^ ]+ \(white\) vs |^[0-9]+\.|^Result: ' "$RUN/demo.log" |
        sed -E 's/^[0-9]+\.\.\. //' | paste -s -d ' ' | fold -s -w 100
    # "*" is an aborted game; pibot demo itself fails on a game that did not end.
    grep -Eq '^Result: (1-0|0-1|1/2-1/2) ' "$RUN/demo.log"
}

say "[$(now)] checking pibot on $DISTRO under qemu-user: $REPO"
run_step host host_tools
mkdir -p -- "$CACHE"
exec 9>"$CACHE/lock"
flock 9   # one run at a time builds or overlays the root
run_step root build_root || { summary; exit 1; }
open_overlay
root_versions
if run_step install step_install; then
    run_step version step_version || true
    run_step units step_units || true
    run_step perft step_perft || true
    run_step bench step_bench || true
    run_step pytest step_pytest || true
    run_step pages16k step_pages16k || true
    run_step demo step_demo || true
else
    for s in version units perft bench pytest pages16k demo; do skip_step "$s" "install failed"; done
fi
summary
exit "$FAILED"
