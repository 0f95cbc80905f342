"""SYN006: a quote that is never closed."""

from __future__ import annotations

from collections.abc import Iterator

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import Rule, register
from confmig.lint.rules.syn.comments import unclosed_quote
from confmig.syntax import Directive, Section


@register
class UnbalancedQuote(Rule):
    code = "SYN006"
    name = "unbalanced-quote"
    summary = "An argument opens a quote that is never closed"
    rationale = (
        "Apache does not reject an unclosed quote: the argument silently runs to the end of "
        "the line (so `Header set X-Frame-Options \"DENY` sends `DENY`, but `Header set X \"a b` "
        "swallows everything after the quote into one value). It is almost always a typo, and "
        "other tools that read the file (converters, editors, other parsers) disagree with "
        "Apache about it."
    )
    bad = 'Header set X-Frame-Options "SAMEORIGIN\n'
    good = 'Header set X-Frame-Options "SAMEORIGIN"\n'
    severity = Severity.warning
    fix = "close the quote"

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        if ctx.source and b'"' not in ctx.source and b"'" not in ctx.source:
            return  # no quote anywhere in the file
        for node in ctx.raw_nodes():
            if not isinstance(node, Directive | Section):
                continue
            offset = unclosed_quote(node.args_text)
            if offset is None:
                continue
            word = node.args_text[offset:]
            column = ctx.line_text(node.line).find(word[:8]) + 1
            yield Finding(self.code, f"{node.name}: the quote in `{word[:30]}` is never closed; "
                          "Apache reads the rest of the line as one argument", node.file,
                          node.line, max(column, node.column), self.severity, self.fix)
