#!/usr/bin/env bash
# Quick start: set up .venv and run `pibot demo` (a full game against the
# built-in Lichess emulator; no token needed). Extra arguments go to pibot demo.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/setup-venv.sh
source scripts/setup-venv.sh
setup_venv --
exec pibot demo "$@"
