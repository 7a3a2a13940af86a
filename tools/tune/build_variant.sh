#!/bin/sh
# Build a private copy of the package whose engine uses another weights file,
# for real-engine A/B matches (old vs new eval) without touching the shared
# tree or the installed package. Writes DIR/pibot-uci, a UCI command.
# usage: tools/tune/build_variant.sh DIR EVALPARAMS.h
set -eu
[ $# -eq 2 ] || { echo "usage: $0 DIR EVALPARAMS.h" >&2; exit 2; }
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
DIR=$(realpath -m "$1"); HDR=$(realpath "$2")
mkdir -p "$DIR"
# only what the engine and the UCI command need
cp "$ROOT/build_engine.py" "$DIR/"
rm -rf "$DIR/engine_c" "$DIR/bot"
mkdir -p "$DIR/engine_c"
cp "$ROOT"/engine_c/*.c "$ROOT"/engine_c/*.h "$DIR/engine_c/"
cp -r "$ROOT/bot" "$DIR/bot"
find "$DIR/bot" -name '_engine*.so' -delete
cp "$HDR" "$DIR/engine_c/evalparams.h"
cd "$DIR"
python3 - <<'PY'
import glob, shutil, build_engine
out = build_engine.make_ffibuilder(absolute=True).compile(tmpdir="build_tmp", verbose=False)
shutil.copy(out, "bot/")
PY
cat > "$DIR/pibot-uci" <<SH
#!/bin/sh
PYTHONPATH="$DIR" exec python3 -c "import sys; from bot.cli import main; sys.exit(main(['uci']))"
SH
chmod +x "$DIR/pibot-uci"
PYTHONPATH="$DIR" python3 -c "import bot._engine as e; assert e.__file__.startswith('$DIR'), e.__file__"
echo "$DIR/pibot-uci"
