#!/usr/bin/env bash
# Set up the venv with the test tools and run the whole test suite: ruff, mypy,
# then pytest (engine, emulator, bot service, deployment). PIBOT_PYTHON chooses the
# Python (3.11 or 3.13; scripts/setup-venv.sh). Installs the Debian packages the
# tests use: stockfish (benchmark reference), the aarch64 cross compiler and
# qemu-user (the Pi build), systemd (systemd-analyze), shellcheck, polyglot (the
# reference opening-book maker, tests/test_book.py) and chromium (the status
# page's browser test, tests/test_status_page_browser.py).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/setup-venv.sh
source scripts/setup-venv.sh
PIBOT_PIP_EXTRAS="test" setup_venv stockfish qemu-user gcc-aarch64-linux-gnu \
    libc6-dev-arm64-cross systemd shellcheck make polyglot chromium
echo "==> ruff check"
ruff check .
echo "==> mypy (bot/, tools/, bench/, deploy/, build_engine.py: [tool.mypy] in pyproject.toml)"
mypy
echo "==> pibot bench (signature recorded in bench/signature.txt)"
pibot bench
# Most tests wait on the emulator or a clock, not the CPU: several workers per core
# (PIBOT_TEST_WORKERS to change; 0 runs in this process). Each test has its own
# ports, temporary files and runtime directory (tests/conftest.py). A file runs on
# one worker, in order (--dist loadfile): test_deploy.py's tests share one install.
workers=${PIBOT_TEST_WORKERS:-$(( $(nproc) * 2 > 4 ? $(nproc) * 2 : 4 ))}
echo "==> pytest ($workers workers)"
exec python -m pytest -q -n "$workers" --dist loadfile "$@"
