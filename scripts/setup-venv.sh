#!/usr/bin/env bash
# Shared setup for scripts/demo.sh and scripts/test.sh (sourced, not run):
# installs the Debian packages a build needs (when missing), creates .venv and
# installs pibot into it in editable mode (this compiles the C engine).
# Usage: setup_venv [extra apt packages...]; honours PIBOT_PIP_EXTRAS (e.g. "test").

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

setup_venv() {
    local root
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
    [ "${1:-}" = "--" ] && shift
    apt_install_missing build-essential python3-dev python3-venv libffi-dev "$@"
    if [ ! -x "$root/.venv/bin/python" ]; then
        echo "==> python3 -m venv .venv"
        python3 -m venv "$root/.venv"
    fi
    # shellcheck disable=SC1091
    source "$root/.venv/bin/activate"
    local spec="$root"
    [ -n "${PIBOT_PIP_EXTRAS:-}" ] && spec="${root}[${PIBOT_PIP_EXTRAS}]"
    echo "==> pip install -e ${spec#"$root"} (builds the C engine)"
    python -m pip install -q --upgrade pip >/dev/null
    # The versions the tests were last run with (constraints.txt says how to renew them).
    python -m pip install -q -c "$root/constraints.txt" -e "$spec"
}
