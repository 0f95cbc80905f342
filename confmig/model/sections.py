"""Configuration sections as request processing uses them: a :class:`ConfigSection` is one
``<Directory>``, ``.htaccess``, ``<Files>``, ``<Location>``, ``<If>``… with its module configs
(its "config vector"), built from the parsed nodes by :class:`SectionCollector`, which turns
nested ``<Files>``/``<If>`` into child sections and ``<Limit>``/``<Require*>`` into
method-limited or grouped authorization."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from confmig.model.applied import AppliedDirective
from confmig.model.mapping import RegexError, compile_config_regex
from confmig.model.merge import METHODS, CoreDir, DirConfig, SectionBuilder
from confmig.model.rewrite.regex import Regex
from confmig.model.wildcard import fnmatch_regex, is_fnmatch
from confmig.syntax import Directive, Node, Section

if TYPE_CHECKING:
    # (the expression model is imported where an <If> is met: issue 17, a lint of a file
    # without one does not load it)
    from confmig.model.expr import Expr

SectionKind = Literal["server", "directory", "directorymatch", "htaccess", "files", "filesmatch",
                      "location", "locationmatch", "if", "elseif", "else"]


@dataclass(eq=False, slots=True)
class ConfigSection:
    """One per-directory configuration section with its module configs (its "config vector").

    ``match`` is what the walk compares: a canonical directory (with trailing ``/``), a file
    name, a URL-path, a pattern; ``regex`` is set for the regex forms, ``fnmatch`` for
    wildcard forms.  ``errors`` are the configuration errors Apache reports for this section
    (an ``.htaccess`` with any answers 500).
    """

    kind: SectionKind
    label: str
    file: str
    line: int
    match: str = ""
    regex: Regex | None = None
    fnmatch: Regex | None = None
    components: int = 0
    condition: Expr | None = None
    config: DirConfig = field(default_factory=dict)
    directives: tuple[Directive, ...] = ()
    errors: list[tuple[Node, str]] = field(default_factory=list)
    nonfatal: list[tuple[Node, str]] = field(default_factory=list)
    inherited: tuple[AppliedDirective, ...] = ()  # a vhost's defaults: the main server's
    # A <Directory> written with a relative path: as written (Apache reads it from /, not
    # ServerRoot: confmig.apache.paths), for the explanation to point the trap out.
    relative_path: str = ""
    # (slots: a 1 MB file of <Files> blocks has 30,000 sections, and no per-instance dict)
    _applied: tuple[AppliedDirective, ...] | None = field(default=None, init=False,
                                                         repr=False)

    @property
    def core(self) -> CoreDir:
        return self.config["core"]

    @property
    def applied(self) -> tuple[AppliedDirective, ...]:
        """This section's directives as the explanation lists them (made on first use)."""
        if self._applied is None:
            where = self.file if self.kind == "htaccess" else self.label
            self._applied = (*self.inherited,
                             *(AppliedDirective.of(d, where) for d in self.directives))
        return self._applied

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


Permit = Callable[[Directive | Section], "str | None"]


class SectionCollector:
    """Feeds a section's nodes into a :class:`SectionBuilder`, turning nested ``<Files>`` and
    ``<If>`` into child sections and ``<Limit>``/``<Require*>`` into method-limited or grouped
    authorization.  *permit* (``.htaccess`` only) says whether a directive may appear."""

    def __init__(self, builder: SectionBuilder, context: str, permit: Permit | None,
                 nonfatal: list[tuple[Node, str]]) -> None:
        self.b = builder
        self.context = context
        self.permit = permit
        self.nonfatal = nonfatal

    def feed(self, nodes: Iterable[Node], methods: frozenset[str] | None = None) -> None:
        for node in nodes:
            if isinstance(node, Directive):
                if self._allowed(node):
                    self.b.directive(node, methods)
            elif isinstance(node, Section):
                self.section(node, methods)

    def _allowed(self, node: Directive | Section) -> bool:
        if self.permit is None:
            return True
        message = self.permit(node)
        if message is None:
            return True
        if message.startswith("nonfatal:"):
            self.nonfatal.append((node, message[len("nonfatal:"):]))
            if "forbidden by AllowOverride" in message or "not allowed" in message:
                self.b.touch(node)  # the module's config exists all the same
            return False
        self.b.error(node, message)
        return False

    def section(self, node: Section, methods: frozenset[str] | None) -> None:
        name = node.lname
        if not self._allowed(node):
            return
        if name in ("limit", "limitexcept"):
            words = {w.upper() for w in node.args}
            if not words:
                self.b.error(node, f"<{node.name}> requires at least one argument")
                return
            chosen = frozenset(words) if name == "limit" else frozenset(METHODS) - words
            if "GET" in chosen:  # HEAD is M_GET
                chosen = chosen | {"HEAD"}
            self.feed(node.children, chosen)
        elif name in ("requireall", "requireany", "requirenone", "requirenotall"):
            self.b.authz_group(node, methods, self.feed)
        elif name in ("files", "filesmatch"):
            if self.context in ("files",):
                self.b.error(node, f"<{node.name}> cannot occur within <Files> section")
                return
            child = build_files_section(node, self.permit, self.b)
            if child is not None:
                self.b.files.append(child)
        elif name in ("if", "elseif", "else"):
            child = build_if_section(node, self.permit, self.b)
            if child is not None:
                if name != "if" and not (self.b.ifs and self.b.ifs[-1].kind in ("if",
                                                                                   "elseif")):
                    self.b.error(node, "<Else> or <ElseIf> section without previous <If> or "
                                       "<ElseIf> section in same scope")
                    return
                self.b.ifs.append(child)
        elif name in ("directory", "directorymatch", "location", "locationmatch",
                      "virtualhost"):
            self.b.error(node, f"<{node.name}> cannot occur within <{_context_name(self.context)}>"
                               " section")
        # other sections (<Proxy>, <Macro>, …) are not modelled


def _context_name(context: str) -> str:
    return {"directory": "Directory", "files": "Files", "location": "Location",
            "if": "If", "htaccess": "Directory", "server": "VirtualHost"}.get(context, context)


def child_builder(context: Literal["files", "if"], parent: SectionBuilder) -> SectionBuilder:
    """A builder for a section nested in *parent* (same path, Options limits, modules)."""
    child = SectionBuilder(context, parent.path, override_opts=parent.override_opts,
                           loaded_modules=parent.has_module)
    child.restricted = parent.restricted
    return child


def finish_section(kind: SectionKind, label: str, node: Section | None,
                   builder: SectionBuilder, nonfatal: list[tuple[Node, str]], file: str = "",
                   line: int = 0, **fields: Any) -> ConfigSection:
    """The :class:`ConfigSection` of what *builder* collected (errors and directives kept)."""
    config = builder.build()
    return ConfigSection(kind, label, node.file if node else file, node.line if node else line,
                         config=config, directives=tuple(builder.directives),
                         errors=list(builder.errors), nonfatal=nonfatal, **fields)


def section_label(node: Section) -> str:
    """``<Directory "/a b">`` as the explanation shows a section."""
    args = " ".join(f'"{a}"' if " " in a else a for a in node.args)
    return f"<{node.name} {args}>" if args else f"<{node.name}>"


def build_files_section(node: Section, permit: Permit | None,
                        parent: SectionBuilder) -> ConfigSection | None:
    """A nested ``<Files>``/``<FilesMatch>`` of *parent* (its errors become the parent's)."""
    b = child_builder("files", parent)
    nonfatal: list[tuple[Node, str]] = []
    SectionCollector(b, "files", permit, nonfatal).feed(node.children)
    regex = fn = None
    args = list(node.args)
    is_regex = node.lname == "filesmatch"
    if args and args[0] == "~":
        is_regex = True
        args = args[1:]
    if not args:
        parent.error(node, f"<{node.name}> directive requires additional arguments")
        return None
    pattern = args[0]
    try:
        if is_regex:
            regex = compile_config_regex(pattern)
        elif is_fnmatch(pattern):
            fn = fnmatch_regex(pattern)
    except RegexError:
        parent.error(node, "Regex could not be compiled")
        return None
    for err in b.errors:
        parent.errors.append(err)
    return finish_section("filesmatch" if is_regex else "files", section_label(node), node, b,
                          nonfatal, match=pattern, regex=regex, fnmatch=fn)


def build_if_section(node: Section, permit: Permit | None,
                     parent: SectionBuilder) -> ConfigSection | None:
    """A nested ``<If>``/``<ElseIf>``/``<Else>`` of *parent*, its condition parsed."""
    b = child_builder("if", parent)
    nonfatal: list[tuple[Node, str]] = []
    SectionCollector(b, "if", permit, nonfatal).feed(node.children)
    condition = None
    if node.lname != "else":
        from confmig.model.expr import ExprError, parse_cached

        # ifsection: the condition is the first word as ap_getword_conf reads it (quotes
        # removed, \\ and \" unescaped); anything after it is ignored.
        text = node.args[0] if node.args else ""
        try:
            condition = parse_cached(text, restricted=parent.restricted)
        except ExprError as exc:
            parent.error(node, f"Cannot parse condition clause: {exc}")
            return None
    elif node.args:
        parent.error(node, "<Else> does not take an argument")
        return None
    for err in b.errors:
        parent.errors.append(err)
    return finish_section(node.lname, section_label(node), node, b,  # type: ignore[arg-type]
                          nonfatal, match=node.args_text, condition=condition)

