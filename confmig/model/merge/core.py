"""core's per-directory configuration (``core_dir_config``): ``Options`` with ``+``/``-``,
``AllowOverride``/``AllowOverrideList``, ForceType, SetHandler, AddDefaultCharset,
ErrorDocument, AcceptPathInfo — their directives, ``merge_core_dir_configs``, and the running
options of the directory walk (``core_opts_merge``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from confmig.apache.registry import (
    OPT_ALL,
    OPT_EXECCGI,
    OPT_INC_WITH_EXEC,
    OPT_INCLUDES,
    OPT_INDEXES,
    OPT_MULTI,
    OPT_NONE,
    OPT_OVERRIDE_DEFAULT,
    OPT_SYM_LINKS,
    OPT_SYM_OWNER,
    OPT_UNSET,
    OPTION_BITS,
    OPTION_NAMES,
    AllowOverride,
    override_list,
)
from confmig.model.mapping import is_url
from confmig.model.merge.handlers import handles, takes
from confmig.model.rewrite.uri import atoi
from confmig.syntax import Directive

if TYPE_CHECKING:
    from confmig.model.merge.builder import SectionBuilder

# create_core_dir_config for a server's defaults (no directory): Options FollowSymLinks.
OPT_SERVER_DEFAULT = OPT_UNSET | OPT_SYM_LINKS
_OPTION_NAMES = tuple((bit, OPTION_NAMES[key]) for bit, key in (
    (OPT_INDEXES, "indexes"), (OPT_INCLUDES, "includes"), (OPT_SYM_LINKS, "followsymlinks"),
    (OPT_EXECCGI, "execcgi"), (OPT_SYM_OWNER, "symlinksifownermatch"), (OPT_MULTI, "multiviews"),
))

DEFAULT_CHARSET = "iso-8859-1"


def options_text(bits: int) -> str:
    """``Indexes FollowSymLinks`` for an options bit set (``None`` when empty)."""
    names = [name for bit, name in _OPTION_NAMES if bits & bit]
    return " ".join(names) if names else "None"


@dataclass(frozen=True, slots=True)
class CoreDir:
    """The parts of ``core_dir_config`` the model uses (``opts``, ``override``, ForceType…).

    ``files``/``ifs`` are the section's ``<Files>``/``<If>`` children (``sec_file``/``sec_if``),
    concatenated on merge.  Sections are typed ``Any`` here to keep this module below the walk.
    The ``<Files>`` are held as ``file_groups`` (:class:`confmig.model.sections.FilesSections`,
    one per section that has any), which build a section when the file walk matches it;
    ``files`` builds them all.
    """

    opts: int = OPT_UNSET
    opts_add: int = 0
    opts_remove: int = 0
    override: frozenset[str] | None = None
    nonfatal: frozenset[str] = frozenset()  # AllowOverride.nonfatal: "Override", "Unknown"
    override_opts: int | None = None
    override_list: frozenset[str] | None = None
    mime_type: str | None = None
    handler: str | None = None
    default_charset: tuple[bool, str] | None = None
    error_documents: Mapping[int, tuple[str, Directive]] = field(default_factory=dict)
    accept_path_info: str | None = None
    file_groups: tuple[Any, ...] = ()
    ifs: tuple[Any, ...] = ()
    # The Options in force (``opts`` without OPT_UNSET), read on every request: stored.
    options: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "options", self.opts & ~OPT_UNSET)

    @property
    def files(self) -> tuple[Any, ...]:
        """Every ``<Files>``/``<FilesMatch>`` section, in merge order (each built)."""
        return tuple(section for group in self.file_groups for section in group.all())


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
        file_groups=base.file_groups + new.file_groups,
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
                   core.nonfatal, OPT_OVERRIDE_DEFAULT
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
                                  else OPT_OVERRIDE_DEFAULT)
        if core.override_list is not None:
            self.override_list = core.override_list

    @property
    def htaccess_enabled(self) -> bool:
        """request.c reads the access file when ``opts.override`` is not 0, and
        ``AllowOverride Nonfatal=...`` sets a bit of it (NONFATAL_OVERRIDE/UNKNOWN): with no
        class besides, the file is read and every directive refused (skipped where the
        Nonfatal covers it: ``Nonfatal=Override`` still answers 500 for an unknown one)."""
        return bool(self.override) or bool(self.nonfatal) or bool(self.override_list)


# -- directives --------------------------------------------------------------------------


@handles("options")
def _options(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    """``set_options``, including its rule that +/- and plain options must not be mixed."""
    core = b.core
    opts = core.get("opts", OPT_SERVER_DEFAULT if b.context == "server" else OPT_UNSET)
    read = read_options(d.args, opts, core.get("opts_add", 0), core.get("opts_remove", 0),
                        b.override_opts)
    if isinstance(read, str):
        return read
    opts, add, remove = read
    core.update(opts=opts, opts_add=add, opts_remove=remove)
    return None


def read_options(args: Sequence[str], opts: int = OPT_UNSET, add: int = 0, remove: int = 0,
                 override_opts: int = OPT_OVERRIDE_DEFAULT
                 ) -> tuple[int, int, int] | str:
    """``set_options``: the ``(opts, add, remove)`` bits after an ``Options`` line with
    *args*, starting from the section's, or Apache's error message for the line.
    *override_opts*: the options an ``.htaccess`` may set (``AllowOverride Options=``)."""
    first, merge, all_none = True, False, False
    for word in args:
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
        if (override_opts & bit) != bit:
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
    return opts, add, remove  # (no words: set_options sets nothing, and no error)


@handles("allowoverride")
def _allow_override(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    try:
        allow = AllowOverride.parse(d.args)
    except ValueError as exc:
        return str(exc)
    b.core.update(override=allow.classes, nonfatal=allow.nonfatal,
                   override_opts=allow.override_opts)
    return None


@handles("allowoverridelist")
def _allow_override_list(b: SectionBuilder, d: Directive, _m: frozenset[str] | None
                         ) -> str | None:
    try:
        b.core["override_list"] = override_list(d.args)
    except ValueError as exc:
        return str(exc)
    return None


@handles("forcetype")
def _force_type(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    err = takes(d)
    if err is None:
        b.core["mime_type"] = d.args[0].lower()
    return err


@handles("sethandler")
def _set_handler(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    err = takes(d)
    if err is None:
        b.core["handler"] = d.args[0].lower()
    return err


@handles("adddefaultcharset")
def _default_charset(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    err = takes(d)
    if err is None:
        low = d.args[0].lower()
        b.core["default_charset"] = (
            (False, DEFAULT_CHARSET) if low == "off" else
            (True, DEFAULT_CHARSET) if low == "on" else (True, d.args[0]))
    return err


# http_protocol.c status_lines: ap_index_of_response maps a code in a gap (NULL: 306, 418,
# 425...) to 500's line, and set_error_document refuses it; 103 is in Apache 2.4.71's table
# (every code 95..1001 swept on it; tests/model/test_handled_directives_apache.py keeps the
# neighbours of the gaps).
_KNOWN_STATUS = frozenset([100, 101, 102, 103, *range(200, 209), 226, *range(300, 306), 307,
                           308, *range(400, 418), *range(421, 425), 426, 428, 429, 431, 451,
                           *range(500, 509), 510, 511])


@handles("errordocument")
def _error_document(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    err = takes(d)
    if err:
        return err
    code = atoi(d.args[0])
    if code != 500 and code not in _KNOWN_STATUS:
        return f"Unsupported HTTP response code {d.args[0]}"
    target = d.args[1]
    if code == 401 and error_document_kind(target) == "url":
        return None
    docs = dict(b.core.get("error_documents", {}))
    docs[code] = (target, d)
    b.core["error_documents"] = docs
    return None


def error_document_kind(target: str) -> Literal["text", "path", "url"]:
    """``set_error_document``'s heuristic: a space makes it a message, a leading ``/`` a local
    path (internal redirect), a URL an external redirect; anything else is a message."""
    if " " in target:
        return "text"
    if target.startswith("/"):
        return "path"
    return "url" if is_url(target) else "text"


@handles("acceptpathinfo")
def _accept_path_info(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    value = d.args[0].lower() if len(d.args) == 1 else ""
    if value not in ("on", "off", "default"):
        return "AcceptPathInfo must be set to on, off, or default"
    b.core["accept_path_info"] = value
    return None

