"""Which configuration sections apply to a request, in Apache's order (``server/request.c``).

* :class:`Site` — a loaded server configuration turned into what request processing uses:
  the main server and its ``<VirtualHost>``s, each with its sorted ``<Directory>`` list
  (``core_reorder_directories``: non-regex by number of ``/``, then regex, config order
  within), its ``<Location>`` list and its server-level per-directory defaults.
* :func:`directory_walk` — ``ap_directory_walk``: from ``/`` down the real filesystem, at
  each level the non-regex ``<Directory>`` sections of that depth and then that directory's
  ``.htaccess`` (read only when the AllowOverride/AllowOverrideList in force there permits
  anything; a directive it does not permit makes the request answer 500); then
  ``<DirectoryMatch>``/``<Directory ~>``.
* :func:`file_walk`, :func:`location_walk`, :func:`if_walk` — ``<Files>``, ``<Location>`` and
  ``<If>``/``<ElseIf>``/``<Else>``.
* :class:`Expr` — the part of ``ap_expr`` real configurations use in ``<If>``, ``Require
  expr`` and ``Header … expr=``.

Sections are immutable once built and their merges are cached by the tuple of sections, so a
request costs a few dictionary lookups once its directories have been seen.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from confmig.load import LoadedConfig, ReadState, load_htaccess
from confmig.model.mapping import (
    AliasEntry,
    RegexError,
    StatCache,
    compile_config_regex,
)
from confmig.model.merge import (
    METHODS,
    OPT_SYM_LINKS,
    OPT_SYM_OWNER,
    AppliedDirective,
    CoreDir,
    DirConfig,
    OptsState,
    SectionBuilder,
    merge_configs,
)
from confmig.model.modules import ModuleSet
from confmig.model.registry import AllowOverride, overrides_permit, registry
from confmig.model.rewrite import RewriteConfig, server_dir_defaults
from confmig.model.rewrite import merge_server as merge_rewrite_server
from confmig.model.rewrite.regex import Regex
from confmig.model.rewrite.uri import atoi
from confmig.syntax import Directive, Node, Section

SectionKind = Literal["server", "directory", "directorymatch", "htaccess", "files", "filesmatch",
                      "location", "locationmatch", "if", "elseif", "else"]
DEFAULT_DOCUMENT_ROOT = "/var/www/html"
DEFAULT_TYPES_CONFIG = "/etc/mime.types"


# -- fnmatch with APR_FNM_PATHNAME ------------------------------------------------------

def is_fnmatch(pattern: str) -> bool:
    """``apr_fnmatch_test``: does *pattern* hold a wildcard (``* ? [``)?"""
    return any(ch in pattern for ch in "*?[")


def fnmatch_regex(pattern: str) -> Regex:
    """``apr_fnmatch(pattern, s, APR_FNM_PATHNAME)`` as an anchored pcre2 pattern:
    ``*``/``?`` never match ``/``; ``[...]`` sets (``!`` or ``^`` negates); ``\\`` escapes."""
    out = ["^"]
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "*":
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[":
            end = pattern.find("]", i + 2 if pattern[i + 1:i + 2] in ("!", "^") else i + 1)
            if end < 0:
                out.append(r"\[")
            else:
                body = pattern[i + 1:end]
                neg = body[:1] in ("!", "^")
                body = body[1:] if neg else body
                body = body.replace("\\", "\\\\").replace("]", r"\]")
                out.append(f"[{'^' if neg else ''}{body}]" if not neg else f"[^/{body}]")
                i = end
        elif ch == "\\" and i + 1 < n:
            i += 1
            out.append(_quote(pattern[i]))
        else:
            out.append(_quote(ch))
        i += 1
    out.append("$")
    return Regex("".join(out))


def _quote(ch: str) -> str:
    return "\\" + ch if not ch.isalnum() and ch != "/" else ch


def count_dirs(path: str) -> int:
    """``ap_count_dirs``: the number of ``/`` in *path*."""
    return path.count("/")


# -- ap_expr (the subset real configurations use) ---------------------------------------

class ExprError(ValueError):
    """An expression Apache would refuse to parse."""


class ExprUnsupported(Exception):
    """A variable or function the model cannot evaluate for this request."""


Lookup = Callable[[str], "str | None"]


@dataclass(frozen=True, slots=True)
class Expr:
    """A parsed ``ap_expr`` (boolean).  :meth:`evaluate` raises :class:`ExprUnsupported`
    when it needs something the model does not know (the caller reports it)."""

    source: str
    tree: tuple[Any, ...]

    @classmethod
    def parse(cls, text: str) -> Expr:
        parser = _ExprParser(text)
        tree = parser.expr()
        parser.expect_end()
        return cls(text, tree)

    def evaluate(self, lookup: Lookup) -> bool:
        return bool(_eval_bool(self.tree, lookup))


_WORD_OPS = ("-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-ipmatch", "-strmatch", "-strcmatch",
             "-fnmatch")
_UNARY_OPS = ("-z", "-n", "-f", "-d", "-s", "-e", "-l", "-L", "-h", "-x", "-T", "-R", "-F",
              "-U", "-A")


class _ExprParser:
    def __init__(self, text: str) -> None:
        self.s = text
        self.i = 0

    def ws(self) -> None:
        while self.i < len(self.s) and self.s[self.i] in " \t\r\n":
            self.i += 1

    def peek(self, token: str) -> bool:
        self.ws()
        if not self.s.startswith(token, self.i):
            return False
        # A word operator (``in``, ``true``) must not be the start of a longer word.
        end = self.i + len(token)
        return not (token[-1].isalpha() and end < len(self.s)
                    and (self.s[end].isalnum() or self.s[end] == "_"))

    def take(self, token: str) -> bool:
        if self.peek(token):
            self.i += len(token)
            return True
        return False

    def expect_end(self) -> None:
        self.ws()
        if self.i != len(self.s):
            raise ExprError(f"syntax error near '{self.s[self.i:self.i + 20]}'")

    def expr(self) -> tuple[Any, ...]:
        left = self.conj()
        while self.take("||"):
            left = ("or", left, self.conj())
        return left

    def conj(self) -> tuple[Any, ...]:
        left = self.unary()
        while self.take("&&"):
            left = ("and", left, self.unary())
        return left

    def unary(self) -> tuple[Any, ...]:
        if self.take("!"):
            return ("not", self.unary())
        if self.peek("("):
            save = self.i
            self.take("(")
            try:
                inner = self.expr()
                if self.take(")"):
                    return inner
            except ExprError:
                pass
            self.i = save
        if self.take("true"):
            return ("const", True)
        if self.take("false"):
            return ("const", False)
        for op in _UNARY_OPS:
            if self.peek(op) and not self.peek(op + "-"):
                self.i += len(op)
                return ("unop", op, self.word())
        left = self.word()
        self.ws()
        for op in ("==", "!=", "<=", ">=", "=~", "!~", "<", ">", "="):
            if self.take(op):
                if op in ("=~", "!~"):
                    return ("match", op == "!~", left, self.regex())
                return ("cmp", "==" if op == "=" else op, left, self.word())
        for op in _WORD_OPS:
            if self.take(op):
                return ("cmp", op, left, self.word())
        if self.take("in"):
            return ("in", left, self.word_list())
        raise ExprError(f"syntax error near '{self.s[self.i:self.i + 20]}'")

    def word_list(self) -> tuple[Any, ...]:
        self.ws()
        if not self.take("{"):
            return ("list", self.word())
        items = [self.word()]
        while self.take(","):
            items.append(self.word())
        if not self.take("}"):
            raise ExprError("missing '}' in word list")
        return ("items", *items)

    def regex(self) -> Regex:
        self.ws()
        s = self.s
        if s.startswith("m", self.i) and self.i + 1 < len(s) and not s[self.i + 1].isalnum():
            delim = s[self.i + 1]
            start = self.i + 2
        elif s.startswith("/", self.i):
            delim, start = "/", self.i + 1
        else:
            raise ExprError("regular expression expected")
        end = start
        while end < len(s) and s[end] != delim:
            end += 2 if s[end] == "\\" else 1
        if end >= len(s):
            raise ExprError("unterminated regular expression")
        body = s[start:end]
        self.i = end + 1
        flags = ""
        while self.i < len(s) and s[self.i] == "i":
            flags += "i"
            self.i += 1
        try:
            return compile_config_regex(body, nocase="i" in flags)
        except RegexError as exc:
            raise ExprError(f"cannot compile regular expression '{body}': {exc}") from exc

    def word(self) -> tuple[Any, ...]:
        parts = [self.atom()]
        while self.take("."):
            parts.append(self.atom())
        return parts[0] if len(parts) == 1 else ("concat", *parts)

    def atom(self) -> tuple[Any, ...]:
        self.ws()
        s = self.s
        if self.i >= len(s):
            raise ExprError("unexpected end of expression")
        ch = s[self.i]
        if ch in "'\"":
            end = self.i + 1
            pieces: list[tuple[Any, ...]] = []
            buf = ""
            while end < len(s) and s[end] != ch:
                if s[end] == "\\" and end + 1 < len(s):
                    buf += s[end + 1]
                    end += 2
                    continue
                if s.startswith("%{", end):
                    close = s.find("}", end)
                    if close < 0:
                        raise ExprError("unterminated variable")
                    if buf:
                        pieces.append(("str", buf))
                        buf = ""
                    pieces.append(_var(s[end + 2:close]))
                    end = close + 1
                    continue
                buf += s[end]
                end += 1
            if end >= len(s):
                raise ExprError("unterminated string")
            self.i = end + 1
            if buf or not pieces:
                pieces.append(("str", buf))
            return pieces[0] if len(pieces) == 1 else ("concat", *pieces)
        if s.startswith("%{", self.i):
            close = s.find("}", self.i)
            if close < 0:
                raise ExprError("unterminated variable")
            name = s[self.i + 2:close]
            self.i = close + 1
            return _var(name)
        if ch.isdigit() or (ch == "-" and self.i + 1 < len(s) and s[self.i + 1].isdigit()):
            end = self.i + 1
            while end < len(s) and s[end].isdigit():
                end += 1
            text = s[self.i:end]
            self.i = end
            return ("str", text)
        if ch.isalpha():
            end = self.i
            while end < len(s) and (s[end].isalnum() or s[end] == "_"):
                end += 1
            name = s[self.i:end]
            self.i = end
            if self.take("("):
                arg = self.word()
                if not self.take(")"):
                    raise ExprError(f"missing ')' after {name}(")
                return ("func", name.lower(), arg)
            raise ExprError(f"syntax error near '{name}'")
        if ch == "$" and self.i + 1 < len(s) and s[self.i + 1].isdigit():
            self.i += 2
            return ("backref", int(s[self.i - 1]))
        raise ExprError(f"syntax error near '{s[self.i:self.i + 20]}'")


def _var(name: str) -> tuple[Any, ...]:
    func, sep, arg = name.partition(":")
    if sep:
        return ("func", func.lower(), ("str", arg))
    return ("var", name)


def _eval_word(node: tuple[Any, ...], lookup: Lookup) -> str:
    kind = node[0]
    if kind == "str":
        return node[1]
    if kind == "concat":
        return "".join(_eval_word(part, lookup) for part in node[1:])
    if kind == "var":
        value = lookup(node[1])
        if value is None:
            raise ExprUnsupported(f"%{{{node[1]}}}")
        return value
    if kind == "func":
        name, arg = node[1], _eval_word(node[2], lookup)
        if name == "tolower":
            return arg.lower()
        if name == "toupper":
            return arg.upper()
        key = {"req": "HTTP:", "http": "HTTP:", "req_novary": "HTTP:", "resp": "RESP:",
               "env": "ENV:", "reqenv": "ENV:", "osenv": "OSENV:", "note": "NOTE:"}.get(name)
        if key is None:
            raise ExprUnsupported(f"{name}()")
        value = lookup(key + arg)
        if value is None:
            raise ExprUnsupported(f"%{{{name}:{arg}}}")
        return value
    if kind == "backref":
        raise ExprUnsupported("regex back-references in expressions")
    raise ExprUnsupported(kind)


def _eval_bool(node: tuple[Any, ...], lookup: Lookup) -> bool:
    kind = node[0]
    if kind == "const":
        return node[1]
    if kind == "not":
        return not _eval_bool(node[1], lookup)
    if kind == "and":
        return _eval_bool(node[1], lookup) and _eval_bool(node[2], lookup)
    if kind == "or":
        return _eval_bool(node[1], lookup) or _eval_bool(node[2], lookup)
    if kind == "match":
        subject = _eval_word(node[2], lookup)
        return (node[3].search(subject) is None) == node[1]
    if kind == "in":
        value = _eval_word(node[1], lookup)
        items = node[2][1:] if node[2][0] == "items" else (node[2][1],)
        return any(value == _eval_word(item, lookup) for item in items)
    if kind == "unop":
        return _unary(node[1], _eval_word(node[2], lookup), lookup)
    if kind == "cmp":
        return _compare(node[1], _eval_word(node[2], lookup), _eval_word(node[3], lookup))
    raise ExprUnsupported(kind)


def _unary(op: str, value: str, lookup: Lookup) -> bool:
    if op == "-z":
        return value == ""
    if op == "-n":
        return value != ""
    if op in ("-T",):
        return value.lower() not in ("", "0", "off", "false", "no")
    if op in ("-f", "-d", "-s", "-e", "-l", "-L", "-h", "-x"):
        try:
            st = os.lstat(value) if op in ("-l", "-L", "-h") else os.stat(value)
        except (OSError, ValueError):
            return False
        import stat as stat_mod
        if op == "-f":
            return stat_mod.S_ISREG(st.st_mode)
        if op == "-d":
            return stat_mod.S_ISDIR(st.st_mode)
        if op == "-s":
            return stat_mod.S_ISREG(st.st_mode) and st.st_size > 0
        if op == "-e":
            return True
        if op == "-x":
            return bool(st.st_mode & 0o111) and not stat_mod.S_ISDIR(st.st_mode)
        return stat_mod.S_ISLNK(st.st_mode)
    if op == "-R":
        from confmig.model.merge import ip_matches
        addr = lookup("REMOTE_ADDR") or ""
        return ip_matches(value, addr)
    raise ExprUnsupported(f"unary operator {op}")


def _compare(op: str, left: str, right: str) -> bool:
    if op in ("==", "!=", "<", "<=", ">", ">="):
        result = {"==": left == right, "!=": left != right, "<": left < right,
                  "<=": left <= right, ">": left > right, ">=": left >= right}[op]
        return result
    if op in ("-eq", "-ne", "-lt", "-le", "-gt", "-ge"):
        a, b = atoi(left), atoi(right)
        return {"-eq": a == b, "-ne": a != b, "-lt": a < b, "-le": a <= b, "-gt": a > b,
                "-ge": a >= b}[op]
    if op == "-ipmatch":
        from confmig.model.merge import ip_matches
        return ip_matches(right, left)
    if op in ("-strmatch", "-strcmatch", "-fnmatch"):
        regex = fnmatch_regex(right.lower() if op == "-strcmatch" else right)
        return regex.search(left.lower() if op == "-strcmatch" else left) is not None
    raise ExprUnsupported(f"operator {op}")


# -- sections ---------------------------------------------------------------------------

@dataclass(eq=False)
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

    @property
    def core(self) -> CoreDir:
        return self.config["core"]

    @cached_property
    def applied(self) -> tuple[AppliedDirective, ...]:
        """This section's directives as the explanation lists them."""
        where = self.file if self.kind == "htaccess" else self.label
        return (*self.inherited, *(AppliedDirective.of(d, where) for d in self.directives))

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


Permit = Callable[[Directive | Section], "str | None"]


class _Collector:
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


def _child_builder(context: Literal["files", "if"], parent: SectionBuilder) -> SectionBuilder:
    """A builder for a section nested in *parent* (same path, Options limits, modules)."""
    return SectionBuilder(context, parent.path, override_opts=parent.override_opts,
                          loaded_modules=parent.has_module)


def _finish(kind: SectionKind, label: str, node: Section | None, builder: SectionBuilder,
            nonfatal: list[tuple[Node, str]], file: str = "", line: int = 0,
            **fields: Any) -> ConfigSection:
    config = builder.build()
    return ConfigSection(kind, label, node.file if node else file, node.line if node else line,
                         config=config, directives=tuple(builder.directives),
                         errors=list(builder.errors), nonfatal=nonfatal, **fields)


def section_label(node: Section) -> str:
    args = " ".join(f'"{a}"' if " " in a else a for a in node.args)
    return f"<{node.name} {args}>" if args else f"<{node.name}>"


def build_files_section(node: Section, permit: Permit | None,
                        parent: SectionBuilder) -> ConfigSection | None:
    b = _child_builder("files", parent)
    nonfatal: list[tuple[Node, str]] = []
    _Collector(b, "files", permit, nonfatal).feed(node.children)
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
    return _finish("filesmatch" if is_regex else "files", section_label(node), node, b,
                   nonfatal, match=pattern, regex=regex, fnmatch=fn)


def build_if_section(node: Section, permit: Permit | None,
                     parent: SectionBuilder) -> ConfigSection | None:
    b = _child_builder("if", parent)
    nonfatal: list[tuple[Node, str]] = []
    _Collector(b, "if", permit, nonfatal).feed(node.children)
    condition = None
    if node.lname != "else":
        text = node.args_text.strip()
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
            text = text[1:-1]
        try:
            condition = Expr.parse(text)
        except ExprError as exc:
            parent.error(node, f"Cannot parse condition clause: {exc}")
            return None
    elif node.args:
        parent.error(node, "<Else> does not take an argument")
        return None
    for err in b.errors:
        parent.errors.append(err)
    return _finish(node.lname, section_label(node), node, b, nonfatal,  # type: ignore[arg-type]
                   match=node.args_text, condition=condition)


# -- servers ----------------------------------------------------------------------------

@dataclass(eq=False)
class VirtualServer:
    """The main server or one ``<VirtualHost>``, as request processing sees it (vhosts
    already merged with the main server: ``merge_core_server_configs`` & co)."""

    name: str
    aliases: tuple[str, ...] = ()
    addresses: tuple[tuple[str, str], ...] = ()  # (host or "*", port or "*")
    label: str = "main server"
    document_root: str = DEFAULT_DOCUMENT_ROOT
    defaults: ConfigSection = field(default_factory=lambda: ConfigSection(
        "server", "server config", "", 0, config={"core": CoreDir()}))
    directories: list[ConfigSection] = field(default_factory=list)
    locations: list[ConfigSection] = field(default_factory=list)
    aliases_list: list[AliasEntry] = field(default_factory=list)
    redirects: list[AliasEntry] = field(default_factory=list)
    rewrite: RewriteConfig | None = None
    access_names: tuple[str, ...] = (".htaccess",)
    encoded_slashes: Literal["off", "on", "nodecode"] = "off"
    merge_slashes: bool = True
    recursion_limit: int = 10
    server_directives: list[Directive] = field(default_factory=list)

    def name_matches(self, host: str) -> bool:
        if host == self.name.lower():
            return True
        for alias in self.aliases:
            if is_fnmatch(alias):
                if fnmatch_regex(alias.lower()).search(host) is not None:
                    return True
            elif host == alias.lower():
                return True
        return False


class Site:
    """A whole server configuration ready for requests (see the module docstring)."""

    def __init__(self, main: VirtualServer, vhosts: list[VirtualServer], state: ReadState,
                 types: dict[str, str], errors: list[tuple[Node, str]] | None = None) -> None:
        self.main = main
        self.vhosts = vhosts
        self.state = state
        self.types = types
        self.errors = errors or []
        self.stat = StatCache()
        self._htaccess: dict[tuple[Any, ...], HtaccessResult] = {}
        self._merged: dict[tuple[int, ...], DirConfig] = {}
        self._walks: dict[tuple[int, str], tuple[DirWalk, list[ConfigSection], DirConfig]] = {}
        self._preloaded: dict[str, LoadedConfig] = {}
        # Per-config results the evaluation caches (keyed by id() of a merged config, which
        # the merge cache keeps alive): content types per file, static access decisions…
        self.memo: dict[tuple[Any, ...], Any] = {}

    # -- virtual host selection (server/vhost.c) ---------------------------------------------

    def select(self, host: str | None, local_addr: str, port: int) -> VirtualServer:
        """Name-based selection among the vhosts listening on the connection's address and
        port: the first whose ServerName/ServerAlias matches the Host, else the first of
        them; the main server when no vhost listens there."""
        port_text = str(port)

        def addr_match(addr: tuple[str, str], exact: bool) -> bool:
            ip, p = addr
            if p not in ("*", port_text):
                return False
            return ip == local_addr if exact else ip in ("*", "_default_")

        for exact in (True, False):
            candidates = [v for v in self.vhosts
                          if any(addr_match(a, exact) for a in v.addresses)]
            if candidates:
                if host:
                    for vhost in candidates:
                        if vhost.name_matches(host):
                            return vhost
                return candidates[0]
        return self.main

    # -- merging with a cache -----------------------------------------------------------------

    def merged(self, sections: Sequence[ConfigSection]) -> DirConfig:
        """The config vector of *sections* merged in order (cached by identity)."""
        key = tuple(id(s) for s in sections)
        found = self._merged.get(key)
        if found is not None:
            return found
        if len(sections) == 1:
            result = sections[0].config
        else:
            result = merge_configs(self.merged(sections[:-1]), sections[-1].config)
        # Every section stays reachable from the site (its lists, the .htaccess cache, the
        # configs of its parents), so the ids in the key stay unique.
        self._merged[key] = result
        return result

    def listdir(self, directory: str) -> tuple[str, ...]:
        """The names in *directory* (cached; empty when it cannot be read)."""
        key = ("listdir", directory)
        found = self.memo.get(key)
        if found is None:
            try:
                found = tuple(sorted(os.listdir(directory)))
            except OSError:
                found = ()
            self.memo[key] = found
        return found

    def walk(self, server: VirtualServer, filename: str
             ) -> tuple[DirWalk, list[ConfigSection], DirConfig]:
        """:func:`directory_walk` and then :func:`file_walk` for *filename*, and the merged
        config of the server defaults and those sections — cached: they only depend on the
        configuration and the (unchanging) filesystem."""
        key = (id(server), filename)
        found = self._walks.get(key)
        if found is None:
            walk = directory_walk(self, server, filename)
            sections = [server.defaults, *walk.sections]
            files: list[ConfigSection] = []
            if not walk.status:
                files = file_walk(self.merged(sections)["core"].files, walk.filename)
            found = self._walks[key] = (walk, files, self.merged([*sections, *files]))
        return found

    # -- .htaccess --------------------------------------------------------------------------

    def preload(self, access: dict[str, LoadedConfig]) -> None:
        """Use access files a Workspace already read (keyed by path)."""
        self._preloaded.update(access)

    def htaccess(self, directory: str, names: Sequence[str], opts: OptsState
                 ) -> HtaccessResult:
        """``ap_parse_htaccess``: the first existing access file of *directory*, parsed with the
        overrides in force (cached per directory and overrides, as Apache does per request)."""
        key = (directory, opts.override, opts.nonfatal, opts.override_opts, opts.override_list,
               tuple(names))
        found = self._htaccess.get(key)
        if found is None:
            found = self._load_htaccess(directory, names, opts)
            self._htaccess[key] = found
        return found

    def _load_htaccess(self, directory: str, names: Sequence[str], opts: OptsState
                       ) -> HtaccessResult:
        for name in names:
            path = directory + name
            kind = self.stat.kind(path)
            if kind is None:
                continue
            if not os.access(path, os.R_OK) or kind != "file":
                return HtaccessResult(path, None, 403, "unable to check htaccess file")
            loaded = self._preloaded.get(path) or load_htaccess(path, self.state)
            if loaded.errors:
                err = loaded.errors[0]
                return HtaccessResult(path, None, 500, f"{err}")
            section = build_htaccess_section(path, directory, loaded, opts, self.state)
            if section.errors:
                node, message = section.errors[0]
                return HtaccessResult(path, section, 500,
                                      f"{node.file}:{node.line}: {message}")
            return HtaccessResult(path, section, 0, "")
        return HtaccessResult(None, None, 0, "")


@dataclass(frozen=True, slots=True)
class HtaccessResult:
    """An access file as the walk found it: its section, or the status it causes."""

    path: str | None
    section: ConfigSection | None
    status: int
    message: str


def htaccess_permit(opts: OptsState, modules: ModuleSet) -> Permit:
    """Whether a directive (or section) may appear in an ``.htaccess`` under *opts*:
    None if so, else Apache's message; ``nonfatal:`` prefixed when AllowOverride Nonfatal
    turns the error into a warning (the directive is then skipped)."""
    allow = AllowOverride(classes=opts.override)
    listed = tuple(opts.override_list)

    def check(node: Directive | Section) -> str | None:
        name = node.name if isinstance(node, Directive) else f"<{node.name}>"
        info = registry().get(name)
        if info is None or not any(modules.has_module(m) for m in info.modules):
            shown = name if isinstance(node, Directive) else f"<{node.name}"
            message = (f"Invalid command '{shown}', perhaps misspelled or defined by a module "
                       "not included in the server configuration")
            return "nonfatal:" + message if "unknown" in opts.nonfatal else message
        if overrides_permit(info.name, allow, listed):
            return None
        shown = info.name.rstrip(">")
        message = f"{shown} not allowed here"
        return "nonfatal:" + message if "override" in opts.nonfatal else message

    return check


def build_htaccess_section(path: str, directory: str, loaded: LoadedConfig, opts: OptsState,
                           state: ReadState) -> ConfigSection:
    modules = state.modules
    builder = SectionBuilder("htaccess", directory, override_opts=opts.override_opts,
                             loaded_modules=modules.has_module)
    nonfatal: list[tuple[Node, str]] = []
    permit = htaccess_permit(opts, modules)
    _Collector(builder, "htaccess", permit, nonfatal).feed(loaded.nodes)
    return _finish("htaccess", path, None, builder, nonfatal, file=path, line=0,
                   match=directory, components=count_dirs(directory))


# -- building a Site from a loaded configuration ----------------------------------------

def canonical_directory(path: str, server_root: str) -> str:
    """``dirsection``'s path: absolute, ``.``/``..`` resolved, trailing ``/``."""
    if path == "/":
        return "/"
    if not path.startswith("/"):
        path = os.path.join(server_root, path)
    norm = os.path.normpath(path)
    if norm.startswith("//"):
        norm = "/" + norm.lstrip("/")
    return norm if norm.endswith("/") else norm + "/"


class _SiteBuilder:
    def __init__(self, loaded: LoadedConfig) -> None:
        self.loaded = loaded
        self.state = loaded.state
        self.server_root = str(self.state.server_root)
        self.errors: list[tuple[Node, str]] = []
        self.types_config: str | None = None

    def has_module(self, name: str) -> bool:
        return self.state.modules.has_module(name)

    def build(self) -> Site:
        main = self.server(self.loaded.nodes, None)
        vhosts = [self.server(node.children, node, main)
                  for node in self.loaded.nodes
                  if isinstance(node, Section) and node.lname == "virtualhost"]
        types = load_types(self.types_config or DEFAULT_TYPES_CONFIG, self.server_root)
        return Site(main, vhosts, self.state, types, self.errors)

    def server(self, nodes: Sequence[Node], vhost: Section | None,
               main: VirtualServer | None = None) -> VirtualServer:
        """The main server (*main* None) or a ``<VirtualHost>`` merged onto *main*."""
        builder = SectionBuilder("server", None, loaded_modules=self.has_module)
        directories: list[ConfigSection] = []
        locations: list[ConfigSection] = []
        server_dirs: list[Directive] = []
        collector = _Collector(builder, "server", None, [])
        for node in nodes:
            if isinstance(node, Directive):
                server_dirs.append(node)
                collector.feed([node])
                continue
            if not isinstance(node, Section) or node.lname == "virtualhost":
                continue
            if node.lname in ("directory", "directorymatch"):
                section = self.directory(node)
                if section is not None:
                    directories.append(section)
            elif node.lname in ("location", "locationmatch"):
                section = self.location(node)
                if section is not None:
                    locations.append(section)
            else:
                collector.section(node, None)
        own = _finish("server", section_label(vhost) if vhost else "server config", vhost,
                      builder, [], file=self.loaded.main, line=0)
        self.errors.extend(own.errors)
        own_rw = own.config.get("rewrite") or RewriteConfig(context="server")
        settings = self.settings(server_dirs)
        if main is None:
            rewrite, dir_root = own_rw, server_dir_defaults(own_rw, own_rw)
            defaults_config = dict(own.config)
            inherited: dict[str, Any] = {"name": "localhost",
                                         "document_root": DEFAULT_DOCUMENT_ROOT}
        else:
            main_rw = main.rewrite or RewriteConfig(context="server")
            rewrite = merge_rewrite_server(main_rw, own_rw)
            dir_root = server_dir_defaults(main_rw, own_rw)
            defaults_config = merge_configs(main.defaults.config, own.config)
            directories = [*main.directories, *directories]
            locations = [*main.locations, *locations]
            settings["aliases_list"] = [*settings["aliases_list"], *main.aliases_list]
            inherited = {"name": main.name, "document_root": main.document_root,
                         "access_names": main.access_names,
                         "encoded_slashes": main.encoded_slashes,
                         "merge_slashes": main.merge_slashes,
                         "recursion_limit": main.recursion_limit}
        redirects = [*builder.server_redirects, *(main.redirects if main else ())]
        defaults_config["rewrite"] = dir_root
        defaults = ConfigSection("server", own.label, own.file, own.line,
                                 config=defaults_config, directives=own.directives,
                                 inherited=main.defaults.applied if main else ())
        for key, value in inherited.items():
            if settings.get(key) is None:
                settings[key] = value
        settings = {k: v for k, v in settings.items() if v is not None}
        addresses: tuple[tuple[str, str], ...] = ()
        label = "main server"
        if vhost is not None:
            addresses = tuple(parse_address(a) for a in vhost.args)
            label = f"{section_label(vhost)} ({vhost.file}:{vhost.line})"
        return VirtualServer(addresses=addresses, label=label, defaults=defaults,
                             directories=sort_directories(directories), locations=locations,
                             redirects=redirects, rewrite=rewrite,
                             server_directives=server_dirs, **settings)

    def settings(self, directives: list[Directive]) -> dict[str, Any]:
        """The server-level settings of one server's own directives (None: not set)."""
        out: dict[str, Any] = {"name": None, "aliases": (), "document_root": None,
                               "aliases_list": [], "access_names": None,
                               "encoded_slashes": None, "merge_slashes": None,
                               "recursion_limit": None}
        for d in directives:
            low, args = d.lname, d.args
            if low == "servername" and args:
                name = args[0].split("://", 1)[-1]
                out["name"] = name.rsplit(":", 1)[0] if name.count(":") == 1 else name
            elif low == "serveralias":
                out["aliases"] = (*out["aliases"], *args)
            elif low == "documentroot" and args:
                root = args[0]
                if not root.startswith("/"):
                    root = os.path.join(self.server_root, root)
                out["document_root"] = root.rstrip("/") or "/"
            elif low in ("alias", "scriptalias", "aliasmatch", "scriptaliasmatch") \
                    and len(args) == 2:
                entry = self.alias(d)
                if entry is not None:
                    out["aliases_list"].append(entry)
            elif low == "accessfilename" and args:
                out["access_names"] = tuple(args)
            elif low == "allowencodedslashes" and args:
                value = args[0].lower()
                out["encoded_slashes"] = value if value in ("on", "nodecode") else "off"
            elif low == "mergeslashes" and args:
                out["merge_slashes"] = args[0].lower() != "off"
            elif low == "limitinternalrecursion" and args:
                out["recursion_limit"] = atoi(args[0]) or 10
            elif low == "typesconfig" and args:
                self.types_config = args[0]
        return out

    def alias(self, d: Directive) -> AliasEntry | None:
        fake, real = d.args
        regex = None
        if d.lname.endswith("match"):
            try:
                regex = compile_config_regex(fake)
            except RegexError:
                self.errors.append((d, "Regular expression could not be compiled."))
                return None
        handler = "cgi-script" if d.lname.startswith("script") else None
        return AliasEntry("alias", fake, real, regex, 0, d, handler)

    def directory(self, node: Section) -> ConfigSection | None:
        args = list(node.args)
        is_regex = node.lname == "directorymatch"
        if args and args[0] == "~":
            is_regex, args = True, args[1:]
        if not args:
            self.errors.append((node, f"<{node.name}> directive requires additional "
                                      "arguments"))
            return None
        pattern = args[0]
        # mod_rewrite's per-directory prefix is the section's path: canonical for <Directory>,
        # the regex itself for <DirectoryMatch> (as in Apache).
        path = pattern if is_regex else canonical_directory(pattern, self.server_root)
        b = SectionBuilder("directory", path, loaded_modules=self.has_module)
        _Collector(b, "directory", None, []).feed(node.children)
        self.errors.extend(b.errors)
        if is_regex:
            try:
                regex = compile_config_regex(pattern)
            except RegexError:
                self.errors.append((node, "Regex could not be compiled"))
                return None
            return _finish("directorymatch", section_label(node), node, b, [], match=pattern,
                           regex=regex, components=count_dirs(pattern))
        fn = fnmatch_regex(path) if is_fnmatch(path) else None
        return _finish("directory", section_label(node), node, b, [], match=path,
                       fnmatch=fn, components=0 if path == "/" else count_dirs(path))

    def location(self, node: Section) -> ConfigSection | None:
        args = list(node.args)
        is_regex = node.lname == "locationmatch"
        if args and args[0] == "~":
            is_regex, args = True, args[1:]
        if not args:
            self.errors.append((node, f"<{node.name}> directive requires additional "
                                      "arguments"))
            return None
        pattern = args[0]
        b = SectionBuilder("location", pattern, loaded_modules=self.has_module)
        _Collector(b, "location", None, []).feed(node.children)
        self.errors.extend(b.errors)
        regex = fn = None
        try:
            if is_regex:
                regex = compile_config_regex(pattern)
            elif is_fnmatch(pattern):
                fn = fnmatch_regex(pattern)
        except RegexError:
            self.errors.append((node, "Regex could not be compiled"))
            return None
        return _finish("locationmatch" if is_regex else "location", section_label(node), node,
                       b, [], match=pattern, regex=regex, fnmatch=fn)


def sort_directories(sections: Iterable[ConfigSection]) -> list[ConfigSection]:
    """``core_reorder_directories``: non-regex before regex, then by number of components
    (``/`` is 0), config order within (a stable sort)."""
    return sorted(sections, key=lambda s: (s.regex is not None, s.components))


def parse_address(text: str) -> tuple[str, str]:
    """``<VirtualHost addr[:port]>`` → (address, port or ``*``)."""
    if text.startswith("["):
        end = text.find("]")
        host, rest = text[1:end], text[end + 1:]
        return host, rest[1:] if rest.startswith(":") else "*"
    host, sep, port = text.rpartition(":")
    if not sep:
        return text, "*"
    return host, port


def load_types(path: str, server_root: str) -> dict[str, str]:
    """``TypesConfig``: extension (lower-cased) → type, later lines overriding earlier ones."""
    full = path if path.startswith("/") else os.path.join(server_root, path)
    types: dict[str, str] = {}
    try:
        text = Path(full).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return types
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        words = line.split()
        if len(words) < 2:
            continue
        mime = words[0].lower()
        for ext in words[1:]:
            types[ext.lower()] = mime
    return types


def build_site(loaded: LoadedConfig) -> Site:
    """Turn a loaded server configuration into a :class:`Site`."""
    return _SiteBuilder(loaded).build()


# -- the walks ---------------------------------------------------------------------------

@dataclass(slots=True)
class DirWalk:
    """What ``ap_directory_walk`` leaves: the sections merged (in order), ``r->filename``,
    ``r->path_info``, the kind of what was found, and an error status (403 for a forbidden
    symlink or an unreadable access file, 500 for a broken ``.htaccess``)."""

    sections: list[ConfigSection]
    filename: str
    path_info: str
    kind: str | None
    status: int = 0
    message: str = ""
    htaccess_skipped: list[str] = field(default_factory=list)
    opts: int = 0  # the Options in force at the end of the walk (core_opts_t)


def directory_walk(site: Site, server: VirtualServer, filename: str) -> DirWalk:
    """``ap_directory_walk`` for *filename* (absolute); see the module docstring."""
    fs = site.stat
    filename = _collapse(filename)
    trailing = filename.endswith("/") and filename != "/"
    info_kind = fs.kind(filename)
    if info_kind is None or (info_kind != "dir" and trailing):
        info_kind = None
    opts = OptsState.start(server.defaults.core)
    sections: list[ConfigSection] = []
    skipped: list[str] = []
    dirs = server.directories
    idx = 0
    parts = [p for p in filename.split("/") if p]
    current = "/"
    seg = 1
    found_kind: str | None = "dir"
    consumed = 0
    while True:
        level = current if current.endswith("/") else current + "/"
        while idx < len(dirs):
            entry = dirs[idx]
            if entry.regex is not None or entry.components > seg:
                break
            if entry.components and (entry.components < seg or not (
                    entry.fnmatch.search(level) is not None if entry.fnmatch is not None
                    else entry.match == level)):
                idx += 1
                continue
            opts.apply(entry.core)
            sections.append(entry)
            idx += 1
        if opts.htaccess_enabled:
            result = site.htaccess(level, server.access_names, opts)
            if result.status:
                return DirWalk(sections, filename, "", None, result.status, result.message,
                               skipped, opts.opts)
            if result.section is not None:
                opts.apply(result.section.core)
                sections.append(result.section)
        elif _has_access_file(fs, level, server.access_names):
            skipped.append(level)
        if consumed >= len(parts):
            break
        name = parts[consumed]
        candidate = (current if current.endswith("/") else current + "/") + name
        if info_kind is not None and (opts.opts & (OPT_SYM_OWNER | OPT_SYM_LINKS)) \
                == OPT_SYM_LINKS:
            kind = fs.kind(candidate)
        else:
            info = fs.lstat(candidate)
            if info is None:
                kind = None
            else:
                kind = info.kind
                if kind == "link":
                    status = _symlink_status(info, opts.opts)
                    if status:
                        return DirWalk(sections, candidate, "", None, 403,
                                       f"Symbolic link not allowed or link target not "
                                       f"accessible: {candidate}", skipped, opts.opts)
                    kind = info.target_kind
        consumed += 1
        current = candidate
        if kind is None:
            found_kind = None
            break
        if kind == "file":
            found_kind = "file"
            break
        if kind != "dir":
            return DirWalk(sections, candidate, "", None, 403,
                           f"Forbidden: {candidate} doesn't point to a file or directory",
                           skipped, opts.opts)
        found_kind = "dir"
        seg += 1
    rest = parts[consumed:]
    final = current
    if rest:
        path_info = "/" + "/".join(rest) + ("/" if trailing else "")
    elif trailing and found_kind != "dir":
        path_info = "/"
    else:
        path_info = ""
        if trailing:
            final = current if current.endswith("/") else current + "/"
    for entry in dirs[idx:]:
        if entry.regex is None:
            continue
        if entry.regex.search(final) is None:
            continue
        opts.apply(entry.core)
        sections.append(entry)
    return DirWalk(sections, final, path_info, found_kind, 0, "", skipped, opts.opts)


def _has_access_file(fs: StatCache, level: str, names: Sequence[str]) -> bool:
    return any(fs.kind(level + name) is not None for name in names)


def _symlink_status(info: Any, opts: int) -> int:
    """``resolve_symlink``: 403 unless FollowSymLinks, or SymLinksIfOwnerMatch with the same
    owner; also 403 for a dangling link."""
    if not opts & (OPT_SYM_LINKS | OPT_SYM_OWNER):
        return 403
    if info.target_kind is None:
        return 403
    if not opts & OPT_SYM_LINKS and info.uid != info.target_uid:
        return 403
    return 0


def _collapse(path: str) -> str:
    """``apr_filepath_merge``: repeated slashes collapsed, ``.``/``..`` resolved."""
    if "//" not in path and "/." not in path:
        return path
    trailing = path.endswith("/")
    norm = os.path.normpath(path)
    if norm.startswith("//"):
        norm = "/" + norm.lstrip("/")
    return norm + "/" if trailing and norm != "/" else norm


def file_walk(files: Sequence[ConfigSection], filename: str) -> list[ConfigSection]:
    """``ap_file_walk``: the ``<Files>``/``<FilesMatch>`` of the merged config (in their merge
    order) that match the last component of *filename*."""
    if not files:
        return []
    name = filename.rsplit("/", 1)[-1]
    out = []
    for entry in files:
        if entry.regex is not None:
            if entry.regex.search(name) is None:
                continue
        elif entry.fnmatch is not None:
            if entry.fnmatch.search(name) is None:
                continue
        elif entry.match != name:
            continue
        out.append(entry)
    return out


def location_walk(locations: Sequence[ConfigSection], uri: str, merge_slashes: bool = True
                  ) -> list[ConfigSection]:
    """``ap_location_walk``: ``<Location>`` (prefix, ending at a ``/`` or the end),
    wildcard and regex forms, in config order, against ``r->uri`` (slashes merged)."""
    if not locations:
        return []
    if not merge_slashes:
        while "//" in uri:
            uri = uri.replace("//", "/")
    out = []
    for entry in locations:
        if entry.regex is not None:
            if entry.regex.search(uri) is None:
                continue
        elif entry.fnmatch is not None:
            if entry.fnmatch.search(uri) is None:
                continue
        else:
            path = entry.match
            n = len(path)
            if not uri.startswith(path) or (n and path[-1] != "/" and len(uri) > n
                                            and uri[n] != "/"):
                continue
        out.append(entry)
    return out


def if_walk(ifs: Sequence[ConfigSection], lookup: Lookup,
            unsupported: list[str]) -> list[ConfigSection]:
    """``ap_if_walk``: ``<If>``/``<ElseIf>``/``<Else>`` chains; a matched section's own nested
    ``<If>``s are walked after the others.  A condition the model cannot evaluate counts as
    false and is reported in *unsupported*."""
    out: list[ConfigSection] = []
    prev: bool | None = None
    nested: list[ConfigSection] = []
    for entry in ifs:
        if entry.kind in ("elseif", "else") and prev:
            continue
        if entry.kind in ("if", "elseif"):
            assert entry.condition is not None
            try:
                ok = entry.condition.evaluate(lookup)
            except ExprUnsupported as exc:
                unsupported.append(f"{entry.label} at {entry.where}: cannot evaluate {exc}")
                ok = False
            prev = ok
            if not ok:
                continue
        else:
            prev = None
        out.append(entry)
        nested.extend(entry.core.ifs)
    if nested:
        out.extend(if_walk(nested, lookup, unsupported))
    return out
