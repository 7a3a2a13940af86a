"""Build a copy of the engine with one search technique switched off, for
real-engine A/B matches that measure what the technique is worth.

    python3 tools/tune/ablate.py DIR FEATURE      # prints DIR/pibot-uci
    python3 tools/tune/ablate.py --list

Each feature is a source edit of engine_c/search.c at this commit (the edit
must apply exactly once, or the script stops); tools/tune/build_variant.sh
builds the copy with the edited file. Then, e.g.:

    python3 tools/tune/engine_match.py --a 'pibot uci' --b DIR/pibot-uci --games 200 --nodes 5000
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# feature -> (what it disables, [(old, new), ...]) on engine_c/search.c
FEATURES: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "nullmove": ("null-move pruning", [
        ("if (depth >= NMP_MIN_DEPTH && adj_eval >= beta && ply > 0",
         "if (0 && depth >= NMP_MIN_DEPTH && adj_eval >= beta && ply > 0")]),
    "rfp": ("reverse futility pruning", [
        ("if (depth <= RFP_MAX_DEPTH && adj_eval",
         "if (0 && depth <= RFP_MAX_DEPTH && adj_eval")]),
    "lmr": ("late move reductions", [
        ("if (depth >= LMR_MIN_DEPTH && !noisy && moves > 1 + pv_node) {",
         "if (0 && depth >= LMR_MIN_DEPTH && !noisy && moves > 1 + pv_node) {")]),
    "lmp": ("late move pruning and futility pruning of quiet moves", [
        ("if (depth <= LMP_MAX_DEPTH && quiets_tried >= lmp) {",
         "if (0 && depth <= LMP_MAX_DEPTH && quiets_tried >= lmp) {"),
        ("if (!in_check && depth <= FUT_MAX_DEPTH && eval != SCORE_NONE &&",
         "if (0 && !in_check && depth <= FUT_MAX_DEPTH && eval != SCORE_NONE &&")]),
    "aspiration": ("aspiration windows", [("if (depth >= ASP_MIN_DEPTH) {",
                                            "if (0 && depth >= ASP_MIN_DEPTH) {")]),
}


def build(dest: Path, feature: str) -> Path:
    _, edits = FEATURES[feature]
    text = (ROOT / "engine_c/search.c").read_text()
    for old, new in edits:
        if text.count(old) != 1:
            sys.exit(f"ablate: the edit for {feature!r} does not apply to this search.c: {old!r}")
        text = text.replace(old, new)
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "search.c"
        src.write_text(text)
        out = subprocess.run([str(ROOT / "tools/tune/build_variant.sh"), str(dest),
                              str(ROOT / "engine_c/evalparams.h"), str(src)],
                             check=True, capture_output=True, text=True).stdout
    return Path(out.strip().splitlines()[-1])


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
