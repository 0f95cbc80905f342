"""``confmig parse`` output: the loaded files as crossplane-like JSON or a rich tree."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from rich.markup import escape
from rich.tree import Tree

from confmig.load.workspace import Workspace
from confmig.syntax import ConfigFile, Directive, Node, Section
from confmig.syntax.jsonform import error_json, file_header, file_json, parsed_json


def _all_files(ws: Workspace) -> list[ConfigFile]:
    files: list[ConfigFile] = []
    for loaded in ws.loaded():
        files.extend(loaded.files.values())
    return files


def _includes(ws: Workspace, files: list[ConfigFile]) -> dict[tuple[str, int], list[int]]:
    index = {f.path: i for i, f in enumerate(files)}
    includes: dict[tuple[str, int], list[int]] = {}
    for loaded in ws.loaded():
        for edge in loaded.includes:
            includes[(edge.file, edge.line)] = [index[t] for t in edge.targets if t in index]
    return includes


def _document(ws: Workspace, config: Any) -> dict[str, Any]:
    errors = ws.errors
    out: dict[str, Any] = {
        "status": "ok" if not errors else "failed",
        "errors": [error_json(e) for e in errors],
        "config": config,
    }
    warnings = [w for loaded in ws.loaded() for w in loaded.warnings]
    if warnings:
        out["warnings"] = [error_json(w) for w in warnings]
    if ws.scan is not None:
        out["docroot"] = {
            "root": str(ws.scan.root),
            "directories": ws.scan.directories,
            "access_files": [str(p) for p in ws.scan.access_files],
            "skipped": [{"path": str(p), "reason": r} for p, r in ws.scan.skipped],
            # access files Apache opens but confmig did not read (confmig.load.accessfile)
            "not_read": [{"path": c.path, "state": c.state.value, "reason": c.message()}
                         for c in ws.scan.problems],
        }
    return out


def workspace_json(ws: Workspace) -> dict[str, Any]:
    files = _all_files(ws)
    includes = _includes(ws, files)
    return _document(ws, [file_json(f, includes) for f in files])


def _object(items: dict[str, Any], hole: str, chunks: Iterator[str]) -> Iterator[str]:
    """``json.dumps(items)`` in pieces, with the value of key ``hole`` given as ``chunks``."""
    for i, (key, value) in enumerate(items.items()):
        yield ("{" if i == 0 else ", ") + json.dumps(key) + ": "
        if key == hole:
            yield from chunks
        else:
            yield json.dumps(value)
    yield "}"


def _array(items: Iterator[Iterator[str]]) -> Iterator[str]:
    yield "["
    for i, chunks in enumerate(items):
        if i:
            yield ", "
        yield from chunks
    yield "]"


def workspace_json_chunks(ws: Workspace) -> Iterator[str]:
    """``json.dumps(workspace_json(ws))`` in pieces, one top-level node at a time, so that
    printing a large file never holds the whole document (its dicts) in memory."""
    files = _all_files(ws)
    includes = _includes(ws, files)

    def file_chunks(config: ConfigFile) -> Iterator[str]:
        header = file_header(config)
        header["parsed"] = None
        nodes = (iter([json.dumps(n)]) for n in parsed_json(config, includes))
        return _object(header, "parsed", _array(nodes))

    return _object(_document(ws, None), "config", _array(file_chunks(f) for f in files))


def _label(node: Node) -> str | None:
    if isinstance(node, Section):
        args = f" {node.args_text}" if node.args_text else ""
        return f"[bold magenta]{escape(f'<{node.name}{args}>')}[/] [dim]:{node.line}[/]"
    if isinstance(node, Directive):
        return f"[cyan]{escape(node.name)}[/] {escape(node.args_text)} [dim]:{node.line}[/]"
    return None


def _add(tree: Tree, nodes: list[Node]) -> None:
    for node in nodes:
        label = _label(node)
        if label is None:
            continue
        branch = tree.add(label)
        if isinstance(node, Section):
            _add(branch, node.children)


def workspace_tree(ws: Workspace) -> Tree:
    root = Tree("[bold]configuration[/]")
    for config in _all_files(ws):
        status = "[green]ok[/]" if config.ok else "[red]failed[/]"
        branch = root.add(f"[bold]{config.path}[/] {status}")
        for error in config.errors:
            branch.add(f"[red]{error}[/]")
        _add(branch, config.nodes)
    return root
