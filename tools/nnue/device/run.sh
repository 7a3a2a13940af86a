#!/bin/bash
# On the device machine (16 cores): new chunks of the manifest in .dev/ for about
# GEN_S seconds, packed into $OUT with the device's copy of the manifest. Stops at once
# if the datagen does not make here the bytes it made at home.
D=$PWD/.dev
R="import json; r=json.load(open('$D/manifest.json'))['recipe']"
{ nproc; lscpu | grep 'Model name'; date -u; } > "$OUT/info.txt"
mkdir -p /tmp/st/chunks && cp -r "$D/shared" ..
if [ -f "$D/openings.txt" ]; then cp "$D/openings.txt" /tmp/st/; fi
args=$(python3 -c "$R; print(' '.join(r['args']))" | sed -e "s#@openings.txt#/tmp/st/openings.txt#" \
       -e "s#@shared/#../shared/#g")
# shellcheck disable=SC2086
"$D/datagen" /tmp/ref.bin $args --seed "$(python3 -c "$R; print(r['seed'])")" --first 0 \
    --games 24 --threads 1 >/dev/null 2>&1
got=$(sha256sum /tmp/ref.bin | cut -c1-64)
echo "reference games: $got (home: $(cat "$D/reference.sha256"))" | tee -a "$OUT/info.txt"
[ "$got" = "$(cat "$D/reference.sha256")" ] || exit 4
first=$(python3 -c "import json; print(max((c['index'] for c in json.load(open('$D/manifest.json'))['chunks']), default=-1)+1)")
# One one-thread datagen per core (a chunk is reproducible only so); no chunk
# starts that would end after GEN_S, and `timeout` is the backstop.
GEN_S=${GEN_S:-555}
timeout -s TERM $((GEN_S + 20)) python3 -u tools/nnue/datastore.py run "$D/manifest.json" \
    --dir /tmp/st --target 1000000000 --threads "$(nproc)" --nice 0 --binary "$D/datagen" \
    --new-only --deadline "$GEN_S" 2>&1 | tee "$OUT/run.log"
cp "$D/manifest.json" "$OUT/manifest.json"
python3 tools/nnue/device/pack.py /tmp/st "$OUT" "$first" 2>&1 | tee -a "$OUT/run.log"
date -u >> "$OUT/info.txt"
