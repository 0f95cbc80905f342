"""RW011: an [R] rule without [L] followed by more rules."""

from __future__ import annotations

from collections.abc import Iterator

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding
from confmig.lint.rule import Rule, register


@register
class RedirectWithoutLast(Rule):
    code = "RW011"
    name = "redirect-without-last"
    summary = "RewriteRule [R] without [L]: the following rules still rewrite the target"
    rationale = (
        "[R] does not stop the rule set. mod_rewrite turns the target into a full URL "
        "(http://host/path) and goes on with the next rules, which match against — and can "
        "rewrite — that URL; the redirect is only sent when the rule set ends. Verified on "
        "Apache 2.4: 'RewriteRule ^a$ /b.txt [R=302]' followed by "
        "'RewriteRule b\\.txt$ /c.txt [R=302,L]' redirects /a to /c.txt. Nearly always [L] "
        "was meant."
    )
    bad = ("RewriteEngine On\nRewriteRule ^old$ /new [R=301]\n"
           "RewriteCond %{REQUEST_FILENAME} !-f\nRewriteRule ^ index.php [L]\n")
    good = ("RewriteEngine On\nRewriteRule ^old$ /new [R=301,L]\n"
            "RewriteCond %{REQUEST_FILENAME} !-f\nRewriteRule ^ index.php [L]\n")
    fix = "add L: [R=301,L]"

    file_directives = frozenset({"rewrite*"})  # it reads the mod_rewrite sections

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        for scope in ctx.rewrite_scopes():
            rules = scope.rewrite.rules
            for i, rule in enumerate(rules):
                if rule.directive is None or not rule.redirect or rule.status_flag:
                    continue
                if rule.last or rule.end or rule.chain or rule.skip:
                    continue
                later = len(rules) - i - 1
                if later:
                    yield self.finding(
                        rule.directive,
                        f"RewriteRule [{rule.flags_text.strip('[]')}] redirects without [L]: "
                        f"the {later} rule(s) after it still run and can change the target")
