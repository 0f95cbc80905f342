"""CTX003: a .htaccess file under ``AllowOverride None``: Apache never reads it."""

from __future__ import annotations

from collections.abc import Iterator

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import Rule, register
from confmig.syntax import Directive, Section


@register
class HtaccessNeverRead(Rule):
    code = "CTX003"
    name = "htaccess-ignored"
    summary = "AllowOverride None is in force: Apache never reads this .htaccess"
    rationale = (
        "With AllowOverride None (Apache's default since 2.3.9) and no AllowOverrideList for "
        "the directory, Apache does not even open the .htaccess file: every directive in it is "
        "silently ignored — no error, no effect. Redirects, access rules and headers written "
        "there do nothing."
    )
    bad = "Require all denied\n"
    good = "# empty: the rules live in the server's <Directory> block\n"
    severity = Severity.warning
    example_allow_override = ("None",)
    fix = "set AllowOverride for the directory, or move the directives into its <Directory>"

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        if ctx.kind != "htaccess" or ctx.read_by_apache:
            return
        first = next((n for n in ctx.raw_nodes() if isinstance(n, Directive | Section)), None)
        if first is None:
            return
        count = sum(1 for n in ctx.raw_nodes() if isinstance(n, Directive | Section))
        source = ctx.overrides.source or "Apache's default"
        yield self.finding(first, f"AllowOverride None is in force for {ctx.directory} "
                                  f"({source}): Apache never reads this file, its {count} "
                                  f"directive{'s' if count != 1 else ''} are ignored")
