"""Print a syntax tree back to text.

Unchanged nodes print their ``raw`` source, so an unedited file comes back byte
for byte.  Nodes created or edited by confmig (``raw`` set to ``""``) are
rendered canonically from their name and arguments, indented to their depth.
"""

from __future__ import annotations

from collections.abc import Iterable

from confmig.syntax.ast import Blank, Comment, ConfigFile, Directive, Node, Section
from confmig.syntax.words import quote_word

INDENT = "    "


def render_directive(name: str, args: Iterable[str], depth: int = 0) -> str:
    words = " ".join(quote_word(a) for a in args)
    return f"{INDENT * depth}{name}{' ' + words if words else ''}\n"


def _print_node(node: Node, depth: int, out: list[str]) -> None:
    if isinstance(node, Section):
        if node.raw:
            out.append(node.raw)
        else:
            args = node.args_text or " ".join(quote_word(a) for a in node.args)
            out.append(f"{INDENT * depth}<{node.name}{' ' + args if args else ''}>\n")
        for child in node.children:
            _print_node(child, depth + 1, out)
        if node.closed:
            out.append(node.close_raw or f"{INDENT * depth}</{node.name}>\n")
    elif node.raw:
        out.append(node.raw)
    elif isinstance(node, Directive):
        out.append(render_directive(node.name, node.args, depth))
    elif isinstance(node, Comment):
        out.append(f"{INDENT * depth}# {node.raw}\n")
    elif isinstance(node, Blank):
        out.append("\n")


def print_nodes(nodes: Iterable[Node], depth: int = 0) -> str:
    out: list[str] = []
    for node in nodes:
        _print_node(node, depth, out)
    return "".join(out)


def print_file(config: ConfigFile) -> str:
    return print_nodes(config.nodes)
