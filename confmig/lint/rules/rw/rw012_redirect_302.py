"""RW012: [R] without a status code answers 302."""

from __future__ import annotations

from collections.abc import Iterator

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import Rule, register


def bare_redirect(flags_text: str) -> bool:
    """``R`` / ``redirect`` written without a code (``R=`` with nothing after it too)."""
    items = [i.strip().lower() for i in flags_text[1:-1].split(",")] if flags_text else []
    return any(i.rstrip("=") in ("r", "redirect") for i in items)


@register
class RedirectDefault302(Rule):
    code = "RW012"
    name = "redirect-without-status"
    summary = "RewriteRule [R] without a status code sends 302 (temporary)"
    rationale = (
        "[R] alone answers 302 Found (verified on Apache 2.4). Browsers and search engines "
        "treat that as temporary: nothing is cached and rankings stay with the old URL. "
        "For a move that is meant to last, say so with R=301 (or 308 to keep the method); "
        "write R=302 when temporary is what you mean, and this note goes away."
    )
    bad = "RewriteEngine On\nRewriteRule ^old-page$ /new-page [R,L]\n"
    good = "RewriteEngine On\nRewriteRule ^old-page$ /new-page [R=301,L]\n"
    severity = Severity.info
    fix = "write the status: [R=301,L] (permanent) or [R=302,L] (temporary)"

    file_directives = frozenset({"rewrite*"})  # it reads the mod_rewrite sections

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        for scope in ctx.rewrite_scopes():
            for rule in scope.rewrite.rules:
                if rule.directive is None or not rule.redirect or rule.status_flag:
                    continue
                if bare_redirect(rule.flags_text):
                    yield self.finding(rule.directive,
                                       f"RewriteRule {rule.flags_text} has no status code: "
                                       "Apache sends 302 (temporary)")
