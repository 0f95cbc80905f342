"""The parts of a server configuration that decide where ``.htaccess`` files are read and what
they may do: the server contexts (main server, each ``<VirtualHost>``), their DocumentRoot and
their non-regex ``<Directory>`` sections.

Paths are resolved the way Apache resolves them (verified on 2.4.71):

* ``DocumentRoot`` is relative to ServerRoot;
* a relative ``<Directory>`` path is *not*: ``dirsection`` merges it with the process's working
  directory at start-up (``apr_filepath_merge`` with no root), and a daemonised Apache reads its
  configuration after ``chdir("/")``.  So ``<Directory site>`` means ``/site/``, which the
  conversion assumes and reports (tests/convert/test_relative_directory_apache.py starts a
  daemonised Apache from another directory to check it).

Which ``<Directory>`` sections decide the AllowOverride in force for a directory is the
model's directory walk (:func:`confmig.model.walk.directory_sections`); this module only keeps
what the conversion needs to place its output.
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field

from confmig.apache.paths import directory_section_path, server_root_relative
from confmig.convert.httpd.overrides import InForce
from confmig.load import LoadedConfig
from confmig.model.site import Site, VirtualServer
from confmig.model.site_builder import build_site
from confmig.model.walk import directory_sections
from confmig.syntax import Directive, Node, Section


@dataclass
class DirSection:
    """One non-regex ``<Directory>`` section of a server context."""

    node: Section
    path: str  # absolute, no trailing slash ("/" for the root)
    written: str
    order: int

    @property
    def components(self) -> int:
        return len(_parts(self.path))

    @property
    def wildcard(self) -> bool:
        return any(c in self.path for c in "*?[")

    def within(self, root: str) -> bool:
        """Does it (possibly) govern *root* itself or a directory below it?"""
        mine, base = _parts(self.path), _parts(root)
        if len(mine) < len(base):
            return False
        head = mine[: len(base)]
        if self.wildcard:
            return all(fnmatch.fnmatchcase(b, m) for b, m in zip(base, head, strict=True))
        return head == base

    def directive(self, lname: str) -> Directive | None:
        found = None
        for child in self.node.children:
            if isinstance(child, Directive) and child.lname == lname:
                found = child
        return found


@dataclass
class ServerContext:
    """The main server or one ``<VirtualHost>``."""

    label: str
    section: Section | None = None
    document_root: str | None = None
    document_root_node: Directive | None = None
    sections: list[DirSection] = field(default_factory=list)
    server_names: list[str] = field(default_factory=list)
    access_names: list[str] | None = None

    @property
    def is_main(self) -> bool:
        return self.section is None


@dataclass
class Layout:
    config: LoadedConfig
    main: ServerContext
    vhosts: list[ServerContext] = field(default_factory=list)
    relative_sections: list[DirSection] = field(default_factory=list)
    _site: Site | None = field(default=None, repr=False)

    @property
    def contexts(self) -> list[ServerContext]:
        return [self.main, *self.vhosts]

    def sections_for(self, context: ServerContext) -> list[DirSection]:
        """Every section that applies in *context*, in the order Apache merges them."""
        sections = list(self.main.sections)
        if not context.is_main:
            sections += context.sections
        return sorted(sections, key=lambda s: s.components)  # stable: config order kept

    def in_force(self, context: ServerContext, directory: str) -> InForce:
        """The AllowOverride / AllowOverrideList in force for *directory*'s access file in
        *context*: the last of each among the ``<Directory>`` sections the model's directory
        walk merges there (:func:`confmig.model.walk.directory_sections`, as lint asks it)."""
        result = InForce.default_none()
        for section in directory_sections(self.server(context), clean(directory)):
            for d in section.directives:
                if d.lname == "allowoverride":
                    result = result.with_allow_override(d.args, f"{d.file}:{d.line}")
                elif d.lname == "allowoverridelist":
                    result = result.with_allow_override_list(d.args)
        return result

    def server(self, context: ServerContext) -> VirtualServer:
        """The model's server for *context* (the site is built once per layout)."""
        if self._site is None:
            self._site = build_site(self.config)
        servers = [self._site.main, *self._site.vhosts]
        return servers[self.contexts.index(context)]

    def document_root(self, context: ServerContext) -> str | None:
        return context.document_root or (self.main.document_root if not context.is_main
                                         else None)

    def access_names(self, context: ServerContext) -> list[str]:
        return context.access_names or self.main.access_names or [".htaccess"]


def read_layout(config: LoadedConfig) -> Layout:
    server_root = str(config.state.server_root)
    main = ServerContext("main server")
    layout = Layout(config, main)
    order = _Counter()
    _fill(layout, main, config.nodes, server_root, order)
    for node in config.nodes:
        if isinstance(node, Section) and node.lname == "virtualhost":
            vhost = ServerContext(f"<VirtualHost {node.args_text}> ({node.file}:{node.line})",
                                  section=node)
            _fill(layout, vhost, node.children, server_root, order)
            layout.vhosts.append(vhost)
    return layout


class _Counter:
    def __init__(self) -> None:
        self.value = 0

    def next(self) -> int:
        self.value += 1
        return self.value


def _fill(layout: Layout, context: ServerContext, nodes: list[Node], server_root: str,
          order: _Counter) -> None:
    for node in nodes:
        if isinstance(node, Directive):
            if node.lname == "documentroot" and node.args:
                context.document_root = resolve_server_path(node.args[0], server_root)
                context.document_root_node = node
            elif node.lname in ("servername", "serveralias"):
                context.server_names += [a.split(":")[0] for a in node.args
                                         if not any(c in a for c in "*?")]
            elif node.lname == "accessfilename" and node.args:
                context.access_names = list(node.args)
        elif isinstance(node, Section) and node.lname == "directory" and node.args:
            if node.args[0] == "~":
                continue  # regex: merged after the .htaccess files, never decides them
            written = node.args[0]
            section = DirSection(node, resolve_directory(written), written, order.next())
            context.sections.append(section)
            if written != "/" and not written.startswith("/"):
                layout.relative_sections.append(section)


def resolve_server_path(path: str, server_root: str) -> str:
    """``ap_server_root_relative``: absolute paths stay, others are below ServerRoot."""
    return server_root_relative(path, server_root)


def resolve_directory(path: str) -> str:
    """A ``<Directory>`` path as Apache resolves it (relative: against ``/``; see
    :mod:`confmig.apache.paths`), without its trailing slash."""
    return clean(directory_section_path(path))


def clean(path: str) -> str:
    path = os.path.normpath(path)
    return "/" if path in ("/", "//") else path.rstrip("/")


def _parts(path: str) -> list[str]:
    return [p for p in path.split("/") if p]


def within(path: str, root: str) -> bool:
    return path == root or root == "/" or path.startswith(root.rstrip("/") + "/")
