"""Regular expressions compiled the way Apache's ``ap_pregcomp`` compiles them.

Apache 2.4 (``server/util_pcre.c``) compiles every pattern with PCRE2 and its default
``RegexDefaultOptions`` — ``DOTALL`` and ``DOLLAR_ENDONLY`` — plus ``CASELESS`` for ``[NC]``.
It does *not* enable UTF mode: patterns and subjects are plain bytes.  We therefore compile the
UTF-8 bytes of the pattern and match the UTF-8 bytes of the subject (``surrogateescape`` keeps
any non-UTF-8 byte intact), then decode the captured groups back the same way.

``ap_regexec`` is unanchored, so matching uses ``search`` (pcre2's ``match`` is anchored).
Only ``$0``..``$9`` / ``%0``..``%9`` can be referenced (``AP_MAX_REG_MATCH`` is 10).

Limits.  ``ap_regexec`` calls ``pcre2_match`` with no match context, so PCRE2's built-in
limits apply (match limit 10,000,000, depth limit the same, heap limit 20 GB), and it never
JIT-compiles.  When PCRE2 gives up (``PCRE2_ERROR_MATCHLIMIT`` and friends) ``ap_regexec``
returns an error code, and every caller — mod_rewrite's rules and conditions
(``rc = !ap_regexec(...)``), the ``<DirectoryMatch>``/``<FilesMatch>``/``<LocationMatch>``
walks, mod_alias, mod_setenvif, ``ap_expr``'s ``=~``/``!~`` — takes any non-zero result as
"no match" (so a negated pattern then holds).  We do the same here, in one place: patterns
are compiled without JIT (the JIT counts its match limit differently, so it would give up at
other points), matched with the binding's default limits (PCRE2's, the same as Apache's), and
a limit reported by PCRE2 is "no match", recorded with :func:`confmig.model.limits.record`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import NamedTuple

import pcre2

from confmig.model import limits

# PCRE2_DOLLAR_ENDONLY: the Python binding has no name for it, but passes the bit through.
_DOLLAR_ENDONLY = 0x10
_DEFAULT_FLAGS = pcre2.DOTALL | _DOLLAR_ENDONLY
MAX_REG_MATCH = 10
JIT = False  # Apache does not JIT (see the module docstring); measured: no cost to the model


class UnsupportedEscape(ValueError):
    """A pattern Apache's PCRE2 rejects but the Python binding (compiled with ``ALT_BSUX``)
    would accept: ``\\u`` and ``\\U``."""


RegexError = (pcre2.PatternError, UnsupportedEscape)

def to_bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def from_bytes(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


class Captures:
    """The groups of one successful match, decoded lazily (most are never referenced)."""

    __slots__ = ("_count", "_groups", "_match", "_subject")

    def __init__(self, match: object, subject: bytes, count: int,
                 groups: list[str] | None = None) -> None:
        self._match = match  # a pcre2.Match (None when the groups are given)
        self._subject = subject
        self._count = count  # groups including $0, at most MAX_REG_MATCH
        self._groups = groups

    def group(self, n: int) -> str:
        """Group *n* as ``ap_pregsub`` sees it: ``""`` when unset, empty or out of range."""
        groups = self._groups
        if groups is None:
            m = self._match
            # one call for every group: ``Match.group(0, 1, …)`` returns a tuple
            raw = m.group(*range(self._count)) if self._count > 1 else (m.group(0),)
            groups = self._groups = [from_bytes(g) if g else "" for g in raw]
        return groups[n] if n < len(groups) else ""

    def all(self) -> list[str]:
        return [self.group(i) for i in range(MAX_REG_MATCH) if i < self.count]

    @property
    def count(self) -> int:
        self.group(0)
        return len(self._groups or ())


class _Shape(NamedTuple):
    """What a pattern's compile tells of it, besides the compiled code: one tuple shared by
    the patterns alike (a 1 MB file of 20,000 rules held three slots of these per pattern)."""

    groups: int  # capturing groups including $0, at most MAX_REG_MATCH
    nocase: bool
    names: tuple[tuple[int, str], ...]
    empty: bool | None  # whether it matches the empty subject (None: PCRE2 gave up)


RegexShape = _Shape  # the public name of a Regex's compile facts (Regex.shape)
_SHAPES: dict[_Shape, _Shape] = {}
_Pattern = pcre2.Pattern
_MAX_SHAPES = 4096  # bounded: a shape with many named groups is rare


class Regex:
    """A pattern from a config, compiled once with pcre2 as Apache would compile it.

    ``search(subject)`` searches the compiled pattern, fetched on first use (:meth:`search`)
    and kept (one object for the Regexes of a pattern while :func:`_compiled`'s cache holds
    it), and not at all while no subject gets past the literal a ``^literal`` pattern starts
    with: a lint compiles every pattern of a file and matches none, and a kept search function
    with its cells took more memory than the rule it belongs to.  Until then it does not keep
    its compiled pattern: :func:`_compiled`'s bounded cache does (a 1 MB file of distinct
    rules kept 20,000 compiled patterns, 3.9 MB of Python objects, and PCRE2's code)."""

    __slots__ = ("_search", "_shape", "_source")

    def __init__(self, source: str, nocase: bool = False) -> None:
        self._source = source
        if len(source) <= _PLAIN_MAX and source and not source.strip(_PLAIN):
            # Plain literal characters only (q17036): what its compile would tell is known -
            # it compiles, has no group, does not match "" - and the pattern is compiled when
            # first searched (a 1 MB file of <If "%{QUERY_STRING} =~ /qN/"> blocks compiled
            # each one to learn this, a third of an <If>'s parse; issue 10).
            shape = _Shape(1, nocase, (), False)
        else:
            pattern = _compiled(source, nocase)
            groups = pattern.groups
            # the named groups, as ``ap_regname`` lists them: (number, name); a named group
            # is a capturing group (a pattern without any has none to ask for)
            names = () if not groups else tuple(sorted(
                (number, name if isinstance(name, str) else from_bytes(name))
                for name, number in pattern.groupindex.items()))
            try:
                empty: bool | None = pattern.search(b"") is not None
            except pcre2.LibraryError:
                empty = None  # asked again (and recorded) by matches("")
            shape = _Shape(_group_count(groups), nocase, names, empty)
        if len(_SHAPES) < _MAX_SHAPES:
            shape = _SHAPES.setdefault(shape, shape)
        self._shape = shape
        # made by search() on first use: the compiled pattern (or a _TRIVIAL pattern's
        # function), or the length of the literal the pattern is anchored to until a subject
        # gets past it
        self._search: int | pcre2.Pattern | Callable[[str], Captures | None]

    @property
    def source(self) -> str:
        """The pattern as written."""
        return self._source

    @property
    def shape(self) -> RegexShape:
        """What the compile told of the pattern (groups, case, names, the empty subject):
        one tuple shared by the patterns alike."""
        return self._shape

    @property
    def nocase(self) -> bool:
        return self._shape.nocase

    @property
    def names(self) -> tuple[tuple[int, str], ...]:
        """The named groups, as ``ap_regname`` lists them: (number, name)."""
        return self._shape.names

    @property
    def captures(self) -> int:
        """The highest ``$N``/``%N`` a match of this pattern gives a value: its capturing
        groups as compiled, at most 9 (``ap_regexec`` fills ``MAX_REG_MATCH`` slots)."""
        return self._shape.groups - 1

    def search(self, subject: str) -> Captures | None:
        """The groups of a match of *subject*, or None.  A subject that does not start with
        the literal the pattern is anchored to (``^p5/``) cannot match (PCRE2 fails it at its
        first code unit too): it is answered by comparing that literal, and the compiled pattern
        is fetched and kept only once a subject gets past it (a request over a 1 MB file's
        20,000 distinct ``^pN/`` rules kept 10 MB of search functions and compiled patterns).
        What is kept is the compiled pattern itself (shared by the Regexes of the pattern while
        :func:`_compiled`'s cache holds it), searched here: a search function of its own, with
        its cells and bound search, cost ~410 bytes a pattern besides it (issue 10).

        The empty subject a pattern does not match is answered from its compile (``shape.empty``)
        without fetching the pattern: lint's requests have an empty query string, and a 1 MB
        file of ``<If "%{QUERY_STRING} =~ /qN/">`` blocks compiled each pattern a third time to
        search "" (the cache had let it go since the parse) and kept it, 17,037 of them."""
        if not subject and self._shape.empty is False:
            return None
        try:
            state = self._search
        except AttributeError:
            state = self._search = self._first_state()
        kind = state.__class__
        if kind is int:
            # the literal is source[1:state + 1], compared without being kept
            if not subject.startswith(self.source[1:state + 1]):
                return None
            state = self._search = self._searcher()
            kind = state.__class__
        if kind is not _Pattern:
            return state(subject)  # type: ignore[operator]  # (a _TRIVIAL pattern's)
        data = subject.encode("utf-8", "surrogateescape")  # to_bytes(), inlined
        try:
            m = state.search(data)  # type: ignore[union-attr]
        except pcre2.LibraryError as exc:
            return _gave_up(self.source, subject, exc)
        return Captures(m, data, self._shape.groups) if m is not None else None

    def _first_state(self) -> int | pcre2.Pattern | Callable[[str], Captures | None]:
        """The length of the literal the pattern is anchored to (a small int, shared), or
        what :meth:`_searcher` gives when there is none."""
        prefix = None if self._shape.nocase else _required_prefix(self.source)
        return len(prefix) if prefix else self._searcher()

    def matches(self, subject: str) -> bool:
        """Whether *subject* matches, as ``search`` decides, without keeping the compiled
        pattern (a lint asks each pattern of a file once: a search function and its cells,
        kept on each of a 1 MB file's 20,000 rules, were 6.7 MB)."""
        if not subject and self._shape.empty is not None:
            return self._shape.empty  # asked when it was compiled (a lint asks every pattern)
        state = getattr(self, "_search", None)
        if state is None or state.__class__ is int:
            state = self._searcher()
        if state.__class__ is not _Pattern:
            return state(subject) is not None  # type: ignore[operator]
        data = to_bytes(subject)
        try:
            return state.search(data) is not None  # type: ignore[union-attr]
        except pcre2.LibraryError as exc:
            _gave_up(self.source, subject, exc)
            return False

    def search_span(self, subject: bytes) -> tuple[int, int, Captures] | None:
        """A match in *subject* (bytes) with the byte offsets of ``$0`` (for callers that
        splice the replacement in, as mod_headers' ``edit`` does)."""
        try:
            m = self._pattern().search(subject)
        except pcre2.LibraryError as exc:
            return self._gave_up(from_bytes(subject), exc)
        if m is None:
            return None
        return m.start(), m.end(), Captures(m, subject, self._shape.groups)

    def named_groups(self, subject: str) -> list[tuple[str, str]] | None:
        """The named groups that took part in a match of *subject* (name, value), any group
        number (not only ``$0``–``$9``); None when it does not match."""
        data = to_bytes(subject)
        try:
            m = self._pattern().search(data)
        except pcre2.LibraryError as exc:
            return self._gave_up(subject, exc)
        if m is None:
            return None
        out = []
        for number, name in self.names:
            value = m.group(number)
            if value is not None:
                out.append((name, from_bytes(value)))
        return out

    def _searcher(self) -> pcre2.Pattern | Callable[[str], Captures | None]:
        """What :meth:`search` searches with: the compiled pattern, or for the handful of
        patterns that match anything (:data:`_TRIVIAL`) a function that answers without PCRE
        (:func:`_trivial_function`); either one for all the Regexes of the same pattern and
        case flag."""
        source = self.source
        if source in _TRIVIAL:
            return _trivial_function(source)
        return _compiled(source, self._shape.nocase)

    def _pattern(self) -> pcre2.Pattern:
        """The compiled pattern (it compiled when this was made)."""
        return _compiled(self.source, self.nocase)

    def _gave_up(self, subject: str, exc: pcre2.LibraryError) -> None:
        return _gave_up(self.source, subject, exc)

    def __repr__(self) -> str:
        return f"Regex({self.source!r}{', NC' if self.nocase else ''})"


def _group_count(groups: int) -> int:
    """The groups a match of a pattern with *groups* capturing groups fills, ``$0``
    included: at most :data:`MAX_REG_MATCH` (``ap_regexec``'s slots)."""
    return min(groups + 1, MAX_REG_MATCH)


@functools.lru_cache(maxsize=1024)
def _compiled(source: str, nocase: bool) -> pcre2.Pattern:
    """*source* compiled as Apache compiles it, once per pattern and case flag: a tree of
    access files repeats the same few patterns (a compiled pattern is only read, so the
    ``Regex`` objects of equal patterns share it).  A pattern that does not compile raises
    every time."""
    flags = _DEFAULT_FLAGS | (pcre2.IGNORECASE if nocase else 0)
    # No JIT: Apache does not JIT, and the JIT gives up at other points (see above).
    return pcre2.compile(_as_apache_compiles(to_bytes(source)), flags, jit=JIT)


@functools.cache  # (at most one per pattern of _TRIVIAL)
def _trivial_function(source: str) -> Callable[[str], Captures | None]:
    """The search function of one of the handful of patterns that match "anything" (``^``,
    ``.*``, ``^(.*)$`` …: :data:`_TRIVIAL`), answered without calling PCRE; the result is the
    same.  One per pattern (the case flag changes nothing)."""
    nonempty, whole, groups = _TRIVIAL[source]
    if not nonempty and not whole:
        # ``^`` and the empty pattern match every subject with an empty $0: one
        # shared, read-only result.
        constant = Captures(None, b"", groups, [""] * groups)
        return lambda subject: constant

    def anything(subject: str) -> Captures | None:
        if nonempty and not subject:
            return None
        g0 = subject if whole else ("" if not nonempty else _first_byte(subject))
        return Captures(None, b"", groups, [g0] * groups)
    return anything


_LITERAL = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                     "/-_~%,;:@&=!<>'\" ")
_QUANTIFIERS = frozenset("?*+{")
# Characters that are a literal of their own wherever they stand in a pattern (no
# metacharacter, no escape; PCRE2 without EXTENDED: space and # are literals) and a bound
# well under PCRE2's largest compiled pattern: a non-empty pattern of these alone compiles,
# has no group and does not match the empty subject (Regex.__init__, checked against the
# compile by tests/model/test_regex_plain_shape.py).
_PLAIN = "".join(sorted(_LITERAL))
_PLAIN_MAX = 4096


def _required_prefix(source: str) -> str:
    """The ASCII literal every match of *source* (compiled case-sensitively) starts the
    subject with: the characters after a leading ``^`` up to the first one that is not a
    plain literal, less the last when a quantifier follows it.  ``""`` when there is none or
    the pattern has a ``|`` anywhere (an alternative need not be anchored).  Without
    MULTILINE (Apache never sets it) a leading ``^`` matches only at the subject's start, and
    an ASCII prefix is the same in the subject's UTF-8 bytes as in its text."""
    if not source.startswith("^") or "|" in source:
        return ""
    end = 1
    while end < len(source) and source[end] in _LITERAL:
        end += 1
    if end < len(source) and source[end] in _QUANTIFIERS:
        end -= 1
    return source[1:end] if end > 1 else ""


def _gave_up(source: str, subject: str, exc: pcre2.LibraryError) -> None:
    """PCRE2 stopped (match, depth or heap limit): ``ap_regexec`` returns an error code,
    which every caller takes as "no match"."""
    limits.record(f"PCRE {exc} for pattern {shorten(source)!r} on "
                  f"{shorten(subject)!r} ({len(to_bytes(subject))} bytes): Apache "
                  "takes this as no match")


def _as_apache_compiles(pattern: bytes) -> bytes:
    """Undo what the Python binding adds to PCRE2's defaults, so a pattern means what it means
    to httpd: the binding always sets ``ALT_BSUX`` (``\\x{..}`` is then not an escape, ``\\u``
    is) and ``NEVER_BACKSLASH_C``.  ``\\x{hh}`` becomes ``\\xhh``, ``\\C`` (one code unit: one
    byte here) becomes ``(?s:.)``, and ``\\u``/``\\U`` are refused as PCRE2 refuses them."""
    if b"\\" not in pattern:
        return pattern
    out = bytearray()
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c != 0x5C or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        nxt = pattern[i + 1]
        if nxt == 0x51:  # \Q ... \E: literal, copied as is
            end = pattern.find(b"\\E", i + 2)
            end = n if end < 0 else end + 2
            out += pattern[i:end]
            i = end
        elif nxt == 0x78 and pattern[i + 2:i + 3] == b"{":  # \x{hh}
            close = pattern.find(b"}", i + 3)
            digits = pattern[i + 3:close] if close > 0 else b""
            if digits and all(d in b"0123456789abcdefABCDEF" for d in digits):
                value = int(digits, 16)
                if value > 0xFF:
                    raise UnsupportedEscape("character code point value in \\x{} is too large")
                out += b"\\x%02x" % value
                i = close + 1
            else:
                out += pattern[i:i + 2]
                i += 2
        elif nxt in (0x75, 0x55):  # \u \U
            raise UnsupportedEscape("PCRE2 does not support \\F, \\L, \\l, \\N{name}, \\U, "
                                    "or \\u")
        elif nxt == 0x43:  # \C
            out += b"(?s:.)"
            i += 2
        else:
            out += pattern[i:i + 2]
            i += 2
    return bytes(out)


# pattern -> (needs a non-empty subject, $0 is the whole subject, number of groups incl. $0)
_TRIVIAL: dict[str, tuple[bool, bool, int]] = {
    "": (False, False, 1), "^": (False, False, 1),
    ".*": (False, True, 1), "^.*": (False, True, 1), "^.*$": (False, True, 1),
    "(.*)": (False, True, 2), "^(.*)": (False, True, 2), "^(.*)$": (False, True, 2),
    ".": (True, False, 1),
    ".+": (True, True, 1), "^.+": (True, True, 1), "^.+$": (True, True, 1),
    "(.+)": (True, True, 2), "^(.+)": (True, True, 2), "^(.+)$": (True, True, 2),
}


def shorten(text: str, keep: int = 60) -> str:
    """*text* cut to about *keep* characters for a message (start and end kept)."""
    if len(text) <= keep:
        return text
    return f"{text[:keep - 20]}…{text[-15:]}"


def _first_byte(subject: str) -> str:
    return subject[0] if subject[0] < "\x80" else from_bytes(to_bytes(subject)[:1])


def compile_error(source: str, nocase: bool = False) -> str | None:
    """The compile error message for *source*, or None when it compiles."""
    try:
        Regex(source, nocase)
    except RegexError as exc:
        return str(exc)
    return None
