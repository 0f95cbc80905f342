"""A crossplane-like JSON form of parsed files."""

from __future__ import annotations

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


def file_json(config: ConfigFile, includes: dict[tuple[str, int], list[int]]) -> dict[str, Any]:
    return {
        "file": config.path,
        "status": "ok" if config.ok else "failed",
        "errors": [error_json(e) for e in config.errors],
        "parsed": [j for n in config.nodes if (j := node_json(n, includes)) is not None],
    }
