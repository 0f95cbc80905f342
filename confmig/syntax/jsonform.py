"""A crossplane-like JSON form of parsed files."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from confmig.syntax.ast import ConfigFile, Directive, Node, ParseError, Section


def error_json(error: ParseError) -> dict[str, Any]:
    return {"file": error.file, "line": error.line, "column": error.column,
            "error": error.message}


def node_json(node: Node, includes: dict[tuple[str, int], list[int]]) -> dict[str, Any] | None:
    if isinstance(node, Section):
        return {
            "directive": node.name,
            "section": True,
            "line": node.line,
            "column": node.column,
            "args": node.args,
            "block": [j for c in node.children if (j := node_json(c, includes)) is not None],
        }
    if isinstance(node, Directive):
        out: dict[str, Any] = {"directive": node.name, "line": node.line,
                               "column": node.column, "args": node.args}
        if (node.file, node.line) in includes:
            out["includes"] = includes[(node.file, node.line)]
        return out
    return None


def file_header(config: ConfigFile) -> dict[str, Any]:
    """A file's entry without its ``parsed`` list."""
    return {
        "file": config.path,
        "status": "ok" if config.ok else "failed",
        "errors": [error_json(e) for e in config.errors],
    }


def parsed_json(config: ConfigFile, includes: dict[tuple[str, int], list[int]]
                ) -> Iterator[dict[str, Any]]:
    """The entries of a file's ``parsed`` list, one top-level node at a time."""
    for node in config.nodes:
        entry = node_json(node, includes)
        if entry is not None:
            yield entry


def file_json(config: ConfigFile, includes: dict[tuple[str, int], list[int]]) -> dict[str, Any]:
    out = file_header(config)
    out["parsed"] = list(parsed_json(config, includes))
    return out
