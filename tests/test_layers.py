"""The package's import graph has layers and no import runs upward (issue 11).

The pipeline reads from the folder names: Apache facts (``apache``) → ``syntax`` → ``load``
→ ``model`` → ``lint`` / ``convert`` / ``replay`` → ``verify`` → ``bench`` → ``cli``.
``servers``, ``fs`` and ``progress`` are utilities that import nothing else from confmig.
Every import is checked, including the lazy ones inside functions: a lazy import that runs
upward is still an upward dependency. Packages on the same layer do not import each other.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "confmig"

LAYER = {
    "apache": 0, "servers": 0, "fs": 0, "progress": 0,
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
