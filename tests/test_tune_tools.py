"""tools/tune: the variant builder that A/B matches (docs/strength.md) rely on."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import ROOT


def test_build_variant_makes_a_working_uci_engine(tmp_path: Path) -> None:
    # The engine embeds the NNUE net (engine_c/nnue_embed.c), so a copy of
    # the sources without engine_c/nets/ cannot build: the script must copy it.
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    out = tmp_path / "variant"
    build = subprocess.run(["sh", str(ROOT / "tools/tune/build_variant.sh"), str(out),
                            str(ROOT / "engine_c/evalparams.h")],
                           env=env, timeout=900, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    proc = subprocess.run([str(out / "pibot-uci")], input="uci\nisready\nquit\n", env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "uciok" in proc.stdout and "readyok" in proc.stdout, proc.stdout
