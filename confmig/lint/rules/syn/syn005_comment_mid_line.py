"""SYN005: a ``#`` after a directive is not a comment."""

from __future__ import annotations

from collections.abc import Iterator

from confmig.apache.arity import arity_problem, reads_one_word
from confmig.lint.context import FileContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import Rule, register
from confmig.lint.rules.syn.comments import comment_start
from confmig.syntax import Directive
from confmig.syntax.words import split_words

# Directives whose every argument is checked against a fixed vocabulary: '#' is always invalid.
_STRICT = frozenset({"options", "allowoverride", "require", "order", "satisfy"})


@register
class CommentMidLine(Rule):
    code = "SYN005"
    name = "comment-after-directive"
    summary = "A `#` after a directive is read as arguments, not as a comment"
    rationale = (
        "Apache only treats `#` as a comment at the start of a line. `Options -Indexes # no "
        "listing` passes `#`, `no` and `listing` to Options, which fails (500 in .htaccess, no "
        "start in a server config); other directives take the words as more extensions, values "
        "or flags, or silently ignore them. Either way the line does not do what it says."
    )
    bad = "Options -Indexes # no directory listings\n"
    good = "# no directory listings\nOptions -Indexes\n"
    severity = Severity.warning
    fix = "move the comment to its own line above the directive"

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        if ctx.source and b"#" not in ctx.source:
            return  # no '#' anywhere in the file
        effective: set[tuple[int, int]] | None = None  # made only when a comment is found
        for node in ctx.raw_nodes():
            if not isinstance(node, Directive):
                continue
            offset = comment_start(node.args_text)
            if offset is None:
                continue
            before = split_words(node.args_text[:offset])
            comment = node.args_text[offset:]
            if effective is None:
                effective = {(n.line, n.column) for n in ctx.directive_nodes()}
            fatal = (ctx.read_by_apache and (node.line, node.column) in effective
                     and self._fatal(ctx, node, before))
            where = ("Apache answers 500 for every request under this directory"
                     if ctx.kind == "htaccess" else "Apache refuses to start")
            consequence = where if fatal else "Apache reads it as arguments"
            short = comment if len(comment) <= 40 else comment[:37] + "..."
            column = ctx.line_text(node.line).find(comment[:10]) + 1
            yield Finding(self.code, f"`{short}` is not a comment after {node.name}: "
                          f"{consequence}", node.file, node.line, max(column, node.column),
                          Severity.error if fatal else Severity.warning, self.fix)

    def _fatal(self, ctx: FileContext, node: Directive, before: list[str]) -> bool:
        if node.lname in _STRICT:
            return True
        if node.lname in ("rewriterule", "rewritecond") and len(before) == 2:
            return True  # the '#' word lands where the [flags] go: "bad flag delimiters"
        info = ctx.info(node)
        if info is not None and reads_one_word(getattr(info, "syntax", None), node.name):
            return False  # a FLAG reads one word and ignores the rest
        problem = arity_problem(node.name, node.args)
        return problem is not None and problem[0] == "error" and \
            arity_problem(node.name, before) is None
