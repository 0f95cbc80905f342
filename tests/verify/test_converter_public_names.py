"""verify, bench, replay and the command line use a converter through its package's public
names (``confmig.convert.httpd.__all__``), never a module inside it (issue 11)."""

from __future__ import annotations

import ast
from pathlib import Path

import confmig
import confmig.convert.httpd as httpd

PACKAGE = Path(confmig.__file__).parent
INSIDE = "confmig.convert.httpd"


def private_imports(source: str) -> list[str]:
    """Imports of a module inside ``confmig.convert.httpd``, or of a name it does not export."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module.startswith(INSIDE + "."):
                found.append(f"{node.lineno}: from {node.module}")
            elif node.module == INSIDE:
                found += [f"{node.lineno}: {a.name}" for a in node.names
                          if a.name not in httpd.__all__]
        elif isinstance(node, ast.Import):
            found += [f"{node.lineno}: import {a.name}" for a in node.names
                      if a.name.startswith(INSIDE + ".")]
    return found


def test_the_check_sees_an_inside_import() -> None:
    assert private_imports("def f():\n    from confmig.convert.httpd.env import config_env\n")
    assert private_imports("from confmig.convert.httpd import judge\n")
    assert not private_imports("from confmig.convert.httpd import assumed_env\n")


def test_outside_the_converter_only_public_names_are_imported() -> None:
    offenders = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        if rel.parts[:2] == ("convert", "httpd"):
            continue
        found = private_imports(path.read_text(encoding="utf-8"))
        if found:
            offenders[str(rel)] = found
    assert offenders == {}
