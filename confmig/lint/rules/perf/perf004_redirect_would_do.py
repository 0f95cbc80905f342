"""PERF004: a one-to-one RewriteRule redirect that mod_alias expresses directly."""

from __future__ import annotations

import re
from collections.abc import Iterator

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import Rule, register
from confmig.lint.rules.rw.refs import scan
from confmig.model.rewrite.parse import RewriteRule
from confmig.model.rewrite.uri import is_absolute_uri

# A pattern with nothing but literal characters (escaped dots allowed), anchored both ends.
_LITERAL = re.compile(r"^\^((?:[A-Za-z0-9/_~,;:@!&=+-]|\\[./-])*)\$$")


def simple_redirect(rule: RewriteRule) -> bool:
    """No conditions, no back-references, [L], a target mod_alias accepts (a URL-path or
    an absolute URL), nothing mod_alias cannot do."""
    if rule.conditions or rule.negate or not rule.redirect or rule.status_flag:
        return False
    if not (rule.last or rule.end) or not (rule.substitution.startswith("/")
                                           or is_absolute_uri(rule.substitution)[0]):
        return False
    if rule.qsappend or rule.qsdiscard or rule.noescape or rule.chain or rule.nocase:
        return False
    if rule.env or rule.cookies or rule.skip or rule.escape_backrefs:
        return False
    return bool(rule.substitution) and not scan(rule.substitution)


@register
class RedirectWouldDo(Rule):
    code = "PERF004"
    name = "use-redirect"
    summary = "a fixed one-to-one RewriteRule redirect: RedirectMatch says it directly"
    rationale = (
        "'RewriteRule ^old$ /new [R=301,L]' with no conditions and no back-references is a "
        "fixed redirect. mod_alias's 'RedirectMatch 301 ^/old$ /new' (or 'Redirect 301 "
        "/old /new' for a whole prefix) does the same without the rewrite engine, keeps "
        "the query string the same way, and reads the same in .htaccess and server "
        "config, where the mod_rewrite pattern would need a leading slash."
    )
    bad = "RewriteEngine On\nRewriteRule ^old-page\\.html$ /new-page.html [R=301,L]\n"
    good = "RedirectMatch 301 ^/old-page\\.html$ /new-page.html\n"
    severity = Severity.info
    fix = "use RedirectMatch (mod_alias)"

    file_directives = frozenset({"rewrite*"})  # it reads the mod_rewrite sections

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        for scope in ctx.rewrite_scopes():
            prefix = scope.url_base
            for rule in scope.rewrite.rules:
                if rule.directive is None or not simple_redirect(rule):
                    continue
                m = _LITERAL.match(rule.pattern)
                if m is None:
                    continue
                path = m.group(1)
                if scope.context == "directory" and path.startswith("/"):
                    continue  # RW002: it never matches
                url = prefix + path if scope.context == "directory" else path
                status = rule.redirect_code or 302
                replacement = f"RedirectMatch {status} ^{url}$ {rule.substitution}"
                yield self.finding(rule.directive,
                                   f"a fixed redirect: '{replacement}' does the same",
                                   hint=f"replace with '{replacement}'")
