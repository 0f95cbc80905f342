"""Typed, lossless syntax tree for Apache configuration files.

Every node keeps the exact source text it was parsed from (``raw``), so a file
can be printed back byte for byte (see :mod:`confmig.syntax.printer`), and its
position (file, 1-based line and column of its first non-blank character).

Arguments are split the way Apache's ``ap_getword_conf`` splits them
(:mod:`confmig.syntax.words`); ``args_text`` keeps the unsplit text so the loader
can substitute ``${VAR}`` first and split afterwards, as Apache does.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field


@dataclass(eq=False, slots=True)
class Node:
    file: str
    line: int
    column: int
    raw: str

    @property
    def location(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(eq=False, slots=True)
class Blank(Node):
    """A line holding nothing but white space."""


@dataclass(eq=False, slots=True)
class Comment(Node):
    """A line whose first non-blank character is ``#`` (continuations included)."""

    @property
    def text(self) -> str:
        body = self.raw.strip()
        return body[1:].strip() if body.startswith("#") else body


@dataclass(eq=False, slots=True)
class Directive(Node):
    """One directive: ``Name arg arg ...``.

    ``name`` is spelt as written; compare with ``lname``.  ``end_line`` is the
    last physical line of a continued directive (Apache reports errors there).
    """

    name: str = ""
    args: list[str] = field(default_factory=list)
    args_text: str = ""
    end_line: int = 0
    lname: str = field(init=False, repr=False, default="")

    def __post_init__(self) -> None:
        self.lname = self.name.lower()  # compared by every rule and merger: computed once


@dataclass(eq=False, slots=True)
class Section(Node):
    """``<Name args>`` … ``</Name>``; ``raw`` is the opening line, ``close_raw`` the closing one.

    ``closed`` is False for a conditional section left open at the end of its file:
    Apache reads a true one to the end of the file, and rejects a false one.
    """

    name: str = ""
    args: list[str] = field(default_factory=list)
    args_text: str = ""
    end_line: int = 0
    children: list[Node] = field(default_factory=list)
    close_raw: str = ""
    close_line: int = 0
    closed: bool = True
    lname: str = field(init=False, repr=False, default="")

    def __post_init__(self) -> None:
        self.lname = self.name.lower()

    def walk(self) -> Iterator[Node]:
        """Every node below this section, depth first, in file order."""
        for child in self.children:
            yield child
            if isinstance(child, Section):
                yield from child.walk()


@dataclass(eq=False, slots=True)
class ParseError:
    """A syntax error, collected rather than thrown (crossplane style)."""

    file: str
    line: int
    column: int
    message: str

    def __str__(self) -> str:
        if self.line <= 0:  # about the file as a whole (not found, not readable…)
            return f"{self.file}: {self.message}"
        return f"{self.file}:{self.line}:{self.column}: {self.message}"


@dataclass(eq=False, slots=True)
class ConfigFile:
    """One parsed file: its nodes, and any parse error (the nodes are then empty).

    ``warnings`` are constructs Apache accepts but that are almost certainly
    mistakes (a conditional section never closed).
    """

    path: str
    nodes: list[Node] = field(default_factory=list)
    errors: list[ParseError] = field(default_factory=list)
    warnings: list[ParseError] = field(default_factory=list)
    line_count: int = 0

    @property
    def ok(self) -> bool:
        return not self.errors

    def walk(self) -> Iterator[Node]:
        for node in self.nodes:
            yield node
            if isinstance(node, Section):
                yield from node.walk()

    def directives(self) -> Iterator[Directive]:
        return (n for n in self.walk() if isinstance(n, Directive))
