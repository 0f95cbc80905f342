"""What a rule sees: one file (:class:`FileContext`) or the whole run (:class:`LintContext`).

A :class:`FileContext` carries both views of a file — ``config``, the raw parsed
file (what is written, comments and all), and ``nodes``, the effective tree
Apache goes on with (false ``<IfModule>`` bodies dropped, ``${VAR}`` resolved) —
and what is in force for it: the AllowOverride / AllowOverrideList of its
directory, the loaded modules and the directive registry.

The AllowOverride in force for a directory is asked of the request model
(:class:`ServerLayout`, :func:`confmig.model.walk.directory_sections`): the non-regex
``<Directory>`` sections ``ap_directory_walk`` merges for it (those of the
``<VirtualHost>`` whose DocumentRoot holds the directory, which include the main
server's), in its order; each that sets AllowOverride replaces the value.
``<DirectoryMatch>`` and ``<Directory ~ re>`` sections are merged only after the
``.htaccess`` files have been read, so they never decide which ``.htaccess``
directives are allowed.  A relative ``<Directory>`` path is taken from ``/`` (the
working directory of a daemonised Apache), not from ServerRoot as DocumentRoot is
(:func:`directory_section_path`; CTX008 reports it).  Without a server config, Debian's
defaults with ``AllowOverride All`` are assumed (``assumed_defaults``).
"""

from __future__ import annotations

import functools
import itertools
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from confmig.apache import paths
from confmig.lint.scopes import Scope, Scopes
from confmig.load import LoadedConfig, ReadState, Workspace, load_config
from confmig.syntax import ConfigFile, Directive, Node, Section
from confmig.syntax.ast import walk_nodes
from confmig.syntax.parser import decode

if TYPE_CHECKING:
    from confmig.apache.modules import ModuleSet
    from confmig.apache.registry import AllowOverride, DirectiveInfo, Registry
    from confmig.lint.rule import Rule
    from confmig.model.htaccess import AccessFiles
    from confmig.model.sections import ConfigSection
    from confmig.model.site import Site, VirtualServer

# Without a server config: Debian's default modules plus those real .htaccess files lean on
# (the set confmig.servers.ApacheServer starts by default).
ASSUMED_EXTRA_MODULES = ("rewrite", "headers", "expires")

@dataclass(frozen=True, slots=True)
class Overrides:
    """The AllowOverride / AllowOverrideList in force for one directory.

    ``words`` are the AllowOverride arguments as written (``None`` when Apache's
    default applies: nothing granted); ``spec`` is how Apache reads them
    (:class:`confmig.apache.registry.AllowOverride`).  ``source`` is the
    ``file:line`` that decided it (``None``: a default or an assumption).
    """

    words: tuple[str, ...] = ("All",)
    list_words: tuple[str, ...] = ()
    source: str | None = None
    list_source: str | None = None

    @property
    def spec(self) -> AllowOverride:
        return _spec(self.words)

    @property
    def allow_override(self) -> frozenset[str]:
        """The classes granted (``All`` expanded) and ``Nonfatal=…`` words."""
        spec = self.spec
        return spec.classes | {f"Nonfatal={n}" for n in spec.nonfatal}

    @property
    def allow_override_list(self) -> frozenset[str]:
        """The directives AllowOverrideList really admits (lower-cased; class names and
        unknown names dropped, as Apache drops them)."""
        return _list(self.list_words)

    @property
    def classes(self) -> frozenset[str]:
        return self.spec.classes

    @property
    def options(self) -> frozenset[str] | None:
        return self.spec.options

    @property
    def nonfatal(self) -> frozenset[str]:
        return self.spec.nonfatal

    @property
    def none(self) -> bool:
        """Nothing granted and nothing listed: Apache never opens the .htaccess file."""
        return not self.spec.reads_htaccess and not self.allow_override_list

    def describe(self) -> str:
        text = "AllowOverride " + (" ".join(self.words) or "None")
        if self.list_words:
            text += "; AllowOverrideList " + " ".join(self.list_words)
        return text


@functools.lru_cache(maxsize=256)
def _spec(words: tuple[str, ...]) -> AllowOverride:
    from confmig.apache.registry import AllowOverride

    try:
        return AllowOverride.parse(words)
    except ValueError:
        # Apache refuses to start on such a line; read the words it would have understood.
        kept = []
        for word in words:
            try:
                AllowOverride.parse([word])
            except ValueError:
                continue
            kept.append(word)
        return AllowOverride.parse(kept)


@functools.lru_cache(maxsize=256)
def _list(words: tuple[str, ...]) -> frozenset[str]:
    from confmig.apache.registry import override_list

    try:
        return override_list(words)
    except ValueError:
        return frozenset()


def make_overrides(allow_override: Iterable[str], allow_override_list: Iterable[str] = (),
                   source: str | None = None) -> Overrides:
    return Overrides(tuple(allow_override), tuple(allow_override_list), source)


def _norm(path: str) -> str:
    path = os.path.normpath(path) if path not in ("", "/") else "/"
    return path


def _components(path: str) -> list[str]:
    return [p for p in path.split("/") if p]


def directory_section_path(path: str) -> str:
    """A non-regex ``<Directory>`` path as Apache matches it (no trailing ``/``): from ``/``,
    not ServerRoot (:mod:`confmig.apache.paths`; CTX008 reports such paths, everything else in
    the linter sees the section where Apache applies it)."""
    return _norm(paths.directory_section_path(path))


@dataclass(frozen=True, slots=True)
class DirectorySection:
    """A non-regex ``<Directory>`` section as the model built it (``path``: where it applies,
    without the trailing ``/``)."""

    path: str
    section: ConfigSection

    @classmethod
    def of(cls, section: ConfigSection) -> DirectorySection:
        return cls(_norm(section.match.rstrip("/") or "/"), section)


@dataclass
class ServerLayout:
    """A server config as the linter maps access files onto it: the main server's
    DocumentRoot and the ``<VirtualHost>`` sections with a DocumentRoot of their own.  Which
    ``<Directory>`` sections decide a directory's AllowOverride is asked of the request
    model's directory walk (:func:`confmig.model.walk.directory_sections`), so lint, explain
    and convert agree on it."""

    site: Site
    main: list[DirectorySection] = field(default_factory=list)
    vhosts: list[tuple[str | None, list[DirectorySection]]] = field(default_factory=list)
    document_root: str | None = None
    _servers: list[tuple[str, VirtualServer]] = field(default_factory=list, repr=False)

    @classmethod
    def from_config(cls, loaded: LoadedConfig) -> ServerLayout:
        from confmig.model.site_builder import build_site

        site = build_site(loaded)
        main_keys = {(d.file, d.line) for d in site.main.directories}
        layout = cls(site, main=_plain(site.main.directories))
        if _sets_document_root(site.main):
            layout.document_root = site.main.document_root
        for vhost in site.vhosts:
            root = vhost.document_root if _sets_document_root(vhost) else None
            own = [d for d in vhost.directories if (d.file, d.line) not in main_keys]
            layout.vhosts.append((root, _plain(own)))
            if root is not None:
                layout._servers.append((root, vhost))
        return layout

    @classmethod
    def from_nodes(cls, nodes: list[Node], server_root: str = "/") -> ServerLayout:
        """The layout of a config given as its effective nodes (``server_root``: its
        ServerRoot)."""
        from confmig.load import ReadState

        loaded = LoadedConfig(main="<config>", nodes=list(nodes),
                              state=ReadState(server_root=Path(server_root)))
        return cls.from_config(loaded)

    def server_for(self, directory: str) -> VirtualServer:
        """The server whose DocumentRoot holds ``directory`` (the deepest one), else the
        main server."""
        best: tuple[int, VirtualServer] | None = None
        for root, server in self._servers:
            if _within(directory, root):
                depth = len(_components(root))
                if best is None or depth > best[0]:
                    best = (depth, server)
        return best[1] if best is not None else self.site.main

    def sections_for(self, directory: str) -> list[ConfigSection]:
        """The ``<Directory>`` sections merged for ``directory`` before its access file is
        read, in Apache's order (the model's walk)."""
        from confmig.model.walk import directory_sections

        return directory_sections(self.server_for(directory), directory)

    def overrides_for(self, directory: str) -> Overrides:
        """AllowOverride / AllowOverrideList in force for ``directory`` (absolute)."""
        directory = _norm(directory)
        # Apache's default since 2.3.9 is AllowOverride None, AllowOverrideList empty.
        words: tuple[str, ...] = ()
        list_words: tuple[str, ...] = ()
        source = list_source = None
        for section in self.sections_for(directory):
            for d in section.directives:
                if d.lname == "allowoverride":
                    words, source = tuple(d.args), d.location
                elif d.lname == "allowoverridelist":
                    list_words, list_source = tuple(d.args), d.location
        return Overrides(words, list_words, source, list_source)

    def covers(self, directory: str) -> bool:
        """Whether a DocumentRoot or a ``<Directory>`` other than ``/`` holds ``directory``."""
        roots = [self.document_root] + [r for r, _ in self.vhosts]
        if any(r is not None and _within(directory, r) for r in roots):
            return True
        from confmig.model.walk import directory_sections

        servers = [self.site.main, *self.site.vhosts]
        return any(s.match not in ("", "/") for server in servers
                   for s in directory_sections(server, directory))


def _plain(sections: Iterable[ConfigSection]) -> list[DirectorySection]:
    """The non-regex ``<Directory>`` sections (regex ones are merged after the access files
    are read, so they never decide what an access file may do)."""
    return [DirectorySection.of(s) for s in sections if s.regex is None]


def _sets_document_root(server: VirtualServer) -> bool:
    return any(d.lname == "documentroot" and d.args for d in server.server_directives)


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def split_lines(text: str) -> list[str]:
    """Physical lines as Apache counts them (``\\n``; a ``\\r`` before it dropped)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


@dataclass
class FileContext:
    """One file being linted, with everything in force for it.

    ``source`` is the file as read; its physical lines (``lines``) are split only when a
    rule asks for one (most files never need them)."""

    path: str
    kind: str                                   # "htaccess" or "server"
    config: ConfigFile                          # raw parse: what is written
    loaded: LoadedConfig
    nodes: list[Node]                           # effective tree of this file
    directory: str | None                       # an access file's directory
    overrides: Overrides
    modules: ModuleSet
    registry: Registry
    source: bytes
    assumed_defaults: bool = False
    parents: dict[int, tuple[Section, ...]] = field(default_factory=dict)
    _info_cache: dict[str, DirectiveInfo | None] = field(default_factory=dict, repr=False)
    _module_cache: dict[str, bool] = field(default_factory=dict, repr=False)
    _not_modelled_cache: dict[str, str | None] = field(default_factory=dict, repr=False)
    _layout_cache: dict[str, ServerLayout] = field(default_factory=dict, repr=False)
    _flat_cache: bool | None = field(default=None, repr=False)
    _raw_same_cache: bool | None = field(default=None, repr=False)
    _directive_cache: list[Directive] | None = field(default=None, repr=False)
    _lines_cache: list[str] | None = field(default=None, repr=False)
    _scope_cache: Scopes | None = field(default=None, repr=False)
    _rewrite_scope_cache: list[Scope] | None = field(default=None, repr=False)
    # Kept for the tree rules once the per-file ones are done (a serial run, lint_plans): what
    # a tree rule needs of the file can be worked out then, from the context at hand.
    at_hand: bool = False
    # The request model's reader of this file, its answer asked (confmig.lint.access_model:
    # CTX011 and SEC002 read one section of the file, not one each), with the access file
    # names it was asked with.
    model_access: tuple[tuple[str, ...], AccessFiles] | None = field(default=None, repr=False)

    @property
    def allow_override(self) -> frozenset[str]:
        return self.overrides.allow_override

    @property
    def allow_override_list(self) -> frozenset[str]:
        return self.overrides.allow_override_list

    @property
    def is_htaccess(self) -> bool:
        return self.kind == "htaccess"

    @functools.cached_property
    def read_by_apache(self) -> bool:
        """False for an access file under ``AllowOverride None`` with no AllowOverrideList:
        Apache never opens it, so nothing in it can fail (asked by many rules: computed
        once)."""
        return self.kind == "server" or not self.overrides.none

    def info(self, node: Node) -> DirectiveInfo | None:
        """The registry's entry for a directive or section (``<Files>`` for a Files section)."""
        if isinstance(node, Directive):    # (asked for every directive by several rules)
            key = node.name
        elif isinstance(node, Section):
            key = "<" + node.name
        else:
            return None
        try:
            return self._info_cache[key]
        except KeyError:
            found = self._info_cache[key] = node_info(self.registry, node)
            return found

    def module_loaded(self, info: DirectiveInfo) -> bool:
        """Whether a module providing ``info`` is loaded (core always is)."""
        try:
            return self._module_cache[info.name]
        except KeyError:
            found = self._module_cache[info.name] = module_available(self.modules, info)
            return found

    def not_modelled(self, label: str) -> str | None:
        """:meth:`confmig.apache.modules.ModuleSet.not_modelled` for ``label`` (``Name`` or
        ``<Name>``), asked once per name for the files sharing these modules."""
        try:
            return self._not_modelled_cache[label]
        except KeyError:
            found = self._not_modelled_cache[label] = self.modules.not_modelled(label)
            return found

    def server_layout(self) -> ServerLayout:
        """The layout of the server config this file belongs to (built once for all its
        files)."""
        found = self._layout_cache.get("layout")
        if found is None:
            found = self._layout_cache["layout"] = ServerLayout.from_config(self.loaded)
        return found

    @property
    def lines(self) -> list[str]:
        """The file's physical lines (split once, when first asked for)."""
        if self._lines_cache is None:
            self._lines_cache = split_lines(decode(self.source))
        return self._lines_cache

    def line_text(self, line: int) -> str:
        """The physical line ``line`` (1-based), or '' past the end."""
        lines = self.lines
        return lines[line - 1] if 0 < line <= len(lines) else ""

    def walk(self) -> Iterator[tuple[Node, tuple[Section, ...]]]:
        """Every effective node of this file with its enclosing sections (outermost first).

        Enclosing sections may come from another file (a server config's
        ``<VirtualHost>`` around an ``Include``); read-time conditionals are
        already resolved, so ``<IfModule>`` never appears here.  Each call walks the tree
        (one tuple per section, nothing kept): a rule that does not read the sections asks
        :meth:`walked_nodes` or :meth:`directive_nodes`.
        """
        return walk_pairs(self.nodes, self.parents)

    def walked_nodes(self) -> Iterable[Node]:
        """Every effective node of this file, in the order of :meth:`walk`, without their
        sections: the tree's own list when no section holds a node, else a walk over the
        tree (nothing is made per node)."""
        return self.nodes if self._flat() else walk_nodes(self.nodes)

    def _flat(self) -> bool:
        """Whether no top-level node is a section that holds nodes (asked once)."""
        if self._flat_cache is None:
            self._flat_cache = not any(isinstance(n, Section) and n.children
                                       for n in self.nodes)
        return self._flat_cache

    def directive_nodes(self) -> list[Directive]:
        """Every effective directive of this file, in walk order, computed once (the tree's
        own list when it holds directives alone; not to be modified)."""
        if self._directive_cache is None:
            if self._flat() and all(isinstance(n, Directive) for n in self.nodes):
                self._directive_cache = self.nodes  # type: ignore[assignment]
            else:
                self._directive_cache = [n for n in self.walked_nodes()
                                         if isinstance(n, Directive)]
        return self._directive_cache  # type: ignore[return-value]

    def _directive_pairs(self) -> Iterator[tuple[Node, tuple[Section, ...]]]:
        """Every effective directive with its enclosing sections, walked again at each call
        (:meth:`scopes` reads the sections once; no pair is kept, issue 10): no walk when no
        section is around any."""
        if self._flat() and not self.parents:  # no section around any: no walk
            return zip(self.directive_nodes(), itertools.repeat(()))
        return walk_pairs(self.nodes, self.parents, Directive)

    @functools.cached_property
    def directive_names(self) -> frozenset[str]:
        """The lower-case names of this file's effective directives (whatever AllowOverride
        is in force)."""
        return frozenset(d.lname for d in self.directive_nodes())

    def scopes(self) -> Scopes:
        """Every configuration section of this file that holds a directive, in file order
        (:mod:`confmig.lint.scopes`), grouped once (each :class:`Scope` is made when read);
        none for an access file Apache never opens (AllowOverride None: CTX003 says so, and
        nothing in it has any effect)."""
        if self._scope_cache is None:
            if self.read_by_apache:
                self._scope_cache = Scopes(self.directive_nodes(),
                                           (above for _, above in self._directive_pairs()),
                                           self.is_htaccess, self.directory)
            else:
                self._scope_cache = Scopes([], [], self.is_htaccess, self.directory)
        return self._scope_cache

    def rewrite_scopes(self) -> list[Scope]:
        """The scopes that hold at least one mod_rewrite directive."""
        if self._rewrite_scope_cache is None:
            self._rewrite_scope_cache = self.scopes().with_rewrite()
        return self._rewrite_scope_cache

    def raw_nodes(self) -> Iterable[Node]:
        """Every node as written (conditionals kept, variables unresolved), in walk order,
        without their sections: :meth:`walked_nodes` when nothing was resolved while
        reading."""
        raw = self.config.nodes
        if self._raw_same_cache is None:
            self._raw_same_cache = not self.parents and len(raw) == len(self.nodes) and all(
                a is b for a, b in zip(raw, self.nodes, strict=True))
        return self.walked_nodes() if self._raw_same_cache else walk_nodes(raw)

    def forget_derived(self) -> None:
        """Drop the walks, lines and scopes worked out for the per-file rules (made again
        if asked): a context kept for the tree rules then holds its tree alone (issue 10:
        a 1 MB file of RewriteRules kept the scopes' parsed rules, 7 MB, through SEC002)."""
        self._directive_cache = None
        self._lines_cache = None
        self._scope_cache = self._rewrite_scope_cache = None


def node_info(registry: Registry, node: Node) -> DirectiveInfo | None:
    if isinstance(node, Section):
        return registry.get(f"<{node.name}>") or registry.get(node.name)
    if isinstance(node, Directive):
        return registry.get(node.name)
    return None


def module_available(modules: ModuleSet, info: DirectiveInfo) -> bool:
    """Whether a loaded module defines ``info`` (core, always compiled in, always does)."""
    return any(name in ("core", "http_core") or modules.has_module(name)
               for name in info.modules or (info.module,))


def walk_pairs(nodes: list[Node], parents: dict[int, tuple[Section, ...]] | None = None,
               only: type[Node] = Node) -> Iterator[tuple[Node, tuple[Section, ...]]]:
    """Every node of ``nodes`` and below (those that are an ``only``), in file order, with its
    enclosing sections (``parents``: the sections around a top-level node, by ``id``, when
    they come from another file); the nodes of one section share one tuple.  Iterative: no
    Python recursion limit can be reached from the input's nesting."""
    if not parents:
        return _walk_into(nodes, (), only)  # (not through a second generator: ~2x slower)
    return (pair for node in nodes
            for pair in _walk_into([node], parents.get(id(node), ()), only))


def _walk_into(nodes: list[Node], parents: tuple[Section, ...], only: type[Node]
               ) -> Iterator[tuple[Node, tuple[Section, ...]]]:
    stack: list[tuple[Iterator[Node], tuple[Section, ...]]] = [(iter(nodes), parents)]
    while stack:
        items, above = stack[-1]
        for node in items:
            if isinstance(node, only):
                yield node, above
            if isinstance(node, Section) and node.children:
                stack.append((iter(node.children), (*above, node)))
                break
        else:
            stack.pop()


def file_roots(nodes: list[Node], path: str) -> tuple[list[Node], dict[int, tuple[Section, ...]]]:
    """The effective subtrees that belong to ``path`` and the sections around each."""
    roots: list[Node] = []
    parents: dict[int, tuple[Section, ...]] = {}

    def visit(items: list[Node], above: tuple[Section, ...]) -> None:
        for node in items:
            if node.file == path:
                roots.append(node)
                if above:
                    parents[id(node)] = above
            elif isinstance(node, Section):
                visit(node.children, (*above, node))

    visit(nodes, ())
    return roots, parents


@dataclass(eq=False)
class AccessEntry:
    """One access file as the tree rules see it: where it is, what each tree rule summarised
    of it when it was checked (:meth:`confmig.lint.rule.Rule.summarize`), and — only if a
    rule asks for it — its full context (``load`` parses the file again then)."""

    path: str
    directory: str | None
    summaries: dict[str, object] = field(default_factory=dict)
    load: Callable[[], FileContext] | None = field(default=None, repr=False)
    loaded_context: FileContext | None = field(default=None, repr=False)
    real_parent: str | None = None    # the resolved directory holding it, when known

    @property
    def real_directory(self) -> str:
        """The resolved directory on this machine that holds the file (``directory`` is
        where the server sees it, which may differ)."""
        if self.real_parent is None:
            self.real_parent = os.path.realpath(os.path.dirname(self.path))
        return self.real_parent

    @property
    def context(self) -> FileContext:
        if self.loaded_context is None:
            assert self.load is not None, f"no way to load {self.path}"
            self.loaded_context = self.load()
        return self.loaded_context


@dataclass
class LintContext:
    """The whole run: every file, the workspace, and what was assumed.

    ``files`` are the contexts at hand (a server config's files, or a text's); the access
    files of a docroot are ``access`` entries, whose contexts are loaded only on demand.
    """

    files: list[FileContext]
    workspace: Workspace
    docroot: Path | None
    assumed_defaults: bool
    server: LoadedConfig | None
    registry: Registry
    modules: ModuleSet
    notes: list[str] = field(default_factory=list)
    access: list[AccessEntry] = field(default_factory=list)
    # What tree rules share within the run, by name (the docroot's walk: one for all).
    memo: dict[str, object] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if not self.access:
            self.access = [AccessEntry(f.path, f.directory, loaded_context=f)
                           for f in self.files if f.kind == "htaccess"]

    @property
    def access_files(self) -> list[FileContext]:
        """Every access file's full context (loads those not at hand: prefer
        :meth:`summary`)."""
        return [e.context for e in self.access]

    @property
    def server_files(self) -> list[FileContext]:
        return [f for f in self.files if f.kind == "server"]

    def summary(self, rule: Rule, entry: AccessEntry) -> object:
        """``rule``'s summary of an access file: the one taken when it was checked, or (a
        file served from the cache, a text) taken now."""
        if rule.code in entry.summaries:
            return entry.summaries[rule.code]
        found = entry.summaries[rule.code] = rule.summarize(entry.context)
        return found


_ASSUMED = Overrides(("All",), (), None)


@dataclass
class Environment:
    """What is in force for a whole run: the server config (or the assumed defaults)."""

    server: LoadedConfig | None
    state: ReadState
    registry: Registry
    layout: ServerLayout | None
    assumed: bool
    # What the cache's key is made of (:attr:`key`: hashed when a cache asks for it)
    key_parts: tuple[object, ...]
    notes: list[str] = field(default_factory=list)
    config_path: str | None = None
    module_names: tuple[str, ...] | None = None
    _mapped: dict[str, str] = field(default_factory=dict)
    _overrides: dict[str, Overrides] = field(default_factory=dict)
    # Shared by every access file's context (same registry, same modules).
    info_cache: dict[str, DirectiveInfo | None] = field(default_factory=dict)
    module_cache: dict[str, bool] = field(default_factory=dict)
    not_modelled_cache: dict[str, str | None] = field(default_factory=dict)

    @functools.cached_property
    def key(self) -> str:
        """What is in force, as a digest (the cache's namespace)."""
        return digest_parts(*self.key_parts)

    def overrides_for(self, directory: str) -> Overrides:
        if self.layout is None:
            return _ASSUMED
        found = self._overrides.get(directory)
        if found is None:
            found = self._overrides[directory] = self.layout.overrides_for(directory)
        return found

    def server_directory(self, real: str, docroot: Path | None) -> str:
        """The server-side path of a linted directory (``real``: its resolved path).

        A docroot linted from a checkout (``./site``) under a config whose
        DocumentRoot is ``/var/www/html`` is taken as that DocumentRoot when no
        ``<Directory>`` (other than ``/``) and no DocumentRoot holds it already.
        """
        if self.layout is None or docroot is None or self.layout.document_root is None:
            return real
        root = os.path.realpath(docroot)
        mapped = self._mapped.get(root)
        if mapped is None:
            mapped = root if self._known(root) else self.layout.document_root
            self._mapped[root] = mapped
        if mapped == root:
            return real
        rel = os.path.relpath(real, root)
        return _norm(os.path.join(mapped, rel))

    def _known(self, root: str) -> bool:
        assert self.layout is not None
        return self.layout.covers(root)

    def mapping_notes(self) -> list[str]:
        """What the header says about access files: what is assumed, or how paths map."""
        if self.assumed:
            extra = ", ".join(ASSUMED_EXTRA_MODULES)
            return ["no --config: assuming Debian's defaults with AllowOverride All "
                    f"(modules: Debian's default set plus {extra})"]
        return [f"{real} is read as DocumentRoot {mapped} of {self.config_path}"
                for real, mapped in self._mapped.items() if real != mapped]


def _module_set(names: Iterable[str] | None) -> ModuleSet:
    from confmig.apache.modules import ModuleSet

    if names is None:
        modules = ModuleSet.debian_default()
        for name in ASSUMED_EXTRA_MODULES:
            modules.add(f"{name}_module")
        return modules
    return ModuleSet(names)


def make_environment(config: str | Path | None, defines: set[str],
                     modules: Iterable[str] | None = None) -> Environment:
    """Load ``config`` (or assume Debian's defaults with AllowOverride All)."""
    from confmig.apache.registry import registry

    reg = registry()
    module_names = tuple(modules) if modules is not None else None
    if config is None:
        state = ReadState(defines=set(defines), modules=_module_set(module_names))
        key = ("assumed", sorted(defines), module_names)
        # Explicit modules (tests, examples) are known, not assumed.
        return Environment(None, state, reg, None, modules is None, key, [], None,
                           module_names)
    server = load_config(config, defines=set(defines))
    layout = ServerLayout.from_config(server)
    notes = [f"server config {config}: AllowOverride, AllowOverrideList and modules from it"]
    if server.errors:
        notes.append(f"{config}: {len(server.errors)} error(s) while reading it "
                     f"(first: {server.errors[0]}); lint it with `confmig lint {config}`")
    contents = []
    for path in sorted(server.files):
        try:
            contents.append(Path(path).read_bytes())
        except OSError:
            contents.append(b"")
    key = (str(Path(config).resolve()), sorted(defines), *contents)
    return Environment(server, server.state, reg, layout, False, key, notes, str(config), None)


def digest_parts(*parts: object) -> str:
    import hashlib

    h = hashlib.blake2b(digest_size=16)
    for part in parts:
        h.update(part if isinstance(part, bytes) else repr(part).encode())
        h.update(b"\0")
    return h.hexdigest()
