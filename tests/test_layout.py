"""The wings' import rules (issue 27), as each wing's __init__.py states them.

Data flows service -> play -> sources -> lichess, with the host at the ground,
and service -> challenges -> lichess beside the games (issue 33); a module may
import only downwards.  Every import counts, lazy and TYPE_CHECKING
ones included, because a cycle hidden behind one still couples the modules.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

BOT = Path(__file__).resolve().parent.parent / "bot"
SHARED = ("bot.config", "bot.errors", "bot.engine")
# What each wing may import besides itself (prefixes of module names).
ALLOWED = {
    "host": ("bot.errors", "bot.engine"),
    "lichess": (*SHARED, "bot.host"),
    "sources": (*SHARED, "bot.host", "bot.lichess"),
    "play": (*SHARED, "bot.host", "bot.lichess", "bot.sources"),
    "challenges": (*SHARED, "bot.host", "bot.lichess"),
    "service": (*SHARED, "bot.host", "bot.lichess", "bot.sources", "bot.play",
                "bot.challenges"),
}
MAX_METHODS = 20  # per class in the service, play and challenges (issue 33)


def imports_of(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "bot":  # a submodule, or a name of the package itself
                found |= {f"bot.{a.name}" for a in node.names
                          if (BOT / a.name).is_dir() or (BOT / f"{a.name}.py").is_file()}
            elif node.module.startswith("bot."):
                found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("bot.")}
    return found


def under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


@pytest.mark.parametrize("wing", sorted(ALLOWED))
def test_a_wing_imports_only_downwards(wing: str) -> None:
    files = sorted((BOT / wing).rglob("*.py"))
    assert files, f"bot/{wing}/ is missing"
    ok = (f"bot.{wing}", *ALLOWED[wing])
    breaks = [f"{p.relative_to(BOT.parent)} imports {m}"
              for p in files for m in sorted(imports_of(p))
              if not any(under(m, prefix) for prefix in ok)]
    assert not breaks, "\n".join(breaks)


def test_a_wing_says_what_it_may_import() -> None:
    for wing in ALLOWED:
        doc = ast.get_docstring(ast.parse((BOT / wing / "__init__.py").read_text()))
        assert doc and "import" in doc, f"bot/{wing}/__init__.py needs its docstring"


def test_the_stream_module_does_not_need_the_client_back() -> None:
    assert "bot.lichess.client" not in imports_of(BOT / "lichess" / "streams.py")


def test_only_the_root_wires_the_service_together() -> None:
    """The composition root (root.py) imports the service's other modules; none of
    them imports it back, and the game supervisor is a room of its own: it
    imports nothing else of the service."""
    service = sorted((BOT / "service").glob("*.py"))
    back = [f"bot/service/{p.name} imports {m}" for p in service
            if p.name not in ("root.py", "__init__.py")
            for m in sorted(imports_of(p)) if under(m, "bot.service.root") or m == "bot.service"]
    assert not back, "\n".join(back)
    assert not [m for m in imports_of(BOT / "service" / "supervisor.py")
                if under(m, "bot.service")]


def test_the_supervisor_knows_games_not_challenges() -> None:
    """Challenges are the desk's: the supervisor shares only their slots."""
    found = {m for m in imports_of(BOT / "service" / "supervisor.py")
             if under(m, "bot.challenges")}
    assert found <= {"bot.challenges.slots"}, found


def test_nothing_below_the_service_imports_it() -> None:
    breaks = [f"{p.relative_to(BOT.parent)} imports {m}"
              for p in sorted(BOT.rglob("*.py"))
              if p.parent.name not in ("service", "commands")
              for m in sorted(imports_of(p)) if under(m, "bot.service")]
    assert not breaks, "\n".join(breaks)


@pytest.mark.parametrize("package", ["service", "play", "challenges"])
def test_no_class_has_too_many_methods(package: str) -> None:
    big = []
    for path in sorted((BOT / package).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                n = sum(isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
                        for f in node.body)
                if n > MAX_METHODS:
                    big.append(f"{path.relative_to(BOT.parent)}: {node.name} has {n} methods")
    assert not big, "\n".join(big)
