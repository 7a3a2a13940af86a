#!/usr/bin/env bash
# Quick start: set up the venv and run `pibot demo` (a full game against the
# built-in Lichess emulator; no token needed). Extra arguments go to pibot demo;
# PIBOT_PYTHON chooses the Python (3.11 or 3.13; scripts/setup-venv.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/setup-venv.sh
source scripts/setup-venv.sh
setup_venv --
exec pibot demo "$@"
