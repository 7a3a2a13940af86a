#!/usr/bin/env bash
# Shared setup for scripts/demo.sh and scripts/test.sh (sourced, not run):
# installs the Debian packages a build needs (when missing), creates the venv and
# installs pibot into it in editable mode (this compiles the C engine).
# Usage: setup_venv [extra apt packages...]; honours PIBOT_PIP_EXTRAS (e.g. "test"),
# PIBOT_PYTHON (the interpreter, default python3: Python 3.11 or 3.13, e.g.
# python3.13) and PIBOT_VENV (the venv's directory: default .venv, or .venv-X.Y
# when PIBOT_PYTHON chooses the interpreter, so each Python keeps its own).

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"
    elif command -v sudo >/dev/null 2>&1; then sudo "$@"
    else echo "error: need root for: $* (install sudo or run as root)" >&2; return 1
    fi
}

apt_install_missing() {
    local missing=() pkg
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" \
            || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "error: missing packages ${missing[*]} and no apt-get: install them by hand" >&2
        return 1
    fi
    echo "==> apt-get install ${missing[*]}"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >/dev/null
}

# python_version PYTHON: prints X.Y, or nothing when PYTHON does not run (a pyenv
# shim of a version that is not selected exits non-zero).
python_version() {
    "$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || true
}

setup_venv() {
    local root py ver venv have
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
    [ "${1:-}" = "--" ] && shift
    apt_install_missing build-essential python3-dev python3-venv libffi-dev "$@"
    py=${PIBOT_PYTHON:-python3}
    ver=$(python_version "$py")
    if [ -z "$ver" ]; then
        echo "error: cannot run $py (PIBOT_PYTHON names the interpreter, e.g. python3.13)" >&2
        return 1
    fi
    case $ver in
        3.1[1-9]|3.[2-9][0-9]) ;;
        *) echo "error: $py is Python $ver; pibot needs 3.11 or later (3.11 and 3.13 are" \
                "tested): set PIBOT_PYTHON" >&2; return 1 ;;
    esac
    venv=${PIBOT_VENV:-$root/.venv}
    [ -n "${PIBOT_VENV:-}" ] || [ -z "${PIBOT_PYTHON:-}" ] || venv=$root/.venv-$ver
    if [ -x "$venv/bin/python" ]; then
        have=$(python_version "$venv/bin/python")
        if [ "$have" != "$ver" ]; then
            echo "error: ${venv#"$root"/} holds Python ${have:-that no longer runs}, not" \
                 "$py's $ver: remove it (rm -rf ${venv#"$root"/}) or set PIBOT_VENV" >&2
            return 1
        fi
    else
        echo "==> $py -m venv ${venv#"$root"/}"
        "$py" -m venv "$venv"
    fi
    # shellcheck disable=SC1091
    source "$venv/bin/activate"
    echo "==> $(python -V) in ${venv#"$root"/}"
    local spec="$root"
    [ -n "${PIBOT_PIP_EXTRAS:-}" ] && spec="${root}[${PIBOT_PIP_EXTRAS}]"
    echo "==> pip install -e ${spec#"$root"} (builds the C engine)"
    python -m pip install -q --upgrade pip >/dev/null
    # The versions the tests were last run with (constraints.txt says how to renew them).
    python -m pip install -q -c "$root/constraints.txt" -e "$spec"
}
