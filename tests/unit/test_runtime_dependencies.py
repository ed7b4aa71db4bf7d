"""RUN-1: a runtime-only install (``make run``, the container) has every package the running code
imports.

``make run`` and the Dockerfile install ``pyproject.toml``'s runtime dependencies only; the
test extra is not there. Every third-party module that ``adapters``, ``engine``, ``storage`` or
``config`` imports must therefore come from a runtime dependency or from what one of them
requires: otherwise the Claude provider (the ``anthropic`` SDK) or any other part fails with an
ImportError on a fresh machine although the suite, which installs the test extra, passes.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib import metadata

from tests.fixtures.servers import ROOT

PACKAGES = ("adapters", "engine", "storage", "config")


def _name(requirement: str) -> str:
    return re.split(r"[\s<>=!~;\[(]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def _runtime() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return {_name(r) for r in project["dependencies"]}


def _closure(roots: set[str]) -> set[str]:
    """The roots and everything they require (markers other than extras taken as true)."""
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        todo.extend(_name(r) for r in requires if "extra ==" not in r)
    return seen


def _optional(tree: ast.Module) -> set[ast.AST]:
    """Imports guarded by ``except ImportError`` (the code says what to do without them)."""
    guarded: set[ast.AST] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(
            isinstance(h.type, ast.Name) and h.type.id in {"ImportError", "ModuleNotFoundError"}
            for h in node.handlers
        ):
            guarded.update(n for stmt in node.body for n in ast.walk(stmt))
    return guarded


def _imported_modules() -> dict[str, str]:
    """Top-level module name -> the first file importing it unguarded, over the running code."""
    found: dict[str, str] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(), str(path))
            optional = _optional(tree)
            for node in ast.walk(tree):
                if node in optional:
                    continue
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    found.setdefault(name.split(".")[0], str(path.relative_to(ROOT)))
    return found


def test_run_1_every_module_the_running_code_imports_is_a_runtime_dependency() -> None:
    installed = _closure(_runtime())
    distributions = metadata.packages_distributions()
    missing = []
    for module, where in sorted(_imported_modules().items()):
        if module in sys.stdlib_module_names or module in PACKAGES or (ROOT / module).exists():
            continue
        owners = {d.lower().replace("_", "-") for d in distributions.get(module, [])}
        if not owners or not owners & installed:
            missing.append(f"{module} (imported by {where}; from {sorted(owners) or 'nothing installed'})")
    assert not missing, "not installed by a runtime-only install: " + "; ".join(missing)


def test_the_design_cards_libraries_are_runtime_dependencies() -> None:
    runtime = _runtime()
    for name in ("aiogram", "litestar", "redis", "faiss-cpu", "anthropic", "msgspec"):
        assert name in runtime, f"{name} is not a runtime dependency"
