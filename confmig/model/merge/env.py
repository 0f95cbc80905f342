"""mod_setenvif (SetEnvIf, BrowserMatch and their NoCase forms) and mod_env (SetEnv,
UnsetEnv) per-directory configuration and merges."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from confmig.model.mapping import RegexError, compile_config_regex
from confmig.model.merge.handlers import handles, takes
from confmig.syntax import Directive

if TYPE_CHECKING:
    from confmig.model.merge.builder import SectionBuilder


@dataclass(frozen=True, slots=True)
class SetEnvIfEntry:
    """One ``SetEnvIf``-family line: attribute, compiled regex, assignments; or a
    ``SetEnvIfExpr`` line (``expr``, no attribute nor regex)."""

    directive: Directive
    attribute: str
    regex: Any  # Regex
    assignments: tuple[tuple[str, str | None], ...]  # (name, value) ; value None: unset (!name)
    early: bool = False  # "--early" in server context: run first, at post_read_request
    # the pattern uses no regex metacharacter (non_regex_pattern): apr_strmatch, and the
    # values are set as written (no $N)
    literal: bool = False
    expr: Any = None  # SetEnvIfExpr's parsed Expr
    # The attribute in lower case (the special attributes' and the headers' key), made once.
    key: str = field(init=False, repr=False, compare=False)
    # The regex's match of "" (what a header that is not there is matched as), made once.
    empty_match: Any = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", self.attribute.lower())
        object.__setattr__(self, "empty_match",
                           self.regex.search("") if self.regex is not None else None)


@dataclass(frozen=True, slots=True)
class SetEnvIfDir:
    """The entries of one section.  ``server``: the server config's own (written outside any
    section), which mod_setenvif keeps in its *server* config and runs at post_read_request;
    they are not part of any directory's entries."""

    entries: tuple[SetEnvIfEntry, ...] = ()
    server: bool = False


def merge_setenvif(base: SetEnvIfDir, new: SetEnvIfDir) -> SetEnvIfDir:
    if new.server:  # a <VirtualHost>'s own onto the main server's (merge_setenvif_config)
        return SetEnvIfDir(base.entries + new.entries, server=True)
    if base.server:  # a section's entries: the server's stay in the server config
        return new
    return SetEnvIfDir(base.entries + new.entries)


@dataclass(frozen=True, slots=True)
class EnvDir:
    """``env_dir_config_rec``: variables set and names unset."""

    set: Mapping[str, str] = field(default_factory=dict)
    unset: frozenset[str] = frozenset()


def merge_env(base: EnvDir, add: EnvDir) -> EnvDir:
    merged = {k: v for k, v in base.set.items() if k not in add.unset}
    merged.update(add.set)
    return EnvDir(merged, add.unset)


# -- directives --------------------------------------------------------------------------


@handles("setenvif", "setenvifnocase", "browsermatch", "browsermatchnocase")
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
    found = _assignments(b, args)
    if isinstance(found, str):
        return found
    assignments, early = found
    b.touched.add("setenvif")
    b.setenvif.append(SetEnvIfEntry(d, attribute, regex, tuple(assignments), early,
                                    _is_literal(pattern)))
    return None


@handles("setenvifexpr")
def _setenvifexpr(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    from confmig.model.expr import ExprError, parse_cached

    if not d.args or not d.args[0]:
        return f"Missing expression for {d.name}"
    try:
        expr = parse_cached(d.args[0], restricted=b.restricted)
    except ExprError as exc:
        return f'Could not parse expression "{d.args[0]}": {exc}'
    found = _assignments(b, list(d.args[1:]))
    if isinstance(found, str):
        return found
    assignments, early = found
    b.touched.add("setenvif")
    b.setenvif.append(SetEnvIfEntry(d, "", None, tuple(assignments), early, expr=expr))
    return None


def _is_literal(pattern: str) -> bool:
    """``non_regex_pattern``: no unescaped regex metacharacter (and no other escape)."""
    escaped = False
    for ch in pattern:
        if ch in "^.$|()[]*+?{}":
            if not escaped:
                return False
            escaped = False
        elif ch == "\\":
            escaped = not escaped
        elif escaped:
            return False
    return True


def _assignments(b: SectionBuilder, args: list[str]
                 ) -> tuple[list[tuple[str, str | None]], bool] | str:
    """``add_envvars``: the variables to set or unset, and ``--early``."""
    if not args:
        return "Missing envariable expression for SetEnvIf"
    assignments: list[tuple[str, str | None]] = []
    early = False
    for word in args:
        key, sep, value = word.partition("=")  # add_envvars: a value starting with "!" unsets
        if sep and value:
            assignments.append((key, None if value.startswith("!") else value))
        elif word.startswith("!"):
            assignments.append((key[1:], None))
        elif key == "--early" and b.context == "server":
            early = True
        else:
            assignments.append((key, "1"))
    return assignments, early


@handles("setenv", "unsetenv")
def _env(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    if not d.args:
        return f"{d.name} requires at least one argument"
    if d.lname == "setenv" and (problem := takes(d)) is not None:
        return problem  # (TAKE12: "SetEnv a b c" is an error)
    b.touched.add("env")
    values, unset = b.env
    if d.lname == "setenv":
        values[d.args[0]] = d.args[1] if len(d.args) > 1 else ""
        unset.discard(d.args[0])
    else:
        for name in d.args:
            values.pop(name, None)
            unset.add(name)
    return None
