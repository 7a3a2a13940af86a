#!/usr/bin/env bash
# Set up .venv with the test tools and run the whole test suite: ruff, then
# pytest (engine, emulator, bot service, deployment). Installs the Debian
# packages the tests use: stockfish (benchmark reference), the aarch64 cross
# compiler and qemu-user (the Pi build), systemd (systemd-analyze), shellcheck and
# chromium (the status page's browser test, tests/test_status_page_browser.py).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/setup-venv.sh
source scripts/setup-venv.sh
PIBOT_PIP_EXTRAS="test" setup_venv stockfish qemu-user gcc-aarch64-linux-gnu \
    libc6-dev-arm64-cross systemd shellcheck make chromium
echo "==> ruff check"
ruff check .
echo "==> pibot bench (signature recorded in bench/signature.txt)"
pibot bench
echo "==> pytest"
exec python -m pytest -q "$@"
