"""Edit a lossless configuration without touching anything else, and print it back — file by
file (for ``--write``) or as one file with every ``Include`` inlined (for ``-o``).

Edits are positions (``file``, ``line``, ``column`` of a node) mapped to text; every node
without one prints its own ``raw`` text, so an unedited file comes back byte for byte — except
a line with a NUL byte, which is printed as Apache read it (:func:`.text.as_read`): where it
ends in the output, Apache's read buffer would split it elsewhere; and a file's last line that
the end of the file ended (a backslash before its last newline, or one with no newline after
it), which gets what ends it there (:func:`.text.ended`): text printed after it, an inserted
block or an inlined file's ``# confmig: end`` comment, would be its continuation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from confmig.convert.httpd.text import as_read, ensure_newline
from confmig.load import LoadedConfig
from confmig.syntax import Directive, Node, Section

Pos = tuple[str, int, int]
Transform = Callable[[Node], str | None]


def pos(node: Node) -> Pos:
    return (node.file, node.line, node.column)


@dataclass
class Edits:
    """Text to put after a node, instead of a node, or at the end of a section or file."""

    after: dict[Pos, list[str]] = field(default_factory=dict)
    replace: dict[Pos, str] = field(default_factory=dict)
    append: dict[Pos, list[str]] = field(default_factory=dict)  # before a section's close
    file_end: dict[str, list[str]] = field(default_factory=dict)

    def changed_files(self) -> set[str]:
        files = {p[0] for p in (*self.after, *self.replace, *self.append)}
        return files | set(self.file_end)

    def insert_after(self, node: Node, text: str) -> None:
        self.after.setdefault(pos(node), []).append(text)

    def insert_at_end(self, container: Section | None, file: str, text: str) -> None:
        if container is None:
            self.file_end.setdefault(file, []).append(text)
        else:
            self.append.setdefault(pos(container), []).append(text)


def print_file(config: LoadedConfig, path: str, edits: Edits) -> str:
    """One file of *config* with *edits* applied (BOM kept)."""
    parsed = config.files[path]
    out: list[str] = []
    _print(parsed.nodes, edits, out, None, None)
    _end(out, edits.file_end.get(path, []))
    return "".join(out)


def flatten(config: LoadedConfig, edits: Edits) -> str:
    """The whole configuration as one file: each ``Include`` that was read is replaced by the
    files it read (marked with comments), edits applied."""
    includes = {(e.file, e.line): e.targets for e in config.includes}
    out: list[str] = []
    main = config.files[config.main]
    _print(main.nodes, edits, out, includes, None, config)
    _end(out, edits.file_end.get(config.main, []))
    return "".join(out)


def print_transformed(nodes: list[Node], transform: Transform) -> str:
    """*nodes* printed back, each node *transform* returns text for replaced by that text (a
    section: its opening line only; its children are printed, and transformed, as usual)."""
    out: list[str] = []
    _print(nodes, Edits(), out, None, transform)
    return "".join(out)


def _print(nodes: list[Node], edits: Edits, out: list[str],
           includes: dict[tuple[str, int], list[str]] | None, transform: Transform | None,
           config: LoadedConfig | None = None) -> None:
    for node in nodes:
        key = pos(node)
        replaced = transform(node) if transform is not None else None
        if replaced is not None and not isinstance(node, Section):
            out.append(replaced)
        elif key in edits.replace:
            out.append(edits.replace[key])
        elif isinstance(node, Section):
            out.append(replaced if replaced is not None else ensure_newline(as_read(node.raw)))
            _print(node.children, edits, out, includes, transform, config)
            _end(out, edits.append.get(key, []))
            out.append(ensure_newline(as_read(node.close_raw) or f"</{node.name}>"))
        elif (includes is not None and config is not None and isinstance(node, Directive)
              and (node.file, node.line) in includes):
            _inline(node, includes[(node.file, node.line)], edits, out, includes, transform,
                    config)
        else:
            out.append(as_read(node.raw))
        for text in edits.after.get(key, []):
            _end(out, [text])


def _inline(node: Directive, targets: list[str], edits: Edits, out: list[str],
            includes: dict[tuple[str, int], list[str]], transform: Transform | None,
            config: LoadedConfig) -> None:
    raw = as_read(node.raw)
    indent = raw[: len(raw) - len(raw.lstrip(" \t"))]
    out.append(f"{indent}# confmig: {' '.join(raw.split())} (inlined below)\n")
    for target in targets:
        parsed = config.files.get(target)
        if parsed is None:
            continue
        out.append(f"{indent}# confmig: begin {target}\n")
        _print(parsed.nodes, edits, out, includes, transform, config)
        _end(out, [*edits.file_end.get(target, []), f"{indent}# confmig: end {target}\n"])


def _end(out: list[str], texts: list[str]) -> None:
    """Append *texts*, making sure the previous text ended its line."""
    for text in texts:
        if out and out[-1] and not out[-1].endswith("\n"):
            out.append("\n")
        out.append(text)
