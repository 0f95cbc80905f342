"""RW002: a per-directory RewriteRule pattern that starts with ``^/``."""

from __future__ import annotations

from collections.abc import Iterator

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import Rule, register


def leading_slash(pattern: str) -> bool:
    """``^/…`` or ``^\\/…`` with the slash required (not ``^/?``, ``^/*``, ``^/{0,1}``) and
    no alternation that could match without it."""
    for prefix in ("^/", "^\\/"):
        if pattern.startswith(prefix):
            rest = pattern[len(prefix):]
            return not rest.startswith(("?", "*", "{0")) and "|" not in pattern
    return False


@register
class SlashPatternInPerDir(Rule):
    code = "RW002"
    name = "leading-slash-in-per-dir-pattern"
    summary = "per-directory RewriteRule pattern starts with ^/ and never matches"
    rationale = (
        "In a .htaccess file or a <Directory> section, mod_rewrite strips the directory "
        "prefix — including its trailing slash — before matching, so the pattern sees "
        "'foo/bar', never '/foo/bar'. A pattern anchored as '^/' therefore never matches "
        "(and a negated '!^/…' always matches). Verified on Apache 2.4: with "
        "'RewriteRule ^/foo$ /bar.txt' GET /foo is a 404; with '^foo$' it serves /bar.txt. "
        "Server and <VirtualHost> context match the URL-path, which does start with '/'."
    )
    bad = "RewriteEngine On\nRewriteRule ^/old-page$ /new-page [R=301,L]\n"
    good = "RewriteEngine On\nRewriteRule ^old-page$ /new-page [R=301,L]\n"
    severity = Severity.error
    fix = "drop the slash after ^ (or write ^/? to accept both contexts)"

    file_directives = frozenset({"rewrite*"})  # it reads the mod_rewrite sections

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        for scope in ctx.rewrite_scopes():
            if not scope.strips_prefix:
                continue
            for rule in scope.rewrite.rules:
                if rule.directive is None or not leading_slash(rule.pattern):
                    continue
                where = scope.label
                if rule.negate:
                    message = (f"RewriteRule pattern '!{rule.pattern}' in {where} always "
                               "matches: per-directory paths never start with '/'")
                else:
                    message = (f"RewriteRule pattern '{rule.pattern}' in {where} never "
                               "matches: Apache strips the directory prefix, so the path "
                               "has no leading '/'")
                yield self.finding(rule.directive, message)
