"""Search speed of two engine versions, measured alternately in one run.

    python bench/nps_ab.py OLD NEW [--pairs 5] [--depth 11] [--eval nnue|hce] [--cpu]

OLD and NEW are git refs (main, HEAD~2, a commit) or directories holding a
checkout (its engine_c/ as it is on disk, uncommitted edits included). Each
is built as the standalone C driver (engine_c/tools/search_main.c, `make`'s
native variant) in a temporary directory, then `search_main bench` (the
`pibot bench` positions, one thread, 16 MB hash) runs OLD, NEW, OLD, NEW, ...
so that a machine getting busier or quieter affects both alike. Prints each
run's nodes/second, each pair's NEW/OLD ratio and the median ratio, and
whether both searched the same tree (same node count: a pure speed change).
When the trees differ, nodes/second alone misleads (a change may search more
nodes faster): it also prints each pair's and the median ratio of the time
to reach the depth, NEW/OLD (below 1: NEW is faster). With --cpu, the
nodes/second and times are of the run's CPU time (user + system, the child's
rusage) rather than the wall clock: on a machine shared with other work a run
that waits for a core then costs nothing, though one slowed by a neighbour's
use of the caches still does.
"""

from __future__ import annotations

import argparse
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.engine.bench import BENCH_FENS, DEFAULT_DEPTH  # noqa: E402

# What `make` needs besides engine_c/: build_engine.py decides PEXT.
BUILD_FILES = ["engine_c", "build_engine.py"]


def fail(msg: str) -> None:
    sys.exit(f"nps_ab: {msg}")


def export(spec: str, dest: Path) -> str:
    """Copy the engine sources of SPEC (a directory or a git ref) to dest."""
    path = Path(spec)
    if path.is_dir():
        if not (path / "engine_c").is_dir():
            fail(f"{spec} has no engine_c/: give a checkout directory or a git ref")
        shutil.copytree(path / "engine_c", dest / "engine_c",
                        ignore=shutil.ignore_patterns("out"))
        shutil.copy(path / "build_engine.py", dest / "build_engine.py")
        return f"{spec} (working tree)"
    proc = subprocess.run(["git", "rev-parse", "--short", f"{spec}^{{commit}}"], cwd=ROOT,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        fail(f"{spec!r} is neither a directory nor a git ref of {ROOT}")
    sha = proc.stdout.strip()
    tar = subprocess.run(["git", "archive", sha, *BUILD_FILES], cwd=ROOT,
                         capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=tar, check=True)
    return f"{spec} ({sha})"


def build(dest: Path) -> Path:
    # OUT named on the command line: the Makefile's own directory depends on the
    # embedded net's width (out/auto-h512/ ...), which this need not know.
    exe = "out/nps_ab/search_main"
    proc = subprocess.run(["make", "-s", "OUT=out/nps_ab", exe], cwd=dest / "engine_c",
                          capture_output=True, text=True)
    if proc.returncode != 0:
        fail(f"the build in {dest} failed:\n{proc.stdout}{proc.stderr}")
    return dest / "engine_c" / exe


def cpu_s() -> float:
    """CPU seconds of the children waited for so far."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def bench(exe: Path, depth: int, fens: Path, eval_name: str, cpu: bool) -> tuple[int, int, int]:
    """Nodes, nodes/second and milliseconds of one bench run (CPU time if cpu)."""
    before = cpu_s()
    out = subprocess.run([str(exe), "bench", str(depth), str(fens), eval_name],
                         capture_output=True, text=True, check=True).stdout
    used = cpu_s() - before
    nodes = re.search(r"^Nodes searched: (\d+)$", out, re.MULTILINE)
    nps = re.search(r"^Nodes/second: (\d+)$", out, re.MULTILINE)
    ms = re.search(r"^Time: (\d+) ms$", out, re.MULTILINE)
    if not nodes or not nps or not ms:
        fail(f"unexpected bench output from {exe}:\n{out}")
    assert nodes and nps and ms
    n = int(nodes.group(1))
    if cpu:
        return n, int(n / max(used, 1e-3)), max(1, round(used * 1000))
    return n, int(nps.group(1)), max(1, int(ms.group(1)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old", help="git ref or checkout directory")
    ap.add_argument("new", help="git ref or checkout directory")
    ap.add_argument("--pairs", type=int, default=5, help="OLD,NEW runs (default 5)")
    ap.add_argument("--depth", type=int, default=DEFAULT_DEPTH)
    ap.add_argument("--eval", choices=["nnue", "hce"], default="nnue")
    ap.add_argument("--cpu", action="store_true",
                    help="CPU time rather than the wall clock (a shared machine)")
    args = ap.parse_args()
    if args.pairs < 1:
        fail("--pairs must be at least 1")
    with tempfile.TemporaryDirectory(prefix="nps_ab.") as tmp:
        exes, names = [], []
        for label, spec in (("old", args.old), ("new", args.new)):
            dest = Path(tmp) / label
            dest.mkdir()
            names.append(export(spec, dest))
            exes.append(build(dest))
        fens = Path(tmp) / "bench.fens"
        fens.write_text("\n".join(BENCH_FENS) + "\n")
        print(f"old: {names[0]}\nnew: {names[1]}\n"
              f"bench depth {args.depth}, eval {args.eval}, {args.pairs} pairs"
              + (", CPU time" if args.cpu else ""))
        ratios, times, nodes_seen = [], [], set()
        for i in range(args.pairs):
            (n_old, old, ms_old), (n_new, new, ms_new) = (
                bench(e, args.depth, fens, args.eval, args.cpu) for e in exes)
            nodes_seen.add((n_old, n_new))
            ratios.append(new / old)
            times.append(ms_new / ms_old)
            print(f"pair {i + 1}: old {old} nps, new {new} nps, new/old {new / old:.3f}"
                  + (f"; time old {ms_old} ms, new {ms_new} ms, new/old {ms_new / ms_old:.3f}"
                     if n_old != n_new else ""))
        print(f"median new/old: {statistics.median(ratios):.3f}")
        if any(n_old != n_new for n_old, n_new in nodes_seen):
            print(f"median time to depth new/old: {statistics.median(times):.3f}")
        for n_old, n_new in sorted(nodes_seen):
            same = "same tree" if n_old == n_new else "DIFFERENT trees"
            print(f"nodes: old {n_old}, new {n_new} ({same})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
