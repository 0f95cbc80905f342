"""RW003: a RewriteCond with no RewriteRule after it in its section."""

from __future__ import annotations

from collections.abc import Iterator

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding
from confmig.lint.rule import Rule, register


@register
class DanglingRewriteCond(Rule):
    code = "RW003"
    name = "dangling-rewrite-cond"
    summary = "RewriteCond is not followed by a RewriteRule in its section: it is ignored"
    rationale = (
        "A RewriteCond only applies to the next RewriteRule of the same configuration "
        "section. Conditions left at the end of a .htaccess file or of a <Directory>, "
        "<VirtualHost>… section are kept aside and never evaluated — Apache does not warn. "
        "Verified on Apache 2.4: a rule followed by 'RewriteCond %{HTTP_HOST} ^nomatch$' "
        "still applies to every request. Conditions written after the rule they were meant "
        "for, or a rule moved into an <IfModule>/<Files> block of its own, cause this."
    )
    bad = ("RewriteEngine On\nRewriteRule ^old$ /new [R=301,L]\n"
           "RewriteCond %{HTTP_HOST} ^www\\.example\\.com$\n")
    good = ("RewriteEngine On\nRewriteCond %{HTTP_HOST} ^www\\.example\\.com$\n"
            "RewriteRule ^old$ /new [R=301,L]\n")
    fix = "move the RewriteCond lines right above the RewriteRule they guard"

    file_directives = frozenset({"rewrite*"})  # it reads the mod_rewrite sections

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        for scope in ctx.rewrite_scopes():
            dangling = scope.rewrite.dangling_conditions
            for cond in dangling:
                if cond.directive is None:
                    continue
                yield self.finding(
                    cond.directive,
                    f"RewriteCond {cond.test} {cond.raw_pattern} has no RewriteRule after it "
                    f"in {scope.label}: Apache never evaluates it")
