#!/bin/bash
# Here, after a device run: its chunks unpacked, checked against its manifest and
# listed in ours (datastore.py adopt). Stop the home generator first.
#   tools/nnue/device/adopt.sh FILES_AT [MANIFEST] [STORE]
set -euo pipefail
cd "$(dirname "$0")/../../.."
AT=$1; MAN=${2:-docs/data/round4.json}; STORE=${3:-/work/data/round4}
tmp=$(mktemp -d "$STORE/adopt.XXXXXX")
for t in "$AT"/chunks*.tar; do tar -xf "$t" -C "$tmp"; done
xz -d "$tmp"/*.xz
.venv/bin/python tools/nnue/datastore.py adopt "$MAN" "$AT/manifest.json" --from "$tmp" --dir "$STORE"
rm -rf "$tmp"
