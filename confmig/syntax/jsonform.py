"""A crossplane-like JSON form of parsed files.

:func:`parsed_chunks` writes a file's ``parsed`` list as text, a directive at a time (the
bytes of ``json.dumps`` of :func:`parsed_json`'s entries), and reads each directive's words
without keeping them on the node (:meth:`~confmig.syntax.ast.Directive.args_unkept`): a
large file's tree stays the size the parse made it, instead of doubling with the words
(1 MB of distinct lines: 9.2x the file, 17.6x once every directive kept its words).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from confmig.syntax.ast import ConfigFile, Directive, Node, ParseError, Section

# json.dumps' own settings (ensure_ascii, ", " and ": "): a string encoded alone is the
# text json.dumps writes for it inside a list or an object.
_ENCODE = json.JSONEncoder().encode

Includes = dict[tuple[str, int], list[int]]


def error_json(error: ParseError) -> dict[str, Any]:
    return {"file": error.file, "line": error.line, "column": error.column,
            "error": error.message}


def node_json(node: Node, includes: Includes) -> dict[str, Any] | None:
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
                               "column": node.column, "args": node.args_unkept()}
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


def parsed_json(config: ConfigFile, includes: Includes) -> Iterator[dict[str, Any]]:
    """The entries of a file's ``parsed`` list, one top-level node at a time."""
    for node in config.nodes:
        entry = node_json(node, includes)
        if entry is not None:
            yield entry


def file_json(config: ConfigFile, includes: Includes) -> dict[str, Any]:
    out = file_header(config)
    out["parsed"] = list(parsed_json(config, includes))
    return out


def _directive_text(node: Directive, includes: Includes, separator: str) -> str:
    """``separator`` and ``json.dumps(node_json(node, includes))``, as one string."""
    words = ", ".join(map(_ENCODE, node.args_unkept()))
    target = includes.get((node.file, node.line)) if includes else None
    tail = "" if target is None else f', "includes": {_ENCODE(target)}'
    return (f'{separator}{{"directive": {_ENCODE(node.name)}, "line": {node.line}, '
            f'"column": {node.column}, "args": [{words}]{tail}}}')


def _section_head(node: Section, separator: str) -> str:
    """``separator`` and the text of ``json.dumps(node_json(node, includes))`` up to its
    ``block``'s first entry."""
    words = ", ".join(map(_ENCODE, node.args))
    return (f'{separator}{{"directive": {_ENCODE(node.name)}, "section": true, '
            f'"line": {node.line}, "column": {node.column}, "args": [{words}], "block": [')


def parsed_chunks(config: ConfigFile, includes: Includes) -> Iterator[str]:
    """``json.dumps(list(parsed_json(config, includes)))`` in pieces, a directive or a
    section's opening at a time, depth first without recursion: nothing of a node is kept
    once it is written (a section's block is not built before it is written either)."""
    yield "["
    stack: list[Iterator[Node]] = [iter(config.nodes)]
    separator = ""
    while stack:
        for node in stack[-1]:
            if isinstance(node, Directive):
                yield _directive_text(node, includes, separator)
                separator = ", "
            elif isinstance(node, Section):
                yield _section_head(node, separator)
                separator = ""
                stack.append(iter(node.children))
                break
        else:
            stack.pop()
            yield "]}" if stack else "]"
            separator = ", "
