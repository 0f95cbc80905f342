"""RewriteEngine / RewriteBase / RewriteOptions / RewriteCond / RewriteRule / RewriteMap of one
configuration section, parsed into typed objects the way ``mod_rewrite.c`` parses them.

Parsing follows ``cmd_rewriterule`` / ``cmd_rewritecond`` / ``parseargline`` /
``cmd_parseflagfield`` exactly, including their quirks:

* RewriteRule and RewriteCond take the raw argument text (``RAW_ARGS``) and split it with
  mod_rewrite's own ``parseargline``: quotes delimit but are not unescaped, ``\\<space>`` keeps
  the backslash, and anything after the third argument is silently ignored;
* flags are split on ``,`` only (a value cannot contain a comma) and matched on their first
  letter; the ``D`` branch has no error case, so ``[DX]`` is accepted and does nothing (only
  ``D``, ``DPI`` and ``discardpath`` are DPI);
* a substitution ending in ``?`` drops the query string (or, with ``QSA``, means ``QSL``);
* ``-ne`` is ``-eq`` negated; ``NC`` is ignored (with a warning) on non-string tests;
* ``-ipmatch`` is *not* an operator in 2.4's RewriteCond: it is a regular expression.

Problems are collected, never raised.  ``errors`` holds those Apache itself rejects (server
config: httpd refuses to start; ``.htaccess``: every request below it gets a 500);
``problems`` holds those and the warnings.
"""

from __future__ import annotations

import functools
import operator
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from confmig.model.rewrite.flags import cond_flag, parse_flag_field, rule_flag
from confmig.model.rewrite.maps import RewriteMap, parse_map
from confmig.model.rewrite.regex import Regex, RegexError
from confmig.model.rewrite.rules import (
    FILE_TESTS,
    INT_TESTS,
    MAX_ROUNDS,
    STRING_TESTS,
    CondFlags,
    Condition,
    Context,
    RewriteRule,
    RuleFlags,
)
from confmig.syntax.ast import Directive

__all__ = [
    "FILE_TESTS", "INT_TESTS", "MAX_ROUNDS", "OPTION_NAMES", "STRING_TESTS", "CondFlags",
    "Condition", "Context", "Problem", "RewriteConfig", "RewriteRule", "RuleFlags",
    "directive_arg_line", "parse_arg_line", "rewrite_directives", "share_words",
    "shared_cond_flags", "shared_flags",
]

_SPACE = " \t\n\v\f\r"
# parseargline's split of a line without quotes or backslashes: its first three words (a
# fixed pattern of confmig's own; what it matches is what the loop below finds, see the
# test that holds the two equal).
_S, _W = "[ \\t\\n\\v\\f\\r]", "[^ \\t\\n\\v\\f\\r]+"
_PLAIN_ARGS = re.compile(f"{_S}*({_W})(?:{_S}+({_W})(?:{_S}+({_W}))?)?")
# A character that makes a word not plain (directive_arg_line): white space (inside quotes),
# a quote, a backslash.
_NOT_PLAIN = re.compile("[ \\t\\n\\v\\f\\r\"'\\\\]")

OPTION_NAMES: dict[str, str] = {
    "inherit": "Inherit", "inheritbefore": "InheritBefore", "inheritdown": "InheritDown",
    "inheritdownbefore": "InheritDownBefore", "ignoreinherit": "IgnoreInherit",
    "allownoslash": "AllowNoSlash", "allowanyuri": "AllowAnyURI", "mergebase": "MergeBase",
    "ignorecontextinfo": "IgnoreContextInfo", "legacyprefixdocroot": "LegacyPrefixDocRoot",
    "unsafeprefixstat": "UnsafePrefixStat",
}


Problem = tuple[Directive, str]


@dataclass(eq=False)
class RewriteConfig:
    """The mod_rewrite configuration of one section (server/vhost, or one per-dir context).

    ``engine``/``options``/``base`` keep Apache's "was it set here" bits (``*_set``) because the
    merge depends on them.  ``has_directives`` is False when the section holds no Rewrite*
    directive at all: Apache then creates no rewrite config for it, so the parent's applies
    unchanged (see :func:`confmig.model.rewrite.merge.merge`).
    """

    context: Context = "directory"
    directory: str | None = None
    engine: bool = False
    engine_set: bool = False
    options: frozenset[str] = frozenset()
    options_set: bool = False
    base: str | None = None
    base_set: bool = False
    rules: list[RewriteRule] = field(default_factory=list)
    maps: dict[str, RewriteMap] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    errors: list[Problem] = field(default_factory=list)
    has_directives: bool = False
    dangling_conditions: list[Condition] = field(default_factory=list)

    @classmethod
    def from_directives(cls, directives: Iterable[Directive], context: Context,
                        directory: str | None = None, *,
                        server_root: str | None = None) -> RewriteConfig:
        """Parse the Rewrite* directives among *directives* (others are ignored).

        *directory* is the per-dir context's path (a trailing ``/`` is added as Apache does);
        *server_root* resolves relative ``RewriteMap`` file paths.
        """
        directory = _with_slash(directory)
        rewrite = [d for d in directives if isinstance(d, Directive)
                   and d.lname.startswith("rewrite")]
        config = cls(context=context, directory=directory)
        if not rewrite:
            return config
        key = (context, directory, server_root, len(rewrite), id(rewrite[0]), id(rewrite[-1]))
        last = _last_parsed.get(key)
        if last is not None and all(map(operator.is_, last[0], rewrite)):
            return last[1]
        _Parser(config, server_root).run(rewrite)
        _last_parsed.clear()
        _last_parsed[key] = (rewrite, config)
        return config

    @property
    def enabled(self) -> bool:
        return self.engine

    def has_option(self, name: str) -> bool:
        return name in self.options


# The last directives parsed and their config (one entry).  The lint's scope and the request
# model (SEC002) parse the same directives of a file, each for itself: the second asks here
# and gets the same rules (issue 10: a 1 MB file of RewriteRules was parsed and its patterns
# compiled twice).  Keyed by the directives themselves (their identity, which the entry
# keeps alive), the context and the directory; a RewriteConfig and its rules are only read
# once parsed (the engine's merge makes new ones).
_last_parsed: dict[tuple[object, ...], tuple[list[Directive], RewriteConfig]] = {}


def forget_parsed() -> None:
    """Let go of the last parsed config (the end of a lint: its rules do not outlive it)."""
    _last_parsed.clear()


def _with_slash(path: str | None) -> str | None:
    if path is None or path.endswith("/"):
        return path
    return path + "/"


class _Parser:
    def __init__(self, config: RewriteConfig, server_root: str | None) -> None:
        self.config = config
        self.server_root = server_root
        self.pending: list[Condition] = []

    def problem(self, directive: Directive, message: str, *, fatal: bool = False) -> None:
        self.config.problems.append((directive, message))
        if fatal:
            self.config.errors.append((directive, message))

    def run(self, directives: Iterable[Directive]) -> None:
        handlers = {
            "rewriteengine": self.engine, "rewriteoptions": self.options,
            "rewritebase": self.base, "rewritecond": self.cond, "rewriterule": self.rule,
            "rewritemap": self.map,
        }
        for d in directives:
            if not isinstance(d, Directive):
                continue
            name = d.name.lower()
            handler = handlers.get(name)
            if handler is not None:
                self.config.has_directives = True
                handler(d)
            elif name in ("rewritelog", "rewriteloglevel", "rewritelock"):
                self.problem(d, f"{d.name} was removed in Apache 2.4 (invalid command; use "
                                "LogLevel rewrite:traceN / Mutex)", fatal=True)
        for cond in self.pending:
            assert cond.directive is not None
            self.problem(cond.directive, "RewriteCond is not followed by a RewriteRule in this "
                                         "section: Apache silently ignores it")
        self.config.dangling_conditions = self.pending

    # -- simple directives -------------------------------------------------------------

    def engine(self, d: Directive) -> None:
        value = d.args[0].lower() if d.args else ""  # (a FLAG: words after the first ignored)
        if value not in ("on", "off"):
            self.problem(d, "RewriteEngine must be On or Off", fatal=True)
            return
        self.config.engine = value == "on"
        self.config.engine_set = True

    def options(self, d: Directive) -> None:
        if not d.args:
            self.problem(d, "RewriteOptions requires at least one argument", fatal=True)
            return
        found = set(self.config.options)
        for word in d.args:
            low = word.lower()
            if low in OPTION_NAMES:
                found.add(OPTION_NAMES[low])
            elif low.startswith("maxredirects="):
                self.problem(d, "RewriteOptions MaxRedirects was removed (ignored); "
                                "LimitInternalRecursion applies")
            else:
                hint = (" (a 2.5/trunk option: httpd 2.4 refuses it)"
                        if low == "longurloptimization" else "")
                self.problem(d, f"RewriteOptions: unknown option '{word}'{hint}", fatal=True)
                return
        self.config.options = frozenset(found)
        self.config.options_set = True

    def base(self, d: Directive) -> None:
        if self.config.context != "directory":
            self.problem(d, "RewriteBase: only valid in per-directory config files", fatal=True)
            return
        if len(d.args) != 1:
            self.problem(d, "RewriteBase takes one argument, the base URL of the per-directory "
                            "context", fatal=True)
            return
        url = d.args[0]
        if not url:
            self.problem(d, "RewriteBase: empty URL not allowed", fatal=True)
        elif url[0] != "/":
            self.problem(d, "RewriteBase: argument is not a valid URL", fatal=True)
        else:
            self.config.base = url
            self.config.base_set = True

    def map(self, d: Directive) -> None:
        if self.config.context != "server":
            self.problem(d, "RewriteMap not allowed here (server config and virtual hosts only)",
                         fatal=True)
            return
        if len(d.args) not in (2, 3):
            self.problem(d, "RewriteMap takes two or three arguments", fatal=True)
            return
        rmap, message = parse_map(d.args[0], d.args[1], d.args[2] if len(d.args) > 2 else None,
                                  self.server_root)
        if message:
            self.problem(d, message, fatal=rmap is None)
        if rmap is not None:
            self.config.maps[rmap.name] = rmap

    # -- RewriteCond -------------------------------------------------------------------

    def cond(self, d: Directive) -> None:
        parsed = directive_arg_line(d)
        if parsed is None:
            self.problem(d, f"RewriteCond: bad argument line '{_raw_args(d)}'", fatal=True)
            return
        test, raw_pattern, flags_text = parsed
        found = _cond_flag_field(flags_text)
        if isinstance(found, str):
            self.problem(d, f"RewriteCond: {found}", fatal=True)
            return
        nocase, ornext, novary = found
        pat = raw_pattern
        negate = pat.startswith("!")
        if negate:
            pat = pat[1:]
        kind = "regex"
        if test.lower() == "expr":
            kind = "expr"
        elif len(pat) >= 2:
            if pat[0] == "-":
                if len(pat) == 2:
                    kind = {"f": "-f", "s": "-s", "d": "-d", "x": "-x", "h": "-l", "L": "-l",
                            "l": "-l", "U": "-U", "F": "-F"}.get(pat[1], "regex")
                elif len(pat) >= 4 and pat[1:3] in ("lt", "le", "gt", "ge", "eq", "ne"):
                    kind = "-" + pat[1:3]
                    pat = pat[3:]
                    if kind == "-ne":
                        kind = "-eq"
                        negate = not negate
            elif pat[0] in "<>":
                if pat[1] == "=":
                    kind, pat = pat[:2], pat[2:]
                else:
                    kind, pat = pat[0], pat[1:]
            elif pat[0] == "=":
                kind, pat = "=", pat[1:]
                if pat == '""':
                    pat = ""
        if kind not in ("regex",) and kind not in STRING_TESTS and nocase:
            self.problem(d, f"RewriteCond: NoCase option for non-regex pattern '{pat}' is not "
                            "supported and will be ignored")
            nocase = False
        if pat.lower().startswith("-ipmatch") and kind == "regex":
            self.problem(d, "RewriteCond: '-ipmatch' is not an operator in Apache 2.4's "
                            "mod_rewrite; it is matched as a regular expression (use expr)")
        regex = expr = None
        if kind == "regex":
            try:
                regex = Regex(pat, nocase)
            except RegexError as exc:
                self.problem(d, f"RewriteCond: cannot compile regular expression '{pat}': {exc}",
                             fatal=True)
                return
        elif kind == "expr":
            from confmig.model.expr import ExprError, parse_cached  # the expr package imports
            # this package's regex module: imported here, not at the top, to keep that one-way

            try:
                expr = parse_cached(pat)
            except ExprError as exc:
                self.problem(d, f'RewriteCond: cannot compile expression "{pat}": {exc}',
                             fatal=True)
                return
        # the pattern compared against is the end of the pattern as written (the "!" and the
        # operator cut, or all of '=""')
        flags = shared_cond_flags(kind, negate, nocase, ornext, novary, flags_text or "",
                                  len(raw_pattern) - len(pat))
        self.pending.append(Condition(d, test, raw_pattern, flags, regex, expr))

    # -- RewriteRule -------------------------------------------------------------------

    def rule(self, d: Directive) -> None:
        parsed = directive_arg_line(d)
        if parsed is None:
            self.problem(d, f"RewriteRule: bad argument line '{_raw_args(d)}'", fatal=True)
            self.pending = []
            return
        pattern, subst, flags_text = parsed
        negate = pattern.startswith("!")
        found = shared_flags(flags_text, negate, subst)
        if isinstance(found, str):
            self.problem(d, f"RewriteRule: {found}", fatal=True)
            self.pending = []
            return
        flags, notes = found
        for note in notes:
            self.problem(d, note)
        if negate:
            pattern = pattern[1:]
        try:
            regex = Regex(pattern, flags.nocase)
        except RegexError as exc:
            self.problem(d, f"RewriteRule: cannot compile regular expression '{pattern}': {exc}",
                         fatal=True)
            self.pending = []
            return
        # a substitution ending in "?" without QSA drops the query string: the "?" goes
        rule = RewriteRule(d, regex, subst[:-1] if flags.drops_question else subst,
                           flags=flags)
        if flags.proxy:
            self.problem(d, "RewriteRule [P]: proxying is recognised but not modelled")
        if self.config.context == "directory" and flags.passthrough:
            self.problem(d, "RewriteRule [PT] has no effect in per-directory context")
        if self.pending:
            # a tuple: the list the conditions were appended to keeps room for more (two
            # conditions: 88 bytes, their tuple 56)
            rule.conditions = tuple(self.pending)
            self.pending = []
        self.config.rules.append(rule)


@functools.lru_cache(maxsize=1024)
def _flags_of(flags_text: str | None, negate: bool, dash: bool, question_end: bool,
              question: bool) -> tuple[RuleFlags, tuple[str, ...]] | str:
    flags = RuleFlags(flags_text=flags_text or "", negate=negate)
    notes: list[str] = []
    if flags_text is not None:
        err = parse_flag_field(flags_text, lambda k, v: rule_flag(flags, k, v, notes))
        if err:
            return err
    if dash:
        flags.nosub = True
    if question_end:
        if flags.qsappend:
            flags.qslast = True
        else:
            flags.qsnone = flags.drops_question = True
    elif flags.qsdiscard and not question:
        flags.qsnone = True
    return flags, tuple(notes)


def shared_flags(flags_text: str | None, negate: bool, substitution: str
                 ) -> tuple[RuleFlags, tuple[str, ...]] | str:
    """A rule's :class:`RuleFlags` and the notes its flag field gives (or the error that
    rejects it): what its flag field, its ``!`` and its substitution (``-``, a ``?``) decide.
    Rules with the same of these share one object (a cache of 1,024: a file of rules
    repeats a few flag fields; a 1 MB file of 20,000 rules held a rule object of 19 slots
    each, 3.7 MB), which is never modified (a rule's setters copy it first)."""
    return _flags_of(flags_text, negate, substitution == "-", substitution.endswith("?"),
                     "?" in substitution)


@functools.lru_cache(maxsize=1024)
def _cond_flag_field(flags_text: str | None) -> tuple[bool, bool, bool] | str:
    """A RewriteCond's flag field: its ``(nocase, ornext, novary)``, or the error that
    rejects it (once per flag field: a file repeats a few)."""
    if flags_text is None:
        return False, False, False
    flags = CondFlags()
    err = parse_flag_field(flags_text, lambda k, v: cond_flag(flags, k))
    return err if err else (flags.nocase, flags.ornext, flags.novary)


@functools.lru_cache(maxsize=1024)
def shared_cond_flags(kind: str, negate: bool, nocase: bool, ornext: bool, novary: bool,
                      flags_text: str, cut: int) -> CondFlags:
    """A condition's :class:`CondFlags`: one object for the conditions with the same (a
    cache of 1,024: a file repeats a few operators and flag fields), never modified (a
    condition's setters copy it first)."""
    return CondFlags(kind, negate, nocase, ornext, novary, flags_text, cut)


def _raw_args(d: Directive) -> str:
    """The unsplit argument text (RAW_ARGS), falling back to the split words."""
    if d.args_text:
        return d.args_text
    return " ".join(d.args)


def directive_arg_line(d: Directive) -> tuple[str, str, str | None] | None:
    """:func:`parse_arg_line` of a RewriteRule's or RewriteCond's argument text, read
    without keeping that text or its words on the node (``Directive.args_unkept``; a lint
    reads each rewrite line several times, and what the first reader read the node kept):
    when the first three words are plain — no white space, quote or backslash — parseargline
    splits the text into those same words (a hypothesis test holds the two equal), and the
    words themselves are returned.  Otherwise the text is split as parseargline splits it."""
    words = d.args_unkept()
    n = len(words)
    if n >= 2 and not any(map(_NOT_PLAIN.search, words[:3])):
        return words[0], words[1], words[2] if n > 2 else None
    parsed = _text_arg_line(_raw_args(d))
    return None if parsed is None else share_words(parsed, words)


def share_words(parsed: tuple[str, str, str | None], words: Sequence[str]
            ) -> tuple[str, str, str | None]:
    """``parsed``, with each argument that equals the directive's word at its place replaced
    by that word: the same text, held once (a file of rules kept each rule's pattern and
    substitution twice; lint's DUP001 keeps every line's split of a file)."""
    a1, a2, a3 = parsed
    n = len(words)
    if n > 0 and words[0] == a1:
        a1 = words[0]
    if n > 1 and words[1] == a2:
        a2 = words[1]
    if a3 is not None and n > 2 and words[2] == a3:
        a3 = words[2]
    return a1, a2, a3


def parse_arg_line(text: str) -> tuple[str, str, str | None] | None:
    """mod_rewrite's ``parseargline``: ``(a1, a2, a3 or None)``.

    Returns None for "bad argument line" (fewer than two arguments).
    """
    n = len(text)
    if '"' not in text and "'" not in text and "\\" not in text:
        # The common line: words between white space (no quote, no escaped space), split by
        # one fixed pattern rather than a character at a time (a lint splits every line).
        m = _PLAIN_ARGS.match(text)
        if m is None or (m.end(1) >= n and m.group(2) is None):
            return None
        return m.group(1), m.group(2) or "", m.group(3)
    return _scan_arg_line(text)


# parse_arg_line of the texts whose words are not plain, once per text (a tree repeats them)
_text_arg_line = functools.lru_cache(maxsize=1024)(parse_arg_line)


def _scan_arg_line(text: str) -> tuple[str, str, str | None] | None:
    """:func:`parse_arg_line` a character at a time, as ``parseargline`` does it."""
    n = len(text)
    i = 0
    while i < n and text[i] in _SPACE:
        i += 1

    def word(i: int) -> tuple[int, int]:
        quote = text[i] if i < n and text[i] in "\"'" else ""
        if quote:
            i += 1
        start = i
        while i < n:
            ch = text[i]
            if (ch in _SPACE and not quote) or (quote and ch == quote):
                break
            if ch == "\\" and i + 1 < n and text[i + 1] in _SPACE:
                i += 2
                continue
            i += 1
        return start, i

    s1, e1 = word(i)
    if e1 >= n:
        return None
    a1 = text[s1:e1]
    i = e1 + 1
    while i < n and text[i] in _SPACE:
        i += 1
    s2, e2 = word(i)
    a2 = text[s2:e2]
    if e2 >= n:
        return a1, a2, None
    i = e2 + 1
    while i < n and text[i] in _SPACE:
        i += 1
    if i >= n:
        return a1, a2, None
    s3, e3 = word(i)
    return a1, a2, text[s3:e3]


def rewrite_directives(directives: Sequence[Directive]) -> list[Directive]:
    """Only the Rewrite* directives of *directives* (handy for callers and tests)."""
    return [d for d in directives if d.name.lower().startswith("rewrite")]
