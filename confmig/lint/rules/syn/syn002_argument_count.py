"""SYN002: a directive with the wrong number of arguments."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from confmig.apache.arity import arity_of, arity_problem
from confmig.lint.context import FileContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import ANY_DIRECTIVE, Rule, register
from confmig.lint.rules.syn.comments import comment_start
from confmig.syntax import Directive, Section


@register
class ArgumentCount(Rule):
    code = "SYN002"
    name = "wrong-argument-count"
    summary = "A directive has too few or too many arguments"
    rationale = (
        "Apache checks the number of arguments of every directive when it reads it. Too few or "
        "too many is a configuration error: in .htaccess Apache answers 500 for every request "
        "under the directory, in a server config it refuses to start. On/Off (FLAG) "
        "directives, RewriteRule and RewriteCond are the exception for extra words: Apache "
        "reads the value (mod_rewrite: pattern, substitution and flags) and silently ignores "
        "anything after it. The counts were measured on Apache itself for every directive of "
        "the modules Debian ships (tools/probe_arity.py)."
    )
    bad = "RewriteEngine On\nRewriteRule ^old$\n"
    good = "RewriteEngine On\nRewriteRule ^old$ /new [R=301,L]\n"
    severity = Severity.error
    fix = "give the directive the arguments its syntax asks for (`confmig rule SYN002`)"

    directives = frozenset({ANY_DIRECTIVE})

    def check_directive(self, node: Directive | Section, parents: tuple[Section, ...],
                        ctx: FileContext) -> Iterable[Finding]:
        # The common case — no finding — is answered without making a generator: every
        # directive of every file comes here.  (The text is read once: a directive whose words
        # are kept cuts it from its line again on each read.)
        text = node.args_text
        if "#" not in text and "${" not in text and arity_problem(node.name, node.args) is None:
            return ()
        return self._check(node, ctx)

    def _check(self, node: Directive | Section, ctx: FileContext) -> Iterator[Finding]:
        if comment_start(node.args_text) is not None:
            return  # SYN005 explains a '#' read as arguments
        if "${" in node.args_text:
            return  # an undefined variable: the count is unknown
        problem = arity_problem(node.name, node.args)
        if problem is None:
            return
        info = ctx.info(node)
        if info is not None and not ctx.assumed_defaults and not ctx.module_loaded(info):
            return  # Apache stops at "Invalid command" first: SYN003 says so
        arity = arity_of(node.lname)
        if arity is not None and arity.type == "FLAG" and not node.args:
            return  # SYN004: "must be On or Off"
        kind, message = problem
        if kind == "ignored":
            extra = " ".join(arity.ignored(node.args)) if arity else ""
            after = ("after the flags" if node.lname in ("rewriterule", "rewritecond")
                     else 'after an empty argument ""' if arity and arity.type in
                     ("ITERATE", "ITERATE2") else "after the value")
            yield self.finding(
                node, f"{node.name}: Apache ignores the extra argument(s) {after} "
                      f"({extra})",
                hint="remove the extra words", severity=Severity.warning)
            return
        where = ("Apache answers 500 for every request under this directory"
                 if ctx.kind == "htaccess" else "Apache refuses to start")
        yield self.finding(node, f"{message} ({where})")
