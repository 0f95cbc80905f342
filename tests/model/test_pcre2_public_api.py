"""confmig uses the pcre2 binding through its public API only (issue 11: no reaching into a
library's private internals such as ``pcre2._cy`` or ``Pattern._pcre2_code``)."""

from __future__ import annotations

import ast
from pathlib import Path

import confmig

PACKAGE = Path(confmig.__file__).parent


def private_uses(source: str) -> list[str]:
    """``pcre2._x`` imports and attribute reads, and any ``._pcre2…`` attribute."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module.startswith("pcre2._"):
                found.append(f"{node.lineno}: from {node.module}")
            elif node.module == "pcre2":
                found += [f"{node.lineno}: {a.name}" for a in node.names
                          if a.name.startswith("_")]
        elif isinstance(node, ast.Import):
            found += [f"{node.lineno}: import {a.name}" for a in node.names
                      if a.name.startswith("pcre2._")]
        elif isinstance(node, ast.Attribute) and (
                node.attr.startswith("_pcre2") or (
                    node.attr.startswith("_") and not node.attr.startswith("__")
                    and isinstance(node.value, ast.Name) and node.value.id == "pcre2")):
            found.append(f"{node.lineno}: .{node.attr}")
    return found


def test_the_check_sees_private_uses() -> None:
    assert private_uses("from pcre2 import _cy\n")
    assert private_uses("import pcre2\nx = pcre2._EMPTY_MATCH_CONTEXT\n")
    assert private_uses("code = pattern._pcre2_code\n")
    assert not private_uses("import pcre2\npcre2.compile(b'a').search(b'a')\n")


def test_confmig_uses_only_the_public_pcre2_api() -> None:
    offenders = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        found = private_uses(path.read_text(encoding="utf-8"))
        if found:
            offenders[str(path.relative_to(PACKAGE))] = found
    assert offenders == {}
