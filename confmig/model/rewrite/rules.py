"""Typed RewriteRule and RewriteCond entries (``rewriterule_entry`` / ``rewritecond_entry``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Literal

from confmig.model.rewrite.regex import Regex
from confmig.syntax.ast import Directive

if TYPE_CHECKING:  # the expr package imports this package's regex module
    from confmig.model.expr import Expr

Context = Literal["server", "directory"]

# REWRITE_MAX_ROUNDS: the [N] limit.  The documented 10000 is wrong for 2.4 (verified: 12001
# rounds pass).
MAX_ROUNDS = 32000

# Cond pattern kinds.  File tests and lookaheads first, then comparisons.
FILE_TESTS = frozenset({"-f", "-s", "-d", "-l", "-x", "-U", "-F"})
STRING_TESTS = frozenset({"<", "<=", "=", ">", ">="})
INT_TESTS = frozenset({"-lt", "-le", "-eq", "-gt", "-ge"})


def _unexpanded(*_: object) -> str:
    return ""


@dataclass(eq=False, slots=True)
class Condition:
    """One RewriteCond.  ``pattern`` is what is compared against (operator and ``!`` removed)."""

    directive: Directive | None
    test: str
    raw_pattern: str
    pattern: str
    kind: str  # "regex", "expr", one of FILE_TESTS, STRING_TESTS or INT_TESTS ("-h"/"-L" → "-l")
    negate: bool = False
    nocase: bool = False
    ornext: bool = False
    novary: bool = False
    regex: Regex | None = None
    expr: Expr | None = None  # kind "expr": the ap_expr, parsed with the configuration
    flags_text: str = ""
    template: Callable[..., str] = field(default=_unexpanded, repr=False)
    # The condition as one function of the evaluation state (apply._checker), made on first use.
    check: Callable[..., bool] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        from confmig.model.rewrite.expand import compile_template  # expand imports this module

        self.template = compile_template(self.test)

    def __str__(self) -> str:
        flags = f" {self.flags_text}" if self.flags_text else ""
        return f"RewriteCond {self.test} {self.raw_pattern}{flags}"


@dataclass(eq=False, slots=True)
class RareFlags:
    """The flags and values of a RewriteRule that few rules have, kept apart: a rule with
    none of them shares :data:`NO_RARE_FLAGS` (a rule of 40 slots was 360 bytes: 7.2 MB of
    a 1 MB file of rules).  Read and written through the rule's attributes of these names."""

    next: bool = False
    max_rounds: int = MAX_ROUNDS
    skip: int = 0
    noescape: bool = False
    passthrough: bool = False
    proxy: bool = False
    qsdiscard: bool = False
    qslast: bool = False
    qsnone: bool = False
    nosubreq: bool = False
    discard_path_info: bool = False
    escape_backrefs: bool = False
    backref_escapes: str | None = None
    backref_noescapes: str | None = None
    backref_noplus: bool = False
    backref_ctls: bool = False
    env: Sequence[str] = ()
    cookies: Sequence[str] = ()
    mime_type: str | None = None
    handler: str | None = None
    unsafe_prefix_stat: bool = False
    unsafe_allow_3f: bool = False
    unc: bool = False


NO_RARE_FLAGS = RareFlags()  # shared by every rule without a rare flag: never modified


def _rare(name: str) -> Any:
    """The rule's attribute *name*, kept in its :class:`RareFlags` (read with a C getter: the
    engine reads several for every rule that matches); setting it gives the rule flags of
    its own first."""
    def set_flag(rule: RewriteRule, value: object) -> None:
        if rule.rare is NO_RARE_FLAGS:
            rule.rare = RareFlags()
        setattr(rule.rare, name, value)
    return property(attrgetter(f"rare.{name}"), set_flag)


@dataclass(eq=False, slots=True)
class RewriteRule:
    """One RewriteRule with its conditions and decoded flags."""

    directive: Directive | None
    pattern: str
    regex: Regex
    substitution: str
    raw_substitution: str
    # Empty sequences are one shared tuple (a 1 MB file of rules without conditions or
    # [E]/[CO] flags made three empty lists per rule); never modified in place.
    conditions: Sequence[Condition] = ()
    flags_text: str = ""
    negate: bool = False
    nosub: bool = False  # substitution "-" or a status flag (F, G, R=4xx/5xx)
    status_flag: bool = False  # F, G or a non-redirect R=code: answer ``redirect_code``
    redirect: bool = False  # R
    redirect_code: int = 302  # forced_responsecode (403 for F, 410 for G)
    last: bool = False
    end: bool = False
    chain: bool = False
    nocase: bool = False
    qsappend: bool = False
    rare: RareFlags = NO_RARE_FLAGS
    # The conditions as one function of the evaluation state (apply._conditions_checker),
    # made on first use.
    conditions_check: Callable[..., bool] | None = field(default=None, repr=False)

    # The rest, in ``rare`` (RareFlags): the same names, read and written here.
    next = _rare("next")
    max_rounds = _rare("max_rounds")
    skip = _rare("skip")
    noescape = _rare("noescape")
    passthrough = _rare("passthrough")
    proxy = _rare("proxy")
    qsdiscard = _rare("qsdiscard")
    qslast = _rare("qslast")
    qsnone = _rare("qsnone")
    nosubreq = _rare("nosubreq")
    discard_path_info = _rare("discard_path_info")
    escape_backrefs = _rare("escape_backrefs")
    backref_escapes = _rare("backref_escapes")
    backref_noescapes = _rare("backref_noescapes")
    backref_noplus = _rare("backref_noplus")
    backref_ctls = _rare("backref_ctls")
    env = _rare("env")
    cookies = _rare("cookies")
    mime_type = _rare("mime_type")
    handler = _rare("handler")
    unsafe_prefix_stat = _rare("unsafe_prefix_stat")
    unsafe_allow_3f = _rare("unsafe_allow_3f")
    unc = _rare("unc")

    def __str__(self) -> str:
        flags = f" {self.flags_text}" if self.flags_text else ""
        neg = "!" if self.negate else ""
        return f"RewriteRule {neg}{self.pattern} {self.raw_substitution}{flags}"
