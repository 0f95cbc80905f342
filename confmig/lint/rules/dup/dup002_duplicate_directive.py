"""DUP002: the same directive twice in one section."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import Rule, register
from confmig.syntax import Directive

# Directives where repeating is the point (each line adds), or which other rules cover.
REPEATABLE = frozenset({
    "rewritecond", "rewriterule", "rewriteengine", "rewritemap", "rewriteoptions",
    "include", "includeoptional", "loadmodule", "loadfile", "listen", "define",
})
_HEADER_CONDITIONS = frozenset({"always", "onsuccess"})


def _header_key(d: Directive) -> tuple[str, ...] | None:
    """``Header [always] set|unset|setifempty NAME …`` → (directive, table, name).

    add/append/merge/edit accumulate, and a line with ``env=``/``expr=`` applies only to
    some responses, so those never count as overridden.
    """
    args = [a.lower() for a in d.args]
    table = args.pop(0) if args and args[0] in _HEADER_CONDITIONS else "onsuccess"
    if len(args) < 2 or args[0] not in ("set", "unset", "setifempty"):
        return None
    if any(a.startswith(("env=", "expr=")) or a == "early" for a in args[2:]):
        return None
    return (d.lname, table, args[1])


def _first_arg(d: Directive) -> tuple[str, ...] | None:
    return (d.lname, d.args[0].lower()) if d.args else None


def _name_only(d: Directive) -> tuple[str, ...] | None:
    return (d.lname,)


def _absolute_options(d: Directive) -> tuple[str, ...] | None:
    if any(a[:1] in "+-" for a in d.args):
        return None  # relative Options merge with the earlier line
    return (d.lname,)


# Directives a later line replaces in the same section, and what identifies "the same".
SINGLE: dict[str, Callable[[Directive], tuple[str, ...] | None]] = {
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
    return keyer(d) if keyer is not None else None


class _Seen:
    """Directives by key, each key held as its hash only.

    A dict of the key tuples themselves (a lowered copy of each header name among them) held
    ~230 bytes per directive: 9 MB for a 1 MB file of distinct lines (issue 10).  A key is
    worked out again only for a directive whose hash is already there, to tell an equal key
    from a collision.
    """

    __slots__ = ("_by_hash", "_key_of")

    def __init__(self, key_of: Callable[[Directive], tuple[str, ...] | None]) -> None:
        self._key_of = key_of
        # hash → the directive, or the directives whose different keys share that hash
        self._by_hash: dict[int, Directive | list[Directive]] = {}

    def first(self, key: tuple[str, ...], d: Directive) -> Directive | None:
        """The directive seen first with ``key``; None (and ``d`` kept) when it is new."""
        return self._put(key, d, replace=False)

    def last(self, key: tuple[str, ...], d: Directive) -> Directive | None:
        """The directive seen last with ``key`` before ``d``, which replaces it."""
        return self._put(key, d, replace=True)

    def _put(self, key: tuple[str, ...], d: Directive, replace: bool) -> Directive | None:
        at = hash(key)
        found = self._by_hash.get(at)
        if found is None:
            self._by_hash[at] = d
            return None
        others = found if isinstance(found, list) else [found]
        same = next((o for o in others if self._key_of(o) == key), None)
        if same is None:
            self._by_hash[at] = [*others, d]
        elif replace:
            kept = [o for o in others if o is not same]
            self._by_hash[at] = [*kept, d] if kept else d
        return same


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
            seen_exact = _Seen(_exact)
            seen_key = _Seen(_key)
            indexes: list[Directive] = []
            for d in scope.directives:
                if d.lname in REPEATABLE:
                    continue
                first = seen_exact.first(_exact(d), d)
                if first is not None:
                    yield self.finding(d, f"{d.name} {' '.join(d.args)} repeats line "
                                          f"{first.line}: the repetition changes nothing",
                                       severity=Severity.info)
                    continue
                if d.lname == "directoryindex":
                    indexes.append(d)
                key = _key(d)
                if key is None:
                    continue
                earlier = seen_key.last(key, d)
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
