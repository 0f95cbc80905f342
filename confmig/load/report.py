"""``confmig parse`` output: the loaded files as crossplane-like JSON or a rich tree."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.text import Text
from rich.tree import Tree

from confmig.console import printable
from confmig.load.workspace import Workspace
from confmig.syntax import ConfigFile, Directive, Node, Section
from confmig.syntax.jsonform import error_json, file_header, file_json, parsed_chunks


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
    """``json.dumps(workspace_json(ws))`` in pieces, a directive at a time, so that printing
    a large file never holds the whole document (its dicts) in memory, nor keeps the words
    it reads on the nodes (:func:`~confmig.syntax.jsonform.parsed_chunks`)."""
    files = _all_files(ws)
    includes = _includes(ws, files)

    def file_chunks(config: ConfigFile) -> Iterator[str]:
        header = file_header(config)
        header["parsed"] = None
        return _object(header, "parsed", parsed_chunks(config, includes))

    return _object(_document(ws, None), "config", _array(file_chunks(f) for f in files))


def _plain(node: Node) -> str | None:
    """A node's line in the tree: its text as read (never markup: ``\\[`` stays ``\\[``)."""
    if isinstance(node, Section):
        args = f" {node.args_text}" if node.args_text else ""
        return f"<{node.name}{args}> :{node.line}"
    if isinstance(node, Directive):
        return f"{node.name} {node.args_text_unkept()} :{node.line}"
    return None


def _label(node: Node) -> Text | None:
    plain = _plain(node)
    if plain is None:
        return None
    text = Text(plain, end="")
    number = plain.rindex(":")
    text.stylize("bold magenta" if isinstance(node, Section) else "cyan",
                 0, number - 1 if isinstance(node, Section) else len(node.name))
    text.stylize("dim", number)
    return text


def _add(tree: Tree, nodes: list[Node]) -> None:
    for node in nodes:
        label = _label(node)
        if label is None:
            continue
        branch = tree.add(label)
        if isinstance(node, Section):
            _add(branch, node.children)


def _shown(text: object) -> str:
    """A file name or an error inside a label's markup: its control characters escaped
    (:func:`confmig.console.printable`) and its ``[`` too, so that a name such as
    ``a[/bold]b`` is shown as it is, not read as markup (a rich MarkupError)."""
    return escape(printable(str(text)))


def workspace_tree(ws: Workspace) -> Tree:
    root = Tree("[bold]configuration[/]")
    for config in _all_files(ws):
        status = "[green]ok[/]" if config.ok else "[red]failed[/]"
        branch = root.add(f"[bold]{_shown(config.path)}[/] {status}")
        for error in config.errors:
            branch.add(f"[red]{_shown(error)}[/]")
        _add(branch, config.nodes)
    return root


# --- the same tree, streamed -------------------------------------------------------------
#
# rich renders a Tree whole: every label becomes a Text, every line a list of Segments, all of
# it held until the end (a 1 MB file of sections: 10.8 s and +86 MB).  Printed as plain text,
# the tree is written a line at a time instead: a label of printable ASCII that fits in the
# width is written as it is (what rich would print for it), any other label (a file's or an
# error's markup, tabs, wide or control characters, too long for the width) is rendered by
# rich itself, alone, with the options its Tree would give it.

TREE_NODES_IN_COLOUR = 5_000  # a terminal gets rich's coloured tree up to this many nodes
_SPACE, _CONTINUE, _FORK, _END = range(4)
_PLAIN = frozenset(chr(c) for c in range(0x20, 0x7F))

# (label: markup or Text, its plain text when that is exactly what it shows, children)
_Item = tuple[str | Text, str | None, Iterator[Any]]


def _node_items(nodes: list[Node]) -> Iterator[_Item]:
    for node in nodes:
        plain = _plain(node)
        if plain is not None:
            children = _node_items(node.children) if isinstance(node, Section) else iter(())
            yield (Text(plain, end=""), plain, children)


def _file_items(ws: Workspace) -> Iterator[_Item]:
    for config in _all_files(ws):
        status = "[green]ok[/]" if config.ok else "[red]failed[/]"
        errors: Iterator[_Item] = ((f"[red]{_shown(e)}[/]", None, iter(()))
                                   for e in config.errors)
        yield (f"[bold]{_shown(config.path)}[/] {status}", None,
               itertools.chain(errors, _node_items(config.nodes)))


def _with_last(items: Iterator[_Item]) -> Iterator[tuple[bool, _Item]]:
    """Each item with whether it is the last one (rich draws its guide differently)."""
    previous: _Item | None = None
    for item in items:
        if previous is not None:
            yield False, previous
        previous = item
    if previous is not None:
        yield True, previous


def _node_count(ws: Workspace, limit: int) -> int:
    """How many nodes the tree would have, counting no further than ``limit``."""
    count = 0
    stack = [f.nodes for f in _all_files(ws)]
    while stack and count <= limit:
        for node in stack.pop():
            count += 1
            if isinstance(node, Section):
                stack.append(node.children)
    return count


def tree_lines(ws: Workspace, console: Console) -> Iterator[str]:
    """The lines (with their newline) rich prints for :func:`workspace_tree` on ``console``
    without colour, one at a time."""
    guides = Tree.ASCII_GUIDES if console.options.ascii_only else Tree.TREE_GUIDES[0]
    options = console.options.update(justify=None, overflow="ignore", no_wrap=True,
                                     markup=None, highlight=False, height=None)
    max_width = options.max_width

    def render(label: str | Text, plain: str | None, prefix: list[int]) -> Iterator[str]:
        width = max_width - 4 * len(prefix)
        if plain is not None and len(plain) <= width and _PLAIN.issuperset(plain):
            yield "".join(guides[g] for g in prefix) + plain + "\n"
            return
        lines = console.render_lines(label, options.update(width=width), pad=False)
        for first, line in enumerate(lines):
            yield "".join(guides[g] for g in prefix) + "".join(s.text for s in line) + "\n"
            if first == 0 and prefix:
                prefix = [*prefix[:-1], _CONTINUE if prefix[-1] == _FORK else _SPACE]

    yield from render("[bold]configuration[/]", None, [])
    # levels: the guide drawn for each open ancestor, as rich's Tree keeps it
    levels: list[int] = []
    stack: list[Iterator[tuple[bool, _Item]]] = [_with_last(_file_items(ws))]
    while stack:
        try:
            last, (label, plain, children) = next(stack[-1])
        except StopIteration:
            stack.pop()
            if levels:
                levels.pop()
            continue
        prefix = [*levels, _END if last else _FORK]
        yield from render(label, plain, prefix)
        levels.append(_SPACE if last else _CONTINUE)
        stack.append(_with_last(children))


def print_tree(ws: Workspace, console: Console) -> None:
    """``confmig parse``'s tree on ``console``: rich's coloured tree on a terminal for a tree
    of up to :data:`TREE_NODES_IN_COLOUR` nodes, else the same tree in plain text, streamed."""
    if console.is_terminal and _node_count(ws, TREE_NODES_IN_COLOUR) <= TREE_NODES_IN_COLOUR:
        console.print(workspace_tree(ws))
        return
    console.file.writelines(tree_lines(ws, console))
