"""Packaging: one version, the entry points, the dependencies, and an sdist that
builds and installs on a machine that has only it (no checkout)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

import bot

ROOT = Path(__file__).resolve().parent.parent
CONSTRAINTS = ROOT / "constraints.txt"


def _pibot(*args: str, python: str = sys.executable, cwd: Path = ROOT,
           env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([python, "-m", "bot", *args], capture_output=True, text=True,
                          timeout=120, cwd=cwd, env=env)


def test_version_comes_from_one_file() -> None:
    assert metadata.version("pibot") == bot.__version__  # pyproject reads bot/__init__.py
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "version" not in project and "version" in project["dynamic"]
    r = _pibot("--version")
    assert (r.returncode, r.stdout.strip()) == (0, f"pibot {bot.__version__}"), r.stderr


def test_python_m_bot_is_the_cli() -> None:
    r = _pibot("perft", "2")
    assert r.returncode == 0 and "Nodes searched: 400" in r.stdout, r.stdout + r.stderr
    r = _pibot()
    assert r.returncode == 2 and "usage: pibot" in r.stdout


def _requirements(dist: str, extras: frozenset[str] = frozenset()) -> list[Requirement]:
    out = []
    for text in metadata.requires(dist) or []:
        req = Requirement(text)
        if req.marker is None or any(req.marker.evaluate({"extra": e}) for e in extras | {""}):
            out.append(req)
    return out


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_berserk_is_for_the_tests_only() -> None:
    # The Pi installs pibot without extras: berserk (and what it pulls in) stays off it.
    assert "berserk" not in {_norm(r.name) for r in _requirements("pibot")}
    assert "berserk" in {_norm(r.name) for r in _requirements("pibot", frozenset({"test"}))}
    # ... and no module of the bot needs it at run time.
    code = ("import pkgutil, sys, importlib; sys.modules['berserk'] = None\n"
            "for m in pkgutil.walk_packages(['bot'], 'bot.'):\n"
            "    if not m.name.endswith('__main__'): importlib.import_module(m.name)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=60, cwd=ROOT)
    assert r.returncode == 0, r.stderr


def test_constraints_pin_everything_the_test_install_pulls_in() -> None:
    pins = {}
    for line in CONSTRAINTS.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, sep, version = line.partition("==")
            assert sep, f"constraints.txt: {line!r} is not a name==version pin"
            pins[_norm(name)] = version.strip()
    todo, seen = [("pibot", frozenset({"test"}))], set()
    while todo:
        dist, extras = todo.pop()
        for req in _requirements(dist, extras):
            name = _norm(req.name)
            if name in seen:
                continue
            seen.add(name)
            assert name in pins, f"{name} (needed by {dist}) is not pinned in constraints.txt"
            assert req.specifier.contains(pins[name], prereleases=True), \
                f"constraints.txt pins {name}=={pins[name]}, but {dist} wants {req}"
            todo.append((req.name, frozenset(req.extras)))
    assert re.search(r'"ruff==[\d.]+"', (ROOT / "pyproject.toml").read_text()), "pin ruff"


@pytest.mark.build
def test_sdist_builds_and_installs_in_a_clean_venv(tmp_path: Path) -> None:
    # Slow on purpose (~1 min): the sdist is built, then pip compiles the engine from it.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    # Built from a copy: setuptools writes pibot.egg-info/ and a release tree into the
    # directory it builds in, which tests running beside this one (pytest -n) read.
    src, dist = tmp_path / "src", tmp_path / "dist"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(
        ".git", ".venv", ".venv-*", "venv", "build", "dist", "*.egg-info", "__pycache__", "*.so",
        "out", ".pytest_cache", ".ruff_cache"))
    built = subprocess.run([sys.executable, "-m", "build", "--sdist", "--outdir", str(dist)],
                           capture_output=True, text=True, timeout=600, cwd=src, env=env)
    assert built.returncode == 0, built.stdout + built.stderr
    assert "project.license" not in built.stdout + built.stderr  # no deprecation warning
    (sdist,) = dist.glob("pibot-*.tar.gz")
    assert sdist.name == f"pibot-{bot.__version__}.tar.gz"
    with tarfile.open(sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    for needed in ("build_engine.py", "setup.py", "engine_c/pibot_api.h", "engine_c/search.c",
                   "engine_c/nets/default.pbnn", "constraints.txt", "config.yml"):
        assert needed in names, f"{needed} is not in the sdist"
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120, env=env)
    py = str(venv / "bin" / "python")
    # Not in the checkout: nothing may come from it, only from the sdist.
    installed = subprocess.run([py, "-m", "pip", "install", "-q", "--no-cache-dir",
                                "-c", str(CONSTRAINTS), str(sdist)], capture_output=True,
                               text=True, timeout=900, cwd=tmp_path, env=env)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    r = subprocess.run([str(venv / "bin" / "pibot"), "--version"], capture_output=True,
                       text=True, timeout=60, cwd=tmp_path, env=env)
    assert r.stdout.strip() == f"pibot {bot.__version__}", r.stderr
    r = _pibot("perft", "3", python=py, cwd=tmp_path, env=env)
    assert r.returncode == 0 and "Nodes searched: 8902" in r.stdout, r.stdout + r.stderr
    r = subprocess.run([py, "-c", "import importlib.util as u; print(u.find_spec('berserk'))"],
                       capture_output=True, text=True, timeout=60, cwd=tmp_path, env=env)
    assert r.stdout.strip() == "None"  # a production install has no test-only packages

