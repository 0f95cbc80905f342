"""mod_headers' per-directory configuration: the ``Header`` entries (``onsuccess`` and
``always`` tables), their argument rules, and ``merge_headers_config``."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from confmig.model.mapping import RegexError, compile_config_regex
from confmig.model.merge.handlers import handles
from confmig.syntax import Directive

if TYPE_CHECKING:
    from confmig.model.merge.builder import SectionBuilder

HeaderAction = Literal["set", "setifempty", "add", "append", "merge", "unset", "echo", "edit",
                       "edit*", "note"]


@dataclass(frozen=True, slots=True)
class HeaderEntry:
    """One ``Header [always|onsuccess] action name [value [replacement]] [cond]``.

    A :class:`HeadersDir` keeps one entry without its directive (``directive`` None) per
    distinct argument list but the field name — a shape shared by the lines that differ only
    in the name they set, whose ``name`` is "" and read from each line's words (the word at
    ``name_at``: :func:`line_name`) — beside the directives themselves;
    ``HeadersDir.onsuccess``/``always`` give each line its own entry, name and directive.
    Likewise, past a section's first 64 Header lines (``_OWN_VALUES``), a value that is
    text without ``%`` nor backslash (nor ``expr=``), which is its own format, is read from
    each line (the word at ``value_at``;
    the shared entry's ``value`` "" and ``format`` empty): the lines that differ only in
    their name and such a value share one entry (a 1 MB file of ``Header always set X-N
    "a N c"`` kept an entry, a format and a value string a line, 5.6 MB beside the lines'
    3.2 MB, issue 10)."""

    directive: Directive | None
    action: HeaderAction
    name: str
    value: str | None
    replacement: str | None
    always: bool
    env: str | None = None  # "VAR" or "!VAR"
    expr: str | None = None
    early: bool = False
    # the value ("replacement" for edit) written "expr=…": its parsed string expression
    value_expr: Any = None
    regex: Any = None  # edit/edit*: the match; echo: the header names'
    # the value ("replacement" for edit) as parse_format_string reads it: (tag, argument)
    # pairs, tag "" for text (backslash escapes resolved), "e" for %{VAR}e …
    format: tuple[tuple[str, str], ...] = ()
    # where the name is in the line's words (-1: ``name`` is the name, as for echo's regex)
    name_at: int = -1
    # check_header's verdict on the name: 2 a token, 1 VCHAR / obs-text only, 0 neither
    name_kind: int = 2
    # the value is text without control characters, or nothing is set (see cannot_fail)
    plain: bool = False
    # nothing but env= conditions makes it depend on the request (see HeadersDir.static)
    static: bool = True
    # where the value is in the line's words (-1: ``value`` and ``format`` are the entry's)
    value_at: int = -1


@dataclass(frozen=True, slots=True)
class HeadersDir:
    """``fixup_out`` (onsuccess) and ``fixup_err`` (always) entries, each table as the
    entries' parsed forms (``…_parsed``: one :class:`HeaderEntry` without directive per
    distinct argument list, shared by the lines that repeat it) and, in step, their
    directives (``…_lines``): 16 bytes a line where an entry of its own was 128 (a file of
    47,620 equal ``Header`` lines: 6.1 MB, issue 10).  ``static``: no entry depends on the
    request beyond env= conditions (whose names are ``env_names``), so the headers they
    produce can be computed once per configuration and content type."""

    # (the builder's own lists, handed over rather than copied: a section of 40,445 Header
    # lines held 0.65 MB of tuple copies beside its 0.70 MB of lists, issue 10; read only)
    onsuccess_parsed: Sequence[HeaderEntry] = ()
    onsuccess_lines: Sequence[Directive] = ()
    always_parsed: Sequence[HeaderEntry] = ()
    always_lines: Sequence[Directive] = ()
    static: bool = field(init=False, default=True)
    env_names: tuple[str, ...] = field(init=False, default=())
    # what cannot_fail found, per HttpProtocolOptions Strict (True) / Unsafe (False)
    _cannot_fail: dict[bool, bool] | None = field(init=False, default=None, repr=False,
                                                  compare=False)

    def __post_init__(self) -> None:
        parsed = (self.onsuccess_parsed, self.always_parsed)
        static = all(h.static for entries in parsed for h in entries)
        names = tuple(dict.fromkeys(h.env.lstrip("!") for entries in parsed for h in entries
                                    if h.env))
        object.__setattr__(self, "static", static)
        object.__setattr__(self, "env_names", names)

    def cannot_fail(self, strict: bool) -> bool:
        """No entry can put a field that fails ``check_headers`` in a response whose other
        fields pass it: every entry sets, adds, appends, merges or unsets a name that is a
        valid field name (a token when *strict*) with a value of text without control
        characters (or ``%t``, ``%s``… which the model keeps as text) — no ``expr=``
        condition or value, ``%{VAR}e``, ``echo`` or ``edit``.  Worked out once per
        configuration (the request model then answers a status without building the
        response's header table)."""
        known = self._cannot_fail
        if known is None:
            known = {}
            object.__setattr__(self, "_cannot_fail", known)
        found = known.get(strict)
        if found is None:
            kind = 2 if strict else 1
            found = known[strict] = all(h.plain and h.name_kind >= kind
                                        for entries in (self.onsuccess_parsed,
                                                        self.always_parsed)
                                        for h in entries)
        return found

    @property
    def onsuccess(self) -> tuple[HeaderEntry, ...]:
        """The ``onsuccess`` entries, each with its directive."""
        return _with_lines(self.onsuccess_parsed, self.onsuccess_lines)

    @property
    def always(self) -> tuple[HeaderEntry, ...]:
        """The ``always`` entries, each with its directive."""
        return _with_lines(self.always_parsed, self.always_lines)


def _with_lines(parsed: Sequence[HeaderEntry], lines: Sequence[Directive]
                ) -> tuple[HeaderEntry, ...]:
    return tuple(_with_line(h, d) for h, d in zip(parsed, lines, strict=True))


def _with_line(h: HeaderEntry, d: Directive) -> HeaderEntry:
    """Entry *h* of line *d* with its directive, name and value."""
    if h.value_at < 0:
        return replace(h, directive=d, name=line_name(h, d), name_at=-1)
    value = d.arg(h.value_at)
    return replace(h, directive=d, name=line_name(h, d), name_at=-1, value=value,
                   format=(("", value),) if value else (), value_at=-1)


def line_name(h: HeaderEntry, d: Directive) -> str:
    """The field name line *d* of entry *h* sets (``Header set X-A:`` sets ``X-A``)."""
    return h.name if h.name_at < 0 else field_name(d.args[h.name_at])


def field_name(word: str) -> str:
    """The field name a ``Header`` line's name word sets: the word up to its first ``:``
    (``Header set X-A: b`` sets ``X-A``)."""
    return word.split(":", 1)[0] if ":" in word else word


# check_header (http_filters.c): a field value may hold no control character but HT
# (response_headers.check_header reads it too)
CONTROL_CHARACTER = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_PLAIN_ACTIONS = frozenset(["set", "setifempty", "add", "append", "merge", "unset", "note"])
# check_header (http_filters.c): a name is a token (HttpProtocolOptions Strict) or VCHAR /
# obs-text (Unsafe)
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_VCHAR_OBSTEXT = re.compile(r"[^\x00-\x20\x7f]+")


def name_kind(name: str) -> int:
    """``check_header``'s test of a field name: 2 a token (passes HttpProtocolOptions Strict),
    1 VCHAR / obs-text only (passes Unsafe), 0 neither (or empty)."""
    if _TOKEN.fullmatch(name) is not None:
        return 2
    return 1 if _VCHAR_OBSTEXT.fullmatch(name) is not None else 0


def _plain(early: bool, action: str, expr: str | None, value_expr: Any,
           form: tuple[tuple[str, str], ...]) -> bool:
    """The entry's value is known text without control characters (see
    :meth:`HeadersDir.cannot_fail`), or it sets nothing (``early``, ``unset``, ``note``)."""
    if early:
        return True
    return (action in _PLAIN_ACTIONS and expr is None and value_expr is None
            and all(tag != "e" and CONTROL_CHARACTER.search(text) is None
                   for tag, text in form))


def merge_headers(base: HeadersDir, new: HeadersDir) -> HeadersDir:
    """``merge_headers_config``: the parent's entries, then the child's."""
    return HeadersDir(_joined(base.onsuccess_parsed, new.onsuccess_parsed),
                      _joined(base.onsuccess_lines, new.onsuccess_lines),
                      _joined(base.always_parsed, new.always_parsed),
                      _joined(base.always_lines, new.always_lines))


_T = TypeVar("_T")


def _joined(first: Sequence[_T], second: Sequence[_T]) -> Sequence[_T]:
    """*first* then *second* (either one itself when the other is empty: nothing is changed
    after a section is built, so the merged table shares it)."""
    if not first:
        return second
    if not second:
        return first
    return (*first, *second)


# The parsed entries of the argument lists seen last but their field name (without
# directive nor name: nothing of a configuration is kept past it but strings, patterns and
# expressions), shared by the lines that differ at most in that name; bounded as
# http_date's dates are.
_PARSED: dict[tuple[Any, ...], HeaderEntry] = {}


# -- directives --------------------------------------------------------------------------

_HEADER_ACTIONS = frozenset(["set", "setifempty", "add", "append", "merge", "unset", "echo",
                             "edit", "edit*", "note"])
# each action's name as one shared string (``.lower()`` makes a new one every time)
_ACTION_NAMES = {action: action for action in _HEADER_ACTIONS}
# the actions whose value is a format string (parse_format); "edit" formats its replacement
_VALUE_ACTIONS = frozenset(["set", "setifempty", "add", "append", "merge", "note"])
# stands for a value read from each line in a _PARSED key (with whether it holds a control
# character, which cannot_fail reads)
_LINE_VALUE = object()
# A section's first Header lines keep their values in their entries (read at each request
# without trace's memo, a value read from its line costs a request of a configuration such as
# h5bp's ~3 %); the lines after them read theirs from the line (see HeaderEntry).
_OWN_VALUES = 64


@handles("header")
def _header(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    """``header_cmd`` / ``header_inout_cmd``: the argument rules and their error texts.
    (Nothing but the entry's name depends on the field name the line sets, except for
    ``echo``, whose name is a regex, nor on a value that is its own format but whether it
    holds a control character: the lines that differ only there share one entry.)"""
    args = d.args
    key, value_at = _entry_key(b.restricted, args)
    parsed = _PARSED.get(key)
    if parsed is None:
        # past the section's first _OWN_VALUES Header lines, a line without an equal one
        # (but for its name) met before, whose value is its own format, shares the entry of
        # the lines alike but for it
        shared = _shared_key(key, value_at, args) if len(b.header_lines[0]) \
            + len(b.header_lines[1]) >= _OWN_VALUES else None
        if shared is not None:
            key = shared
            parsed = _PARSED.get(key)
        else:
            value_at = -1
        if parsed is None:
            found = _parse_header(b.restricted, d)
            if isinstance(found, str):
                return found
            parsed = _keep(key, found, value_at)
    b.touched.add("headers")
    table = 1 if parsed.always else 0
    b.header_entries[table].append(parsed)
    b.header_lines[table].append(d)
    return None


def header_problem(restricted: bool, d: Directive) -> str | None:
    """Apache's error for ``Header`` line *d* (None: it has none), as :func:`_header` gives
    it, read from the line alone — for a pass that reads a section's lines for their errors
    only, its configuration built later (``confmig.model.sections.build_if_section``).  No
    entry is made for a line met before but for its name, nor for one alike but for its
    name and a value that is its own format (the same error: none)."""
    args = d.args
    key, value_at = _entry_key(restricted, args)
    if key in _PARSED:
        return None
    shared = _shared_key(key, value_at, args)
    if shared is not None:
        if shared in _PARSED:
            return None
        key = shared
    else:
        value_at = -1
    found = _parse_header(restricted, d)
    if isinstance(found, str):
        return found
    _keep(key, found, value_at)
    return None


def _entry_key(restricted: bool, args: list[str]) -> tuple[tuple[Any, ...], int]:
    """The :data:`_PARSED` key of a ``Header`` line's words (all but the field name it
    sets), and where its value is in them when its action sets one (else -1)."""
    count = len(args)
    at = 2 if args and args[0].lower() in ("always", "onsuccess") else 1
    action = args[at - 1].lower() if count > at else "echo"
    if action == "echo":
        return (restricted, -1, *args), -1
    key = (restricted, at, name_kind(field_name(args[at])), *args[:at], *args[at + 1:])
    return key, at + 1 if count > at + 1 and action in _VALUE_ACTIONS else -1


def _shared_key(key: tuple[Any, ...], value_at: int, args: list[str]) -> tuple[Any, ...] | None:
    """The key of the lines alike but for their name and a value that is its own format
    (text without "%" nor backslash, not "expr=..."; at *value_at* in *args*): the line's
    *key* with :data:`_LINE_VALUE` in the value's place and whether it holds a control
    character.  None when the line has no such value."""
    if value_at < 0:
        return None
    value = args[value_at]
    if "%" in value or "\\" in value or value.startswith("expr="):
        return None
    at = value_at + 2  # (the key's words start at 3, the name left out)
    return (*key[:at], _LINE_VALUE,
            value.isprintable() or CONTROL_CHARACTER.search(value) is None, *key[at + 1:])


def _keep(key: tuple[Any, ...], found: HeaderEntry, value_at: int) -> HeaderEntry:
    """*found*, parsed, kept in :data:`_PARSED` under *key* (its value read from each line
    when *value_at* says where: see HeaderEntry)."""
    if value_at >= 0:
        found = replace(found, value="", format=(), value_at=value_at)
    if len(_PARSED) >= 1024:
        _PARSED.clear()
    _PARSED[key] = found
    return found


def _parse_header(restricted: bool, d: Directive) -> HeaderEntry | str:
    """The entry of a ``Header`` line (without its directive), or Apache's error."""
    args = list(d.args)
    if not args:
        return "Header requires at least one argument"
    always = False
    name_at = 1
    if args[0].lower() in ("always", "onsuccess"):
        always = args.pop(0).lower() == "always"
        name_at = 2
    action = args.pop(0).lower() if args else ""
    action = _ACTION_NAMES.get(action, action)
    name_given = len(args) > 0
    name = args.pop(0) if args else ""
    value = args.pop(0) if args else None
    subs = args.pop(0) if args else None
    clause = args.pop(0) if args else None
    if args:
        return f"{d.name} has too many arguments"
    if action not in _HEADER_ACTIONS:
        return ("first argument must be 'add', 'set', 'setifempty', 'append', 'merge', "
                "'unset', 'echo', 'note', 'edit', or 'edit*'.")
    regex = None
    if action in ("edit", "edit*"):
        if subs is None:
            return "Header edit requires a match and a substitution"
        try:
            regex = compile_config_regex(value or "")
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
        if action == "echo":
            try:
                regex = compile_config_regex(name)
            except RegexError:
                return "Header echo regex could not be compiled"
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
            # (the expression model is loaded for a configuration that has an expression)
            from confmig.model.expr import ExprError, parse_cached

            expr = clause[5:]
            try:
                parse_cached(expr, restricted=restricted)
            except ExprError as exc:
                return f"Can't parse envclause/expression: {exc}"
        else:
            return f"Unknown parameter: {clause}"
    value_expr = None
    form: tuple[tuple[str, str], ...] = ()
    formatted = subs if action in ("edit", "edit*") else value
    if action not in ("unset", "echo") and formatted is not None:
        if formatted.startswith("expr="):
            from confmig.model.expr import ExprError, parse_string_cached

            try:
                value_expr = parse_string_cached(formatted[5:], restricted=restricted)
            except ExprError as exc:
                return f"Can't parse value expression : {exc}"
        else:
            parsed = parse_format(formatted)
            if isinstance(parsed, str):
                return parsed
            form = parsed
    name = field_name(name)
    # (the name read from each line: the entry is shared by lines setting other names)
    at = -1 if action == "echo" or not name_given else name_at
    static = (expr is None and value_expr is None and all(not tag for tag, _ in form)
              and action not in ("echo", "edit", "edit*"))
    return HeaderEntry(None, action, "" if at >= 0 else name, value, subs,  # type: ignore[arg-type]
                       always, env, expr, early, value_expr, regex, form, at, name_kind(name),
                       _plain(early, action, expr, value_expr, form), static)



# the format tags mod_headers registers (register_format_tag_handler)
FORMAT_TAGS = frozenset("Dtesli" "b")
_ESCAPES = {"\\": "\\", "r": "\r", "n": "\n", "t": "\t"}


@lru_cache(maxsize=1024)
def parse_format(text: str) -> tuple[tuple[str, str], ...] | str:
    """``parse_format_string``: text (``\\r``, ``\\n``, ``\\t`` and ``\\\\`` escapes resolved,
    other backslashes kept), ``%%``, and ``%X``/``%{ARG}X`` tags; an unknown tag is Apache's
    error ("Unrecognized header format %X").  Remembered per text (the result is immutable):
    the entries of equal values share one, as a file repeating a Header line does."""
    if "%" not in text and "\\" not in text:
        return (("", text),) if text else ()
    parts: list[tuple[str, str]] = []
    i, n = 0, len(text)
    while i < n:
        if text[i] != "%":
            out = []
            while i < n and text[i] != "%":
                ch = text[i]
                if ch == "\\" and i + 1 < n and text[i + 1] in _ESCAPES:
                    out.append(_ESCAPES[text[i + 1]])
                    i += 2
                    continue
                out.append(ch)
                i += 1
            parts.append(("", "".join(out)))
            continue
        i += 1
        if i >= n or text[i] == "%":
            parts.append(("", "%"))
            i += 1
            continue
        arg = ""
        if text[i] == "{":
            close = text.find("}", i)
            if close < 0:
                return "Unrecognized header format %"
            arg = text[i + 1:close]
            i = close + 1
        tag = text[i] if i < n else ""
        if tag not in FORMAT_TAGS or not tag:
            return f"Unrecognized header format %{tag}"
        parts.append((tag, arg))
        i += 1
    return tuple(parts)
