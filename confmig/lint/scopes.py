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

from collections.abc import Iterable, Iterator
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


def build_scopes(directives: Iterable[tuple[Directive, tuple[Section, ...]]], htaccess: bool,
                 directory: str | None = None) -> list[Scope]:
    """Group ``(directive, enclosing sections)`` pairs by configuration section."""
    found: dict[int, Scope] = {}
    for directive, parents in directives:
        inner = next((p for p in reversed(parents) if p.lname in SCOPE_SECTIONS), None)
        key = id(inner)
        scope = found.get(key)
        if scope is None:
            upto = parents.index(inner) + 1 if inner is not None else 0
            scope = found[key] = Scope(inner, parents[:upto], htaccess, directory)
        scope.directives.append(directive)
    return list(found.values())


def walk_directives(nodes: Iterable[Node], parents: tuple[Section, ...] = ()
                    ) -> Iterator[tuple[Directive, tuple[Section, ...]]]:
    """Every directive below ``nodes`` with its enclosing sections (for whole configs)."""
    for node in nodes:
        if isinstance(node, Directive):
            yield node, parents
        elif isinstance(node, Section):
            yield from walk_directives(node.children, (*parents, node))
