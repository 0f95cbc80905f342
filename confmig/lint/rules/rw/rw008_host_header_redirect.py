"""RW008: a redirect whose host comes from the client's Host header, unvalidated."""

from __future__ import annotations

import re
from collections.abc import Iterator

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding
from confmig.lint.rule import Rule, register
from confmig.lint.rules.rw.refs import Ref, group_count, scan
from confmig.model.rewrite.parse import Condition, RewriteRule

_HOST_NAMES = frozenset({"HTTP_HOST", "HTTP:HOST"})
# "scheme://" with the scheme literal or from a variable (%{REQUEST_SCHEME}://…).
_SCHEME = re.compile(r"^(?:[a-z][a-z0-9+.-]*(?:%\d)?|%\{[A-Za-z_:-]+\})://", re.I)
# A host pattern with nothing open-ended in it: literals, escaped dots, groups, | and ?.
_LITERAL_HOST = re.compile(r"^\^(?:[A-Za-z0-9:_-]|\\[.-]|[()|?])+\$$")


def reads_host(text: str) -> bool:
    return any(r.kind == "var" and r.name.upper() in _HOST_NAMES for r in scan(text))


def validates_host(cond: Condition) -> bool:
    """A positive check of the Host header against fixed names (``^(www\\.)?example\\.com$``,
    ``=example.com``)."""
    if cond.negate or not reads_host(cond.test):
        return False
    if cond.kind == "=":
        return bool(cond.pattern)
    return cond.kind == "regex" and bool(_LITERAL_HOST.match(cond.pattern))


def _host_end(text: str, start: int) -> int:
    """Where the host part of ``text[start:]`` ends: the first '/', '?' or '#' outside
    a ``%{…}``/``${…}`` reference."""
    i, n = start, len(text)
    while i < n:
        if text[i] in "%$" and text[i + 1:i + 2] == "{":
            close = text.find("}", i)
            i = n if close < 0 else close + 1
        elif text[i] in "/?#":
            return i
        else:
            i += 1
    return n


def host_ref(rule: RewriteRule) -> Ref | None:
    """A reference in the host part of the target (between ``scheme://`` and the path)."""
    subst = rule.substitution
    m = _SCHEME.match(subst)
    if m is None:
        return None
    end = _host_end(subst, m.end())
    for ref in scan(subst):
        if not m.end() <= ref.offset < end:
            continue
        if ref.kind == "var" and ref.name.upper() in _HOST_NAMES:
            return ref
        if ref.kind == "cond":
            source = _captured_from(rule.conditions)
            if source is not None and reads_host(source.test):
                return ref
    return None


def _captured_from(conditions: list[Condition]) -> Condition | None:
    """The last positive regex condition with groups (what ``%N`` refers to)."""
    for cond in reversed(conditions):
        if cond.kind == "regex" and not cond.negate and group_count(cond.pattern):
            return cond
    return None


@register
class HostHeaderRedirect(Rule):
    code = "RW008"
    name = "redirect-to-host-header"
    summary = "redirect target's host comes from the client's Host header, unvalidated"
    rationale = (
        "%{HTTP_HOST} is whatever the client sent in its Host header. A redirect built from "
        "it ('https://%{HTTP_HOST}%{REQUEST_URI}') sends the client to any host it names — "
        "verified on Apache 2.4: with 'Host: evil.example' the Location header is "
        "https://evil.example/…. Behind a cache or a proxy that forwards Host, this poisons "
        "cached redirects (host-header injection / open redirect). The default virtual host "
        "answers every Host; a condition that checks the host against your own names, or a "
        "literal host name in the target, closes the hole."
    )
    bad = ("RewriteEngine On\nRewriteCond %{HTTPS} off\n"
           "RewriteRule ^ https://%{HTTP_HOST}%{REQUEST_URI} [R=301,L]\n")
    good = ("RewriteEngine On\nRewriteCond %{HTTPS} off\n"
            "RewriteCond %{HTTP_HOST} ^(www\\.)?example\\.com$ [NC]\n"
            "RewriteRule ^ https://%{HTTP_HOST}%{REQUEST_URI} [R=301,L]\n")
    fix = "write the host name literally, or check %{HTTP_HOST} against your names first"

    file_directives = frozenset({"rewrite*"})  # it reads the mod_rewrite sections

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        for scope in ctx.rewrite_scopes():
            for rule in scope.rewrite.rules:
                if rule.directive is None or rule.status_flag:
                    continue
                if not (rule.redirect or rule.proxy or _SCHEME.match(rule.substitution)):
                    continue
                ref = host_ref(rule)
                if ref is None or any(validates_host(c) for c in rule.conditions):
                    continue
                what = "proxies to" if rule.proxy else "redirects to"
                shown = f"%{{{ref.name}}}" if ref.kind == "var" else f"%{ref.name}"
                yield self.finding(
                    rule.directive,
                    f"RewriteRule {what} '{rule.substitution}': the host ({shown}) is the "
                    "client's Host header and no RewriteCond checks it against your names")
