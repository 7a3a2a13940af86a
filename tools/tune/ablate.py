"""Build a copy of the engine with one search technique switched off, for
real-engine A/B matches that measure what the technique is worth.

    python3 tools/tune/ablate.py DIR FEATURE      # prints DIR/pibot-uci
    python3 tools/tune/ablate.py --list

Each feature is a source edit of engine_c/search.c at this commit (the edit
must apply exactly once, or the script stops); the copy is built like
tools/tune/build_variant.sh builds an eval variant. Then, e.g.:

    python3 tools/tune/engine_match.py --a 'pibot uci' --b DIR/pibot-uci --games 200 --nodes 5000
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# feature -> (what it disables, [(old, new), ...]) on engine_c/search.c
FEATURES: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "nullmove": ("null-move pruning", [
        ("if (depth >= 3 && adj_eval >= beta && ply > 0",
         "if (0 && depth >= 3 && adj_eval >= beta && ply > 0")]),
    "rfp": ("reverse futility pruning", [
        ("if (depth <= 8 && adj_eval - 80 * (depth - improving) >= beta",
         "if (0 && depth <= 8 && adj_eval - 80 * (depth - improving) >= beta")]),
    "lmr": ("late move reductions", [
        ("if (depth >= 3 && !noisy && moves > 1 + pv_node) {",
         "if (0 && depth >= 3 && !noisy && moves > 1 + pv_node) {")]),
    "lmp": ("late move pruning and futility pruning of quiet moves", [
        ("if (depth <= 8 && quiets_tried >= lmp) {",
         "if (0 && depth <= 8 && quiets_tried >= lmp) {"),
        ("if (!in_check && depth <= 8 && eval != SCORE_NONE &&",
         "if (0 && !in_check && depth <= 8 && eval != SCORE_NONE &&")]),
    "aspiration": ("aspiration windows", [("if (depth >= 5) {", "if (0 && depth >= 5) {")]),
}


def build(dest: Path, feature: str) -> Path:
    _, edits = FEATURES[feature]
    dest.mkdir(parents=True, exist_ok=True)
    for sub in ("engine_c", "bot"):
        shutil.rmtree(dest / sub, ignore_errors=True)
    (dest / "engine_c").mkdir()
    for f in list((ROOT / "engine_c").glob("*.[ch]")):
        shutil.copy(f, dest / "engine_c" / f.name)
    shutil.copytree(ROOT / "bot", dest / "bot", ignore=shutil.ignore_patterns("_engine*.so",
                                                                             "__pycache__"))
    shutil.copy(ROOT / "build_engine.py", dest)
    src = dest / "engine_c" / "search.c"
    text = src.read_text()
    for old, new in edits:
        if text.count(old) != 1:
            sys.exit(f"ablate: the edit for {feature!r} does not apply to this search.c: {old!r}")
        text = text.replace(old, new)
    src.write_text(text)
    subprocess.run([sys.executable, "-c", "import shutil, build_engine; shutil.copy("
                    "build_engine.make_ffibuilder(absolute=True).compile(tmpdir='build_tmp', "
                    "verbose=False), 'bot/')"], cwd=dest, check=True)
    # This copy's `bot` must win over the current directory (a checkout) and
    # an installed pibot: put it first, and check that it did.
    boot = (f"import sys; sys.path.insert(0, {str(dest)!r}); import bot, bot._engine; "
            f"assert bot._engine.__file__.startswith({str(dest)!r}), bot._engine.__file__; "
            "from bot.cli import main; sys.exit(main(['uci']))")
    cmd = dest / "pibot-uci"
    cmd.write_text(f'#!/bin/sh\nexec {sys.executable} -c "{boot}"\n')
    cmd.chmod(0o755)
    return cmd


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", nargs="?", type=Path)
    ap.add_argument("feature", nargs="?", choices=sorted(FEATURES))
    ap.add_argument("--list", action="store_true", help="list the features")
    a = ap.parse_args()
    if a.list or a.dir is None or a.feature is None:
        for name, (what, _) in sorted(FEATURES.items()):
            sys.stdout.write(f"{name:12s} {what}\n")
        return 0
    sys.stdout.write(f"{build(a.dir.resolve(), a.feature)}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
