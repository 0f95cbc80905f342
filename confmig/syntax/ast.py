"""Typed, lossless syntax tree for Apache configuration files.

Every node keeps the exact source text it was parsed from (``raw``), so a file
can be printed back byte for byte (see :mod:`confmig.syntax.printer`), and its
position (file, 1-based line and column of its first non-blank character).

Arguments are split the way Apache's ``ap_getword_conf`` splits them
(:mod:`confmig.syntax.words`); ``args_text`` keeps the unsplit text so the loader
can substitute ``${VAR}`` first and split afterwards, as Apache does.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass, field

from confmig.syntax.words import WordTable

_SPACE = " \t\n\r\f\v"  # apr_isspace


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


@dataclass(eq=False, slots=True, init=False)
class Directive(Node):
    """One directive: ``Name arg arg ...``.

    ``name`` is spelt as written; compare with ``lname``.  ``end_line`` is the
    last physical line of a continued directive (Apache reports errors there).
    ``args_text`` is the text after the name (before ``${VAR}`` substitution splits it
    again), ``args`` its words.  The parser gives the nodes of one file that have the same
    argument text one shared ``args`` list (a large file repeats lines): never modify
    ``args`` in place — replace it, or the node (``dataclasses.replace``).

    A parsed node holds its line once until more is asked of it: ``args_text`` is cut from
    ``raw`` and ``args`` split when first read (a tree of distinct lines held each line
    three times: as written, after the name, and as words — a parse reads none of them for
    an ``.htaccess`` file, a lint reads all).  ``_text`` is the argument text (None: not cut
    yet), ``_words`` the words or, until they are first read, the file's
    :class:`~confmig.syntax.words.WordTable` that splits them and shares both with equal
    lines.
    """

    name: str
    end_line: int
    lname: str = field(init=False, repr=False)
    _words: list[str] | WordTable = field(repr=False)
    _text: str | None = field(repr=False)

    def __init__(self, file: str, line: int, column: int, raw: str, name: str = "",
                 args: list[str] | None = None, args_text: str | None = None,
                 end_line: int = 0, _words: list[str] | WordTable | None = None,
                 _text: str | None = "") -> None:
        # args and args_text win over _words and _text: dataclasses.replace passes both
        self.file = file
        self.line = line
        self.column = column
        self.raw = raw
        self.name = name
        self.end_line = end_line
        if args is not None:
            _words = args
        self._words = _words if _words is not None else []
        self._text = args_text if args_text is not None else _text
        # compared by every rule and merger: computed once, and shared by every node
        self.lname = sys.intern(name.lower())

    @classmethod
    def parsed(cls, file: str, line: int, column: int, raw: str, name: str,
               words: list[str] | WordTable, end_line: int) -> Directive:
        """A node whose argument text is what follows ``name`` in ``raw``, cut when first
        read: the parser checked that ``raw`` has no continuation and no NUL, and starts with
        ``name``."""
        return cls(file, line, column, raw, name, end_line=end_line, _words=words,
                   _text=None)

    @property
    def args_text(self) -> str:
        if self._text is None:
            self._read()
        return self._text  # type: ignore[return-value]

    @property
    def args(self) -> list[str]:
        if isinstance(self._words, WordTable):
            self._read()
        return self._words  # type: ignore[return-value]

    def args_unkept(self) -> list[str]:
        """The words, as :attr:`args`, without keeping them (nor the argument text) on a node
        not read yet: a reader that passes over each node once (``parse --format json``)
        leaves the tree as the parse made it."""
        words = self._words
        if not isinstance(words, WordTable):
            return words
        text = self._text
        if text is None:
            text = self.raw.strip(_SPACE)[len(self.name):].lstrip(_SPACE)
        return words.words(text)

    def _read(self) -> None:
        """Cut the argument text from ``raw`` (see :meth:`parsed`) and split it, both shared
        with equal lines of the file; kept once read: a lint reads them several times a
        directive, and cutting costs five times a read."""
        text = self._text
        table = self._words
        if not isinstance(table, WordTable):  # split already, or never parsed lazily
            if text is None:
                self._text = self.raw.strip(_SPACE)[len(self.name):].lstrip(_SPACE)
            return
        if text is None:
            text = table.share(self.raw.strip(_SPACE)[len(self.name):].lstrip(_SPACE))
            self._text = text
        self._words = table.split(text)


@dataclass(eq=False, slots=True)
class Section(Node):
    """``<Name args>`` … ``</Name>``; ``raw`` is the opening line, ``close_raw`` the closing one.

    ``closed`` is False for a conditional section left open at the end of its file:
    Apache reads a true one to the end of the file, and rejects a false one.
    ``close_error`` is Apache's error for a conditional section's closing line that only a
    true section rejects (``</IfModule> x``: ``ap_build_cont_config`` wants the exact line,
    ``ap_soak_end_container`` skipping a false one does not); the loader reports it.
    Both live in one slot, ``_end`` (None: not closed; else the closing line's error, ""
    for none), since a section has one or the other and most have neither: a slot less per
    node (a 1 MB file of ``<Files>`` blocks has 26,000 sections).
    """

    name: str = ""
    args: list[str] = field(default_factory=list)
    args_text: str = ""
    end_line: int = 0
    children: list[Node] = field(default_factory=list)
    close_raw: str = ""
    close_line: int = 0
    _end: str | None = field(default="", repr=False)
    lname: str = field(init=False, repr=False, default="")

    def __post_init__(self) -> None:
        self.lname = sys.intern(self.name.lower())

    @property
    def closed(self) -> bool:
        return self._end is not None

    @closed.setter
    def closed(self, value: bool) -> None:
        if not value:
            self._end = None
        elif self._end is None:
            self._end = ""

    @property
    def close_error(self) -> str:
        return self._end or ""

    @close_error.setter
    def close_error(self, message: str) -> None:
        self._end = message

    def walk(self) -> Iterator[Node]:
        """Every node below this section, depth first, in file order."""
        return walk_nodes(self.children)


def walk_nodes(nodes: list[Node]) -> Iterator[Node]:
    """Every node of ``nodes`` and below, depth first, in file order — without recursion,
    so that no nesting depth reaches Python's recursion limit."""
    stack: list[Iterator[Node]] = [iter(nodes)]
    while stack:
        for node in stack[-1]:
            yield node
            if isinstance(node, Section) and node.children:
                stack.append(iter(node.children))
                break
        else:
            stack.pop()


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


class ReadLimitError(Exception):
    """Input beyond a limit of confmig's own (not an error Apache would give): commands stop
    with this one-line ``file:line:col: message`` and exit 2."""

    def __init__(self, error: ParseError) -> None:
        super().__init__(str(error))
        self.error = error

    def __reduce__(self) -> tuple[type, tuple[ParseError]]:
        return (type(self), (self.error,))


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
        return walk_nodes(self.nodes)

    def directives(self) -> Iterator[Directive]:
        return (n for n in self.walk() if isinstance(n, Directive))
