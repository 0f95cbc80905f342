"""``confmig parse`` output: the loaded files as crossplane-like JSON or a rich tree."""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from rich.tree import Tree

from confmig.load.workspace import Workspace
from confmig.syntax import ConfigFile, Directive, Node, Section
from confmig.syntax.jsonform import error_json, file_json


def _all_files(ws: Workspace) -> list[ConfigFile]:
    files: list[ConfigFile] = []
    for loaded in ws.loaded():
        files.extend(loaded.files.values())
    return files


def workspace_json(ws: Workspace) -> dict[str, Any]:
    files = _all_files(ws)
    index = {f.path: i for i, f in enumerate(files)}
    includes: dict[tuple[str, int], list[int]] = {}
    for loaded in ws.loaded():
        for edge in loaded.includes:
            includes[(edge.file, edge.line)] = [index[t] for t in edge.targets if t in index]
    errors = ws.errors
    out: dict[str, Any] = {
        "status": "ok" if not errors else "failed",
        "errors": [error_json(e) for e in errors],
        "config": [file_json(f, includes) for f in files],
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
