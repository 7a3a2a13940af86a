"""The import rules of every package of bot/ (issues 27 and 33), and no cycles.

A package is a directory of bot/ (`bot/play/`) or a top-level module
(`bot/errors.py`).  RULES names, for each, the packages it may import besides
itself; a package of bot/ without a rule, or a rule for a package that is gone,
fails.  Adding a package is one entry.  Every import counts, lazy and
TYPE_CHECKING ones included, because a cycle hidden behind one still couples
the modules.  The wings (service -> play -> sources -> lichess, the host at the
ground) and the engine and emulator state their rules in their __init__.py too.
"""
from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

import pytest

BOT = Path(__file__).resolve().parent.parent / "bot"
ROOT = "bot"  # bot/__init__.py: the version; anyone may import it
COMPILED = {"_engine"}  # the C core, bot/_engine.*.so (build_engine.py)
TOP = "*"  # may import every package but the entry points (cli, __main__)
ENTRY_POINTS = ("cli", "__main__")

# What each package may import besides itself and bot/__init__.py.
RULES: dict[str, tuple[str, ...] | str] = {
    ROOT: (),
    "errors": (),
    "lichess_limits": (),
    # The Lichess variants' table (python-chess's boards, the engine's names).
    "variants": ("lichess_limits",),
    "_engine": (),
    "host": ("errors",),
    "engine": ("_engine", "errors", "host"),
    # Independent of the bot it is the oracle for: its own errors derive from
    # bot.errors, nothing else.
    "emulator": ("errors",),
    # The schema, its loader and the lichess-bot import (its key table included).
    "config": ("errors", "host", "lichess_limits"),
    "lichess": ("config", "errors"),
    "sources": ("config", "errors", "lichess", "lichess_limits", "variants"),
    "play": ("config", "engine", "host", "lichess", "sources", "store", "variants"),
    "uci": ("config", "engine", "errors", "host", "sources"),
    "challenges": ("config", "errors", "lichess", "lichess_limits"),
    # store imports nothing of the bot, alerts only config and store: the owner's
    # memory (issue 35) is written by the runner and the service, no cycle possible.
    "service": ("alerts", "challenges", "config", "engine", "errors", "host", "lichess",
                "play", "sources", "store"),
    "store": (),
    "alerts": ("config", "store"),
    "commands": TOP,
    "cli": ("errors",),  # the commands load by name (importlib), at run time
    "__main__": ("cli",),
}
MAX_METHODS = 20  # per class, in every package (issues 33 and 49)


def packages_on_disk() -> set[str]:
    found = {ROOT, *COMPILED}
    for path in BOT.iterdir():
        if path.is_dir() and (path / "__init__.py").is_file():
            found.add(path.name)
        elif path.suffix == ".py" and path.name != "__init__.py":
            found.add(path.stem)
    return found


def files_of(package: str) -> list[Path]:
    if package == ROOT:
        return [BOT / "__init__.py"]
    if package in COMPILED:
        return []
    if (BOT / package).is_dir():
        return sorted((BOT / package).rglob("*.py"))
    return [BOT / f"{package}.py"]


def package_of(module: str) -> str:
    """bot.play.game -> play; bot -> the root."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ROOT


def under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def imports_of(path: Path) -> set[str]:
    """The bot modules `path` imports (`from bot import X` counts only a module X)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "bot":  # a submodule, or a name of the package itself
                found |= {f"bot.{a.name}" for a in node.names
                          if (BOT / a.name).is_dir() or (BOT / f"{a.name}.py").is_file()}
            elif node.module.startswith("bot."):
                found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name == "bot" or a.name.startswith("bot.")}
    return found


def allowed(package: str) -> set[str]:
    rule = RULES[package]
    if rule == TOP:
        return set(RULES) - set(ENTRY_POINTS)
    return {package, ROOT, *rule}


def package_graph() -> dict[str, set[str]]:
    """package -> the other packages it imports, as the code stands."""
    return {pkg: {package_of(m) for p in files_of(pkg) for m in imports_of(p)} - {pkg}
            for pkg in RULES}


def rule_graph() -> dict[str, set[str]]:
    return {pkg: allowed(pkg) - {pkg, ROOT} for pkg in RULES}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle as a path (a -> b -> a), or None."""
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)):
            return found
    return None


def test_every_package_has_a_rule() -> None:
    on_disk = packages_on_disk()
    assert not on_disk - set(RULES), f"packages of bot/ without a rule: {on_disk - set(RULES)}"
    assert not set(RULES) - on_disk, f"rules for packages that are gone: {set(RULES) - on_disk}"
    unknown = {f"{pkg} -> {name}" for pkg, rule in RULES.items() if rule != TOP
               for name in rule if name not in RULES}
    assert not unknown, f"rules naming no package: {sorted(unknown)}"


@pytest.mark.parametrize("package", sorted(set(RULES) - COMPILED))
def test_a_package_imports_only_what_its_rule_allows(package: str) -> None:
    files = files_of(package)
    assert files and all(p.is_file() for p in files), f"bot/{package} is missing"
    ok = allowed(package)
    breaks = [f"{p.relative_to(BOT.parent)} imports {m}"
              for p in files for m in sorted(imports_of(p)) if package_of(m) not in ok]
    assert not breaks, "\n".join(breaks)


def test_the_package_import_graph_has_no_cycle() -> None:
    cycle = find_cycle(package_graph())
    assert cycle is None, "import cycle: " + " -> ".join(f"bot.{p}" for p in cycle)


def test_the_rules_allow_no_cycle() -> None:
    # Stronger than the code's graph: no two packages may even be allowed each other.
    cycle = find_cycle(rule_graph())
    assert cycle is None, "the rules allow a cycle: " + " -> ".join(cycle)


def test_the_cycle_check_finds_one() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def _named(doc: str, packages: Iterable[str]) -> list[str]:
    return [p for p in packages if f"`bot.{p}`" not in doc]


@pytest.mark.parametrize("package", sorted(p for p in RULES if (BOT / p).is_dir()))
def test_a_package_says_what_it_may_import(package: str) -> None:
    doc = ast.get_docstring(ast.parse((BOT / package / "__init__.py").read_text()))
    assert doc and "import" in doc, f"bot/{package}/__init__.py needs its docstring"
    rule = RULES[package]
    if rule != TOP:
        missing = _named(doc, sorted(set(rule) - {ROOT}))
        assert not missing, (f"bot/{package}/__init__.py does not name what it may import: "
                             + ", ".join(f"`bot.{m}`" for m in missing))


def test_the_stream_module_does_not_need_the_client_back() -> None:
    assert not {"bot.lichess.client", "bot.lichess.transport"} & imports_of(
        BOT / "lichess" / "streams.py")


def test_only_the_engine_touches_the_c_core() -> None:
    # bindings.py and search_bindings.py are the raw layer; board.py, engine.py and
    # everything above go through them (bot/engine/bindings.py's layering).
    raw = {p.name for p in BOT.rglob("*.py") if "bot._engine" in imports_of(p)}
    assert raw == {"bindings.py", "search_bindings.py"}


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


# -- the size guards (issue 49), over every package of bot/ ----------------------------
MAX_ATTRIBUTES = 20  # distinct `self.X` a class assigns: its state
MAX_PARAMETERS = 8  # per function, self and cls not counted, *args and **kwargs counted
# Known offenders while a split is pending: "path:Class" or "path:function", each with why.
ALLOWED: dict[str, str] = {
    # Empty since issue 49's splits landed: a split under way adds its offender here
    # and removes it when it lands.
}


def _classes_and_functions() -> Iterable[tuple[str, ast.ClassDef | ast.FunctionDef
                                               | ast.AsyncFunctionDef]]:
    for path in sorted(BOT.rglob("*.py")):
        rel = str(path.relative_to(BOT.parent))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                yield f"{rel}:{node.name}", node


def methods_of(cls: ast.ClassDef) -> int:
    return sum(isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef) for f in cls.body)


def attributes_of(cls: ast.ClassDef) -> set[str]:
    """The `self.X` a class assigns.  A record (a dataclass, a NamedTuple) declares its
    fields in the class body instead and so counts none: it holds fields, not state."""
    found: set[str] = set()
    for node in ast.walk(cls):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign | ast.AugAssign):
            targets = [node.target]
        found |= {t.attr for target in targets for t in ast.walk(target)
                  if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
                  and t.value.id == "self"}
    return found


def parameters_of(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    a = fn.args
    names = [x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
    return (sum(n not in ("self", "cls") for n in names)
            + (a.vararg is not None) + (a.kwarg is not None))


def oversized() -> list[tuple[str, str]]:
    """(where, what) for every class or function over a limit."""
    big = []
    for where, node in _classes_and_functions():
        if isinstance(node, ast.ClassDef):
            if (n := methods_of(node)) > MAX_METHODS:
                big.append((where, f"{n} methods"))
            if (n := len(attributes_of(node))) > MAX_ATTRIBUTES:
                big.append((where, f"{n} instance attributes"))
        elif (n := parameters_of(node)) > MAX_PARAMETERS:
            big.append((where, f"{n} parameters"))
    return big


def test_no_class_or_function_is_over_the_limits() -> None:
    big = [f"{where}: {what}" for where, what in oversized() if where not in ALLOWED]
    assert not big, "\n".join(big)


def test_the_allowlist_names_only_what_is_still_over() -> None:
    still = {where for where, _ in oversized()}
    assert not set(ALLOWED) - still, f"no longer over the limits: {set(ALLOWED) - still}"


def test_the_guards_count_what_they_say() -> None:
    tree = ast.parse("""
class Big:
    def __init__(self, a, b, *rest, c=1, **kw):
        self.x, (self.y, self.z) = 1, (2, 3)
        self.x += 1
    def m(self) -> None:
        self.w: int = 4
""")
    cls = tree.body[0]
    assert isinstance(cls, ast.ClassDef)
    init = cls.body[0]
    assert isinstance(init, ast.FunctionDef)
    assert methods_of(cls) == 2 and attributes_of(cls) == {"x", "y", "z", "w"}
    assert parameters_of(init) == 5


def test_every_allowed_edge_is_used() -> None:
    """A rule allows only what the code imports: an unused edge is a door left open."""
    used = package_graph()
    unused = sorted(f"{pkg} -> {dep}" for pkg, deps in rule_graph().items()
                    if RULES[pkg] != TOP for dep in deps - used[pkg] - COMPILED)
    assert not unused, f"allowed but unused (trim the rule): {unused}"
