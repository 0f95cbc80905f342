"""Per-module configuration of one section, and how Apache merges it, module by module.

Apache keeps one config vector per section (``<Directory>``, ``.htaccess``, ``<Files>``, …);
a module gets an entry in a section only when one of its directives appears there, and
``ap_merge_per_dir_configs`` calls the module's own merger only when both sides have an entry —
otherwise the side that has one wins (a module with no merger, like mod_access_compat, is
simply replaced by the most specific section that mentions it).  This file mirrors that:

* :class:`SectionBuilder` turns the directives of one section into module configs
  (``core``, ``mime``, ``headers``, ``dir``, ``expires``, ``authz``, ``authn``, ``access``,
  ``alias``, ``rewrite``, ``setenvif``, ``env``), collecting the errors Apache reports for bad
  arguments;
* :func:`merge_configs` merges two config vectors with each module's merger, as read from
  ``server/core.c``, ``mod_mime.c``, ``mod_headers.c``, ``mod_dir.c``, ``mod_expires.c``,
  ``mod_authz_core.c``, ``mod_alias.c``, ``mod_setenvif.c``, ``mod_env.c`` and mod_rewrite
  (:func:`confmig.model.rewrite.merge`).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from confmig.model.mapping import AliasEntry, RegexError, compile_config_regex, is_url
from confmig.model.registry import override_list
from confmig.model.rewrite import RewriteConfig
from confmig.model.rewrite import merge as merge_rewrite
from confmig.model.rewrite.uri import atoi
from confmig.syntax import Directive, Node, Section
from confmig.syntax.words import first_word, split_words

# -- core: Options ------------------------------------------------------------------------

OPT_NONE = 0
OPT_INDEXES = 1
OPT_INCLUDES = 2
OPT_SYM_LINKS = 4
OPT_EXECCGI = 8
OPT_UNSET = 16
OPT_INC_WITH_EXEC = 32
OPT_SYM_OWNER = 64
OPT_MULTI = 128
OPT_ALL = OPT_INDEXES | OPT_INCLUDES | OPT_INC_WITH_EXEC | OPT_SYM_LINKS | OPT_EXECCGI
# create_core_dir_config for a server's defaults (no directory): Options FollowSymLinks.
OPT_SERVER_DEFAULT = OPT_UNSET | OPT_SYM_LINKS

OPTION_BITS: dict[str, int] = {
    "indexes": OPT_INDEXES, "includes": OPT_INCLUDES | OPT_INC_WITH_EXEC,
    "includesnoexec": OPT_INCLUDES, "followsymlinks": OPT_SYM_LINKS,
    "symlinksifownermatch": OPT_SYM_OWNER, "execcgi": OPT_EXECCGI, "multiviews": OPT_MULTI,
    "runscripts": OPT_MULTI | OPT_EXECCGI,
}
_OPTION_NAMES = (
    (OPT_INDEXES, "Indexes"), (OPT_INCLUDES, "Includes"), (OPT_SYM_LINKS, "FollowSymLinks"),
    (OPT_EXECCGI, "ExecCGI"), (OPT_SYM_OWNER, "SymLinksIfOwnerMatch"), (OPT_MULTI, "MultiViews"),
)

OVERRIDE_CLASSES = ("AuthConfig", "FileInfo", "Indexes", "Limit", "Options")
DEFAULT_CHARSET = "iso-8859-1"


def options_text(bits: int) -> str:
    """``Indexes FollowSymLinks`` for an options bit set (``None`` when empty)."""
    names = [name for bit, name in _OPTION_NAMES if bits & bit]
    return " ".join(names) if names else "None"


@dataclass(frozen=True, slots=True)
class AppliedDirective:
    """A directive that takes part in a request's configuration, in merge order."""

    directive: str
    args: tuple[str, ...]
    file: str
    line: int
    section: str = ""

    @classmethod
    def of(cls, d: Directive, section: str) -> AppliedDirective:
        return cls(d.name, tuple(d.args), d.file, d.line, section)

    def as_json(self) -> dict[str, Any]:
        return {"directive": self.directive, "args": list(self.args), "file": self.file,
                "line": self.line, "section": self.section}


ConfigError = tuple[Node, str]


@dataclass(frozen=True, slots=True)
class CoreDir:
    """The parts of ``core_dir_config`` the model uses (``opts``, ``override``, ForceType…).

    ``files``/``ifs`` are the section's ``<Files>``/``<If>`` children (``sec_file``/``sec_if``),
    concatenated on merge.  Sections are typed ``Any`` here to keep this module below the walk.
    """

    opts: int = OPT_UNSET
    opts_add: int = 0
    opts_remove: int = 0
    override: frozenset[str] | None = None
    nonfatal: frozenset[str] = frozenset()
    override_opts: int | None = None
    override_list: frozenset[str] | None = None
    mime_type: str | None = None
    handler: str | None = None
    default_charset: tuple[bool, str] | None = None
    error_documents: Mapping[int, tuple[str, Directive]] = field(default_factory=dict)
    accept_path_info: str | None = None
    files: tuple[Any, ...] = ()
    ifs: tuple[Any, ...] = ()

    @property
    def options(self) -> int:
        return self.opts & ~OPT_UNSET


def merge_core(base: CoreDir, new: CoreDir) -> CoreDir:
    """``merge_core_dir_configs``."""
    if new.opts & OPT_UNSET:
        add = (base.opts_add & ~new.opts_remove) | new.opts_add
        remove = (base.opts_remove & ~new.opts_add) | new.opts_remove
        opts = (base.opts & ~remove) | add
        if ((base.opts & (OPT_INCLUDES | OPT_INC_WITH_EXEC)) == (OPT_INCLUDES | OPT_INC_WITH_EXEC)
                and (new.opts & (OPT_INCLUDES | OPT_INC_WITH_EXEC)) == OPT_INCLUDES):
            opts &= ~OPT_INC_WITH_EXEC
    else:
        opts, add, remove = new.opts, new.opts_add, new.opts_remove
    docs = base.error_documents
    if new.error_documents:
        docs = {**base.error_documents, **new.error_documents}
    return CoreDir(
        opts=opts, opts_add=add, opts_remove=remove,
        override=new.override if new.override is not None else base.override,
        nonfatal=new.nonfatal if new.override is not None else base.nonfatal,
        override_opts=new.override_opts if new.override_opts is not None else base.override_opts,
        override_list=new.override_list if new.override_list is not None else base.override_list,
        mime_type=new.mime_type or base.mime_type,
        handler=new.handler or base.handler,
        default_charset=(new.default_charset if new.default_charset is not None
                         else base.default_charset),
        error_documents=docs,
        accept_path_info=new.accept_path_info or base.accept_path_info,
        files=base.files + new.files,
        ifs=base.ifs + new.ifs,
    )


@dataclass(slots=True)
class OptsState:
    """The running ``core_opts_t`` of the directory walk (``core_opts_merge``): which options
    and AllowOverride are in force at the level being walked."""

    opts: int
    add: int
    remove: int
    override: frozenset[str]
    nonfatal: frozenset[str]
    override_opts: int
    override_list: frozenset[str]

    @classmethod
    def start(cls, core: CoreDir) -> OptsState:
        return cls(core.opts, core.opts_add, core.opts_remove, core.override or frozenset(),
                   core.nonfatal, (OPT_ALL | OPT_SYM_OWNER | OPT_MULTI)
                   if core.override_opts is None else core.override_opts,
                   core.override_list or frozenset())

    def apply(self, core: CoreDir | None) -> None:
        if core is None:
            return
        if core.opts & OPT_UNSET:
            self.add = (self.add & ~core.opts_remove) | core.opts_add
            self.remove = (self.remove & ~core.opts_add) | core.opts_remove
            self.opts = (self.opts & ~self.remove) | self.add
        else:
            self.opts, self.add, self.remove = core.opts, core.opts_add, core.opts_remove
        if core.override is not None:
            self.override = core.override
            self.nonfatal = core.nonfatal
            self.override_opts = (core.override_opts if core.override_opts is not None
                                  else OPT_ALL | OPT_SYM_OWNER | OPT_MULTI)
        if core.override_list is not None:
            self.override_list = core.override_list

    @property
    def htaccess_enabled(self) -> bool:
        return bool(self.override) or bool(self.override_list)


# -- mod_mime ---------------------------------------------------------------------------

_EXT_FIELDS = ("type", "handler", "encoding", "language", "charset", "input_filters",
               "output_filters")


@dataclass(frozen=True, slots=True)
class ExtInfo:
    """``extension_info``: what AddType/AddHandler/… say about one extension.

    ``type == ""`` is RemoveType (it hides the TypesConfig type too).
    """

    type: str | None = None
    handler: str | None = None
    encoding: str | None = None
    language: str | None = None
    charset: str | None = None
    input_filters: str | None = None
    output_filters: str | None = None


@dataclass(frozen=True, slots=True)
class MimeDir:
    mappings: Mapping[str, ExtInfo] | None = None
    removals: tuple[tuple[str, str], ...] = ()  # (extension, field) from Remove*
    default_language: str | None = None


def merge_mime(base: MimeDir, add: MimeDir) -> MimeDir:
    """``merge_mime_dir_configs``: per-extension overlay, then the child's Remove* applied."""
    if base.mappings is not None and add.mappings is not None:
        merged = dict(base.mappings)
        for ext, info in add.mappings.items():
            old = merged.get(ext)
            if old is None:
                merged[ext] = info
            else:
                merged[ext] = replace(old, **{f: getattr(info, f) for f in _EXT_FIELDS
                                              if getattr(info, f) is not None})
        mappings: dict[str, ExtInfo] | None = merged
    else:
        mappings = dict(add.mappings if base.mappings is None else base.mappings) \
            if (add.mappings or base.mappings) is not None else None
    if mappings is not None and add.removals:
        for ext, fname in add.removals:
            info = mappings.get(ext)
            if info is not None:
                mappings[ext] = replace(info, **{fname: None})
    return MimeDir(mappings, (), add.default_language or base.default_language)


# -- mod_headers ------------------------------------------------------------------------

HeaderAction = Literal["set", "setifempty", "add", "append", "merge", "unset", "echo", "edit",
                       "edit*", "note"]


@dataclass(frozen=True, slots=True)
class HeaderEntry:
    """One ``Header [always|onsuccess] action name [value [replacement]] [cond]``."""

    directive: Directive
    action: HeaderAction
    name: str
    value: str | None
    replacement: str | None
    always: bool
    env: str | None = None  # "VAR" or "!VAR"
    expr: str | None = None
    early: bool = False


@dataclass(frozen=True, slots=True)
class HeadersDir:
    """``fixup_out`` (onsuccess) and ``fixup_err`` (always) entries.  ``static``: no entry
    depends on the request beyond env= conditions (whose names are ``env_names``), so the
    headers they produce can be computed once per configuration and content type."""

    onsuccess: tuple[HeaderEntry, ...] = ()
    always: tuple[HeaderEntry, ...] = ()
    static: bool = field(init=False, default=True)
    env_names: tuple[str, ...] = field(init=False, default=())

    def __post_init__(self) -> None:
        entries = (*self.onsuccess, *self.always)
        static = all(h.expr is None and "%" not in (h.value or "")
                     and h.action not in ("echo", "edit", "edit*") for h in entries)
        names = tuple(dict.fromkeys(h.env.lstrip("!") for h in entries if h.env))
        object.__setattr__(self, "static", static)
        object.__setattr__(self, "env_names", names)


def merge_headers(base: HeadersDir, new: HeadersDir) -> HeadersDir:
    """``merge_headers_config``: the parent's entries, then the child's."""
    return HeadersDir(base.onsuccess + new.onsuccess, base.always + new.always)


# -- mod_dir ----------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class DirDir:
    index_names: tuple[str, ...] | None = None
    index_directive: Directive | None = None
    slash: bool | None = None
    check_handler: bool | None = None
    index_redirect: int | None = None
    fallback: str | None = None


def merge_dir(base: DirDir, add: DirDir) -> DirDir:
    """``merge_dir_configs``: every field is replaced by the child's when the child sets it."""
    keep_index = add.index_names is None
    return DirDir(
        base.index_names if keep_index else add.index_names,
        base.index_directive if keep_index else add.index_directive,
        add.slash if add.slash is not None else base.slash,
        add.check_handler if add.check_handler is not None else base.check_handler,
        add.index_redirect if add.index_redirect is not None else base.index_redirect,
        add.fallback or base.fallback,
    )


# -- mod_expires ------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class ExpiresDir:
    active: bool | None = None
    default: str | None = None  # "A3600" / "M60"
    by_type: Mapping[str, str] = field(default_factory=dict)  # lower-cased type → code
    wildcards: bool = False


def merge_expires(base: ExpiresDir, add: ExpiresDir) -> ExpiresDir:
    return ExpiresDir(
        add.active if add.active is not None else base.active,
        add.default if add.default is not None else base.default,
        {**base.by_type, **add.by_type}, add.wildcards,
    )


def expires_code(text: str) -> tuple[str | None, str | None]:
    """``check_code``: ``access plus 1 month`` → ``A2592000`` (code, error)."""
    if text[:1] in ("A", "M"):
        return text, None
    words = split_words(text)
    if not words:
        return None, "bad expires code, unrecognised <base> ''"
    base_word = words.pop(0).lower()
    if base_word[:1] in ("n", "a"):
        base = "A"
    elif base_word[:1] == "m":
        base = "M"
    else:
        return None, f"bad expires code, unrecognised <base> '{base_word}'"
    if words and words[0][:1].lower() == "p":
        words.pop(0)
    total = 0
    while words:
        num = words.pop(0)
        if not num[:1].isdigit():
            return None, f"bad expires code, numeric value expected <num> '{num}'"
        if not words:
            return None, "bad expires code, missing <type>"
        unit = words.pop(0).lower()
        factor = _expires_factor(unit)
        if factor is None:
            return None, f"bad expires code, unrecognised <type>'{unit}'"
        total += factor * atoi(num)
    return f"{base}{total}", None


def _expires_factor(unit: str) -> int | None:
    day = 60 * 60 * 24
    if unit[:1] == "y":
        return day * 365
    if unit[:2] == "mo":
        return day * 30
    if unit[:1] == "w":
        return day * 7
    if unit[:1] == "d":
        return day
    if unit[:1] == "h":
        return 3600
    if unit[:2] == "mi":
        return 60
    if unit[:1] == "s":
        return 1
    return None


# -- mod_authz_core / mod_authn_core ----------------------------------------------------

AuthzOp = Literal["and", "or"]
AUTHZ_PROVIDERS: dict[str, str] = {
    "all": "mod_authz_core", "env": "mod_authz_core", "method": "mod_authz_core",
    "expr": "mod_authz_core", "ip": "mod_authz_host", "host": "mod_authz_host",
    "local": "mod_authz_host", "forward-dns": "mod_authz_host", "user": "mod_authz_user",
    "valid-user": "mod_authz_user", "group": "mod_authz_groupfile",
    "file-owner": "mod_authz_owner", "file-group": "mod_authz_owner",
    "dbd-group": "mod_authz_dbd", "ldap-user": "mod_authnz_ldap",
    "ldap-group": "mod_authnz_ldap",
}


@dataclass(frozen=True, slots=True)
class AuthzNode:
    """A ``Require`` line (``provider`` set) or a ``<RequireAll/Any/None>`` group."""

    op: AuthzOp = "or"
    negate: bool = False
    provider: str | None = None
    args: str = ""
    children: tuple[AuthzNode, ...] = ()
    methods: frozenset[str] | None = None  # <Limit>: only these methods (None: all)
    directive: Node | None = None
    merged: bool = False

    def describe(self) -> str:
        if self.provider is not None:
            neg = "not " if self.negate else ""
            return f"Require {neg}{self.provider} {self.args}".rstrip()
        kind = ("NotAll" if self.negate else "All") if self.op == "and" else \
            ("None" if self.negate else "Any")
        return f"AuthMerging {kind}" if self.merged else f"<Require{kind}>"


def union_methods(nodes: Iterable[AuthzNode]) -> frozenset[str] | None:
    """A group's ``limited`` bits: the methods any of its members applies to (None: all)."""
    out: set[str] = set()
    for node in nodes:
        if node.methods is None:
            return None
        out |= node.methods
    return frozenset(out)


@dataclass(frozen=True, slots=True)
class AuthzDir:
    section: AuthzNode | None = None
    merging: Literal["off", "and", "or"] | None = None
    forbidden_on_fail: bool | None = None


def merge_authz(base: AuthzDir, new: AuthzDir) -> AuthzDir:
    """``merge_authz_core_dir_config``: without AuthMerging a child's Require lines replace
    the parent's; a child without any keeps the parent's; And/Or combine both."""
    fof = new.forbidden_on_fail if new.forbidden_on_fail is not None else base.forbidden_on_fail
    if new.merging is None and new.section is None and base.section is not None:
        return replace(base, forbidden_on_fail=fof)
    if new.merging in (None, "off") or (base.section is None and new.section is None):
        return replace(new, forbidden_on_fail=fof)
    if base.section is not None and new.section is not None:
        pair = (base.section, new.section)
        section = AuthzNode(op=new.merging, children=pair,  # type: ignore[arg-type]
                            methods=union_methods(pair), merged=True)
    else:
        section = base.section or new.section
    return AuthzDir(section, new.merging, fof)


@dataclass(frozen=True, slots=True)
class AuthnDir:
    auth_type: str | None = None
    auth_name: str | None = None


def merge_authn(base: AuthnDir, new: AuthnDir) -> AuthnDir:
    return AuthnDir(new.auth_type or base.auth_type, new.auth_name or base.auth_name)


# -- mod_access_compat (no merger: the most specific section that mentions it wins) ------

@dataclass(frozen=True, slots=True)
class AllowDeny:
    kind: Literal["all", "ip", "host", "env", "nenv"]
    value: str
    methods: frozenset[str] | None
    directive: Directive


@dataclass(frozen=True, slots=True)
class AccessDir:
    order: Literal["deny,allow", "allow,deny", "mutual-failure"] = "deny,allow"
    allows: tuple[AllowDeny, ...] = ()
    denies: tuple[AllowDeny, ...] = ()
    satisfy: Literal["all", "any"] | None = None
    directives: tuple[Directive, ...] = ()


# -- mod_alias (per-directory part) -----------------------------------------------------

@dataclass(frozen=True, slots=True)
class AliasDir:
    redirects: tuple[AliasEntry, ...] = ()
    redirect: tuple[int, str | None, Directive] | None = None  # Location-form Redirect
    allow_relative: bool | None = None


def merge_alias(base: AliasDir, new: AliasDir) -> AliasDir:
    """``merge_alias_dir_config``: the child's redirects are tried before the parent's."""
    return AliasDir(new.redirects + base.redirects, new.redirect or base.redirect,
                    new.allow_relative if new.allow_relative is not None
                    else base.allow_relative)


# -- mod_setenvif / mod_env -------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class SetEnvIfEntry:
    directive: Directive
    attribute: str
    regex: Any  # Regex
    assignments: tuple[tuple[str, str | None], ...]  # (name, value) ; value None: unset (!name)


@dataclass(frozen=True, slots=True)
class SetEnvIfDir:
    entries: tuple[SetEnvIfEntry, ...] = ()


def merge_setenvif(base: SetEnvIfDir, new: SetEnvIfDir) -> SetEnvIfDir:
    return SetEnvIfDir(base.entries + new.entries)


@dataclass(frozen=True, slots=True)
class EnvDir:
    set: Mapping[str, str] = field(default_factory=dict)
    unset: frozenset[str] = frozenset()


def merge_env(base: EnvDir, add: EnvDir) -> EnvDir:
    merged = {k: v for k, v in base.set.items() if k not in add.unset}
    merged.update(add.set)
    return EnvDir(merged, add.unset)


# -- the config vector ------------------------------------------------------------------

MERGERS: dict[str, Callable[[Any, Any], Any]] = {
    "core": merge_core, "mime": merge_mime, "headers": merge_headers, "dir": merge_dir,
    "expires": merge_expires, "authz": merge_authz, "authn": merge_authn,
    "alias": merge_alias, "rewrite": merge_rewrite, "setenvif": merge_setenvif,
    "env": merge_env,
}

DirConfig = Mapping[str, Any]


def merge_configs(base: DirConfig, new: DirConfig) -> dict[str, Any]:
    """``ap_merge_per_dir_configs``: for each module *new* configures, merge with *base*'s
    entry when both exist and the module has a merger, else take *new*'s."""
    out = dict(base)
    for module, conf in new.items():
        old = out.get(module)
        merger = MERGERS.get(module)
        out[module] = merger(old, conf) if old is not None and merger is not None else conf
    return out


# -- building one section's configs -----------------------------------------------------

Context = Literal["server", "directory", "htaccess", "files", "location", "if"]
METHODS = ("GET", "HEAD", "PUT", "POST", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH",
           "PROPFIND", "PROPPATCH", "MKCOL", "COPY", "MOVE", "LOCK", "UNLOCK")


class SectionBuilder:
    """Collects one section's directives into per-module configs (Apache's ``ap_walk_config``
    over a section, each directive's handler filling its module's entry).

    ``override_opts`` restricts which ``Options`` an ``.htaccess`` may set
    (``AllowOverride Options=…``); ``loaded_modules`` tells whether a module (manual name,
    ``mod_authz_groupfile``) is loaded, for the Require providers.  In server context the
    ``Redirect*`` lines go to ``server_redirects`` (mod_alias checks those at translate time).
    """

    def __init__(self, context: Context, path: str | None, *,
                 override_opts: int = OPT_ALL | OPT_SYM_OWNER | OPT_MULTI,
                 loaded_modules: Callable[[str], bool] | None = None) -> None:
        self.context = context
        self.path = path
        self.override_opts = override_opts
        self.has_module = loaded_modules or (lambda name: True)
        self.errors: list[ConfigError] = []
        self.directives: list[Directive] = []
        self._core: dict[str, Any] = {}
        self._mime: dict[str, dict[str, str]] = {}
        self._mime_removals: list[tuple[str, str]] = []
        self._mime_lang: str | None = None
        self._headers: tuple[list[HeaderEntry], list[HeaderEntry]] = ([], [])
        self._dir: dict[str, Any] = {}
        self._expires: dict[str, Any] = {}
        self._authz_stack: list[list[AuthzNode]] = [[]]
        self._authz: dict[str, Any] = {}
        self._authn: dict[str, Any] = {}
        self._access: dict[str, Any] = {}
        self._alias: dict[str, Any] = {}
        self._setenvif: list[SetEnvIfEntry] = []
        self._env: tuple[dict[str, str], set[str]] = ({}, set())
        self._rewrite: list[Directive] = []
        self._touched: set[str] = set()
        self._groups: list[AuthzNode] = [AuthzNode(op="or")]
        self.server_redirects: list[AliasEntry] = []
        self.files: list[Any] = []
        self.ifs: list[Any] = []

    # -- feeding --------------------------------------------------------------------------

    def error(self, node: Node, message: str) -> None:
        self.errors.append((node, message))

    def directive(self, d: Directive, methods: frozenset[str] | None = None) -> None:
        """Apply one directive (already known to be allowed in this context)."""
        self.directives.append(d)
        handler = _HANDLERS.get(d.lname)
        if handler is not None:
            message = handler(self, d, methods)
            if message:
                self.error(d, message)

    def authz_group(self, section: Section, methods: frozenset[str] | None,
                    feed: Callable[[list[Node], frozenset[str] | None], None]) -> None:
        """``<RequireAll>``/``<RequireAny>``/``<RequireNone>``: collect the children into a
        group and attach it to the enclosing one (``add_authz_section``)."""
        name = section.lname
        op: AuthzOp = "and" if name in ("requireall", "requirenotall") else "or"
        negate = name in ("requirenone", "requirenotall")
        if section.args:
            self.error(section, f"<{section.name}> directive doesn't take additional arguments")
            return
        self._touched.add("authz")
        group = AuthzNode(op=op, negate=negate, methods=methods, directive=section)
        self._authz_stack.append([])
        self._groups.append(group)
        feed(section.children, methods)
        self._groups.pop()
        children = tuple(self._authz_stack.pop())
        if not children:
            self.error(section, f"{group.describe()} directive contains no authorization "
                                "directives")
            return
        parent = self._groups[-1]
        if negate and parent.op == "or":
            self.error(section, f"{group.describe()} directive has no effect in "
                                f"{parent.describe()} directive")
            return
        if not negate and op == parent.op:
            self._authz_stack[-1].extend(children)
        else:
            self._authz_stack[-1].append(replace(group, children=children,
                                                 methods=union_methods(children)))

    # -- result ---------------------------------------------------------------------------

    def build(self) -> dict[str, Any]:
        """The section's config vector: an entry only for the modules its directives touch
        (core always has one, as in Apache)."""
        core = dict(self._core)
        unset = OPT_SERVER_DEFAULT if self.context == "server" else OPT_UNSET
        modules: dict[str, Any] = {"core": CoreDir(
            opts=core.get("opts", unset), opts_add=core.get("opts_add", 0),
            opts_remove=core.get("opts_remove", 0), override=core.get("override"),
            nonfatal=frozenset(core.get("nonfatal", ())),
            override_opts=core.get("override_opts"), override_list=core.get("override_list"),
            mime_type=core.get("mime_type"), handler=core.get("handler"),
            default_charset=core.get("default_charset"),
            error_documents=core.get("error_documents", {}),
            accept_path_info=core.get("accept_path_info"),
            files=tuple(self.files), ifs=tuple(self.ifs))}
        t = self._touched
        if "mime" in t:
            maps = {ext: ExtInfo(**vals) for ext, vals in self._mime.items()}
            modules["mime"] = MimeDir(maps if self._mime else None, tuple(self._mime_removals),
                                      self._mime_lang)
        if "headers" in t:
            modules["headers"] = HeadersDir(tuple(self._headers[0]), tuple(self._headers[1]))
        if "dir" in t:
            modules["dir"] = DirDir(**self._dir)
        if "expires" in t:
            modules["expires"] = ExpiresDir(**self._expires)
        if "authz" in t:
            top = tuple(self._authz_stack[0])
            section = AuthzNode(op="or", children=top, methods=union_methods(top)) \
                if top else None
            modules["authz"] = AuthzDir(section, self._authz.get("merging"),
                                        self._authz.get("fof"))
        if "authn" in t:
            modules["authn"] = AuthnDir(**self._authn)
        if "access" in t:
            modules["access"] = AccessDir(**self._access)
        if "alias" in t:
            modules["alias"] = AliasDir(**self._alias)
        if "setenvif" in t:
            modules["setenvif"] = SetEnvIfDir(tuple(self._setenvif))
        if "env" in t:
            modules["env"] = EnvDir(dict(self._env[0]), frozenset(self._env[1]))
        if self._rewrite:
            ctx = "server" if self.context == "server" else "directory"
            rw = RewriteConfig.from_directives(self._rewrite, ctx, self.path)
            for node, message in rw.errors:
                self.error(node, message)
            modules["rewrite"] = rw
        return modules


# -- directive handlers (one per directive name; return an error message or None) -------

Handler = Callable[[SectionBuilder, Directive, "frozenset[str] | None"], "str | None"]
_HANDLERS: dict[str, Handler] = {}


def _handles(*names: str) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        for name in names:
            _HANDLERS[name] = fn
        return fn
    return register


def _takes(d: Directive, low: int, high: int) -> str | None:
    n = len(d.args)
    if low <= n <= high:
        return None
    if low == high:
        return f"{d.name} takes {_count(low)}"
    return f"{d.name} takes {_count(low)} or {_count(high)}" if high - low == 1 else \
        f"{d.name} takes from {low} to {high} arguments"


def _count(n: int) -> str:
    return {0: "no arguments", 1: "one argument", 2: "two arguments",
            3: "three arguments"}.get(n, f"{n} arguments")


@_handles("options")
def _options(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    """``set_options``, including its rule that +/- and plain options must not be mixed."""
    core = b._core
    opts = core.get("opts", OPT_SERVER_DEFAULT if b.context == "server" else OPT_UNSET)
    add, remove = core.get("opts_add", 0), core.get("opts_remove", 0)
    first, merge, all_none = True, False, False
    for word in d.args:
        action = ""
        if word[:1] in ("+", "-"):
            action, word = word[0], word[1:]
            if not merge and not first and not all_none:
                return "Either all Options must start with + or -, or no Option may."
            merge = True
        elif first:
            opts = OPT_NONE
        elif merge:
            return "Either all Options must start with + or -, or no Option may."
        low = word.lower()
        if low == "none":
            if not first:
                return "'Options None' must be the first Option given."
            if merge:
                return "You may not use 'Options +None' or 'Options -None'."
            bit, all_none = OPT_NONE, True
        elif low == "all":
            if not first:
                return "'Options All' must be the first option given."
            if merge:
                return "You may not use 'Options +All' or 'Options -All'."
            bit, all_none = OPT_ALL, True
        elif low in OPTION_BITS:
            bit = OPTION_BITS[low]
        else:
            return f"Illegal option {word}"
        if (b.override_opts & bit) != bit:
            return f"Option {word} not allowed here"
        if action == "-":
            remove |= bit
            add &= ~bit
            opts &= ~bit
        elif action == "+":
            add |= bit
            remove &= ~bit
            opts |= bit
        else:
            opts |= bit
        first = False
    if not d.args:
        return "Options requires at least one argument"
    core.update(opts=opts, opts_add=add, opts_remove=remove)
    return None


def parse_allow_override(args: Iterable[str]) -> tuple[frozenset[str], frozenset[str],
                                                       int | None, str | None]:
    """``set_override`` → (classes, nonfatal kinds, Options= bits or None, error)."""
    classes: set[str] = set()
    nonfatal: set[str] = set()
    opts: int | None = None
    for word in args:
        key, sep, value = word.partition("=")
        low = key.lower()
        if low == "limit":
            classes.add("Limit")
        elif low == "options":
            classes.add("Options")
            if sep:
                opts = 0
                for name in value.split(","):
                    if not name:
                        continue
                    bit = {"none": OPT_NONE, "all": OPT_ALL}.get(name.lower(),
                                                                 OPTION_BITS.get(name.lower()))
                    if bit is None:
                        return frozenset(), frozenset(), None, f"Illegal option {name}"
                    opts |= bit
            else:
                opts = OPT_ALL
        elif low == "fileinfo":
            classes.add("FileInfo")
        elif low == "authconfig":
            classes.add("AuthConfig")
        elif low == "indexes":
            classes.add("Indexes")
        elif low == "nonfatal":
            if not sep:
                return (frozenset(), frozenset(), None,
                        f"=Override, =Unknown or =All expected after {word}")
            kind = value.lower()
            if kind in ("override", "unknown"):
                nonfatal.add(kind)
            elif kind == "all":
                nonfatal |= {"override", "unknown"}
        elif low == "none":
            classes.clear()
            nonfatal.clear()
        elif low == "all":
            classes = set(OVERRIDE_CLASSES)
            nonfatal.clear()
        else:
            return frozenset(), frozenset(), None, f"Illegal override option {word}"
    return frozenset(classes), frozenset(nonfatal), opts, None


@_handles("allowoverride")
def _allow_override(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    classes, nonfatal, opts, err = parse_allow_override(d.args)
    if err:
        return err
    b._core.update(override=classes, nonfatal=nonfatal,
                   override_opts=opts if opts is not None else OPT_ALL | OPT_SYM_OWNER | OPT_MULTI)
    return None


@_handles("allowoverridelist")
def _allow_override_list(b: SectionBuilder, d: Directive, _m: frozenset[str] | None
                         ) -> str | None:
    try:
        b._core["override_list"] = override_list(d.args)
    except ValueError as exc:
        return str(exc)
    return None


@_handles("forcetype")
def _force_type(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    err = _takes(d, 1, 1)
    if err is None:
        b._core["mime_type"] = d.args[0].lower()
    return err


@_handles("sethandler")
def _set_handler(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    err = _takes(d, 1, 1)
    if err is None:
        b._core["handler"] = d.args[0].lower()
    return err


@_handles("adddefaultcharset")
def _default_charset(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    err = _takes(d, 1, 1)
    if err is None:
        low = d.args[0].lower()
        b._core["default_charset"] = (
            (False, DEFAULT_CHARSET) if low == "off" else
            (True, DEFAULT_CHARSET) if low == "on" else (True, d.args[0]))
    return err


_KNOWN_STATUS = frozenset([100, 101, 102, 103, *range(200, 209), 226, *range(300, 309),
                           *range(400, 419), *range(421, 427), 428, 429, 431, 451,
                           *range(500, 509), 510, 511])


@_handles("errordocument")
def _error_document(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    err = _takes(d, 2, 2)
    if err:
        return err
    code = atoi(d.args[0])
    if code != 500 and code not in _KNOWN_STATUS:
        return f"Unsupported HTTP response code {d.args[0]}"
    target = d.args[1]
    if code == 401 and error_document_kind(target) == "url":
        return None
    docs = dict(b._core.get("error_documents", {}))
    docs[code] = (target, d)
    b._core["error_documents"] = docs
    return None


def error_document_kind(target: str) -> Literal["text", "path", "url"]:
    """``set_error_document``'s heuristic: a space makes it a message, a leading ``/`` a local
    path (internal redirect), a URL an external redirect; anything else is a message."""
    if " " in target:
        return "text"
    if target.startswith("/"):
        return "path"
    return "url" if is_url(target) else "text"


@_handles("acceptpathinfo")
def _accept_path_info(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    value = d.args[0].lower() if len(d.args) == 1 else ""
    if value not in ("on", "off", "default"):
        return "AcceptPathInfo must be set to on, off, or default"
    b._core["accept_path_info"] = value
    return None


# mod_mime

_MIME_ADD = {"addtype": "type", "addhandler": "handler", "addencoding": "encoding",
             "addlanguage": "language", "addcharset": "charset",
             "addinputfilter": "input_filters", "addoutputfilter": "output_filters"}
_MIME_REMOVE = {"removehandler": "handler", "removeencoding": "encoding",
                "removelanguage": "language", "removecharset": "charset",
                "removeinputfilter": "input_filters", "removeoutputfilter": "output_filters"}


@_handles(*_MIME_ADD)
def _mime_add(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    if len(d.args) < 2:
        return f"{d.name} requires at least two arguments"
    b._touched.add("mime")
    fname = _MIME_ADD[d.lname]
    value = d.args[0].lower()
    for ext in d.args[1:]:
        key = ext.lower().removeprefix(".")
        b._mime.setdefault(key, {})[fname] = value
    return None


@_handles("removetype")
def _mime_remove_type(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    if not d.args:
        return f"{d.name} requires at least one argument"
    b._touched.add("mime")
    for ext in d.args:
        b._mime.setdefault(ext.lower().removeprefix("."), {})["type"] = ""
    return None


@_handles(*_MIME_REMOVE)
def _mime_remove(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    if not d.args:
        return f"{d.name} requires at least one argument"
    b._touched.add("mime")
    for ext in d.args:
        b._mime_removals.append((ext.lower().removeprefix("."), _MIME_REMOVE[d.lname]))
    return None


@_handles("defaultlanguage")
def _default_language(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    b._touched.add("mime")
    b._mime_lang = d.args[0] if d.args else None
    return _takes(d, 1, 1)


# mod_headers

_HEADER_ACTIONS = frozenset(["set", "setifempty", "add", "append", "merge", "unset", "echo",
                             "edit", "edit*", "note"])


@_handles("header")
def _header(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    """``header_cmd`` / ``header_inout_cmd``: the argument rules and their error texts."""
    args = list(d.args)
    if not args:
        return "Header requires at least one argument"
    always = False
    if args[0].lower() in ("always", "onsuccess"):
        always = args.pop(0).lower() == "always"
    action = args.pop(0).lower() if args else ""
    name = args.pop(0) if args else ""
    value = args.pop(0) if args else None
    subs = args.pop(0) if args else None
    clause = args.pop(0) if args else None
    if args:
        return f"{d.name} has too many arguments"
    if action not in _HEADER_ACTIONS:
        return ("first argument must be 'add', 'set', 'setifempty', 'append', 'merge', "
                "'unset', 'echo', 'note', 'edit', or 'edit*'.")
    if action in ("edit", "edit*"):
        if subs is None:
            return "Header edit requires a match and a substitution"
        try:
            compile_config_regex(value or "")
        except RegexError:
            return "Header edit regex could not be compiled"
    else:
        if clause is not None:
            return "Too many arguments to directive"
        clause, subs = subs, None
    if action in ("unset", "echo"):
        if value is not None:
            if clause is not None:
                return f"header {action} takes two arguments"
            clause, value = value, None
    elif value is None:
        return "Header requires three arguments"
    env = expr = None
    early = False
    if clause is not None:
        low = clause.lower()
        if low == "early":
            early = True
        elif low.startswith("env="):
            if clause[4:] in ("", "!"):
                return ("error: missing environment variable name. envclause should be in "
                        "the form env=envar ")
            env = clause[4:]
        elif low.startswith("expr="):
            expr = clause[5:]
        else:
            return f"Unknown parameter: {clause}"
    name = name.split(":", 1)[0]
    b._touched.add("headers")
    entry = HeaderEntry(d, action, name, value, subs, always, env, expr, early)  # type: ignore[arg-type]
    b._headers[1 if always else 0].append(entry)
    return None


# mod_dir

@_handles("directoryindex")
def _directory_index(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    """``add_index``: a section's DirectoryIndex lines accumulate; ``disabled`` alone clears."""
    b._touched.add("dir")
    names = list(b._dir.get("index_names") or ())
    if len(d.args) == 1 and d.args[0].lower() == "disabled":
        names = []
    else:
        names.extend(d.args)
    b._dir["index_names"] = tuple(names)
    b._dir["index_directive"] = d
    return None


def _flag(d: Directive) -> bool | None:
    if len(d.args) == 1 and d.args[0].lower() in ("on", "off"):
        return d.args[0].lower() == "on"
    return None


@_handles("directoryslash", "directorycheckhandler")
def _dir_flag(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    value = _flag(d)
    if value is None:
        return f"{d.name} must be On or Off"
    b._touched.add("dir")
    b._dir["slash" if d.lname == "directoryslash" else "check_handler"] = value
    return None


@_handles("directoryindexredirect")
def _dir_index_redirect(b: SectionBuilder, d: Directive, _m: frozenset[str] | None
                        ) -> str | None:
    err = _takes(d, 1, 1)
    if err:
        return err
    low = d.args[0].lower()
    status = {"on": 302, "off": 0, "permanent": 301, "temp": 302, "seeother": 303}.get(low)
    if status is None:
        if not low[:1].isdigit():
            return "DirectoryIndexRedirect ON|OFF|permanent|temp|seeother|3xx"
        status = atoi(low)
        if not 300 <= status < 400:
            return "DirectoryIndexRedirect only accepts values between 300 and 399"
    b._touched.add("dir")
    b._dir["index_redirect"] = status
    return None


@_handles("fallbackresource")
def _fallback(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    err = _takes(d, 1, 1)
    if err is None:
        b._touched.add("dir")
        b._dir["fallback"] = d.args[0]
    return err


# mod_expires

@_handles("expiresactive")
def _expires_active(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    value = _flag(d)
    if value is None:
        return "ExpiresActive must be On or Off"
    b._touched.add("expires")
    b._expires["active"] = value
    return None


@_handles("expiresdefault")
def _expires_default(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    err = _takes(d, 1, 1)
    if err:
        return err
    code, message = expires_code(d.args[0])
    if message:
        return f"'ExpiresDefault {d.args[0]}': {message}"
    b._touched.add("expires")
    b._expires["default"] = code
    return None


@_handles("expiresbytype")
def _expires_by_type(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    err = _takes(d, 2, 2)
    if err:
        return err
    mime, text = d.args
    slash = mime.rfind("/")
    if slash < 0:
        return "Invalid mimetype: should contain a slash"
    code, message = expires_code(text)
    if message:
        return f"'ExpiresByType {mime} {text}': {message}"
    b._touched.add("expires")
    by_type = dict(b._expires.get("by_type", {}))
    by_type[mime.lower()] = code
    b._expires["by_type"] = by_type
    if mime[slash + 1:] == "*":
        b._expires["wildcards"] = True
    return None


# mod_authz_core / mod_authn_core

@_handles("require")
def _require(b: SectionBuilder, d: Directive, methods: frozenset[str] | None) -> str | None:
    """``add_authz_provider``: the provider must exist (its module loaded), and a negated
    Require cannot sit directly in a RequireAny group (the implicit top level is one)."""
    words = list(d.args)
    if not words:
        return "Require requires at least one argument"
    negate = words[0].lower() == "not"
    if negate:
        words.pop(0)
    provider = words[0].lower() if words else ""
    module = AUTHZ_PROVIDERS.get(provider)
    if module is None or not b.has_module(module):
        return f"Unknown Authz provider: {words[0] if words else ''}"
    rest = d.args_text or " ".join(d.args)
    if negate:
        rest = first_word(rest)[1]
    args = first_word(rest)[1].strip()
    if provider == "all" and args.lower() not in ("granted", "denied"):
        return "Require all only takes 'granted' or 'denied'"
    if provider == "method":
        unknown = [w for w in words[1:] if w.upper() not in METHODS]
        if not words[1:] or unknown:
            return f"Unknown method '{unknown[0] if unknown else ''}'"
    if provider == "ip":
        bad = [w for w in words[1:] if _ip_subnet(w) is None]
        if not words[1:] or bad:
            return f"ip address '{bad[0] if bad else ''}' appears to be invalid"
    b._touched.add("authz")
    if negate and b._groups[-1].op == "or":
        return ("negative Require directive has no effect in "
                f"{b._groups[-1].describe()} directive")
    node = AuthzNode(negate=negate, provider=provider, args=args, methods=methods, directive=d)
    b._authz_stack[-1].append(node)
    return None


@_handles("authmerging")
def _auth_merging(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    low = d.args[0].lower() if len(d.args) == 1 else ""
    if low not in ("off", "and", "or"):
        return "AuthMerging must be one of: Off | And | Or"
    b._touched.add("authz")
    b._authz["merging"] = low
    return None


@_handles("authzsendforbiddenonfailure")
def _authz_fof(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    value = _flag(d)
    if value is None:
        return f"{d.name} must be On or Off"
    b._touched.add("authz")
    b._authz["fof"] = value
    return None


@_handles("authtype", "authname")
def _authn(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    err = _takes(d, 1, 1)
    if err:
        return err
    b._touched.add("authn")
    value = d.args[0]
    if d.lname == "authtype":
        b._authn["auth_type"] = None if value.lower() == "none" else value
    else:
        b._authn["auth_name"] = value
    return None


# mod_access_compat

@_handles("order")
def _order(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    low = d.args[0].lower() if len(d.args) == 1 else ""
    if low not in ("allow,deny", "deny,allow", "mutual-failure"):
        return "unknown order"
    b._touched.add("access")
    b._access["order"] = low
    b._access["directives"] = (*b._access.get("directives", ()), d)
    return None


@_handles("allow", "deny")
def _allow_deny(b: SectionBuilder, d: Directive, methods: frozenset[str] | None) -> str | None:
    if len(d.args) < 2 or d.args[0].lower() != "from":
        return "allow and deny must be followed by 'from'"
    b._touched.add("access")
    key = "allows" if d.lname == "allow" else "denies"
    entries = list(b._access.get(key, ()))
    for word in d.args[1:]:
        low = word.lower()
        if low.startswith("env="):
            name = word[4:]
            kind: Literal["all", "ip", "host", "env", "nenv"] = "env"
            if name.startswith("!"):
                kind, name = "nenv", name[1:]
            entries.append(AllowDeny(kind, name, methods, d))
        elif low == "all":
            entries.append(AllowDeny("all", "", methods, d))
        elif _ip_subnet(word) is not None:
            entries.append(AllowDeny("ip", word, methods, d))
        elif "/" in word:
            return f"An IP address was expected, found '{word}'"
        else:
            entries.append(AllowDeny("host", word, methods, d))
    b._access[key] = tuple(entries)
    b._access["directives"] = (*b._access.get("directives", ()), d)
    return None


@_handles("satisfy")
def _satisfy(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    low = d.args[0].lower() if len(d.args) == 1 else ""
    if low not in ("all", "any"):
        return "Satisfy either 'any' or 'all'."
    b._touched.add("access")
    b._access["satisfy"] = low
    b._access["directives"] = (*b._access.get("directives", ()), d)
    return None


def _ip_subnet(text: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    """``apr_ipsubnet_create``: ``10``, ``10.1``, ``10.1.0.0/16``, ``10.1.0.0/255.255.0.0``,
    IPv6 with an optional prefix length."""
    addr, sep, mask = text.partition("/")
    try:
        if ":" in addr:
            return ipaddress.ip_network(text if sep else addr, strict=False)
        parts = addr.split(".")
        if not (1 <= len(parts) <= 4) or not all(p.isdigit() and int(p) < 256 for p in parts):
            return None
        if sep:
            return ipaddress.ip_network(f"{addr}/{mask}", strict=False)
        bits = 8 * len(parts)
        full = ".".join(parts + ["0"] * (4 - len(parts)))
        return ipaddress.ip_network(f"{full}/{bits}", strict=False)
    except ValueError:
        return None


def ip_matches(spec: str, addr: str) -> bool:
    net = _ip_subnet(spec)
    if net is None:
        return False
    try:
        return ipaddress.ip_address(addr) in net
    except ValueError:
        return False


# mod_alias (per-directory redirects)

_REDIRECT_STATUS = {"permanent": 301, "temp": 302, "seeother": 303, "gone": 410}


def parse_redirect(d: Directive, *, in_dir: bool) -> tuple[AliasEntry | None,
                                                            tuple[int, str | None] | None,
                                                            str | None]:
    """``add_redirect_internal`` → (list entry, Location-form (status, url), error).

    In a per-directory context a Redirect whose only argument after a status is a URL (or
    that has no status and a single argument) is the "Location form": it redirects every
    request of that context.
    """
    name = d.lname
    regex_form = name == "redirectmatch"
    status = 301 if name == "redirectpermanent" else 302
    low, high = {"redirect": (1, 3), "redirectmatch": (2, 3)}.get(name, (2, 2))
    if not low <= len(d.args) <= high:
        return None, None, f"{d.name} takes {low} to {high} arguments" if low != high else \
            f"{d.name} takes two arguments"
    arg1, arg2, arg3 = (*d.args, None, None)[:3]
    key = arg1.lower()
    if key in _REDIRECT_STATUS:
        status = _REDIRECT_STATUS[key]
        grok = -1 if key == "gone" else 1
    elif arg1[:1].isdigit():
        status = atoi(arg1)
        grok = 1 if 300 <= status < 400 else -1
    else:
        grok = 0
    if arg3 is not None and not grok:
        return None, None, "Redirect: invalid first argument (of three)"
    if in_dir:
        if (grok > 0 and arg2 is not None and arg3 is None) or (not grok and arg2 is None):
            return None, (status, arg2 if grok else arg1), None
        if grok < 0 and arg2 is None:
            return None, (status, None), None
    fake, url = arg2, arg3
    if arg3 is None and not grok:
        fake, url = arg1, arg2
    regex = None
    if regex_form:
        try:
            regex = compile_config_regex(fake or "")
        except RegexError:
            return None, None, "Regular expression could not be compiled."
    if 300 <= status < 400:
        if url is None:
            return None, None, "URL to redirect to is missing"
        if not regex_form and not is_url(url) and not url.startswith("/"):
            return None, None, "Redirect to non-URL"
    elif url is not None:
        return None, None, "Redirect URL not valid for this status"
    return AliasEntry("redirect", fake or "", url, regex, status, d), None, None


@_handles("redirect", "redirectmatch", "redirectpermanent", "redirecttemp")
def _redirect(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    entry, location_form, err = parse_redirect(d, in_dir=b.context != "server")
    if err:
        return err
    if b.context == "server":
        if entry is not None:
            b.server_redirects.append(entry)
        return None
    b._touched.add("alias")
    if location_form is not None:
        b._alias["redirect"] = (location_form[0], location_form[1], d)
    elif entry is not None:
        b._alias["redirects"] = (*b._alias.get("redirects", ()), entry)
    return None


@_handles("redirectrelative")
def _redirect_relative(b: SectionBuilder, d: Directive, _m: frozenset[str] | None
                       ) -> str | None:
    value = _flag(d)
    if value is None:
        return "RedirectRelative must be On or Off"
    b._touched.add("alias")
    b._alias["allow_relative"] = value
    return None


# mod_rewrite: collected here, parsed by the engine's own parser in build()

@_handles("rewriteengine", "rewriteoptions", "rewritebase", "rewritecond", "rewriterule",
          "rewritemap")
def _rewrite(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    b._rewrite.append(d)
    return None


# mod_setenvif / mod_env

@_handles("setenvif", "setenvifnocase", "browsermatch", "browsermatchnocase")
def _setenvif(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    browser = d.lname.startswith("browsermatch")
    nocase = d.lname.endswith("nocase")
    args = list(d.args)
    attribute = "User-Agent" if browser else (args.pop(0) if args else "")
    if len(args) < 2:
        return f"{d.name} requires at least {'two' if browser else 'three'} arguments"
    pattern = args.pop(0)
    try:
        regex = compile_config_regex(pattern, nocase=nocase)
    except RegexError as exc:
        return f"{d.name} regex could not be compiled: {exc}"
    assignments: list[tuple[str, str | None]] = []
    for word in args:
        if word.startswith("!"):
            assignments.append((word[1:], None))
        else:
            key, sep, value = word.partition("=")
            assignments.append((key, value if sep else "1"))
    b._touched.add("setenvif")
    b._setenvif.append(SetEnvIfEntry(d, attribute, regex, tuple(assignments)))
    return None


@_handles("setenv", "unsetenv")
def _env(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    if not d.args:
        return f"{d.name} requires at least one argument"
    b._touched.add("env")
    values, unset = b._env
    if d.lname == "setenv":
        values[d.args[0]] = d.args[1] if len(d.args) > 1 else ""
        unset.discard(d.args[0])
    else:
        for name in d.args:
            values.pop(name, None)
            unset.add(name)
    return None
