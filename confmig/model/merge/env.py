"""mod_setenvif (SetEnvIf, BrowserMatch and their NoCase forms) and mod_env (SetEnv,
UnsetEnv) per-directory configuration and merges."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from confmig.model.mapping import RegexError, compile_config_regex
from confmig.model.merge.handlers import handles, takes
from confmig.model.rewrite.regex import Captures, Regex
from confmig.syntax import Directive

if TYPE_CHECKING:
    from confmig.model.merge.builder import SectionBuilder


class SetEnvIfEntry(Regex):
    """One ``SetEnvIf``-family line: attribute, compiled regex, assignments; or a
    ``SetEnvIfExpr`` line (``expr``, no attribute nor regex).

    A regex line's entry is its own :class:`Regex` (``regex`` is the entry itself), as a
    RewriteRule is: its compile facts and search state are slots of the entry.  Its pattern
    and its assignments are read from the directive's words on each use (the pattern when a
    subject is first searched, the assignments when the line matches), and nothing is
    searched when the line is read (the empty subject's answer, what a header that is not
    there is matched as, is known from the compile): a lint of a 1 MB file of 19,288
    distinct ``SetEnvIfNoCase User-Agent "^BotN[0-9]+" botN`` kept a Regex, a search
    function made for the empty subject with its cells and compiled pattern, the line's
    words, the attribute in lower case and the assignments of every line, ~1,150 bytes a
    line (the model at SEC002's and CTX011's requests, which send no User-Agent; issue 10).
    The attribute and its lower case are strings shared by the entries that name the same
    attribute (most files name a few)."""

    __slots__ = ("attribute", "directive", "early", "expr", "key", "literal")
    # the attribute is a regex over the request's header names (:class:`HeaderRegexEntry`)
    header_regex = False

    def __init__(self, directive: Directive, attribute: str, regex: Regex | None,
                 early: bool = False, literal: bool = False, expr: Any = None) -> None:
        self.directive = directive
        # the attribute as written (a special attribute, a header or a variable) and in
        # lower case (the special attributes' and the headers' key)
        self.attribute, self.key = _shared_attribute(attribute)
        # "--early" in server context: run first, at post_read_request
        self.early = early
        # the pattern uses no regex metacharacter (non_regex_pattern): apr_strmatch, and the
        # values are set as written (no $N)
        self.literal = literal
        self.expr = expr  # SetEnvIfExpr's parsed Expr
        if regex is not None:
            self._shape = regex.shape
            self._source = None if regex.source == self._word(_PATTERN) else regex.source

    @property
    def regex(self) -> Regex | None:
        """The line's compiled pattern: the entry itself (None for a SetEnvIfExpr line)."""
        return self if self.expr is None else None

    @property
    def source(self) -> str:
        """The pattern as written (the directive's word)."""
        own = self._source
        return own if own is not None else self._word(_PATTERN)

    @property
    def assignments(self) -> tuple[tuple[str, str | None], ...]:
        """(name, value) of each variable the line sets; value None: unset (``!name``)."""
        args = self.directive.args
        return tuple(_read_assignments(args[self._word_index(_ASSIGNMENTS):], self.early))

    @property
    def empty_match(self) -> Captures | None:
        """The regex's match of "" (what a header that is not there is matched as): asked
        of PCRE only when the compile found that it matches (or gave up on "")."""
        if self._shape.empty is False:
            return None
        return self.search("")

    def _word_index(self, what: int) -> int:
        """Where the pattern (``what`` 0) or the first assignment (1) is in the words:
        BrowserMatch has no attribute word, SetEnvIfExpr has its expression only."""
        d = self.directive
        return what if d.lname[0] == "b" or self.expr is not None else what + 1

    def _word(self, what: int) -> str | None:
        try:
            return self.directive.arg(self._word_index(what))
        except IndexError:
            return None

    def __repr__(self) -> str:
        return f"<SetEnvIfEntry {self.directive.name} {self.directive.args_text}>"


class HeaderRegexEntry(SetEnvIfEntry):
    """A ``SetEnvIf`` line whose attribute is no special attribute and not a plain name
    (``is_header_regex``: not ``^[-A-Za-z0-9_]*$``): its value is that of the last request
    header whose name the attribute (a regex, NoCase as the line) matches, never a
    variable's (``match_headers``' ``pnamereg``)."""

    __slots__ = ()
    header_regex = True


_PATTERN, _ASSIGNMENTS = 0, 1
# attribute -> (attribute, its lower case), one pair for the entries alike (bounded)
_ATTRIBUTES: dict[str, tuple[str, str]] = {}
_MAX_ATTRIBUTES = 1024


def _shared_attribute(attribute: str) -> tuple[str, str]:
    pair = _ATTRIBUTES.get(attribute)
    if pair is None:
        pair = (attribute, attribute.lower())
        if len(_ATTRIBUTES) < _MAX_ATTRIBUTES:
            _ATTRIBUTES[attribute] = pair
    return pair


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
    # add_setenvif/add_setenvif_core: an empty word is a missing one
    if not attribute:
        return f"Missing header-field name for {d.name}"
    if not args or not args[0]:
        return f"Missing regular expression for {d.name}"
    if len(args) < 2:
        return f"{d.name} requires at least {'two' if browser else 'three'} arguments"
    pattern = args.pop(0)
    try:
        regex = compile_config_regex(pattern, nocase=nocase)
    except RegexError as exc:
        return f"{d.name} regex could not be compiled: {exc}"
    entry_class = SetEnvIfEntry
    if not browser and _is_header_regex(attribute):
        # a name other than a special attribute or [-A-Za-z0-9_]* is a regex over the
        # request's header names (is_header_regex); it must compile
        try:
            compile_config_regex(attribute, nocase=nocase)
        except RegexError:
            return f"{d.name}Header name regex could not be compiled."
        entry_class = HeaderRegexEntry
    found = _assignments(b, args)
    if isinstance(found, str):
        return found
    b.touched.add("setenvif")
    b.setenvif.append(entry_class(d, attribute, regex, found, _is_literal(pattern)))
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
    b.touched.add("setenvif")
    b.setenvif.append(SetEnvIfEntry(d, "", None, found, expr=expr))
    return None


_TOKEN_CHARS = frozenset("-_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")


def _is_header_regex(attribute: str) -> bool:
    """``is_header_regex``: a name that is no special attribute and not ``^[-A-Za-z0-9_]*$``
    (the special attributes are all such names)."""
    return not _TOKEN_CHARS.issuperset(attribute)


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


def _assignments(b: SectionBuilder, args: list[str]) -> bool | str:
    """``add_envvars``: whether ``--early`` is given (in server context), or the error of a
    line without a variable; the entry reads its variables from its words on each use
    (:func:`_read_assignments`)."""
    if "" in args:  # add_envvars reads words up to an empty one
        args = args[:args.index("")]
    if not args:
        return "Missing envariable expression for SetEnvIf"
    # (a word that partitions to the key "--early" without a value: "--early", "--early=")
    return b.context == "server" and any(
        w.partition("=")[0] == "--early" and not w.partition("=")[2] for w in args)


def _read_assignments(args: Iterable[str], early: bool) -> list[tuple[str, str | None]]:
    """``add_envvars``: the variables to set or unset (``--early`` skipped when *early*: it
    was given in server context, where it is not a variable)."""
    assignments: list[tuple[str, str | None]] = []
    for word in args:
        if not word:  # add_envvars stops at an empty word
            break
        key, sep, value = word.partition("=")  # add_envvars: a value starting with "!" unsets
        if sep and value:
            assignments.append((key, None if value.startswith("!") else value))
        elif word.startswith("!"):
            assignments.append((key[1:], None))
        elif key == "--early" and early:
            pass
        else:
            assignments.append((key, "1"))
    return assignments


@handles("setenv", "unsetenv")
def _env(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    if not d.args:
        return f"{d.name} requires at least one argument"
    if (problem := takes(d)) is not None:
        return problem  # (TAKE12: "SetEnv a b c" is an error; ITERATE: 'UnsetEnv ""' is)
    b.touched.add("env")
    values, unset = b.env
    if d.lname == "setenv":
        values[d.args[0]] = d.args[1] if len(d.args) > 1 else ""
        unset.discard(d.args[0])
    else:
        for name in d.args:
            if not name:  # (ITERATE stops at an empty word)
                break
            values.pop(name, None)
            unset.add(name)
    return None
