"""DUP002: the same directive twice in one section."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import Rule, register
from confmig.lint.scopes import Scope
from confmig.syntax import Directive

# Directives where repeating is the point (each line adds), or which other rules cover.
REPEATABLE = frozenset({
    "rewritecond", "rewriterule", "rewriteengine", "rewritemap", "rewriteoptions",
    "include", "includeoptional", "loadmodule", "loadfile", "listen", "define",
})
_HEADER_CONDITIONS = frozenset({"always", "onsuccess"})
_OVERRIDING = frozenset({"set", "unset", "setifempty"})   # Header actions a later line undoes


def _header_key(lname: str, words: list[str]) -> tuple[str, ...] | None:
    """``Header [always] set|unset|setifempty NAME …`` → (directive, table, name).

    add/append/merge/edit accumulate, and a line with ``env=``/``expr=`` applies only to
    some responses, so those never count as overridden.
    """
    if len(words) < 2:
        return None
    action = words[0].lower()
    table = "onsuccess"
    at = 1
    if action in _HEADER_CONDITIONS:
        if len(words) < 3:
            return None
        table, action, at = action, words[1].lower(), 2
    if action not in _OVERRIDING:
        return None
    for word in words[at + 1:]:
        word = word.lower()
        if word.startswith(("env=", "expr=")) or word == "early":
            return None
    return (lname, table, words[at].lower())


def _first_arg(lname: str, args: list[str]) -> tuple[str, ...] | None:
    return (lname, args[0].lower()) if args else None


def _name_only(lname: str, args: list[str]) -> tuple[str, ...] | None:
    return (lname,)


def _absolute_options(lname: str, args: list[str]) -> tuple[str, ...] | None:
    if any(a[:1] in "+-" for a in args):
        return None  # relative Options merge with the earlier line
    return (lname,)


# Directives a later line replaces in the same section, and what identifies "the same".
SINGLE: dict[str, Callable[[str, list[str]], tuple[str, ...] | None]] = {
    "header": _header_key, "requestheader": _header_key,
    "errordocument": _first_arg, "expiresbytype": _first_arg, "php_value": _first_arg,
    "php_flag": _first_arg, "php_admin_value": _first_arg, "php_admin_flag": _first_arg,
    "setenv": _first_arg,
    "options": _absolute_options,
    **{name: _name_only for name in (
        "expiresactive", "expiresdefault", "adddefaultcharset", "serversignature",
        "fileetag", "forcetype", "sethandler", "defaulttype", "allowoverride",
        "documentroot", "servername", "limitrequestbody", "fallbackresource", "authname",
        "authtype", "authuserfile", "authgroupfile", "directoryslash", "rewritebase",
        "hostnamelookups", "servertokens", "traceenable")},
}


def _exact(d: Directive) -> tuple[str, ...]:
    """A line's identity as written: an exact repetition changes nothing."""
    return (d.lname, *d.args)


def _key(d: Directive) -> tuple[str, ...] | None:
    """What a later line replaces it by (:data:`SINGLE`); None: nothing replaces it."""
    keyer = SINGLE.get(d.lname)
    return keyer(d.lname, d.args) if keyer is not None else None


def _same_exact(a: Directive, b: Directive) -> bool:
    """``_exact(a) == _exact(b)``, without making the two tuples."""
    return a.lname == b.lname and a.args == b.args


class _Seen:
    """Directives by key, each key held as its hash only.

    A dict of the key tuples themselves (a lowered copy of each header name among them) held
    ~230 bytes per directive: 9 MB for a 1 MB file of distinct lines (issue 10).  A key is
    worked out again only for a directive whose hash is already there, to tell an equal key
    from a collision (or ``same`` is asked, when given: whether two directives' keys are
    equal).
    """

    __slots__ = ("_by_hash", "_key_of", "_same")

    def __init__(self, key_of: Callable[[Directive], tuple[str, ...] | None],
                 same: Callable[[Directive, Directive], bool] | None = None) -> None:
        self._key_of = key_of
        self._same = same
        # hash → the directive, or the directives whose different keys share that hash
        self._by_hash: dict[int, Directive | list[Directive]] = {}

    def first(self, key: tuple[str, ...], d: Directive) -> Directive | None:
        """The directive seen first with ``key``; None (and ``d`` kept) when it is new."""
        return self._put(hash(key), d, False, key)

    def last(self, key: tuple[str, ...], d: Directive) -> Directive | None:
        """The directive seen last with ``key`` before ``d``, which replaces it."""
        return self._put(hash(key), d, True, key)

    def first_at(self, at: int, d: Directive) -> Directive | None:
        """:meth:`first`, given ``d``'s key's hash or any other number that equal keys have
        (the key is worked out if needed)."""
        return self._put(at, d, False, None)

    def last_at(self, at: int, d: Directive) -> Directive | None:
        """:meth:`last`, given ``d``'s key's hash or any other number equal keys have."""
        return self._put(at, d, True, None)

    def _put(self, at: int, d: Directive, replace: bool, key: tuple[str, ...] | None
             ) -> Directive | None:
        found = self._by_hash.get(at)
        if found is None:
            self._by_hash[at] = d
            return None
        others = found if isinstance(found, list) else [found]
        same = self._equal(others, d, key)
        if same is None:
            self._by_hash[at] = [*others, d]
        elif replace:
            kept = [o for o in others if o is not same]
            self._by_hash[at] = [*kept, d] if kept else d
        return same

    def _equal(self, others: list[Directive], d: Directive, key: tuple[str, ...] | None
               ) -> Directive | None:
        """The directive of ``others`` whose key is ``d``'s (``key``, when known)."""
        if self._same is not None:
            for other in others:
                if self._same(other, d):
                    return other
            return None
        if key is None:
            key = self._key_of(d)
        for other in others:
            if self._key_of(other) == key:
                return other
        return None


_NO_KEY = 0   # the print of "no key" (a key's print is never 0)


def _print(key: tuple[str, ...]) -> int:
    """A key's 32-bit print: equal keys have equal prints (a print met twice is compared by
    its keys, :class:`_Seen`)."""
    return hash(key) & 0xFFFFFFFF or 1


def _prints(lname: str, args: list[str]) -> tuple[int, int]:
    """The prints of a line's two keys (:func:`_exact`, :func:`_key`; ``_NO_KEY``: none),
    from one read of its words."""
    keyer = SINGLE.get(lname)
    key = keyer(lname, args) if keyer is not None else None
    return _print((lname, *args)), _NO_KEY if key is None else _print(key)


def _line_prints(directives: list[Directive]) -> Iterator[tuple[Directive, int, int]]:
    """Each directive that is not :data:`REPEATABLE`, with its keys' prints (a line equal to
    the one before it takes that line's, without working them out again).  Equal words are
    not an equal line: the file's table gives equal argument texts one word list, so the
    name is compared as well ("TraceEnable Off" after "ServerSignature Off")."""
    last_name = ""
    last_args: list[str] | None = None
    at_exact = at_key = _NO_KEY
    for d in directives:
        lname = d.lname
        if lname in REPEATABLE:
            continue
        args = d.args
        if lname is not last_name or (args is not last_args and args != last_args):
            at_exact, at_key = _prints(lname, args)
        last_name, last_args = lname, args
        yield d, at_exact, at_key


def _bits(directives: int) -> int:
    """The number of bits of each bit table for ``directives`` keys: a power of two, 16 to
    32 a key (so that ~95 % of the keys met once are alone in their bit)."""
    return 1 << max(6, (16 * directives).bit_length())


@register
class DuplicateDirective(Rule):
    code = "DUP002"
    name = "duplicate-directive"
    summary = "directive repeated in one section: the later line wins or the repeat is redundant"
    rationale = (
        "Within one section most directives keep only their last value: a second "
        "'Header set X-Frame-Options' replaces the first (verified on Apache 2.4: the "
        "response carries the later value), a second absolute 'Options' line discards the "
        "first, a second 'ErrorDocument 404' replaces the first. The earlier line is dead "
        "and misleads the reader. A few directives add up instead — two DirectoryIndex "
        "lines make one list (verified: the second line's file is served when the first's "
        "is missing) — and an exact repetition of a line never changes anything."
    )
    bad = ('Header set X-Frame-Options "DENY"\nOptions -Indexes\n'
           'Header set X-Frame-Options "SAMEORIGIN"\n')
    good = 'Options -Indexes\nHeader set X-Frame-Options "SAMEORIGIN"\n'
    severity = Severity.warning
    fix = "keep one line"

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        for scope in ctx.scopes():
            yield from self._check_scope(scope)

    def _check_scope(self, scope: Scope) -> Iterator[Finding]:
        """The scope's directives are read twice.  First a 32-bit print of each one's two
        keys (:func:`_exact`, :func:`_key`; ``_NO_KEY``: none) is worked out, and its bit
        (the print's low bits) set in a table of prints met once, or, when set there
        already, in a table of prints met more than once.  A key whose bit is met once has
        no equal, so in the second reading, which works the prints out again, only the
        others are kept and compared (:class:`_Seen`).  Keeping every key's hash in a
        dictionary cost an int and a slot per directive (~117 bytes a line in the two maps:
        4.7 MB for a 1 MB file of distinct lines, issue 10); keeping each directive's two
        prints between the readings cost 8 bytes a line more (0.32 MB for that file, at the
        peak of its lint): here a directive costs 2 to 4 bits in each table, and the tables
        of prints met once are freed before the second reading."""
        directives = scope.directives
        if len(directives) < 2:
            return  # (no pair, and a single DirectoryIndex line)
        bits = _bits(len(directives))
        mask = bits - 1
        exact_once, exact_more = bytearray(bits >> 3), bytearray(bits >> 3)
        key_once, key_more = bytearray(bits >> 3), bytearray(bits >> 3)
        for _, at_exact, at_key in _line_prints(directives):
            slot = at_exact & mask
            if exact_once[slot >> 3] & (1 << (slot & 7)):
                exact_more[slot >> 3] |= 1 << (slot & 7)
            else:
                exact_once[slot >> 3] |= 1 << (slot & 7)
            if at_key != _NO_KEY:
                slot = at_key & mask
                if key_once[slot >> 3] & (1 << (slot & 7)):
                    key_more[slot >> 3] |= 1 << (slot & 7)
                else:
                    key_once[slot >> 3] |= 1 << (slot & 7)
        del exact_once, key_once
        seen_exact = _Seen(_exact, _same_exact)
        seen_key = _Seen(_key)
        indexes: list[Directive] = []
        for d, at_exact, at_key in _line_prints(directives):
            slot = at_exact & mask
            if exact_more[slot >> 3] & (1 << (slot & 7)):
                first = seen_exact.first_at(at_exact, d)
                if first is not None:
                    yield self.finding(d, f"{d.name} {' '.join(d.args)} repeats line "
                                          f"{first.line}: the repetition changes nothing",
                                       severity=Severity.info)
                    continue
            if d.lname == "directoryindex":
                indexes.append(d)
            slot = at_key & mask
            if at_key == _NO_KEY or not key_more[slot >> 3] & (1 << (slot & 7)):
                continue
            earlier = seen_key.last_at(at_key, d)
            if earlier is not None:
                yield self.finding(
                    earlier, f"{earlier.name} {' '.join(earlier.args)} is overridden by "
                             f"line {d.line} ({d.name} {' '.join(d.args)}) in "
                             f"{scope.label}: only the later one applies")
        if len(indexes) > 1 and not any(
                a.lower() == "disabled" for d in indexes for a in d.args):
            names = " ".join(a for d in indexes for a in d.args)
            yield self.finding(indexes[-1], f"{len(indexes)} DirectoryIndex lines in "
                                            f"{scope.label} add up: Apache looks for "
                                            f"{names}, in that order",
                               severity=Severity.info, hint="write one DirectoryIndex line")
