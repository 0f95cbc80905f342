"""RW005: rules after an unconditional catch-all that stops processing."""

from __future__ import annotations

from collections.abc import Iterator

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding
from confmig.lint.rule import Rule, register
from confmig.model.rewrite.parse import RewriteRule

# Paths a catch-all must match: the empty per-directory path, plain, nested, odd bytes.
_SAMPLES = ("", "a", "index.php", "a/b/c.html", "/x/y", "wp-admin/", "a b", "\n", "é")


def is_catch_all(rule: RewriteRule) -> bool:
    """The pattern matches every path (``^``, ``.*``, ``^(.*)$``…) and is not negated."""
    return not rule.negate and all(map(rule.regex.matches, _SAMPLES))


def stops(rule: RewriteRule) -> str | None:
    """The flag that ends the rule set for every request this rule matches.

    A rule with [R] or [NS] is skipped in sub-requests, and [C] hands on to the next
    rule, so those never make the rest unreachable.
    """
    if (rule.redirect and not rule.status_flag) or rule.nosubreq or rule.chain:
        return None
    if rule.status_flag:
        return {403: "F", 410: "G"}.get(rule.redirect_code, f"R={rule.redirect_code}")
    if rule.end:
        return "END"
    if rule.last:
        return "L"
    if rule.proxy:
        return "P"
    return None


@register
class UnreachableRewriteRules(Rule):
    code = "RW005"
    name = "rules-after-catch-all"
    summary = "RewriteRules after an unconditional catch-all [L]/[END]/[F]/[G] never run"
    rationale = (
        "A RewriteRule whose pattern matches every path ('^', '.*', '^(.*)$'), with no "
        "RewriteCond, and with a flag that stops the rule set (L, END, F, G, P) ends "
        "processing for every request: the rules after it in the same section are never "
        "tried. In .htaccess an [L] rewrite re-runs the rule set on the new URL, and the "
        "catch-all matches again first. Verified on Apache 2.4: after "
        "'RewriteRule ^ - [L]', a following 'RewriteRule ^a$ b.txt' never applies."
    )
    bad = ("RewriteEngine On\nRewriteRule ^(.*)$ index.php [L]\n"
           "RewriteRule ^old$ /new [R=301,L]\n")
    good = ("RewriteEngine On\nRewriteRule ^old$ /new [R=301,L]\n"
            "RewriteCond %{REQUEST_FILENAME} !-f\nRewriteRule ^(.*)$ index.php [L]\n")
    fix = "move the catch-all last, or give it the RewriteCond lines it was meant to have"

    file_directives = frozenset({"rewrite*"})  # it reads the mod_rewrite sections

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        for scope in ctx.rewrite_scopes():
            rules = scope.rewrite.rules
            for i, rule in enumerate(rules):
                if rule.conditions or rule.directive is None:
                    continue
                flag = stops(rule)  # before the pattern, which may have to compile again
                if flag is None or not is_catch_all(rule):
                    continue
                rest = [r for r in rules[i + 1:] if r.directive is not None]
                if rest:
                    first = rest[0]
                    assert first.directive is not None
                    more = f" (and {len(rest) - 1} more after it)" if len(rest) > 1 else ""
                    yield self.finding(
                        first.directive,
                        f"this RewriteRule{more} is never reached: the unconditional "
                        f"catch-all '{rule.pattern}' [{flag}] at line {rule.directive.line} "
                        "matches every request first")
                break
