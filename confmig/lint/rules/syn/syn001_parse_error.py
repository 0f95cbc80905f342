"""SYN001: the file cannot be read as Apache reads it."""

from __future__ import annotations

from collections.abc import Iterator

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import Rule, register


@register
class ParseError(Rule):
    code = "SYN001"
    name = "parse-error"
    summary = "The file does not parse: Apache rejects it"
    rationale = (
        "A section that is never closed, a closing tag with no opening one, or a conditional "
        "section Apache cannot evaluate stops Apache reading the file. In a .htaccess file "
        "Apache answers 500 Internal Server Error for every request under that directory; in a "
        "server config Apache refuses to start. Nothing else in the file is checked until it "
        "parses. This rule cannot be disabled: a file that does not parse is never "
        "'no issues found'."
    )
    bad = '<Files "wp-config.php">\n    Require all denied\n'
    good = '<Files "wp-config.php">\n    Require all denied\n</Files>\n'
    severity = Severity.error
    fix = "close every <Section> with </Section>, in the order they were opened"

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        seen: set[tuple[int, int, str]] = set()
        errors = list(ctx.config.errors) + list(ctx.loaded.errors)
        for error in errors:
            if error.file != ctx.path and ctx.kind != "htaccess":
                continue
            key = (error.line, error.column, error.message)
            if key in seen:
                continue
            seen.add(key)
            consequence = ("Apache answers 500 for every request under this directory"
                           if ctx.kind == "htaccess" else "Apache refuses to start")
            yield Finding(self.code, f"{error.message} ({consequence})", ctx.path,
                          max(error.line, 1), max(error.column, 1), self.severity, self.fix)
        for warning in ctx.config.warnings:
            # A conditional never closed: Apache accepts it while the condition is true
            # (when false, the loader reported "Expected </X> before end of configuration").
            if (warning.line, warning.column) in {(k[0], k[1]) for k in seen}:
                continue
            yield Finding(self.code, warning.message, ctx.path, max(warning.line, 1),
                          max(warning.column, 1), Severity.warning, self.fix)
