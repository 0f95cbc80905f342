"""Configuration sections as request processing uses them: a :class:`ConfigSection` is one
``<Directory>``, ``.htaccess``, ``<Files>``, ``<Location>``, ``<If>``… with its module configs
(its "config vector"), built from the parsed nodes by :class:`SectionCollector`, which turns
nested ``<Files>``/``<If>`` into child sections and ``<Limit>``/``<Require*>`` into
method-limited or grouped authorization."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from confmig.model.applied import AppliedDirective
from confmig.model.mapping import RegexError, compile_config_regex
from confmig.model.merge import CoreDir, DirConfig, SectionBuilder
from confmig.model.merge.builder import handed_over
from confmig.model.merge.checks import limit_methods
from confmig.model.merge.headers import header_problem
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
    directives: Sequence[Directive] = ()  # (the builder's list; read only)
    # (tuples: read only, and the empty one is shared — two empty lists were 112 bytes of
    # each of the 1,176 <FilesMatch> sections a 1 MB file's walk builds, issue 10)
    errors: tuple[tuple[Node, str], ...] = ()
    nonfatal: tuple[tuple[Node, str], ...] = ()
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
        self._within: _Within | None = None  # (what this section's <If>s are rebuilt with)

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
            chosen, problem = limit_methods(node.name, list(node.args), methods,
                                            self.b.restricted, self.b.known_methods)
            if problem is not None:
                self.b.error(node, problem)
                return
            self.feed(node.children, chosen)
        elif name in ("requireall", "requireany", "requirenone", "requirenotall"):
            self.b.authz_group(node, methods, self.feed)
        elif name in ("files", "filesmatch"):
            if self.context in ("files",):
                self.b.error(node, f"<{node.name}> cannot occur within <Files> section")
                return
            files = self.b.files
            if not files or not isinstance(files[-1], FilesSections) \
                    or files[-1].permit is not self.permit:
                files.append(FilesSections(self.b, self.permit))
            files[-1].add(node, self.b)
        elif name in ("if", "elseif", "else"):
            within = self._within
            if within is None:
                within = self._within = _Within(self.b, self.permit)
            child = build_if_section(node, self.permit, self.b, within)
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
    child.known_methods = parent.known_methods
    return child


def finish_section(kind: SectionKind, label: str, node: Section | None,
                   builder: SectionBuilder, nonfatal: list[tuple[Node, str]], file: str = "",
                   line: int = 0, **fields: Any) -> ConfigSection:
    """The :class:`ConfigSection` of what *builder* collected (errors and directives kept:
    its list of directives is handed over, not copied — with the header lines' lists, a
    list and its tuple were both alive at the peak of a big file's lint, issue 10)."""
    config = builder.build()
    directives, builder.directives = builder.directives, []
    return ConfigSection(kind, label, node.file if node else file, node.line if node else line,
                         config=config, directives=handed_over(directives),
                         errors=tuple(builder.errors), nonfatal=tuple(nonfatal), **fields)


def section_label(node: Section) -> str:
    """``<Directory "/a b">`` as the explanation shows a section."""
    args = " ".join(f'"{a}"' if " " in a else a for a in node.args)
    return f"<{node.name} {args}>" if args else f"<{node.name}>"


def build_files_section(node: Section, permit: Permit | None,
                        parent: SectionBuilder) -> ConfigSection | None:
    """A nested ``<Files>``/``<FilesMatch>`` of *parent* (its errors become the parent's)."""
    return _files_section(node, permit, child_builder("files", parent), parent.errors)


def _files_section(node: Section, permit: Permit | None, b: SectionBuilder,
                   parent_errors: list[tuple[Node, str]], compiled: Regex | None = None
                   ) -> ConfigSection | None:
    """The section of ``<Files>`` *node* built with *b*; its errors, and what makes it no
    section at all (None), are added to *parent_errors*.  *compiled*: the node's pattern as
    compiled when it was first built (not compiled again, nor held twice)."""
    nonfatal: list[tuple[Node, str]] = []
    checked = _files_check(node, permit, b, parent_errors, nonfatal, compiled)
    if checked is None:
        return None
    pattern, is_regex, regex, fn = checked
    return finish_section("filesmatch" if is_regex else "files", section_label(node), node, b,
                          nonfatal, match=pattern, regex=regex, fnmatch=fn)


def _files_check(node: Section, permit: Permit | None, b: SectionBuilder,
                 parent_errors: list[tuple[Node, str]], nonfatal: list[tuple[Node, str]],
                 compiled: Regex | None = None
                 ) -> tuple[str, bool, Regex | None, Regex | None] | None:
    """``<Files>`` *node*'s directives read into *b* (their errors added to
    *parent_errors*) and its pattern (:func:`_files_pattern`)."""
    SectionCollector(b, "files", permit, nonfatal).feed(node.children)
    return _files_pattern(node, b.errors, parent_errors, compiled)


def _files_pattern(node: Section, errors: list[tuple[Node, str]],
                   parent_errors: list[tuple[Node, str]], compiled: Regex | None = None
                   ) -> tuple[str, bool, Regex | None, Regex | None] | None:
    """``<Files>`` *node*'s pattern: (pattern, a regex?, the regex, the wildcard's regex),
    or None when it makes no section (that error added to *parent_errors*) - what a file
    walk compares, without the section's configuration (:meth:`FilesSections.add` needs no
    more); *errors*, those of its lines, are added to *parent_errors* when it makes one."""
    regex = fn = None
    args = list(node.args)
    is_regex = node.lname == "filesmatch"
    if args and args[0] == "~":
        is_regex = True
        args = args[1:]
    if not args:
        parent_errors.append((node, f"<{node.name}> directive requires additional arguments"))
        return None
    pattern = args[0]
    try:
        if is_regex:
            regex = compiled or compile_config_regex(pattern)
        elif is_fnmatch(pattern):
            fn = compiled or fnmatch_regex(pattern)
    except RegexError:
        parent_errors.append((node, "Regex could not be compiled"))
        return None
    parent_errors.extend(errors)
    return pattern, is_regex, regex, fn


class FilesSections:
    """The ``<Files>``/``<FilesMatch>`` sections of one section (``sec_file``), each built
    when a request's file walk first matches it, or when all are asked for (:meth:`all`).

    Apache merges a ``<Files>`` section's configuration only into the requests whose file
    name it matches (``ap_file_walk``); the model did build every section's configuration
    with its section, ~700 bytes each, most of them never matched (lint's SEC002 asks about
    four sample files: 18 MB for a 1 MB file of 25,557 ``<Files>`` blocks, issue 10).  What
    the walk compares is kept per node (the name, or the compiled pattern); the errors a
    section's directives give are its parent's, so each node's directives are read once when
    added (for their errors and its pattern, no configuration built: 13 % of the lint of that
    file) and the section is built on first use from the same node."""

    __slots__ = ("_built", "has_module", "nodes", "override_opts", "path", "permit",
                 "restricted", "tests")

    def __init__(self, parent: SectionBuilder, permit: Permit | None) -> None:
        # what child_builder takes from the parent (not the parent: it holds its directives)
        self.path = parent.path
        self.override_opts = parent.override_opts
        self.has_module = parent.has_module
        self.restricted = parent.restricted
        self.permit = permit
        self.nodes: list[Section] = []
        # per node what the walk compares: the name, or the regex / wildcard pattern
        self.tests: list[str | Regex] = []
        self._built: list[ConfigSection | None] | None = None  # (made at the first build)

    def _builder(self) -> SectionBuilder:
        b = SectionBuilder("files", self.path, override_opts=self.override_opts,
                           loaded_modules=self.has_module)
        b.restricted = self.restricted
        return b

    def add(self, node: Section, parent: SectionBuilder) -> None:
        """Check *node* as Apache reads it (its errors are *parent*'s) and keep it when it
        makes a section."""
        errors = _read_errors(node, "files", self.permit, self.restricted, self._builder)
        checked = _files_pattern(node, errors, parent.errors)
        if checked is None:
            return
        pattern, _, regex, fn = checked
        self.nodes.append(node)
        test = regex or fn
        self.tests.append(test if test is not None else pattern)

    def __len__(self) -> int:
        return len(self.nodes)

    @property
    def built(self) -> list[int]:
        """The indexes of the sections built so far."""
        built = self._built or []
        return [index for index, section in enumerate(built) if section is not None]

    def section(self, index: int) -> ConfigSection:
        """The section of the *index*-th node (built on first use, then the same object:
        merged configurations are cached by the sections' identity)."""
        built = self._built
        if built is None:
            built = self._built = [None] * len(self.nodes)
        found = built[index]
        if found is None:
            test = self.tests[index]
            found = _files_section(self.nodes[index], self.permit, self._builder(), [],
                                   None if isinstance(test, str) else test)
            assert found is not None  # (it made a section when added)
            built[index] = found
        return found

    def all(self) -> list[ConfigSection]:
        """Every section, in order."""
        return [self.section(i) for i in range(len(self.nodes))]

    def is_regex(self, index: int) -> bool:
        """Is the *index*-th a regex section (``<FilesMatch>``, ``<Files ~>``)?"""
        node = self.nodes[index]
        return node.lname == "filesmatch" or (bool(node.args) and node.args[0] == "~")


def build_if_section(node: Section, permit: Permit | None, parent: SectionBuilder,
                     within: _Within | None = None) -> IfSection | None:
    """A nested ``<If>``/``<ElseIf>``/``<Else>`` of *parent*, its condition parsed and its
    directives read as Apache reads them (their errors are *parent*'s); None when Apache
    refuses the section itself (that error is *parent*'s too).  Its configuration is built
    when first asked for (:class:`IfSection`)."""
    if within is None:
        within = _Within(parent, permit)
    condition = _if_condition(node, parent)
    if condition is False:
        return None
    errors = _read_errors(node, "if", permit, within.restricted, within.builder)
    if node.lname == "else" and node.args:
        parent.error(node, "<Else> does not take an argument")
        return None
    # (the errors its lines give, not those of its build, whose configuration is not made
    # here: as before the build was deferred, those stay the section's own)
    parent.errors.extend(errors)
    return IfSection(node, condition, within)


# The directives whose errors their line alone gives (and whether the context is restricted),
# not the lines before them in their section: (restricted, line) → Apache's error or None,
# what the builder's handler returns for it.
_LINE_CHECKS: dict[str, Callable[[bool, Directive], str | None]] = {"header": header_problem}


def _read_errors(node: Section, context: str, permit: Permit | None, restricted: bool,
                 builder: Callable[[], SectionBuilder]) -> list[tuple[Node, str]]:
    """The errors of *node*'s lines, read without building its configuration (that is built
    when a request first needs the section): line by line (:func:`_line_errors`) when each
    line's errors are its own, else by a builder from *builder* fed its lines."""
    errors = _line_errors(node.children, permit, restricted)
    if errors is None:  # (a line that its section's builder reads)
        b = builder()
        SectionCollector(b, context, permit, []).feed(node.children)
        errors = b.errors
    return errors


def _line_errors(nodes: list[Node], permit: Permit | None, restricted: bool
                 ) -> list[tuple[Node, str]] | None:
    """The errors of a section's lines when each is a directive whose errors its line alone
    gives (:data:`_LINE_CHECKS`), or a comment or a blank line: what a builder fed them finds
    (see :meth:`SectionCollector._allowed`), without one — made for each ``<If>`` of a file
    of them, and a ``HeaderEntry`` for each line, they were most of the time the model took
    to read it (``<Files>`` are read as ``<If>`` are, their sections built when matched).
    None when a line is another directive or a section."""
    for node in nodes:
        if isinstance(node, Section) or (isinstance(node, Directive)
                                         and node.lname not in _LINE_CHECKS):
            return None
    errors: list[tuple[Node, str]] = []
    for node in nodes:
        if not isinstance(node, Directive):
            continue
        message = permit(node) if permit is not None else None
        if message is None:
            message = _LINE_CHECKS[node.lname](restricted, node)
        elif message.startswith("nonfatal:"):  # (skipped, its builder's config unused)
            continue
        if message:
            errors.append((node, message))
    return errors


def _if_condition(node: Section, parent: SectionBuilder) -> Expr | Literal[False] | None:
    """The condition of ``<If>``/``<ElseIf>`` *node* (None for ``<Else>``), False when it
    does not parse (the error is *parent*'s)."""
    if node.lname == "else":
        return None
    from confmig.model.expr import ExprError, parse_cached

    # ifsection: the condition is the first word as ap_getword_conf reads it (quotes
    # removed, \\ and \" unescaped); anything after it is ignored.
    args = node.args  # (split on each read: read once)
    text = args[0] if args else ""
    try:
        return parse_cached(text, restricted=parent.restricted)
    except ExprError as exc:
        parent.error(node, f"Cannot parse condition clause: {exc}")
        return False


class _Within:
    """What the ``<If>`` sections of one section are built with: the parent builder's path,
    Options limits, modules and methods (not the builder: it holds its directives), and the
    parent's *permit* (one shared by its ``<If>``s)."""

    __slots__ = ("has_module", "known_methods", "override_opts", "path", "permit",
                 "restricted")

    def __init__(self, parent: SectionBuilder, permit: Permit | None) -> None:
        self.path = parent.path
        self.override_opts = parent.override_opts
        self.has_module = parent.has_module
        self.restricted = parent.restricted
        self.known_methods = parent.known_methods
        self.permit = permit

    def builder(self) -> SectionBuilder:
        """A builder for an ``<If>`` of the parent (as :func:`child_builder` makes one)."""
        b = SectionBuilder("if", self.path, override_opts=self.override_opts,
                           loaded_modules=self.has_module)
        b.restricted = self.restricted
        b.known_methods = self.known_methods
        return b


class IfSection:
    """One ``<If>``/``<ElseIf>``/``<Else>`` of a section (``sec_if``): what the ``<If>`` walk
    reads (kind, condition, label, place) kept, the :class:`ConfigSection` with its
    configuration built when first asked for (:meth:`section`, or any of its fields below) —
    by the walk when a request's condition is true, by the plan — and then the same object
    (merged configurations are cached by the sections' identity).

    Apache merges an ``<If>`` section only into the requests it is true for; the model built
    every section up front, ~900 bytes each with its header entry and module configs, most
    of them never true (lint's SEC002 requests match none of a 1 MB file's 17,037
    ``<If "%{QUERY_STRING} =~ /qN/">`` blocks: 15 MB, issue 10).  The errors its directives
    give are its parent's, so it is built once when read (the configuration then dropped)
    and again on first use — the same build, so the same section, as
    :class:`FilesSections` does for ``<Files>``."""

    __slots__ = ("_section", "condition", "node", "within")

    # what a ConfigSection of an <If> has, without building it
    regex: Regex | None = None
    fnmatch: Regex | None = None
    components = 0
    inherited: tuple[AppliedDirective, ...] = ()
    relative_path = ""

    def __init__(self, node: Section, condition: Expr | None, within: _Within) -> None:
        self.node = node
        self.condition = condition
        self.within = within
        self._section: ConfigSection | None = None

    @property
    def kind(self) -> SectionKind:
        return self.node.lname  # type: ignore[return-value]

    @property
    def label(self) -> str:
        return section_label(self.node)

    @property
    def file(self) -> str:
        return self.node.file

    @property
    def line(self) -> int:
        return self.node.line

    @property
    def where(self) -> str:
        return f"{self.node.file}:{self.node.line}"

    @property
    def match(self) -> str:
        return self.node.args_text

    @property
    def built(self) -> bool:
        """Has its section been built (a request found it true, or the plan asked)?"""
        return self._section is not None

    def section(self) -> ConfigSection:
        """The section (built on first use, then the same object)."""
        found = self._section
        if found is None:
            node, within = self.node, self.within
            b = within.builder()
            nonfatal: list[tuple[Node, str]] = []
            SectionCollector(b, "if", within.permit, nonfatal).feed(node.children)
            found = self._section = finish_section(
                node.lname, section_label(node), node, b, nonfatal,  # type: ignore[arg-type]
                match=node.args_text, condition=self.condition)
        return found

    @property
    def config(self) -> DirConfig:
        return self.section().config

    @property
    def core(self) -> CoreDir:
        return self.section().config["core"]

    @property
    def directives(self) -> Sequence[Directive]:
        return self.section().directives

    @property
    def errors(self) -> tuple[tuple[Node, str], ...]:
        return self.section().errors

    @property
    def nonfatal(self) -> tuple[tuple[Node, str], ...]:
        return self.section().nonfatal

    @property
    def applied(self) -> tuple[AppliedDirective, ...]:
        return self.section().applied

    def __repr__(self) -> str:
        return f"IfSection({self.label} at {self.where}{', built' if self.built else ''})"
