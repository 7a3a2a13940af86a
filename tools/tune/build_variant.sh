#!/bin/sh
# Build a private copy of the package whose engine uses another weights file
# (an evalparams.h, or a variant_params.h: a file that defines
# VariantDefaultParams replaces the variants' weights; docs/tuning.md "The
# variants' weights"; one that defines HordeEvalParams or AtomicEvalParams
# replaces that variant's set of chess's weights) (and optionally another search.c, see tools/tune/ablate.py), for real-engine
# A/B matches without touching the shared tree or the installed package.
# Writes DIR/pibot-uci, a UCI command. NET=FILE.pbnn embeds that net instead of
# engine_c/nets/default.pbnn, built for its hidden width (a net of another width
# than the shipped one needs such a build: the width is fixed at compile time, nnue.h).
# usage: [NET=FILE.pbnn] tools/tune/build_variant.sh DIR EVALPARAMS.h [SEARCH.c]
set -eu
[ $# -eq 2 ] || [ $# -eq 3 ] || { echo "usage: $0 DIR EVALPARAMS.h [SEARCH.c]" >&2; exit 2; }
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
DIR=$(realpath -m "$1"); HDR=$(realpath "$2")
SRC=""
[ $# -eq 3 ] && SRC=$(realpath "$3")
EMBED=""
if [ -n "${NET:-}" ]; then
    [ -f "$NET" ] || { echo "$0: NET=$NET: no such file (a .pbnn net)" >&2; exit 2; }
    EMBED=$(realpath "$NET")
fi
# The interpreter that builds it also runs it (a venv's, when one is active:
# `pibot uci` needs python-chess and the package's other dependencies).
PY=$(command -v python3)
# cffi compiles only with setuptools on Python >= 3.12, whose venvs have none
# (the test extra brings it: pip install -e '.[test]').
"$PY" -c 'import setuptools' 2>/dev/null || {
    echo "$0: $PY has no setuptools, which cffi needs to compile:" \
         "$PY -m pip install -c $ROOT/constraints.txt setuptools" >&2; exit 2; }
mkdir -p "$DIR"
# only what the engine and the UCI command need
cp "$ROOT/build_engine.py" "$DIR/"
rm -rf "$DIR/engine_c" "$DIR/bot"
mkdir -p "$DIR/engine_c"
cp "$ROOT"/engine_c/*.c "$ROOT"/engine_c/*.h "$DIR/engine_c/"
# the NNUE net is embedded into the engine (nnue_embed.c), so the build needs it
cp -r "$ROOT/engine_c/nets" "$DIR/engine_c/"
[ -z "$EMBED" ] || cp "$EMBED" "$DIR/engine_c/nets/default.pbnn"
cp -r "$ROOT/bot" "$DIR/bot"
find "$DIR/bot" -name '_engine*.so' -delete
if grep -q 'VariantDefaultParams' "$HDR"; then
    cp "$HDR" "$DIR/engine_c/variant_params.h"
elif grep -q 'const EvalParams HordeEvalParams' "$HDR"; then
    cp "$HDR" "$DIR/engine_c/evalparams_horde.h"
elif grep -q 'const EvalParams AtomicEvalParams' "$HDR"; then
    cp "$HDR" "$DIR/engine_c/evalparams_atomic.h"
else
    cp "$HDR" "$DIR/engine_c/evalparams.h"
fi
[ -z "$SRC" ] || cp "$SRC" "$DIR/engine_c/search.c"
cd "$DIR"
"$PY" - <<'PY'
import glob, shutil, build_engine
out = build_engine.make_ffibuilder(absolute=True).compile(tmpdir="build_tmp", verbose=False)
shutil.copy(out, "bot/")
PY
# `python -c` puts the current directory first, and a checkout there (or an
# installed pibot) would shadow this copy: insert it first and check.
cat > "$DIR/pibot-uci" <<SH
#!/bin/sh
exec "$PY" -c "import sys; sys.path.insert(0, '$DIR'); import bot._engine as e; assert e.__file__.startswith('$DIR'), e.__file__; from bot.cli import main; sys.exit(main(['uci']))"
SH
chmod +x "$DIR/pibot-uci"
echo "$DIR/pibot-uci"
