"""The configuration sections Apache keeps apart, and their mod_rewrite configuration.

mod_rewrite (like every module) gets one configuration per section that creates a
per-directory config — ``<Directory>``, ``<Files>``, ``<Location>``, ``<If>``… — plus
one per server (the main server and each ``<VirtualHost>``).  A ``RewriteCond``
attaches to the next ``RewriteRule`` *of the same section*, ``RewriteEngine`` and
``RewriteBase`` apply to their section, and so on.  ``<Limit>`` and read-time
conditionals (``<IfModule>``, already resolved in the effective tree) do not create
a configuration of their own, so their directives belong to the enclosing section.

Every rule family uses this grouping (access control, duplicates, the root directory…);
mod_rewrite parsing is delegated to :mod:`confmig.model.rewrite.parse` (mod_rewrite's own
rules).  A file's scopes are computed once, by :meth:`confmig.lint.context.FileContext.scopes`.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal

from confmig.apache.paths import directory_section_path
from confmig.model.rewrite.parse import RewriteConfig
from confmig.syntax import Directive, Node, Section

SCOPE_SECTIONS = frozenset({
    "directory", "directorymatch", "files", "filesmatch", "location", "locationmatch",
    "if", "elseif", "else", "virtualhost", "proxy", "proxymatch",
})


@dataclass(eq=False, slots=True)
class Scope:
    """The directives of one configuration section of one file (nested sections excluded)."""

    section: Section | None          # innermost section with its own config; None: top level
    enclosing: tuple[Section, ...]   # every section around the directives, outermost first
    htaccess: bool
    file_directory: str | None       # an access file's directory
    directives: list[Directive] = field(default_factory=list)
    _rewrite: RewriteConfig | None = None

    @property
    def kind(self) -> str:
        """``htaccess``, ``server``, ``virtualhost`` or the section name (``directory``…)."""
        if self.section is None:
            return "htaccess" if self.htaccess else "server"
        return self.section.lname

    @property
    def context(self) -> Literal["server", "directory"]:
        """mod_rewrite's context: server (URL-path, before mapping) or per-directory."""
        return "server" if self.kind in ("server", "virtualhost") else "directory"

    @property
    def directory(self) -> str | None:
        """The directory whose prefix mod_rewrite strips, when there is a plain one.

        That is an access file's directory or the path of a non-regex ``<Directory>`` as
        Apache reads it (:func:`confmig.apache.paths.directory_section_path`: a relative path
        is taken from ``/``, with a trailing ``/`` — ``<Directory site>`` strips ``/site/``);
        in ``<DirectoryMatch>``, ``<Directory ~>``, a wildcard ``<Directory>``, ``<Files>``
        or ``<Location>`` the section's "path" is a pattern or URL that never prefixes a
        filename, so nothing is stripped.
        """
        if self.kind == "htaccess":
            return self.file_directory
        if self.kind == "directory" and self.section is not None and self.section.args:
            path = self.section.args[0]
            if path != "~" and not any(c in path for c in "*?["):
                return directory_section_path(path)
        return None

    @property
    def strips_prefix(self) -> bool:
        """Whether patterns here see a path relative to the directory (no leading slash)."""
        return self.kind == "htaccess" or self.directory is not None

    @property
    def url_base(self) -> str:
        """The URL-path the per-directory paths of this section are relative to: its
        RewriteBase, ``/`` for a lone .htaccess (taken as the DocumentRoot's), or a
        placeholder when only the server's mapping could tell ("" in server context)."""
        if self.context == "server":
            return ""
        if self.rewrite.base_set and self.rewrite.base:
            return self.rewrite.base.rstrip("/") + "/"
        if self.kind == "htaccess" and self.file_directory in ("/", None):
            return "/"
        return "/<url-of-this-directory>/"

    @property
    def label(self) -> str:
        """How to name this context in a message."""
        if self.section is None:
            return "this .htaccess" if self.htaccess else "the server config"
        args = f" {self.section.args_text}" if self.section.args_text else ""
        return f"<{self.section.name}{args}>"

    @property
    def rewrite(self) -> RewriteConfig:
        if self._rewrite is None:
            self._rewrite = RewriteConfig.from_directives(
                self.directives, self.context, self.directory)
        return self._rewrite

    def named(self, *names: str) -> list[Directive]:
        """The directives here whose lower-case name is one of ``names``."""
        return [d for d in self.directives if d.lname in names]


class Scopes(Sequence[Scope]):
    """A file's scopes in file order (of their first directive), kept as one index over the
    file's directive list: the enclosing sections of each scope (the last its own), where
    its directives start in their order grouped by scope, and that order when it is not
    walk order (directives' positions in the list).  A :class:`Scope` is made when it is
    read; those
    that hold a mod_rewrite directive are kept once made, so that their parsed rules
    (:attr:`Scope.rewrite`) are parsed once for every rule that reads them.

    A :class:`Scope` and a list for every section held ~215 bytes each, kept for the whole
    lint: 5.9 MB for a 1 MB file of ``<Files>`` blocks that one rule reads once (issue 10);
    the index holds ~12 bytes a scope, and 4 a directive when a section holds sections.  The
    enclosing sections of a scope whose section is the outermost one are kept as that
    section alone: the walk that gives them makes a tuple per section, kept by nothing else.
    """

    __slots__ = ("_directives", "_directory", "_enclosing", "_htaccess", "_kept", "_order",
                 "_rewrite", "_starts")

    def __init__(self, directives: list[Directive],
                 parents: Iterable[tuple[Section, ...]], htaccess: bool,
                 directory: str | None = None) -> None:
        """``directives`` (in walk order) and the sections around each (``parents``, in the
        same order); the lists are kept, not copied."""
        self._directives = directives
        self._htaccess = htaccess
        self._directory = directory
        self._kept: dict[int, Scope] = {}
        # each scope's enclosing sections, the last its own ((): the top level's; a Section:
        # that section alone)
        self._enclosing: list[tuple[Section, ...] | Section] = []
        self._rewrite: set[int] = set()    # the scopes with a mod_rewrite directive
        self._starts, self._order = self._number(directives, parents)

    def _number(self, directives: Iterable[Directive], parents: Iterable[tuple[Section, ...]]
                ) -> tuple[array[int], array[int] | None]:
        """Where each scope's directives start in the grouped order, and that order (the
        directives' positions, stably grouped by scope; None: walk order keeps each scope's
        directives together, as in a file whose sections hold no sections).

        Scopes are numbered in order of first appearance.  The directives come in walk order
        (depth first), so a section left is never met again: the scope sections open around
        the current directive are a stack.  (``in`` on a tuple of sections compares
        identities: a section is equal to itself alone.)"""
        starts = array("I")            # while grouped: where each scope starts
        numbers: array[int] | None = None   # once not: each directive's scope number
        rewrite = self._rewrite
        top = -1                                  # the top level's number, once it has one
        current = -1
        count = 0
        open_: list[tuple[Section, int]] = []     # (scope section, its number), innermost last
        for directive, above in zip(directives, parents, strict=True):
            inner = None
            for section in reversed(above):
                if section.lname in SCOPE_SECTIONS:
                    inner = section
                    break
            if inner is None:
                if top < 0:
                    top = self._new(())
                number = top
            else:
                while open_ and open_[-1][0] is not inner and open_[-1][0] not in above:
                    open_.pop()                   # left behind for good
                if open_ and open_[-1][0] is inner:
                    number = open_[-1][1]
                else:
                    depth = above.index(inner)
                    number = self._new(above[:depth + 1] if depth else inner)
                    open_.append((inner, number))
            if numbers is not None:
                numbers.append(number)
            elif number != current:
                if number == len(starts):         # a new scope, after the last one's
                    starts.append(count)
                else:                             # back to an earlier one
                    numbers = self._numbers_so_far(starts, count)
                    numbers.append(number)
            current = number
            count += 1
            if directive.lname.startswith("rewrite"):
                rewrite.add(number)
        if numbers is None:
            starts.append(count)
            return starts, None
        return self._group(numbers, len(self._enclosing))

    def _new(self, enclosing: tuple[Section, ...] | Section) -> int:
        self._enclosing.append(enclosing)
        return len(self._enclosing) - 1

    @staticmethod
    def _numbers_so_far(starts: array[int], count: int) -> array[int]:
        """The scope number of each of the first ``count`` directives, grouped so far."""
        numbers = array("I")
        for number, start in enumerate(starts):
            end = starts[number + 1] if number + 1 < len(starts) else count
            numbers.extend(array("I", [number]) * (end - start))
        return numbers

    @staticmethod
    def _group(numbers: array[int], count: int) -> tuple[array[int], array[int]]:
        """Where each of ``count`` scopes starts in the grouped order, and that order."""
        sizes = array("I", bytes(4 * (count + 1)))
        for number in numbers:
            sizes[number + 1] += 1
        for i in range(count):
            sizes[i + 1] += sizes[i]
        order = array("I", bytes(4 * len(numbers)))
        at = array("I", sizes)
        for position, number in enumerate(numbers):
            order[at[number]] = position
            at[number] += 1
        return sizes, order

    def __len__(self) -> int:
        return len(self._enclosing)

    def __getitem__(self, index):  # type: ignore[no-untyped-def,override]
        if isinstance(index, slice):
            return [self._scope(i) for i in range(len(self))[index]]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self._scope(index)

    def __iter__(self) -> Iterator[Scope]:
        return map(self._scope, range(len(self)))

    def with_rewrite(self) -> list[Scope]:
        """The scopes that hold at least one mod_rewrite directive (kept once made)."""
        return [self._scope(number) for number in sorted(self._rewrite)]

    def _scope(self, number: int) -> Scope:
        kept = self._kept.get(number)
        if kept is not None:
            return kept
        start, end = self._starts[number], self._starts[number + 1]
        every = self._directives
        if self._order is None:
            directives = every[start:end]
        else:
            directives = [every[i] for i in self._order[start:end]]
        kept_as = self._enclosing[number]
        enclosing = (kept_as,) if isinstance(kept_as, Section) else kept_as
        scope = Scope(enclosing[-1] if enclosing else None, enclosing, self._htaccess,
                      self._directory, directives)
        if number in self._rewrite:
            self._kept[number] = scope
        return scope


def build_scopes(directives: Iterable[tuple[Directive, tuple[Section, ...]]], htaccess: bool,
                 directory: str | None = None) -> Scopes:
    """Group ``(directive, enclosing sections)`` pairs, in walk order, by configuration
    section."""
    nodes: list[Directive] = []
    parents: list[tuple[Section, ...]] = []
    for directive, above in directives:
        nodes.append(directive)
        parents.append(above)
    return Scopes(nodes, parents, htaccess, directory)


def walk_directives(nodes: Iterable[Node], parents: tuple[Section, ...] = ()
                    ) -> Iterator[tuple[Directive, tuple[Section, ...]]]:
    """Every directive below ``nodes`` with its enclosing sections (for whole configs)."""
    for node in nodes:
        if isinstance(node, Directive):
            yield node, parents
        elif isinstance(node, Section):
            yield from walk_directives(node.children, (*parents, node))
