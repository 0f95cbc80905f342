"""mod_headers' per-directory configuration: the ``Header`` entries (``onsuccess`` and
``always`` tables), their argument rules, and ``merge_headers_config``."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal

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
    distinct argument list, shared by the lines that repeat it, beside the directives
    themselves; ``HeadersDir.onsuccess``/``always`` give each line its own."""

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


@dataclass(frozen=True, slots=True)
class HeadersDir:
    """``fixup_out`` (onsuccess) and ``fixup_err`` (always) entries, each table as the
    entries' parsed forms (``…_parsed``: one :class:`HeaderEntry` without directive per
    distinct argument list, shared by the lines that repeat it) and, in step, their
    directives (``…_lines``): 16 bytes a line where an entry of its own was 128 (a file of
    47,620 equal ``Header`` lines: 6.1 MB, issue 10).  ``static``: no entry depends on the
    request beyond env= conditions (whose names are ``env_names``), so the headers they
    produce can be computed once per configuration and content type."""

    onsuccess_parsed: tuple[HeaderEntry, ...] = ()
    onsuccess_lines: tuple[Directive, ...] = ()
    always_parsed: tuple[HeaderEntry, ...] = ()
    always_lines: tuple[Directive, ...] = ()
    static: bool = field(init=False, default=True)
    env_names: tuple[str, ...] = field(init=False, default=())

    def __post_init__(self) -> None:
        # (each shared entry once)
        entries = {id(h): h for h in (*self.onsuccess_parsed, *self.always_parsed)}.values()
        static = all(h.expr is None and h.value_expr is None
                     and all(not tag for tag, _ in h.format)
                     and h.action not in ("echo", "edit", "edit*") for h in entries)
        names = tuple(dict.fromkeys(h.env.lstrip("!") for h in (*self.onsuccess_parsed,
                                                                *self.always_parsed)
                                    if h.env))
        object.__setattr__(self, "static", static)
        object.__setattr__(self, "env_names", names)

    @property
    def onsuccess(self) -> tuple[HeaderEntry, ...]:
        """The ``onsuccess`` entries, each with its directive."""
        return _with_lines(self.onsuccess_parsed, self.onsuccess_lines)

    @property
    def always(self) -> tuple[HeaderEntry, ...]:
        """The ``always`` entries, each with its directive."""
        return _with_lines(self.always_parsed, self.always_lines)


def _with_lines(parsed: tuple[HeaderEntry, ...], lines: tuple[Directive, ...]
                ) -> tuple[HeaderEntry, ...]:
    return tuple(replace(h, directive=d) for h, d in zip(parsed, lines, strict=True))


def merge_headers(base: HeadersDir, new: HeadersDir) -> HeadersDir:
    """``merge_headers_config``: the parent's entries, then the child's."""
    return HeadersDir(base.onsuccess_parsed + new.onsuccess_parsed,
                      base.onsuccess_lines + new.onsuccess_lines,
                      base.always_parsed + new.always_parsed,
                      base.always_lines + new.always_lines)


# The parsed entries of the argument lists seen last (without directive: nothing of a
# configuration is kept past it but strings, patterns and expressions), shared by equal
# lines; bounded as http_date's dates are.
_PARSED: dict[tuple[bool, tuple[str, ...]], HeaderEntry] = {}


# -- directives --------------------------------------------------------------------------

_HEADER_ACTIONS = frozenset(["set", "setifempty", "add", "append", "merge", "unset", "echo",
                             "edit", "edit*", "note"])
# each action's name as one shared string (``.lower()`` makes a new one every time)
_ACTION_NAMES = {action: action for action in _HEADER_ACTIONS}


@handles("header")
def _header(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    """``header_cmd`` / ``header_inout_cmd``: the argument rules and their error texts."""
    key = (b.restricted, tuple(d.args))
    parsed = _PARSED.get(key)
    if parsed is None:
        found = _parse_header(b, d)
        if isinstance(found, str):
            return found
        if len(_PARSED) >= 1024:
            _PARSED.clear()
        parsed = _PARSED[key] = found
    b.touched.add("headers")
    table = 1 if parsed.always else 0
    b.header_entries[table].append(parsed)
    b.header_lines[table].append(d)
    return None


def _parse_header(b: SectionBuilder, d: Directive) -> HeaderEntry | str:
    """The entry of a ``Header`` line (without its directive), or Apache's error."""
    args = list(d.args)
    if not args:
        return "Header requires at least one argument"
    always = False
    if args[0].lower() in ("always", "onsuccess"):
        always = args.pop(0).lower() == "always"
    action = args.pop(0).lower() if args else ""
    action = _ACTION_NAMES.get(action, action)
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
                parse_cached(expr, restricted=b.restricted)
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
                value_expr = parse_string_cached(formatted[5:], restricted=b.restricted)
            except ExprError as exc:
                return f"Can't parse value expression : {exc}"
        else:
            parsed = parse_format(formatted)
            if isinstance(parsed, str):
                return parsed
            form = parsed
    if ":" in name:
        name = name.split(":", 1)[0]
    return HeaderEntry(None, action, name, value, subs, always, env, expr,  # type: ignore[arg-type]
                       early, value_expr, regex, form)



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
