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
            seen_exact: dict[tuple[str, ...], Directive] = {}
            seen_key: dict[tuple[str, ...], Directive] = {}
            indexes: list[Directive] = []
            for d in scope.directives:
                if d.lname in REPEATABLE:
                    continue
                exact = (d.lname, *d.args)
                if exact in seen_exact:
                    first = seen_exact[exact]
                    yield self.finding(d, f"{d.name} {' '.join(d.args)} repeats line "
                                          f"{first.line}: the repetition changes nothing",
                                       severity=Severity.info)
                    continue
                seen_exact[exact] = d
                if d.lname == "directoryindex":
                    indexes.append(d)
                keyer = SINGLE.get(d.lname)
                key = keyer(d) if keyer is not None else None
                if key is None:
                    continue
                earlier = seen_key.get(key)
                seen_key[key] = d
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
