#!/bin/bash
# Here, before a device run (issue 36 item 4): what the device needs, in .dev/ (git
# ignores it; the run carries it). The datagen is the recipe's commit built here,
# statically, so the device's chunks are the bytes this machine would make; a
# reference game set made here lets the device check that before it starts.
#   tools/nnue/device/prepare.sh [MANIFEST] [STORE]      (crazyhouse: docs/data/zh2.json
#                                                        /work/data/zh2)
# then, with the device tool: run(command="bash tools/nnue/device/run.sh", carry=[".dev"])
# and afterwards: tools/nnue/device/adopt.sh /work/.device/N [MANIFEST] [STORE]
set -euo pipefail
cd "$(dirname "$0")/../../.."
MAN=${1:-docs/data/round4.json}
STORE=${2:-/work/data/round4}
recipe() { python3 -c "import json,sys; r=json.load(open('$MAN'))['recipe']; print($1)"; }
commit=$(recipe "r['commit']")
grep -qx '/.dev/' .git/info/exclude || echo /.dev/ >> .git/info/exclude
rm -rf .dev && mkdir -p .dev/src .dev/shared
git archive --format=tar "$commit" engine_c build_engine.py | tar -x -C .dev/src
make -s -C .dev/src/engine_c -j2 out/auto/datagen LDFLAGS=-static
mv .dev/src/engine_c/out/auto/datagen .dev/datagen && rm -rf .dev/src
cp "$MAN" .dev/manifest.json
# (a variant's store has no openings file: its games start from the book)
if [ -f "$STORE/openings.txt" ]; then cp "$STORE/openings.txt" .dev/openings.txt; fi
for name in $(recipe "' '.join(n for n in r['inputs'] if n.startswith('shared/'))"); do
    mkdir -p ".dev/$(dirname "$name")" && cp "../$name" ".dev/$name"
done
# The reference: 24 games from the recipe's first game, made here.
args=$(recipe "' '.join(a for a in r['args'])" | sed -e "s#@openings.txt#$STORE/openings.txt#" \
       -e "s#@shared/#../shared/#g")
# shellcheck disable=SC2086
.dev/datagen /tmp/pibot-ref.bin $args --seed "$(recipe "r['seed']")" --first 0 --games 24 \
    --threads 1 >/dev/null 2>&1
sha256sum /tmp/pibot-ref.bin | cut -c1-64 > .dev/reference.sha256 && rm /tmp/pibot-ref.bin
echo "ready: $(du -sh .dev | cut -f1) in .dev (next chunk $(recipe "max((c['index'] for c in json.load(open('$MAN'))['chunks']), default=-1)+1"))"
