"""Typed RewriteRule and RewriteCond entries (``rewriterule_entry`` / ``rewritecond_entry``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
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


@dataclass(eq=False, slots=True)
class CondFlags:
    """What a RewriteCond's pattern (its ``!`` and operator) and flag field decide, in one
    object shared by the conditions for which these are the same (most files use a handful
    of operators and flag fields): see
    :func:`confmig.model.rewrite.parse.shared_cond_flags`.  Read through the condition's
    attributes of the same names; setting one of those gives the condition a copy of its own
    first, so a shared object is never modified."""

    kind: str = "regex"  # "expr", one of FILE_TESTS, STRING_TESTS or INT_TESTS ("-h"/"-L" → "-l")
    negate: bool = False
    nocase: bool = False
    ornext: bool = False
    novary: bool = False
    flags_text: str = ""
    # how many characters of the pattern as written (``raw_pattern``) come before the pattern
    # compared against: its ``!`` and operator (all of ``=""``, whose pattern is empty)
    cut: int = 0


NO_COND_FLAGS = CondFlags()  # never modified


def _flag(name: str) -> Any:
    """The rule's or condition's attribute *name*, kept in its :class:`RuleFlags` or
    :class:`CondFlags` (read with a C getter); setting it gives the rule or condition a copy
    of its flags first (they may be shared)."""
    def set_flag(owner: Any, value: object) -> None:  # a RewriteRule or a Condition
        owner.flags = replace(owner.flags, **{name: value})
    return property(attrgetter(f"flags.{name}"), set_flag)


class Condition(Regex):
    """One RewriteCond.  ``pattern`` is what is compared against (operator and ``!`` removed);
    ``raw_pattern`` the pattern as written.

    The test string and the pattern as written are read from the directive's words when they
    are those words, which the condition checks when it is made, and ``pattern`` is cut from
    ``raw_pattern`` on each read; what its operator, ``!`` and flag field decide is in
    ``flags`` (:class:`CondFlags`, shared).  A condition was a dataclass of 15 fields (144
    bytes, now 96) holding strings of its own for its test, its pattern as written and the
    pattern cut from it (``-f`` of ``!-f``: 51 bytes): 212-434 bytes a condition of a file of
    distinct conditions, ~113 now (tests/model/test_rewrite_cond_memory.py; issue 10).  A
    condition whose test or pattern is not its directive's word (a quoted or escaped argument
    that ``parseargline`` splits otherwise, or no directive) keeps its own strings (``_own``:
    test and pattern as written, None for one read from the directive; ``_own`` None: both).

    A regex condition is its own :class:`Regex` (``regex`` is the condition itself, its
    ``source`` the ``pattern``), as a RewriteRule is: the pattern's compile facts and search
    state are slots of the condition, not of a 56-byte Regex besides it that kept the pattern
    as a string of its own (2.8 MB of a lint of a 1 MB chain of 24,000 distinct conditions).
    The Regex's slots are unset for the other kinds (``regex`` is None)."""

    __slots__ = ("_own", "check", "directive", "expr", "flags")

    def __init__(self, directive: Directive | None, test: str, raw_pattern: str,
                 flags: CondFlags = NO_COND_FLAGS, regex: Regex | None = None,
                 expr: Expr | None = None) -> None:
        self.directive = directive
        words = directive.args if directive is not None else ()
        own_test = None if len(words) > 1 and words[0] == test else test
        own_pattern = None if len(words) > 1 and words[1] == raw_pattern else raw_pattern
        self._own = (None if own_test is None and own_pattern is None
                     else (own_test, own_pattern))
        self.flags = flags
        if regex is not None:
            # kind "regex": the pattern, compiled with ``nocase`` (its compile facts; its
            # search state made on first use, as a Regex's)
            self._shape = regex.shape
            source = regex.source
            self._source = None if source == self.pattern else source
        else:
            self._source = None
        self.expr = expr  # kind "expr": the ap_expr, parsed with the configuration
        # The condition's checker (apply._checker), chosen on first use: a lint evaluates a
        # condition only where SEC002's requests reach it.  (Its test string's expansion is
        # not kept: apply._template.)
        self.check: Callable[..., bool] | None = None

    @property
    def regex(self) -> Regex | None:
        """Kind "regex": the pattern's Regex, the condition itself (made with one); else
        None."""
        try:
            self._shape  # noqa: B018 - set when the condition was made with a Regex
        except AttributeError:
            return None
        return self

    @property
    def source(self) -> str:
        """The pattern compiled (kind "regex"): :attr:`pattern`."""
        own = self._source
        return own if own is not None else self.pattern

    @property
    def test(self) -> str:
        """The test string as written."""
        own = self._own
        if own is not None and own[0] is not None:
            return own[0]
        return self.directive.arg(0)  # type: ignore[union-attr]

    @property
    def raw_pattern(self) -> str:
        """The pattern as written, with its ``!`` and operator."""
        own = self._own
        if own is not None and own[1] is not None:
            return own[1]
        return self.directive.arg(1)  # type: ignore[union-attr]

    @property
    def pattern(self) -> str:
        """What is compared against: the pattern without its ``!`` and operator."""
        own = self._own
        raw = own[1] if own is not None and own[1] is not None else \
            self.directive.arg(1)  # type: ignore[union-attr]
        cut = self.flags.cut
        return raw[cut:] if cut else raw

    # What the pattern's "!" and operator and the flag field decide, in ``flags``
    # (CondFlags): the same names, read and written here.
    kind = _flag("kind")
    negate = _flag("negate")
    nocase = _flag("nocase")
    ornext = _flag("ornext")
    novary = _flag("novary")
    flags_text = _flag("flags_text")

    def __str__(self) -> str:
        flags = f" {self.flags_text}" if self.flags_text else ""
        return f"RewriteCond {self.test} {self.raw_pattern}{flags}"

    def __repr__(self) -> str:
        return f"<{self}>"


@dataclass(eq=False, slots=True)
class RuleFlags:
    """What a RewriteRule's flag field (and its ``!`` and substitution's ``-``/``?``) decide,
    in one object shared by the rules whose flags are the same (a rule of 19 slots was 184
    bytes, 3.7 MB of a 1 MB file of rules, now 80; most files use a handful of flag fields): see
    :func:`confmig.model.rewrite.parse.shared_flags`.  Read through the rule's attributes of
    the same names (the engine reads ``rule.flags.…`` directly); setting one of those gives
    the rule a copy of its own first, so a shared object is never modified."""

    flags_text: str = ""
    negate: bool = False
    drops_question: bool = False  # the substitution's trailing "?" (no QSA) is not kept
    nosub: bool = False  # substitution "-" or a status flag (F, G, R=4xx/5xx)
    status_flag: bool = False  # F, G or a non-redirect R=code: answer ``redirect_code``
    redirect: bool = False  # R
    redirect_code: int = 302  # forced_responsecode (403 for F, 410 for G)
    last: bool = False
    end: bool = False
    chain: bool = False
    nocase: bool = False
    qsappend: bool = False
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


NO_FLAGS = RuleFlags()  # a rule's until its flags are parsed: never modified


class RewriteRule(Regex):
    """One RewriteRule with its conditions and decoded flags (in ``flags``).

    A rule is its own :class:`Regex` (``regex`` is the rule itself, ``pattern`` its
    ``source``): the pattern's compile facts and search state are slots of the rule, not of a
    second object (a lint of a 1 MB file of 20,000 rules kept a 56-byte Regex per rule besides
    the 80-byte rule; the rule is now 96 bytes).  Its ``nocase`` is its flags' (the one the
    pattern was compiled with).

    The pattern and the substitution are read from the directive's words when they are those
    words (the pattern after its ``!``, the substitution before the ``?`` that
    ``flags.drops_question`` says it lost), which the rule checks when it is made: its own
    strings of them were 2.5 MB of a 1 MB file of 20,000 distinct rules' lint, besides the
    directive's text (issue 10).  A rule whose pattern or substitution is not its directive's
    word (a quoted argument that ``parseargline`` splits otherwise, or no directive) keeps its
    own string (``_source``, ``_substitution``; None: read from the directive)."""

    __slots__ = ("_substitution", "conditions", "conditions_check", "directive", "flags")

    def __init__(self, directive: Directive | None, regex: Regex, substitution: str,
                 conditions: Sequence[Condition] = (), flags: RuleFlags = NO_FLAGS) -> None:
        # what its compile told (search state made on first use, as a Regex's)
        self._shape = regex.shape
        self.directive = directive
        self.flags = flags
        source = regex.source
        words = directive.args if directive is not None else ()
        self._source = None if len(words) > 1 and words[0] == (
            "!" + source if flags.negate else source) else source
        self._substitution = None if len(words) > 1 and words[1] == (
            substitution + "?" if flags.drops_question else substitution) else substitution
        # Empty sequences are one shared tuple (a 1 MB file of rules without conditions
        # made an empty list per rule); never modified in place.
        self.conditions = conditions
        # The conditions as one function of the evaluation state
        # (apply._conditions_checker), made on first use.
        self.conditions_check: Callable[..., bool] | None = None

    @property
    def source(self) -> str:
        """The pattern as written, without its ``!`` (``negate``)."""
        own = self._source
        if own is not None:
            return own
        word = self.directive.arg(0)  # type: ignore[union-attr]
        return word[1:] if self.flags.negate else word

    @property
    def substitution(self) -> str:
        """The substitution as written, but for the ``?`` that ``flags.drops_question``
        says it lost."""
        own = self._substitution
        if own is not None:
            return own
        word = self.directive.arg(1)  # type: ignore[union-attr]
        return word[:-1] if self.flags.drops_question else word

    @property
    def regex(self) -> Regex:
        """The pattern's Regex: the rule itself."""
        return self

    pattern = source  # the same property: the pattern as written, without its "!"

    @property
    def raw_pattern(self) -> str:
        """The pattern as written, with its ``!``."""
        own = self._source
        if own is None:
            return self.directive.arg(0)  # type: ignore[union-attr]
        return "!" + own if self.flags.negate else own

    @property
    def raw_substitution(self) -> str:
        """The substitution as written (a trailing ``?`` included)."""
        own = self._substitution
        if own is None:
            return self.directive.arg(1)  # type: ignore[union-attr]
        return own + "?" if self.flags.drops_question else own

    # The flags, in ``flags`` (RuleFlags): the same names, read and written here.
    flags_text = _flag("flags_text")
    negate = _flag("negate")
    nosub = _flag("nosub")
    status_flag = _flag("status_flag")
    redirect = _flag("redirect")
    redirect_code = _flag("redirect_code")
    last = _flag("last")
    end = _flag("end")
    chain = _flag("chain")
    nocase = _flag("nocase")
    qsappend = _flag("qsappend")
    next = _flag("next")
    max_rounds = _flag("max_rounds")
    skip = _flag("skip")
    noescape = _flag("noescape")
    passthrough = _flag("passthrough")
    proxy = _flag("proxy")
    qsdiscard = _flag("qsdiscard")
    qslast = _flag("qslast")
    qsnone = _flag("qsnone")
    nosubreq = _flag("nosubreq")
    discard_path_info = _flag("discard_path_info")
    escape_backrefs = _flag("escape_backrefs")
    backref_escapes = _flag("backref_escapes")
    backref_noescapes = _flag("backref_noescapes")
    backref_noplus = _flag("backref_noplus")
    backref_ctls = _flag("backref_ctls")
    env = _flag("env")
    cookies = _flag("cookies")
    mime_type = _flag("mime_type")
    handler = _flag("handler")
    unsafe_prefix_stat = _flag("unsafe_prefix_stat")
    unsafe_allow_3f = _flag("unsafe_allow_3f")
    unc = _flag("unc")

    def __str__(self) -> str:
        flags = self.flags
        text = f" {flags.flags_text}" if flags.flags_text else ""
        return f"RewriteRule {self.raw_pattern} {self.raw_substitution}{text}"

    def __repr__(self) -> str:
        return f"<{self}>"  # not Regex's
