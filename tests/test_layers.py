"""The package's import graph has layers and no import runs upward (issue 11).

The pipeline reads from the folder names: Apache facts (``apache``) → ``syntax`` → ``load``
→ ``model`` → ``lint`` / ``convert`` / ``replay`` → ``verify`` → ``bench`` → ``cli``.
``servers``, ``fs``, ``progress`` and ``console`` are utilities that import nothing else from
confmig.
Every import is checked, including the lazy ones inside functions: a lazy import that runs
upward is still an upward dependency. Packages on the same layer do not import each other.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "confmig"

LAYER = {
    "apache": 0, "servers": 0, "fs": 0, "progress": 0, "console": 0,
    "syntax": 1,
    "load": 2,
    "model": 3,
    "lint": 4, "convert": 4, "replay": 4,
    "verify": 5,
    "bench": 6,
    "cli": 7,
    "__main__": 8,
}


def _imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module name) of every confmig import in one file."""
    parts = ("confmig", *path.relative_to(PACKAGE).with_suffix("").parts)
    package = parts if path.name == "__init__.py" else parts[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_bytes(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                name = ".".join((*base, node.module) if node.module else base)
            else:
                name = node.module or ""
            found.append((node.lineno, name))
    return [(line, name) for line, name in found if name.split(".")[0] == "confmig"]


def _top(path: Path) -> str:
    return path.relative_to(PACKAGE).parts[0].removesuffix(".py")


def test_every_top_level_package_has_a_layer() -> None:
    tops = {_top(p) for p in PACKAGE.rglob("*.py")} - {"__init__"}
    assert tops <= LAYER.keys(), f"give these a layer: {sorted(tops - LAYER.keys())}"


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")),
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_import_runs_upward_or_sideways(path: Path) -> None:
    source = _top(path)
    if source == "__init__":
        return
    wrong = []
    for line, name in _imported_modules(path):
        parts = name.split(".")
        target = parts[1] if len(parts) > 1 else "__init__"
        if target in {source, "__init__"}:
            continue
        if LAYER[target] >= LAYER[source]:
            wrong.append(f"{path.relative_to(PACKAGE)}:{line} imports {name} "
                         f"({target}, layer {LAYER[target]}) from {source} (layer {LAYER[source]})")
    assert not wrong, "\n".join(wrong)


def _module_name(path: Path, package: Path = PACKAGE) -> str:
    parts = (package.name, *path.relative_to(package).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _top_level_imports(path: Path, modules: set[str], root: Path) -> set[str]:
    """The package's modules one file imports when it is itself imported (module level, not
    under ``if TYPE_CHECKING``); ``from package import submodule`` counts as the submodule."""
    parts = _module_name(path, root).split(".")
    package = parts if path.name == "__init__.py" else parts[:-1]
    found: set[str] = set()
    for node in ast.parse(path.read_bytes(), str(path)).body:
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1])
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            submodules = {f"{module}.{alias.name}" for alias in node.names} & modules
            found |= submodules if len(submodules) == len(node.names) else {module}
    return (found & modules) - {_module_name(path, root)}


def import_cycles(root: Path) -> list[str]:
    """Every cycle of module-level imports found by a depth-first walk, as "a → b → a"."""
    paths = {_module_name(p, root): p for p in root.rglob("*.py")}
    graph = {name: _top_level_imports(path, set(paths), root) for name, path in paths.items()}
    cycles = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(name: str, trail: list[str]) -> None:
        state[name] = 1
        for dep in sorted(graph[name]):
            if state.get(dep) == 1:
                cycles.append(" → ".join([*trail[trail.index(dep):], dep]))
            elif dep not in state:
                visit(dep, [*trail, dep])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    return cycles


def test_no_module_level_import_cycle() -> None:
    cycles = import_cycles(PACKAGE)
    assert not cycles, "\n".join(cycles)


def test_the_cycle_check_finds_a_cycle(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("from pkg.sub import b\n")
    (package / "a.py").write_text("from pkg.sub.b import thing\n")
    (package / "sub" / "b.py").write_text("from .. import a\nthing = 1\n")
    (package / "c.py").write_text("import pkg.a\n")
    assert import_cycles(package) == ["pkg.a → pkg.sub.b → pkg.a"]
